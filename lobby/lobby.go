package lobby

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"pyramid/bus"
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
	player Player
	lname  string // player.Name lowered: who sorts by it
	queue  *Queue
	joined time.Time

	// told is doing and changed as last set, published for SetDoing to
	// skip the lock when nothing changes and for the listing to be built
	// outside it (set under the lobby's mu with doing).
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

	// Spectating across servers (watch_cluster.go), guarded by the
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

// Player is the session's player.
func (s *Session) Player() Player { return s.player }

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

	// The bridge to other servers (Bridge); nil bus: none.
	bus      bus.Bus
	instance string
	sub      bus.Subscription
	bridged  chan struct{} // closed when the bridge's reader ends
	// Takeovers published again (retryTakeover): how many of each
	// player's were made or heard of, the retries' end and their count.
	takeovers   map[string]uint64
	retryCtx    context.Context // ends at Close
	retryCancel context.CancelFunc
	retries     sync.WaitGroup

	// Presence across servers (Cluster, cluster.go); nil: this server's only.
	cluster *cluster

	// The shared listing of who is online (presence.go): ver counts the
	// changes of presence (changed under mu, read anywhere), flushVer is
	// ver at the last flush, snap the newest listing built; build
	// serializes the builders and guards their scratch space.
	ver      atomic.Uint64
	flushVer atomic.Uint64
	snap     atomic.Pointer[roster]
	build    sync.Mutex
	scratch  rosterScratch
	// Spectating across servers (WatchAcross, watch_cluster.go); nil:
	// this server's games only.
	watchNet *watchNet
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
	s.told.Store(&told{doing: s.doing, changed: now})
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
// and, over the bridge when there is one, those on other servers. Guests
// have no games to take. It returns the bridge's error, if any; the
// sessions here are told regardless, and a takeover the bus refused
// (PostgreSQL down) is published again, with backoff, while s lasts and
// no newer takeover of the player's came, so that the other servers
// hear of it once the bus is back.
func (l *Lobby) TakeOver(ctx context.Context, s *Session, gameID, reason string) error {
	key := playerKey(s.player)
	if key == "" {
		return nil
	}
	l.mu.Lock()
	l.tellLocked(key, s.id, gameID, reason)
	b, instance := l.bus, l.instance
	gen := l.takenLocked(key)
	l.mu.Unlock()
	if b == nil {
		return nil
	}
	body, err := json.Marshal(takeover{Instance: instance, Player: key, Game: gameID, Reason: reason})
	if err != nil {
		return fmt.Errorf("lobby: tell other servers of the takeover of game %s: %w", gameID, err)
	}
	// An ID of its own: a retry that the bus took already the first
	// time publishes nothing twice.
	m := bus.Message{ID: bus.NewID(), Kind: "taken", Body: body}
	if _, err = b.Publish(ctx, TakeoverTopic, m); err != nil {
		l.retryTakeover(b, s, key, gen, m)
		return fmt.Errorf("lobby: tell other servers of the takeover of game %s (trying again): %w", gameID, err)
	}
	return nil
}

// Backoff of a takeover published again.
const (
	takeoverRetryFirst   = 250 * time.Millisecond
	takeoverRetryMax     = 5 * time.Second
	takeoverRetryTimeout = 5 * time.Second
)

// takenLocked counts a takeover of the player key (made here, or heard
// of from another server) and returns its number: a takeover published
// again stops once a newer one came.
func (l *Lobby) takenLocked(key string) uint64 {
	if l.takeovers == nil {
		l.takeovers = map[string]uint64{}
	}
	l.takeovers[key]++
	return l.takeovers[key]
}

// retryTakeover publishes m again, with backoff, until the bus takes it,
// s leaves, a newer takeover of key comes (gen is no longer the last),
// or the lobby closes.
func (l *Lobby) retryTakeover(b bus.Bus, s *Session, key string, gen uint64, m bus.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.retryCtx == nil {
		return
	}
	stop := l.retryCtx
	l.retries.Add(1)
	go func() {
		defer l.retries.Done()
		wait := takeoverRetryFirst
		timer := time.NewTimer(wait)
		defer timer.Stop()
		for {
			select {
			case <-timer.C:
			case <-stop.Done():
				return
			}
			l.mu.Lock()
			stale := s.gone || l.takeovers[key] != gen
			l.mu.Unlock()
			if stale {
				return
			}
			ctx, cancel := context.WithTimeout(stop, takeoverRetryTimeout)
			_, err := b.Publish(ctx, TakeoverTopic, m)
			cancel()
			if err == nil || errors.Is(err, bus.ErrClosed) || stop.Err() != nil {
				return
			}
			wait = min(2*wait, takeoverRetryMax)
			timer.Reset(wait)
		}
	}()
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

// TakeoverTopic is the bus topic of takeovers between servers.
const TakeoverTopic = "lobby.takeover"

// takeover is the body of a takeover event on the bus.
type takeover struct {
	Instance string `json:"i"` // the server whose session took the game
	Player   string `json:"p"`
	Game     string `json:"g"`
	Reason   string `json:"r,omitempty"`
}

// Bridge connects the lobby to the other servers on b: a takeover on one
// server reaches the player's sessions on every other. instance names this
// server on the bus (unique per running server). A lobby has one bridge;
// Close ends it.
func (l *Lobby) Bridge(ctx context.Context, b bus.Bus, instance string) error {
	sub, err := b.Subscribe(ctx, TakeoverTopic, bus.Latest)
	if err != nil {
		return fmt.Errorf("lobby: bridge: %w", err)
	}
	l.mu.Lock()
	if l.bus != nil || l.closed {
		l.mu.Unlock()
		sub.Close()
		return errors.New("lobby: bridge: already bridged, or closed")
	}
	l.bus, l.instance, l.sub, l.bridged = b, instance, sub, make(chan struct{})
	l.retryCtx, l.retryCancel = context.WithCancel(context.Background())
	l.mu.Unlock()
	go l.readBridge(sub, instance)
	return nil
}

// readBridge tells this server's sessions of the takeovers made on other
// servers, until the subscription ends. A gap only means takeovers were
// missed: each session still learns of one at its next save.
func (l *Lobby) readBridge(sub bus.Subscription, instance string) {
	defer close(l.bridged)
	for {
		ev, err := sub.Next(context.Background())
		if errors.Is(err, bus.ErrGap) {
			continue
		}
		if err != nil {
			return
		}
		var t takeover
		if json.Unmarshal(ev.Body, &t) != nil || t.Instance == instance || t.Player == "" {
			continue
		}
		l.mu.Lock()
		l.takenLocked(t.Player) // a takeover of ours published again stops here
		l.tellLocked(t.Player, 0, t.Game, t.Reason)
		l.mu.Unlock()
	}
}

// Close ends the lobby: every session's queue closes, sessions that join
// later get a closed queue, and the bridge ends (Close waits for it).
func (l *Lobby) Close() {
	l.mu.Lock()
	l.closed = true
	for _, s := range l.sessions {
		l.removeLocked(s)
	}
	if l.pending != nil {
		l.pending.Stop()
		l.pending = nil
	}
	sub, bridged := l.sub, l.bridged
	if l.retryCancel != nil {
		l.retryCancel()
	}
	l.mu.Unlock()
	l.retries.Wait()
	if sub != nil {
		sub.Close()
		<-bridged
	}
	l.closeWatchNet() // watch_cluster.go: before the cluster says bye
	l.closeCluster()
}
