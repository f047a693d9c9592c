package lobby

// Presence across servers: each server of a cluster tells the others its
// roster (who is connected to it and what each does) and keeps theirs,
// so that Who on any server lists every server's players. Package
// cluster carries the rosters; the lobby says what its roster is
// (Roster), when it may have changed (PresenceNet), and what the others
// said (HearRoster, ForgetServer).
//
// What another server said of a player lives RemoteConfig.TTL from when
// it was heard: each server says its whole roster again every
// Heartbeat, so the players of a server that dies without a word vanish
// from the others within the TTL (SweepRoster), and a server that stops
// takes its players with it at once (ForgetServer).
//
// The daily board's results cross too: a result recorded here is told
// to the others (PresenceNet.DailyFinished), and their viewers of the
// board read it again (from the shared store) as for one of their own
// (HearDaily).

import (
	"errors"
	"strconv"
	"time"
)

// PresenceNet tells the other servers of a cluster of this one's roster
// (package cluster does it over a bus). The lobby calls it with its lock
// held: neither method may wait, nor call the lobby.
type PresenceNet interface {
	// RosterChanged says that who is connected here, or what one of
	// them does, may have changed: Roster says what.
	RosterChanged()
	// DailyFinished says that a result of rulesID's deal of date was
	// recorded here (Lobby.DailyFinished).
	DailyFinished(rulesID, date string)
}

// RemoteConfig is how long what the other servers said holds.
type RemoteConfig struct {
	// TTL is how long another server's player stays listed without
	// being heard of again.
	TTL time.Duration
	// Heartbeat is how often every server says its whole roster: a
	// server not heard of for two is taken to be down (Watch does not
	// ask it, ErrServerDown).
	Heartbeat time.Duration
}

// RosterEntry is a player of one server's roster: this server's as
// Roster lists them, another's as HearRoster takes them.
type RosterEntry struct {
	// Key names the entry in its server's roster: the player's ID, or
	// "guest:" and the session's number for a guest.
	Key string
	// Presence is the player, what they do, the session shown and when
	// it joined; its Instance is the lobby's to set.
	Presence
	// Changed is when what the player does last changed: a player with
	// sessions on several servers is listed with the one that changed
	// last.
	Changed time.Time
}

// peers is a lobby's presence across servers, guarded by the lobby's
// mu.
type peers struct {
	net    PresenceNet
	cfg    RemoteConfig
	remote map[string]map[string]*remoteEntry // by server, by entry key
}

// remoteEntry is another server's player as last heard of.
type remoteEntry struct {
	Presence
	changed time.Time
	expires time.Time
}

// AttachPresence makes n tell the other servers of this one's roster; n
// in turn tells the lobby of theirs (HearRoster, ForgetServer,
// SweepRoster, HearDaily), and Who and Online count their players too.
// A lobby has one PresenceNet.
func (l *Lobby) AttachPresence(n PresenceNet, cfg RemoteConfig) error {
	if cfg.TTL <= 0 || cfg.Heartbeat <= 0 {
		return errors.New("lobby: presence across servers: a TTL and a heartbeat are needed")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.peers != nil || l.closed {
		return errors.New("lobby: presence across servers: attached already, or closed")
	}
	l.peers = &peers{net: n, cfg: cfg, remote: map[string]map[string]*remoteEntry{}}
	l.ver.Add(1) // a listing built before has no local part (roster)
	return nil
}

// Roster is this server's players as the other servers list them: its
// part of Who (each player once, with the session that changed last),
// built outside the lobby's lock. It is empty until AttachPresence.
func (l *Lobby) Roster() []RosterEntry {
	r := l.rosterAtLeast(l.ver.Load())
	out := make([]RosterEntry, len(r.local))
	for i, e := range r.local {
		key := e.ID
		if key == "" || e.Guest {
			key = "guest:" + strconv.FormatUint(e.Session, 10)
		}
		out[i] = RosterEntry{Key: key, Presence: e.Presence, Changed: e.changed}
	}
	return out
}

// HearRoster takes what the server called server said of its roster:
// the entries up are new, changed or still there (each lives the TTL
// from now), the entries of the keys gone are not.
func (l *Lobby) HearRoster(server string, up []RosterEntry, gone []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.peers
	if c == nil || server == "" {
		return
	}
	if c.applyLocked(server, up, gone, l.now()) {
		l.changedLocked()
	}
}

// ForgetServer forgets the players of the server called server at once:
// it said it stops.
func (l *Lobby) ForgetServer(server string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.peers
	if c == nil {
		return
	}
	if _, had := c.remote[server]; had {
		delete(c.remote, server)
		l.changedLocked()
	}
}

// SweepRoster forgets the other servers' players whose time to live ran
// out (Who lists none of them already), and tells the viewers of
// presence when there were any.
func (l *Lobby) SweepRoster() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.peers; c != nil && c.sweepLocked(l.now()) {
		l.changedLocked()
	}
}

// HearDaily tells this server's viewers of the daily board that a result
// of rulesID's deal of date was recorded on another server.
func (l *Lobby) HearDaily(rulesID, date string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dailyChangedLocked(rulesID, date)
}

// applyLocked applies one server's entries; it reports whether the
// listing changed.
func (c *peers) applyLocked(server string, up []RosterEntry, gone []string, now time.Time) bool {
	entries := c.remote[server]
	if entries == nil {
		entries = map[string]*remoteEntry{}
		c.remote[server] = entries
	}
	changed := false
	for _, key := range gone {
		if _, ok := entries[key]; ok {
			delete(entries, key)
			changed = true
		}
	}
	for _, u := range up {
		e := &remoteEntry{Presence: u.Presence, changed: u.Changed, expires: now.Add(c.cfg.TTL)}
		e.Instance = server
		if old, ok := entries[u.Key]; !ok || old.Presence != e.Presence {
			changed = true
		}
		entries[u.Key] = e
	}
	if len(entries) == 0 {
		delete(c.remote, server)
	}
	return changed
}

// sweepLocked forgets the entries whose time to live ran out; it reports
// whether there were any.
func (c *peers) sweepLocked(now time.Time) bool {
	swept := false
	for inst, entries := range c.remote {
		for key, e := range entries {
			if !now.Before(e.expires) {
				delete(entries, key)
				swept = true
			}
		}
		if len(entries) == 0 {
			delete(c.remote, inst)
		}
	}
	return swept
}

// remoteOnlineLocked is how many players of other servers Who lists that
// this server's do not.
func (l *Lobby) remoteOnlineLocked() int {
	c := l.peers
	if c == nil {
		return 0
	}
	now := l.now()
	n := 0
	seen := map[string]bool{}
	for _, entries := range c.remote {
		for _, e := range entries {
			if !now.Before(e.expires) {
				continue
			}
			key := playerKey(e.Player)
			if key == "" {
				n++
				continue
			}
			if seen[key] || l.byPlayer[key] != nil {
				continue
			}
			seen[key] = true
			n++
		}
	}
	return n
}
