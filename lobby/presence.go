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
	// Removed is how many pyramid cards the game has removed (Playing,
	// Racing).
	Removed int
	// Room is the race room's code (Racing).
	Room string
	// Watched is the name of the player watched (Watching).
	Watched string
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
	// server of the cluster (Cluster); empty for this one.
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
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.gone || s.doing == d {
		return
	}
	s.doing, s.changed = d, l.now()
	l.changedLocked()
}

// Doing returns what a session is doing.
func (l *Lobby) Doing(s *Session) Doing {
	l.mu.Lock()
	defer l.mu.Unlock()
	return s.doing
}

// Who is a snapshot of who is online, by name (case-insensitively): each
// player once, each guest session apart.
func (l *Lobby) Who() []Presence {
	l.mu.Lock()
	out := l.withRemoteLocked(l.localWhoLocked())
	l.mu.Unlock()
	// Sorted outside the lock: every move of every player takes it
	// (SetDoing), and a thousand names take a while to sort.
	sortPresence(out)
	return out
}

// localWhoLocked is Who of this server's sessions alone, in no order.
func (l *Lobby) localWhoLocked() []Presence {
	shown := map[string]*Session{}
	out := make([]Presence, 0, len(l.sessions))
	for _, s := range l.sessions {
		key := playerKey(s.player)
		if key == "" {
			out = append(out, presence(s))
			continue
		}
		if cur := shown[key]; cur == nil || s.changed.After(cur.changed) || s.changed.Equal(cur.changed) && s.id > cur.id {
			shown[key] = s
		}
	}
	for _, s := range shown {
		out = append(out, presence(s))
	}
	return out
}

// sortPresence sorts a listing by name, case-insensitively: each name is
// lowered once, not once per comparison.
func sortPresence(out []Presence) {
	type keyed struct {
		name string
		p    Presence
	}
	ks := make([]keyed, len(out))
	for i, p := range out {
		ks[i] = keyed{strings.ToLower(p.Name), p}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.p.Instance, b.p.Instance), cmp.Compare(a.p.Session, b.p.Session))
	})
	for i := range ks {
		out[i] = ks[i].p
	}
}

func presence(s *Session) Presence {
	return Presence{Player: s.player, Doing: s.doing, Session: s.id, Joined: s.joined}
}

// Online is how many are online: the length of Who.
func (l *Lobby) Online() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.onlineLocked()
}

func (l *Lobby) onlineLocked() int {
	n := len(l.byPlayer) + l.remoteOnlineLocked()
	for _, s := range l.sessions {
		if playerKey(s.player) == "" {
			n++
		}
	}
	return n
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
		s.queue.Coalesce(presenceKey, PresenceChanged{Online: l.onlineLocked()})
	} else {
		l.viewers--
	}
}

// changedLocked notes a change of presence. Viewers are told at once when
// they were last told PresenceEvery ago or more; otherwise one flush is
// scheduled for when PresenceEvery has passed, and every change until
// then rides on it. So a burst of n joins costs each viewer at most one
// event per PresenceEvery and the lobby one pass over the viewers, never
// n passes.
func (l *Lobby) changedLocked() {
	if l.cluster != nil {
		l.cluster.pokeLocked()
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
func (l *Lobby) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		return // stopped by Close
	}
	l.pending = nil
	l.flushLocked()
}

func (l *Lobby) flushLocked() {
	l.lastFlush = l.now()
	if l.viewers == 0 {
		return
	}
	ev := PresenceChanged{Online: l.onlineLocked()}
	for _, s := range l.sessions {
		if s.viewer {
			s.queue.Coalesce(presenceKey, ev)
		}
	}
}
