package lobby

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Activity is what kind of thing a session is doing.
type Activity string

// The activities of a session.
const (
	AtMenu   Activity = "menu"     // in the menu or any screen that is not a game
	Playing  Activity = "playing"  // playing a game of its own
	Racing   Activity = "racing"   // in a race room
	Watching Activity = "watching" // watching another player
)

// Doing is what a session is doing, as others see it.
type Doing struct {
	What Activity
	// Rules is the rules ID of the game played (Playing, Racing).
	Rules string
	// Deal is the deal number (Playing, Racing), unless Custom.
	Deal uint64
	// Custom: a deal given as text, which has no number.
	Custom bool
	// Hidden: the deal's number may not be shown yet (DealShown), so
	// Deal is 0.
	Hidden bool
	// Removed is how many pyramid cards the game has removed (Playing,
	// Racing).
	Removed int
	// Finished (Playing only): the game is over, won or lost, and the
	// player is still at its table. Such a player is not counted among
	// those playing a rule set (PlayingRules: the live daily board's
	// "N playing now").
	Finished bool
	// Room is the race room's code (Racing), unless Private.
	Room string
	// Private (Racing): the room is private. Nobody outside it may see
	// its code or its deal, so Room and Deal are empty (RacingIn).
	Private bool
	// Phase is where the race room stands (Racing): its waiting room, the
	// race, or its results. Empty is racing (a ghost race has no room).
	Phase RacePhase
	// Watched is the name of the player watched (Watching).
	Watched string
}

// RacingIn is what a racer in the room of s does, as presence tells it
// to every player: the room's rules, phase and the racer's removed
// cards, and the room's code and deal only when the room is public (its
// deal's number only once DealShown says so). A private room's code is
// its key (who has it may join and watch), and its deal is the members'
// business.
func RacingIn(s Snapshot, removed int) Doing {
	d := Doing{What: Racing, Rules: s.RulesID, Deal: s.Deal, Room: s.Code, Phase: s.Phase.Presence(), Removed: removed}
	if !s.Public {
		d.Room, d.Deal, d.Private = "", 0, true
		return d
	}
	return d.HideDeal(s.DealShown())
}

// RacePhase is where a racer's room stands, as presence shows it.
type RacePhase string

// The phases of a racer's room, as presence shows them.
const (
	RaceWaiting RacePhase = "waiting" // the waiting room, or its countdown
	RaceRunning RacePhase = "racing"  // the race itself
	RaceResults RacePhase = "results" // the results of the race just run
)

// Presence returns the phase as presence shows it: the countdown is still
// the waiting room, a closed room is at its results.
func (p Phase) Presence() RacePhase {
	switch p {
	case PhaseWaiting, PhaseCountdown:
		return RaceWaiting
	case PhaseResults, PhaseClosed:
		return RaceResults
	}
	return RaceRunning
}

// Presence is one player online, as a snapshot.
type Presence struct {
	Player
	Doing
	// Session is the session shown: a player with several sessions is
	// listed once, with the one that changed last.
	Session uint64
	// Joined is when that session joined.
	Joined time.Time
	// Instance names the server of that session when it is another
	// server of the cluster (HearRoster); empty for this one.
	Instance string
}

// PresenceChanged tells a viewer that who is online, or what one of them
// is doing, changed: it should read Who again. Viewers get it coalesced,
// at most one per PresenceEvery.
type PresenceChanged struct {
	// Online is how many are online now.
	Online int
}

// presenceKey is the key PresenceChanged coalesces under.
const presenceKey = "presence"

// SetDoing records what a session is doing now. The tui calls it when the
// player goes to the menu, starts or resumes a game, moves, joins a race
// or starts watching; arcade's game adapter calls it on every save.
func (l *Lobby) SetDoing(s *Session, d Doing) {
	if d.What == "" {
		d.What = AtMenu
	}
	if t := s.told.Load(); t != nil && t.doing == d {
		return // the racer's server and its tui both tell each move
	}
	t := &told{doing: d} // allocated before the lock, never under it
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.gone || s.doing == d {
		return
	}
	s.doing, s.changed = d, l.now()
	t.changed, t.player, t.lname = s.changed, s.player, s.lname
	s.told.Store(t)
	l.changedLocked()
}

// setDoingLocked changes what s is doing, as a change of presence, but
// not when it changed.
func (l *Lobby) setDoingLocked(s *Session, d Doing) {
	s.doing = d
	s.told.Store(&told{doing: d, changed: s.changed, player: s.player, lname: s.lname})
	l.changedLocked()
}

// told is what a session does as last set, and when that changed, with
// its player as named then (a player renamed in another session keeps
// the session but not the name).
type told struct {
	doing   Doing
	changed time.Time
	player  Player
	lname   string
}

