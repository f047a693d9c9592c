package lobby

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Player is who plays a session, as the server proved it.
type Player struct {
	// ID is the store's player ID; empty for a guest, or a player the
	// server could not look up.
	ID string
	// Name is the display name, already cleaned for any screen.
	Name  string
	Guest bool
}

// Session is one connected session in the lobby: its player, what it is
// doing, and its queue. It is the lobby's handle; only the lobby changes
// it.
type Session struct {
	id     uint64
	player Player // guarded by the lobby's mu: a rename changes the name
	lname  string // player.Name lowered: who sorts by it; as player
	queue  *Queue
	joined time.Time

	// told is doing and changed as last set, with the player as then
	// named, published for SetDoing to skip the lock when nothing
	// changes and for the listing to be built outside it (set under the
	// lobby's mu with doing and player).
	told atomic.Pointer[told]
	idx  int // in the lobby's members, guarded by its mu

	// Guarded by the lobby's mu.
	doing   Doing
	changed time.Time // when doing last changed
	viewer  bool      // gets PresenceChanged
	gone    bool      // left or dropped

	// Spectating (watch.go) and the live daily board (daily.go), guarded
	// by the lobby's mu.
	watching   *Session            // the session this one watches; nil if none
	spectators map[uint64]*Session // the sessions that watch this one
	board      Board               // this session's game as it last published it
	private    bool                // refuses spectators: "Others may watch me" is off
	daily      bool                // gets DailyChanged

	// Spectating across servers (watch_remote.go), guarded by the
	// lobby's mu: the game on another server this session watches, the
	// spectators on other servers of this one's (each until it expires
	// unless its server says it still watches), and the version of what
	// this session last sent them.
	remote      *remoteRef
	remoteSpecs map[remoteRef]time.Time
	watchVer    uint64
}

// ID is the session's number in the lobby, unique while the lobby runs.
func (s *Session) ID() uint64 { return s.id }

// Player is the session's player, as named now.
func (s *Session) Player() Player { return s.told.Load().player }

// Queue is the session's queue: its side reads it with Next.
func (s *Session) Queue() *Queue { return s.queue }

// Config is what a lobby needs from the world.
type Config struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// QueueSize is the size of each session's queue (QueueSize when 0).
	QueueSize int
	// PresenceEvery is the least time between two PresenceChanged events
	// to one viewer (PresenceEvery when 0): a burst of joins and leaves
	// costs each viewer one redraw, not one per change.
	PresenceEvery time.Duration
}

// PresenceEvery is the default least time between two presence updates
// to a viewer.
const PresenceEvery = 500 * time.Millisecond

// TakenOver tells a session that another session of its player took its
// game over: it should stop showing the game.
type TakenOver struct {
	GameID string
	// Reason says what happened to the game when it was not simply taken
	// over (e.g. it was abandoned from the other session); empty for a
	// takeover.
	Reason string
}

// Lobby owns who is connected to this server and what each is doing, and
// tells sessions what concerns them through their queues. It never waits
// on a session. Its methods are safe for concurrent use.
type Lobby struct {
	now       func() time.Time
	queueSize int
	every     time.Duration

	mu        sync.Mutex
	nextID    uint64
	sessions  map[uint64]*Session
	members   []*Session                     // the sessions, in no order (Session.idx)
	byPlayer  map[string]map[uint64]*Session // sessions of players with an ID (not guests)
	viewers   int                            // sessions with viewer set
	viewing   map[uint64]*Session            // those sessions
	guests    int                            // sessions of guests
	lastFlush time.Time                      // when viewers were last told of a change
	pending   *time.Timer                    // a flush waiting for PresenceEvery to pass; nil if none
	closed    bool

	// Takeovers across servers (AttachTakeovers); nil: this server's
	// only. takeovers counts, by player, the takeovers made here or heard
	// of from the others: a takeover told again stops once a newer came.
	takeoverNet TakeoverNet
	takeovers   map[string]uint64

	// Presence across servers (AttachPresence, remote.go); nil: this
	// server's only.
	peers *peers

	// The shared listing of who is online (presence.go): ver counts the
	// changes of presence (changed under mu, read anywhere), flushVer is
	// ver at the last flush, snap the newest listing built; build
	// serializes the builders and guards their scratch space.
	ver      atomic.Uint64
	flushVer atomic.Uint64
	snap     atomic.Pointer[roster]
	build    sync.Mutex
	scratch  rosterScratch
	// Spectating across servers (AttachWatch, watch_remote.go); nil:
	// this server's games only.
	remoteWatch *remoteWatch

	// Observers of the lobby's public news (observe.go), guarded by mu.
	observers    map[uint64]observer
	nextObserver uint64
}

