package lobby

// DailyChanged tells a viewer of the daily board that a result of the
// day's deal was just recorded: it should read the board again. Viewers
// get it coalesced: a burst of results costs a slow reader one reload.
type DailyChanged struct {
	// Rules is the rule set's ID ("daily"); Date the UTC date of the
	// deal (2006-01-02).
	Rules, Date string
}

// dailyKey is the key DailyChanged coalesces under.
const dailyKey = "daily"

// WatchDaily makes a session a viewer of the daily board (on) or not: a
// viewer gets DailyChanged whenever DailyFinished is called.
func (l *Lobby) WatchDaily(s *Session, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !s.gone {
		s.daily = on
	}
}

// DailyFinished tells the viewers of the daily board that a result of
// rulesID's deal of date was recorded, on every server of the cluster
// (PresenceNet). It never waits on a viewer or the other servers.
func (l *Lobby) DailyFinished(rulesID, date string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.peers != nil {
		l.peers.net.DailyFinished(rulesID, date)
	}
	l.dailyChangedLocked(rulesID, date)
}

// dailyChangedLocked tells this server's viewers of the daily board.
func (l *Lobby) dailyChangedLocked(rulesID, date string) {
	ev := DailyChanged{Rules: rulesID, Date: date}
	for _, s := range l.sessions {
		if s.daily {
			s.queue.Coalesce(dailyKey, ev)
		}
	}
	l.tellObserversLocked(dailyKey+"/"+rulesID+"/"+date, ev)
}

// PlayingRules is how many are playing a game of rulesID now, each
// player once (each guest session apart), as Who counts them: on every
// server of the cluster. A player whose game is over (Doing.Finished) is
// not playing it.
func (l *Lobby) PlayingRules(rulesID string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	players := map[string]bool{}
	count := func(p Player) {
		key := playerKey(p)
		if key == "" {
			n++
		} else if !players[key] {
			players[key] = true
			n++
		}
	}
	for _, s := range l.sessions {
		if s.doing.What == Playing && !s.doing.Finished && s.doing.Rules == rulesID {
			count(s.player)
		}
	}
	if c := l.peers; c != nil {
		// The other servers' players, as their last roster said.
		now := l.now()
		for _, entries := range c.remote {
			for _, e := range entries {
				if now.Before(e.expires) && e.What == Playing && !e.Finished && e.Rules == rulesID {
					count(e.Player)
				}
			}
		}
	}
	return n
}