// Doing returns what a session is doing.
func (l *Lobby) Doing(s *Session) Doing {
	l.mu.Lock()
	defer l.mu.Unlock()
	return s.doing
}

// Who is a snapshot of who is online, by name (case-insensitively): each
// player once, each guest session apart. It shows every change made
// before it was called. The slice is shared with every other reader of
// the same listing: it must not be changed.
//
// Readers share one listing while nothing changes, and build a new one
// outside the lobby's lock: a SetDoing never waits for a listing.
func (l *Lobby) Who() []Presence {
	return l.rosterAtLeast(l.ver.Load()).list
}

// Listed is Who as of the last time the viewers of presence were told
// of a change (at most PresenceEvery ago), or newer: what a viewer shows
// until its next PresenceChanged. All the viewers of a change share one
// listing, however busy the players are meanwhile. The slice must not be
// changed.
func (l *Lobby) Listed() []Presence {
	return l.rosterAtLeast(l.flushVer.Load()).list
}

// roster is a listing of who is online, immutable once built.
type roster struct {
	// ver is the presence version the listing shows every change of.
	ver uint64
	// list is Who.
	list []Presence
	// local is this server's part of list with when each entry changed,
	// in no order; kept only in a cluster (Roster, remote.go).
	local []localEntry
	// expires is when the first of its other servers' entries runs out
	// of time to live (zero: none), as Who never lists such an entry.
	expires time.Time
}

// showsAll reports whether r shows every change up to version v, and
// none of its entries has expired.
func (l *Lobby) showsAll(r *roster, v uint64) bool {
	return r != nil && r.ver >= v && (r.expires.IsZero() || l.now().Before(r.expires))
}

// localEntry is a local entry of a listing with when it changed.
type localEntry struct {
	Presence
	changed time.Time
}

// rosterScratch is the builders' reusable space, guarded by Lobby.build.
type rosterScratch struct {
	members []*Session
	remote  []rawEntry
	raw     []rawEntry
	picked  []rawEntry
	keyed   []keyedEntry
	at      map[string]int // player key -> index in picked
}

// rawEntry is an entry as copied under the lobby's lock.
type rawEntry struct {
	p       Presence
	lname   string
	changed time.Time
	remote  bool
}

// keyedEntry is an entry's place in the sort order.
type keyedEntry struct {
	lname, instance string
	session         uint64
	i               int // in picked
}

// rosterAtLeast returns a listing that shows every change up to version
// v: the newest built when it does, else a new one (one builder at a
// time; those that waited take the one it built when it will do).
func (l *Lobby) rosterAtLeast(v uint64) *roster {
	if r := l.snap.Load(); l.showsAll(r, v) {
		return r
	}
	l.build.Lock()
	defer l.build.Unlock()
	if r := l.snap.Load(); l.showsAll(r, v) {
		return r
	}
	r := l.buildRoster()
	l.snap.Store(r)
	return r
}

// buildRoster builds a listing: who is connected is copied under the
// lobby's lock (pointers, and the other servers' entries), what each
// does is read from what they last told, and the entries are picked
// (each player once) and sorted outside the lock.
// The caller holds l.build.
func (l *Lobby) buildRoster() *roster {
	sc := &l.scratch
	l.mu.Lock()
	r := &roster{ver: l.ver.Load()}
	members := append(sc.members[:0], l.members...)
	inCluster := l.peers != nil
	remote := sc.remote[:0]
	if c := l.peers; c != nil {
		now := l.now()
		for _, entries := range c.remote {
			for _, e := range entries {
				if now.Before(e.expires) {
					remote = append(remote, rawEntry{p: e.Presence, changed: e.changed, remote: true})
					if r.expires.IsZero() || e.expires.Before(r.expires) {
						r.expires = e.expires
					}
				}
			}
		}
	}
	l.mu.Unlock()
	// This server's sessions as they last told (each as of version
	// r.ver or later), then the other servers'.
	raw := sc.raw[:0]
	for _, s := range members {
		t := s.told.Load()
		raw = append(raw, rawEntry{p: Presence{Player: t.player, Doing: t.doing, Session: s.id, Joined: s.joined},
			lname: t.lname, changed: t.changed})
	}
	nLocal := len(raw)
	raw = append(raw, remote...)
	clear(members) // no gone session kept alive by the scratch
	sc.members, sc.remote = members, remote

	// Each player once: the session that changed last (the higher
	// session on a tie) among this server's, then another server's
	// entry when it changed later still.
	if sc.at == nil {
		sc.at = map[string]int{}
	}
	clear(sc.at)
	picked := sc.picked[:0]
	for i := range raw {
		if i == nLocal && inCluster {
			r.local = localOf(picked)
		}
		e := &raw[i]
		if e.remote {
			e.lname = strings.ToLower(e.p.Name)
		}
		key := playerKey(e.p.Player)
		if key == "" {
			picked = append(picked, *e)
			continue
		}
		j, ok := sc.at[key]
		if !ok {
			sc.at[key] = len(picked)
			picked = append(picked, *e)
			continue
		}
		cur := &picked[j]
		later := e.changed.After(cur.changed)
		if !e.remote {
			later = later || e.changed.Equal(cur.changed) && e.p.Session > cur.p.Session
		}
		if later {
			*cur = *e
		}
	}
	if inCluster && r.local == nil {
		r.local = localOf(picked)
	}
	keyed := sc.keyed[:0]
	for i, e := range picked {
		keyed = append(keyed, keyedEntry{lname: e.lname, instance: e.p.Instance, session: e.p.Session, i: i})
	}
	slices.SortFunc(keyed, func(a, b keyedEntry) int {
		return cmp.Or(cmp.Compare(a.lname, b.lname), cmp.Compare(a.instance, b.instance), cmp.Compare(a.session, b.session))
	})
	r.list = make([]Presence, len(keyed))
	for i, k := range keyed {
		r.list[i] = picked[k.i].p
	}
	// The scratch keeps its room, not its strings' owners for long: the
	// next build overwrites them.
	sc.raw, sc.picked, sc.keyed = raw, picked, keyed
	return r
}