// New returns an empty lobby.
func New(cfg Config) *Lobby {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = QueueSize
	}
	if cfg.PresenceEvery <= 0 {
		cfg.PresenceEvery = PresenceEvery
	}
	return &Lobby{
		now: cfg.Now, queueSize: cfg.QueueSize, every: cfg.PresenceEvery,
		sessions: map[uint64]*Session{}, byPlayer: map[string]map[uint64]*Session{},
		viewing: map[uint64]*Session{},
	}
}

// Join adds a session of p, at the menu, with a queue of its own; guests
// get one too.
func (l *Lobby) Join(p Player) *Session {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextID++
	s := &Session{id: l.nextID, player: p, lname: strings.ToLower(p.Name), queue: NewQueue(l.queueSize, l.now), joined: now,
		doing: Doing{What: AtMenu}, changed: now}
	s.told.Store(&told{doing: s.doing, changed: now, player: p, lname: s.lname})
	if l.closed {
		s.gone = true
		s.queue.Close()
		return s
	}
	l.sessions[s.id] = s
	s.idx = len(l.members)
	l.members = append(l.members, s)
	if key := playerKey(p); key != "" {
		if l.byPlayer[key] == nil {
			l.byPlayer[key] = map[uint64]*Session{}
		}
		l.byPlayer[key][s.id] = s
	} else {
		l.guests++
	}
	l.changedLocked()
	return s
}

// playerKey is the key of a player's sessions: its ID, or "" for a guest,
// whose sessions are all separate.
func playerKey(p Player) string {
	if p.Guest {
		return ""
	}
	return p.ID
}

// Leave removes a session and closes its queue. Leaving twice is
// harmless.
func (l *Lobby) Leave(s *Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.removeLocked(s)
}

// removeLocked forgets a session and closes its queue.
func (l *Lobby) removeLocked(s *Session) {
	if s.gone {
		return
	}
	s.gone = true
	s.queue.Close()
	delete(l.sessions, s.id)
	last := l.members[len(l.members)-1]
	l.members[s.idx], last.idx = last, s.idx
	l.members[len(l.members)-1] = nil
	l.members = l.members[:len(l.members)-1]
	if key := playerKey(s.player); key != "" {
		delete(l.byPlayer[key], s.id)
		if len(l.byPlayer[key]) == 0 {
			delete(l.byPlayer, key)
		}
	} else {
		l.guests--
	}
	if s.viewer {
		s.viewer = false
		l.viewers--
		delete(l.viewing, s.id)
	}
	l.forgetWatchLocked(s) // watch.go
	s.daily = false        // daily.go
	l.changedLocked()
}

// Post queues a discrete event for a session. When the queue refuses it
// and has been full for DropAfter, the session stopped reading: it is
// dropped from the lobby (its queue closes; it can join again). Post never
// waits. It reports whether the event was queued.
func (l *Lobby) Post(s *Session, ev Event) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.postLocked(s, ev)
}

