package lobby

// StopWatching ends what the other sessions of s's player watch, and s's
// own watching: a player who takes a seat in a race room watches nothing
// else (one room at a time). Each session that watched a game, or a race
// room, is told with WatchEnded and reason; what it tells the lobby it
// does next follows from there: it is at the menu, and who shows the
// player as s shows them. The player's sessions on the other servers
// stop too (told through the WatchNet, when the lobby watches across
// servers), so the watched player's count drops everywhere. A guest's
// other sessions are not the same player's, and are left alone.
func (l *Lobby) StopWatching(s *Session, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, own := range l.ownLocked(s) {
		if own.gone {
			continue
		}
		if own == s {
			l.unwatchLocked(own)
			continue
		}
		l.stopOtherWatchingLocked(own, reason)
	}
	l.tellStopWatchingLocked(playerKey(s.player), reason) // watch_remote.go
}

// stopOtherWatchingLocked ends what s watches because another session of
// its player (here or on another server) took a seat in a race room.
func (l *Lobby) stopOtherWatchingLocked(s *Session, reason string) {
	watched := s.doing
	l.unwatchLocked(s)
	if watched.What == Watching {
		// At the menu now, but not as a change of its own: who shows
		// the session that changed last, and that is the racer's
		// (its tui saying so later changes nothing).
		l.setDoingLocked(s, Doing{What: AtMenu})
		l.postLocked(s, WatchEnded{Name: watched.Watched, Reason: reason})
	}
}

// applyStopWatchingLocked applies another server's news that the player
// key took a seat in a race room to its sessions here.
func (l *Lobby) applyStopWatchingLocked(key, reason string) {
	if key == "" {
		return
	}
	for _, own := range l.byPlayer[key] {
		if !own.gone {
			l.stopOtherWatchingLocked(own, reason)
		}
	}
}