// localOf is this server's part of a listing, for the other servers
// (Roster, remote.go): the entries picked before any other server's.
func localOf(picked []rawEntry) []localEntry {
	out := make([]localEntry, len(picked))
	for i, e := range picked {
		out[i] = localEntry{Presence: e.p, changed: e.changed}
	}
	return out
}

// Online is how many are online: the length of Who.
func (l *Lobby) Online() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.onlineLocked()
}

func (l *Lobby) onlineLocked() int {
	return len(l.byPlayer) + l.guests + l.remoteOnlineLocked()
}

// WatchPresence makes a session a viewer of presence (on) or not: a viewer
// gets PresenceChanged, coalesced, when who is online or what they do
// changes. A new viewer is told at once.
func (l *Lobby) WatchPresence(s *Session, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.gone || s.viewer == on {
		return
	}
	s.viewer = on
	if on {
		l.viewers++
		l.viewing[s.id] = s
		s.queue.Coalesce(presenceKey, PresenceChanged{Online: l.onlineLocked()})
	} else {
		l.viewers--
		delete(l.viewing, s.id)
	}
}

// changedLocked notes a change of presence. Viewers are told at once when
// they were last told PresenceEvery ago or more; otherwise one flush is
// scheduled for when PresenceEvery has passed, and every change until
// then rides on it. So a burst of n joins costs each viewer at most one
// event per PresenceEvery and the lobby one pass over the viewers, never
// n passes.
func (l *Lobby) changedLocked() {
	l.ver.Add(1)
	if l.peers != nil {
		l.peers.net.RosterChanged()
	}
	if l.pending != nil || l.closed {
		return
	}
	wait := l.every - l.now().Sub(l.lastFlush)
	if wait <= 0 {
		l.flushLocked()
		return
	}
	l.pending = time.AfterFunc(wait, l.flush)
}

// flush tells the viewers of the changes since the last time.
// The listing they will read (Listed) is built first, outside the lock,
// so that no viewer waits for another's build; the changes made while
// it was built ride on the next flush.
func (l *Lobby) flush() {
	l.mu.Lock()
	if l.pending == nil {
		l.mu.Unlock()
		return // stopped by Close
	}
	viewers := l.viewers
	v := l.ver.Load()
	l.mu.Unlock()
	if viewers > 0 {
		v = l.rosterAtLeast(v).ver
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		return // stopped by Close meanwhile
	}
	l.pending = nil
	l.flushAtLocked(v)
	if l.ver.Load() != v && !l.closed {
		l.pending = time.AfterFunc(l.every, l.flush)
	}
}

// flushLocked tells every viewer at once; what they read then (Listed)
// shows every change until now.
func (l *Lobby) flushLocked() { l.flushAtLocked(l.ver.Load()) }

// flushAtLocked tells every viewer at once; what they read then (Listed)
// shows every change up to version v.
func (l *Lobby) flushAtLocked(v uint64) {
	l.lastFlush = l.now()
	l.flushVer.Store(v)
	if l.viewers == 0 && len(l.observers) == 0 {
		return
	}
	ev := PresenceChanged{Online: l.onlineLocked()}
	for _, s := range l.viewing {
		s.queue.Coalesce(presenceKey, ev)
	}
	l.tellObserversLocked(presenceKey, ev)
}