func (l *Lobby) postLocked(s *Session, ev Event) bool {
	if s.gone {
		return false
	}
	if s.queue.Post(ev) {
		return true
	}
	if since, full := s.queue.FullSince(); full && l.now().Sub(since) >= DropAfter {
		l.removeLocked(s)
	}
	return false
}

// TakeOver tells every other session of s's player, at once, that s took
// game gameID over from it: those on this server through their queues,
// and, when the lobby has a TakeoverNet, those on other servers. Guests
// have no games to take. It returns the TakeoverNet's error, if any; the
// sessions here are told regardless, and the TakeoverNet tells the
// others again while s lasts and no newer takeover of the player's came,
// so that they hear of it once it can reach them.
func (l *Lobby) TakeOver(ctx context.Context, s *Session, gameID, reason string) error {
	key := playerKey(s.player)
	if key == "" {
		return nil
	}
	l.mu.Lock()
	l.tellLocked(key, s.id, gameID, reason)
	n := l.takeoverNet
	gen := l.takenLocked(key)
	l.mu.Unlock()
	if n == nil {
		return nil
	}
	current := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return !s.gone && l.takeovers[key] == gen
	}
	if err := n.TellTakeover(ctx, Takeover{Player: key, GameID: gameID, Reason: reason}, current); err != nil {
		return fmt.Errorf("lobby: takeover of game %s: %w", gameID, err)
	}
	return nil
}

// takenLocked counts a takeover of the player key (made here, or heard
// of from another server) and returns its number: a takeover told again
// stops once a newer one came.
func (l *Lobby) takenLocked(key string) uint64 {
	if l.takeovers == nil {
		l.takeovers = map[string]uint64{}
	}
	l.takeovers[key]++
	return l.takeovers[key]
}

// tellLocked posts TakenOver to the sessions of a player but one (except;
// 0 for none).
func (l *Lobby) tellLocked(key string, except uint64, gameID, reason string) {
	for id, other := range l.byPlayer[key] {
		if id != except {
			l.postLocked(other, TakenOver{GameID: gameID, Reason: reason})
		}
	}
}

// Takeover is a game of a player taken over by one of their sessions, as
// the servers of a cluster tell each other.
type Takeover struct {
	// Player is the player's ID (guests take nothing over).
	Player string
	GameID string
	// Reason is as in TakenOver.
	Reason string
}

// TakeoverNet tells the other servers of a cluster of the takeovers made
// on this one (package cluster does it over a bus). The lobby calls it
// without its lock held.
type TakeoverNet interface {
	// TellTakeover tells the other servers of t, made here, and returns
	// an error when it could not. It then tells them again, with backoff,
	// while current reports true: the session that took the game is
	// still here, and no newer takeover of the player's came.
	TellTakeover(ctx context.Context, t Takeover, current func() bool) error
}

// AttachTakeovers makes n tell the other servers of the takeovers made
// here (TakeOver); n in turn tells the lobby of theirs (HearTakeover). A
// lobby has one TakeoverNet.
func (l *Lobby) AttachTakeovers(n TakeoverNet) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.takeoverNet != nil || l.closed {
		return errors.New("lobby: takeovers across servers: attached already, or closed")
	}
	l.takeoverNet = n
	return nil
}

// HearTakeover tells this server's sessions of t's player that another
// server's session took game t.GameID over: each stops showing it. A
// takeover of the player's made here and still told again stops there.
func (l *Lobby) HearTakeover(t Takeover) {
	if t.Player == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.takenLocked(t.Player)
	l.tellLocked(t.Player, 0, t.GameID, t.Reason)
}

// Close ends the lobby: every session's queue closes, and sessions that
// join later get a closed queue. What tells the other servers of a
// cluster of this one (package cluster) is closed by its owner, after
// the lobby, so that the ends of this server's spectators reach them.
func (l *Lobby) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for _, s := range l.sessions {
		l.removeLocked(s)
	}
	if l.pending != nil {
		l.pending.Stop()
		l.pending = nil
	}
}
