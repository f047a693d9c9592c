package lobby

// Race rooms (Rooms): 2–8 players race their own game of one deal, with
// spectators and chat, on one server or on the servers of a cluster. The
// same code serves both: one server runs it over the in-process bus
// (bus.Memory, with a lease in memory), a cluster over PostgreSQL's.
//
// The design, in short:
//
//   - The rooms' life is an ordered log: every change (a room opened, a
//     join, a leave, a ready mark, a start, a chat line, a mute, a
//     spectator, the end of a race, a rematch, a close, a server gone, a
//     seat lost) is an event on one bus topic, RoomsTopic. The bus numbers
//     a topic's events, and on PostgreSQL sends their NOTIFY in the
//     transaction that stores them, so every server reads the same events
//     in the same order and folds them into the same rooms (apply):
//     membership, the host, the one-room-per-player and one-hosted-room
//     rules, full rooms and races under way are decided by the fold, the
//     same way everywhere. A server that asks for a change publishes it
//     and waits until its own fold has applied it to learn whether it was
//     taken (await).
//   - Times come from one clock. The start moment is the database's clock
//     plus CountdownTime (RoomsConfig.DBNow, read by the server that
//     starts the race and carried in the event); each server measures its
//     offset to that clock (about every LeaseTTL/3) and sets its own
//     timers by it, so every server counts down together. The deadline is
//     the start plus the time limit.
//   - Progress stays where the racer is: each racer's board lives on the
//     server that serves them, which saves every move (arcade) and keeps
//     the room's view of its own racers at once; the other servers hear of
//     them through one topic per room and server (ProgressTopic),
//     coalesced: at most one event per server per room per ProgressEvery
//     (bus.Coalescer, newest wins, each event holding all of the server's
//     racers of the room); the rooms due together go out in one batch (one
//     commit on PostgreSQL, whose NOTIFYs carry the events), volatile
//     (bus.VolatileBatcher: the commit does not wait for the disk) but for
//     news (a racer's end: Coalescer.OfferNow). A server alone (no other
//     server has published on the rooms' topic) publishes no progress.
//   - One server holds the races' lease (RoomsConfig.Lease, a row with an
//     expiry on PostgreSQL) and runs the clock for every room: it ends
//     races (everybody done, or the deadline), closes rooms empty for
//     EmptyRoomClose, and stores each race's result (OnRaceEnd). It
//     renews the lease every LeaseTTL/3; when it dies another server
//     takes the lease once it expires, tells the others that the dead
//     server's sessions are gone, ends what is overdue and stores again
//     the results of the races that ended last (the store keeps one race
//     per key: a second write changes nothing). A race's end event has a
//     fixed ID, so that two servers ending it at once publish one end.
//   - A racer whose server is gone is away (RacerAway): their seat, and
//     the race, wait for them to come back to any server for SeatGrace,
//     from the moment the server was declared gone; the holder then
//     declares the seat lost (the racer counts as left). A race in which
//     a racer was lost so is void (RaceResult.Void): stored, unrated.
//   - A room's methods never block on a session: a session's sink takes
//     events without waiting (Sink), and one that refuses them for
//     RoomDropAfter leaves its rooms (a racer keeps their seat).

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"pyramid/bus"
	"pyramid/engine"
	"pyramid/keys"
)

// RoomsTopic is the bus topic of the rooms' lifecycle.
const RoomsTopic = "lobby.rooms"

// RoomsRetain is how many events of RoomsTopic a bus should keep (a
// starting server reads them all to know the rooms open): far more than
// any day's rooms make.
const RoomsRetain = 100_000

// ProgressTopic is the bus topic of one room's racer progress as
// one server (inst) publishes it: each server's own topic, so that two
// servers' batches never wait on each other's lock of one topic's
// counter row (PostgreSQL: Lock:transactionid, the second batch waiting
// for the first's commit). A server follows the topic of every other
// server with a member in the room.
func ProgressTopic(code, inst string) string { return "lobby.room." + code + "." + inst }

// Defaults of RoomsConfig.
const (
	DefaultLeaseTTL = 6 * time.Second
	// DefaultSeatGrace is long enough to reconnect, through a balancer,
	// to another server.
	DefaultSeatGrace = time.Minute
	// DefaultProgressEvery is short: the Coalescer sends the progress of
	// all the rooms due in one batch (one commit on PostgreSQL), so the
	// cost of the bus is its commits, a few a second per server, more
	// than the events; a racer's move waits at most this long for it.
	DefaultProgressEvery = 100 * time.Millisecond
	// raceLease is the name of the races' lease.
	raceLease = "lobby.races"
	// instanceLeasePrefix and the instance's name make the lease each
	// server holds while it runs: the races' holder takes the lease of a
	// server whose lease ran out, and so learns that it died.
	instanceLeasePrefix = "lobby.instance."
	// roomsTimeout bounds one publish or lease call.
	roomsTimeout = 5 * time.Second
)

// Lease is a named lease with an expiry, kept where every server of a
// cluster sees it (the database).
type Lease interface {
	// Hold takes the lease name for holder, or keeps it, until ttl from
	// now: it reports whether holder holds it, and, when holder took it
	// over from another holder whose lease had run out, who that was.
	Hold(ctx context.Context, name, holder string, ttl time.Duration) (held bool, prev string, err error)
}

// RoomsConfig configures the rooms.
type RoomsConfig struct {
	// Bus carries the rooms between servers; Instance names this server
	// on it (unique per running server).
	Bus      bus.Bus
	Instance string
	// Lease decides which server runs the rooms' clock; LeaseTTL is its
	// time to live (DefaultLeaseTTL when 0).
	Lease    Lease
	LeaseTTL time.Duration
	// Clock sets the timers; SystemClock() when nil.
	Clock Clock
	// DBNow reads the cluster's clock (the database's); nil: Clock.Now.
	DBNow func(ctx context.Context) (time.Time, error)
	// MaxRooms bounds the rooms open in the cluster that this server
	// opens new ones beside (DefaultMaxRooms when 0).
	MaxRooms int
	// Rand is the source of room codes; crypto/rand when nil.
	Rand io.Reader
	// ProgressEvery is the least time between two progress events of
	// one room from this server (DefaultProgressEvery when 0).
	ProgressEvery time.Duration
	// OnRaceEnd is called on the lease holder for each race that ended,
	// with no lock held; maybe more than once for one race (after a
	// takeover of the lease): RaceResult.Key is the same each time, for
	// the store to keep it once.
	// A result it fails to store (an error) is stored again at the
	// holder's next tick.
	OnRaceEnd func(RaceResult) error
	// SeatGrace is how long a racer whose server died keeps their seat
	// for, to come back on any server (DefaultSeatGrace when 0).
	SeatGrace time.Duration
	// OnCountdown is called on every server when a race's countdown
	// begins, with no lock held, for the racers it serves (a server with
	// none is not called): their stored games may be made before the
	// race, not all at its first moves.
	OnCountdown func(Countdown)
	// OnRoundOver is called on every server when a race ends or its room
	// closes, with no lock held: the server may forget its racers' games.
	OnRoundOver func(code string, round int, placings []Placing)
	// Logf, when set, is told of failures.
	Logf func(format string, args ...any)
	// Trace, when set, times the other servers' progress on its way here
	// (a debugging aid: each progress event then carries the time of its
	// newest report, and the servers of a cluster are on one box's clock
	// or close).
	Trace *bus.Trace
}

// Rooms is this server's view of the rooms of a cluster, and its
// way to change them. It is safe for concurrent use.
//
// Locks: mu is the rooms' lock, held by the fold (each event, for the
// whole of it) and by what reads or decides over several rooms; each
// room also has its own (room.mu), so that what concerns one room
// only (a racer's move, the other servers' progress, a snapshot) waits
// for that room, never behind the fold of another or a listing. A
// room's fields are written with both held (the fold takes the lock of
// each room it changes), so they read under either; its racers'
// progress (room.mu's list) is under the room's lock alone. The
// order is mu, then a room's; several rooms' locks are held at once
// only with mu held.
type Rooms struct {
	cfg    RoomsConfig
	ctx    context.Context
	cancel context.CancelFunc
	ended  sync.WaitGroup
	coal   *bus.Coalescer
	// byCode is the open rooms by code (as rooms), read without mu:
	// written with mu held, with rooms.
	byCode sync.Map
	// holder: this server holds the lease (written with mu held).
	holder atomic.Bool
	// others is set once another server published on the rooms' topic:
	// from then on this server publishes its racers' progress.
	others atomic.Bool
	// sessions is this server's sinks, by token (*roomSession),
	// changed with mu held and read without it: a room's progress finds
	// its local sessions with the room's lock alone.
	sessions sync.Map
	// bySink finds the session of a sink of a comparable type (every
	// sink but a test's), under mu.
	bySink map[Sink]*roomSession

	mu      sync.Mutex
	rooms   map[string]*room       // open rooms by code
	applied uint64                 // the last lifecycle event applied
	wake    chan struct{}          // closed and replaced at each event applied
	outcome map[string]error       // of this server's events waited for, by event ID
	gaveUp  map[string]bool        // events whose waiter gave up before the fold applied them
	offset  time.Duration          // the cluster's clock minus this server's
	sids    int                    // makes session tokens
	wrong   map[string]*wrongCodes // wrong room codes by player, on the cluster's clock (the fold's)
	after   []func()               // what the current locked call must do once unlocked
	closed  bool
	tried   bool // the lease was tried at least once
}

// roomSession is one local session's sink and its token, and how long
// it has refused events.
type roomSession struct {
	sid  string
	sink Sink
	// pending counts the events published with the token and not yet
	// folded (sidOf), under Rooms.mu.
	pending int
	sinkRefusals
}

// room is one room as the fold knows it, plus this server's
// sessions in it.
type room struct {
	// mu is the room's lock (Rooms' doc): with Rooms.mu to
	// change the fields, alone for the members' progress, lastRemoval,
	// finish and removals, and for held.
	mu       sync.Mutex
	code     string
	id       string // the room's ID (Snapshot.RoomID), from its open event
	created  time.Time
	cfg      RoomConfig
	phase    Phase
	round    int
	seq      uint64
	host     string
	members  []*member
	watchers []*watcher
	startsDB time.Time // the start on the cluster's clock
	startsAt time.Time // the start on this server's clock
	deadline time.Time
	ended    time.Time
	results  []Placing
	lastEnd  *RaceResult // the last race's result, for a new lease holder to store again
	unstored bool        // the holder failed to store lastEnd: its next tick tries again
	chat     []ChatLine
	muted    map[string]bool
	reason   string
	empty    time.Time // since when nobody is in it; zero when somebody is

	timer   Timer                   // this server's countdown or deadline
	chatLim map[string]*chatLimiter // the members' chat limits, on the cluster's clock (the fold's)
	stop    context.CancelFunc      // ends the progress readers
	follow  context.Context         // the progress readers' context, ended by stop
	// followed is the servers whose progress topic of the room this
	// server reads (followInstances).
	followed map[string]bool
	// version numbers the progress of this server's racers in the room
	// (progressOf, under mu); offered is the newest offered to the
	// coalescer, under offerMu (offerProgress), which is taken without
	// mu.
	version uint64
	offerMu sync.Mutex
	offered progressOffer
	// held is, per server, its newest progress that this server's fold
	// was not ready for (the race's start or a member's join not folded
	// here yet: progress and room changes come on different topics),
	// applied again after the next fold of the room's events.
	held map[string]progressMsg
}

type member struct {
	Entrant
	inst, sid string // the server and session serving the member; sid empty: none
	// line is the racer's moves, as their server last reported them
	// (Report) or as its events made them whole; lineKnown is false
	// before the first, or after an event the line could not follow.
	// A line is never changed once it is the room's: each report brings
	// a new one.
	line      []string
	lineKnown bool
	// lineSum is the sum of the line of the racer's last progress event
	// from another server (lineOf), 0 for a racer of this server.
	lineSum uint32
	// away is when the member's server was declared gone in a race, on
	// the cluster's clock (zero: not away); lost is set once their seat's
	// grace ran out without them.
	away        time.Time
	lost        bool
	ready       bool
	progress    Progress
	lastRemoval time.Duration
	finish      time.Duration
	removals    []removal // this server's own racers only
}

func (m *member) present() bool { return m.sid != "" }

type watcher struct {
	id, inst, sid string
}

// wire forms of the events.
type (
	roomMsg struct {
		Op      string        `json:"op"`
		RoomID  string        `json:"id,omitempty"` // an open's: the new room's ID
		Code    string        `json:"c"`
		Inst    string        `json:"i"`
		Sid     string        `json:"s,omitempty"`
		Wait    bool          `json:"w,omitempty"` // the publisher awaits the outcome
		Who     *wireEntrant  `json:"p,omitempty"`
		Cfg     *wireCfg      `json:"cfg,omitempty"`
		Ready   bool          `json:"r,omitempty"`
		Round   int           `json:"n,omitempty"`
		At      int64         `json:"at,omitempty"` // Unix ms on the cluster's clock
		Text    string        `json:"t,omitempty"`
		Target  string        `json:"x,omitempty"`
		Muted   bool          `json:"m,omitempty"`
		Results []wirePlacing `json:"res,omitempty"`
		Gone    string        `json:"g,omitempty"` // a server whose sessions are gone
	}
	wireEntrant struct {
		ID    string `json:"id"`
		Name  string `json:"n"`
		Guest bool   `json:"g,omitempty"`
	}
	wireCfg struct {
		Rules   string `json:"r"`
		Deal    uint64 `json:"d"`
		Verdict int    `json:"v"`
		Public  bool   `json:"p,omitempty"`
		LimitMS int64  `json:"l"`
		Max     int    `json:"m"`
		// Rated is RoomConfig.Rated. An event of a server that did not
		// know of it has none, and reads as unrated: a chosen deal's
		// race must never count, and a rematch (always a random deal)
		// makes such a room rated again.
		Rated bool `json:"rt,omitempty"`
	}
	wirePlacing struct {
		Place   int    `json:"p"`
		ID      string `json:"id"`
		Name    string `json:"n"`
		Guest   bool   `json:"g,omitempty"`
		GameID  int64  `json:"gid,omitempty"`
		State   int    `json:"s"`
		Removed int    `json:"r"`
		Moves   int    `json:"m"`
		TimeMS  int64  `json:"t"`
	}
	progressMsg struct {
		Inst   string      `json:"i"`
		Round  int         `json:"n"`
		Racers []wireRacer `json:"r"`
		// T is when the newest of these reports was made, Unix µs on the
		// sender's clock: set only when RoomsConfig.Trace is.
		T int64 `json:"t,omitempty"`
	}
	// wireLine is a racer's line of moves in a progress event (lineOf).
	wireLine struct {
		N    int      `json:"n"`
		Tail []string `json:"t,omitempty"`
		Sum  uint32   `json:"s"`
	}
	wireRacer struct {
		ID       string    `json:"id"`
		Line     *wireLine `json:"ln,omitempty"`
		Removed  int       `json:"r"`
		Moves    int       `json:"m"`
		Pass     int       `json:"p"`
		Board    uint64    `json:"b"`
		State    int       `json:"s"`
		GameID   int64     `json:"g,omitempty"`
		LastMS   int64     `json:"l,omitempty"`
		FinishMS int64     `json:"f,omitempty"`
	}
)

func toWirePlacings(ps []Placing) []wirePlacing {
	out := make([]wirePlacing, len(ps))
	for i, p := range ps {
		out[i] = wirePlacing{Place: p.Place, ID: p.ID, Name: p.Name, Guest: p.Guest, GameID: p.GameID, State: int(p.State),
			Removed: p.Removed, Moves: p.Moves, TimeMS: p.Time.Milliseconds()}
	}
	return out
}

func fromWirePlacings(ws []wirePlacing) []Placing {
	out := make([]Placing, len(ws))
	for i, w := range ws {
		st := RacerState(w.State)
		out[i] = Placing{Place: w.Place, ID: w.ID, Name: keys.Clean(w.Name, keys.MaxNameWidth), Guest: w.Guest, GameID: w.GameID,
			State: st, Cleared: st == RacerCleared, Removed: w.Removed, Moves: w.Moves, Time: time.Duration(w.TimeMS) * time.Millisecond}
	}
	return out
}

// NewRooms joins this server to the cluster's rooms: it reads every
// room event the bus still holds, then follows the topic, and takes part
// in the race for the lease. Shutdown ends it.
func NewRooms(ctx context.Context, cfg RoomsConfig) (*Rooms, error) {
	if cfg.Bus == nil || cfg.Lease == nil || cfg.Instance == "" {
		return nil, errors.New("lobby: rooms need a bus, a lease and an instance name")
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock()
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = DefaultMaxRooms
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	if cfg.SeatGrace <= 0 {
		cfg.SeatGrace = DefaultSeatGrace
	}
	if cfg.DBNow == nil {
		clock := cfg.Clock
		cfg.DBNow = func(context.Context) (time.Time, error) { return clock.Now(), nil }
	}
	sub, err := cfg.Bus.Subscribe(ctx, RoomsTopic, 0)
	if err != nil {
		return nil, fmt.Errorf("lobby: rooms: %w", err)
	}
	rs := &Rooms{cfg: cfg, rooms: map[string]*room{}, wake: make(chan struct{}),
		outcome: map[string]error{}, gaveUp: map[string]bool{}, wrong: map[string]*wrongCodes{}, bySink: map[Sink]*roomSession{}}
	rs.ctx, rs.cancel = context.WithCancel(context.Background())
	// The whole way of the other servers' progress, by second: a tail
	// that comes in bursts has a cause with a time.
	cfg.Trace.Timeline(traceCrossStage, time.Second)
	cfg.Trace.Timeline(traceReportStage, time.Second)
	rs.coal = bus.NewCoalescer(cfg.Bus, cfg.ProgressEvery, func(topic string, err error) {
		rs.logf("lobby: rooms: publish progress on %s: %v", topic, err)
	})
	rs.measure(ctx)
	// Before any session of this server can join a room: a server in a
	// room always holds its own lease.
	rs.holdOwn(ctx)
	rs.ended.Add(2)
	go func() {
		defer rs.ended.Done()
		rs.read(sub)
	}()
	go func() {
		defer rs.ended.Done()
		rs.keepLease()
	}()
	// A hello of this server's, awaited: once the fold has applied it,
	// it has read every room event before it, so that a player who
	// connects now finds every open room.
	if err := rs.do(roomMsg{Op: "hello"}); err != nil {
		rs.logf("lobby: rooms: read the rooms open: %v", err)
	}
	return rs, nil
}

// Shutdown stops following the rooms: this server's sessions leave them
// (the others are told), and the lease is left to run out.
func (rs *Rooms) Shutdown() {
	rs.mu.Lock()
	if rs.closed {
		rs.mu.Unlock()
		return
	}
	rs.closed = true
	rs.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), roomsTimeout)
	_, _ = rs.publish(ctx, roomMsg{Op: "gone", Gone: rs.cfg.Instance, At: rs.clusterNow().UnixMilli()})
	cancel()
	rs.kill()
}

// kill stops following the rooms without a word to the others, as a
// server killed would.
func (rs *Rooms) kill() {
	rs.mu.Lock()
	rs.closed = true
	rs.mu.Unlock()
	rs.cancel()
	rs.ended.Wait()
	rs.coal.Close()
	rs.mu.Lock()
	for _, r := range rs.rooms {
		if r.stop != nil {
			r.stop()
		}
	}
	rs.mu.Unlock()
}

func (rs *Rooms) logf(format string, args ...any) {
	if rs.cfg.Logf != nil {
		rs.cfg.Logf(format, args...)
	}
}

// unlock releases the lock and runs what the call left to do.
func (rs *Rooms) unlock() {
	after := rs.after
	rs.after = nil
	rs.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// measure reads the cluster's clock and sets this server's offset to it
// (the middle of the round trip is taken as the moment it was read).
func (rs *Rooms) measure(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, roomsTimeout)
	defer cancel()
	t0 := rs.cfg.Clock.Now()
	db, err := rs.cfg.DBNow(ctx)
	if err != nil {
		rs.logf("lobby: rooms: read the database's clock: %v", err)
		return
	}
	t1 := rs.cfg.Clock.Now()
	off := db.Sub(t0.Add(t1.Sub(t0) / 2))
	rs.mu.Lock()
	rs.offset = off
	rs.mu.Unlock()
}

// Offset returns this server's offset to the cluster's clock: the
// database's time minus this server's, as last measured.
func (rs *Rooms) Offset() time.Duration {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.offset
}

// Holder reports whether this server holds the races' lease.
func (rs *Rooms) Holder() bool { return rs.holder.Load() }

// lookup returns the open room with this code, or nil, without the
// rooms' lock.
func (rs *Rooms) lookup(code string) *room {
	if r, ok := rs.byCode.Load(code); ok {
		return r.(*room)
	}
	return nil
}

// sidOf returns the token of a local session's sink, made on first
// sight, for an event about to be published, with rs.mu held: the token
// is kept (forgetUnused) until the caller says the event was folded
// (doneWith), whatever the fold of other events meanwhile.
func (rs *Rooms) sidOf(sink Sink) string {
	var s *roomSession
	comparable := reflect.TypeOf(sink).Comparable()
	if comparable {
		s = rs.bySink[sink]
	} else {
		rs.sessions.Range(func(_, v any) bool {
			if o := v.(*roomSession); sameSink(o.sink, sink) {
				s = o
			}
			return s == nil
		})
	}
	if s == nil {
		rs.sids++
		s = &roomSession{sid: rs.cfg.Instance + "/" + strconv.Itoa(rs.sids), sink: sink}
		rs.sessions.Store(s.sid, s)
		if comparable {
			rs.bySink[sink] = s
		}
	}
	s.pending++
	return s.sid
}

// doneWith says that the event published with a token from sidOf was
// folded (or given up on): the token may go once its session is in no
// room.
func (rs *Rooms) doneWith(sid string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if s := rs.sessionOf(rs.cfg.Instance, sid); s != nil {
		s.pending--
	}
	rs.forgetUnused()
}

// sessionOf returns the local session of a token, or nil.
func (rs *Rooms) sessionOf(inst, sid string) *roomSession {
	if inst != rs.cfg.Instance || sid == "" {
		return nil
	}
	if s, ok := rs.sessions.Load(sid); ok {
		return s.(*roomSession)
	}
	return nil
}

// sinkOf returns the local sink of a session token, or nil.
func (rs *Rooms) sinkOf(inst, sid string) Sink {
	if s := rs.sessionOf(inst, sid); s != nil {
		return s.sink
	}
	return nil
}

// post posts a discrete event to a local session and keeps track of its
// refusals: the first in a row arms a check RoomDropAfter later.
func (rs *Rooms) post(s *roomSession, ev Event) {
	if s.sink.Post(ev) {
		if !s.refused.IsZero() {
			s.forget()
		}
		return
	}
	if s.refused.IsZero() {
		s.refused = rs.cfg.Clock.Now()
		since := s.refused
		s.drop = rs.cfg.Clock.AfterFunc(RoomDropAfter, func() { rs.checkDrop(s, since) })
	}
}

// checkDrop runs RoomDropAfter after a session first refused an event:
// if it refused everything since, and refuses to hear that it missed
// some, it leaves its rooms (a racer's seat stays, as for Room).
func (rs *Rooms) checkDrop(s *roomSession, since time.Time) {
	rs.mu.Lock()
	defer rs.unlock()
	if !s.refused.Equal(since) || rs.sessionOf(rs.cfg.Instance, s.sid) != s {
		return
	}
	s.drop = nil
	var out []roomMsg
	for _, r := range rs.sortedRooms() {
		in := false
		for _, m := range r.members {
			if m.inst == rs.cfg.Instance && m.sid == s.sid {
				in = true
				out = append(out, roomMsg{Op: "leave", Code: r.code, Target: m.ID, Sid: s.sid})
			}
		}
		for _, w := range r.watchers {
			if w.inst == rs.cfg.Instance && w.sid == s.sid {
				in = true
				out = append(out, roomMsg{Op: "unwatch", Code: r.code, Target: w.id, Sid: s.sid})
			}
		}
		if in && s.sink.Post(Missed{Code: r.code}) {
			s.refused = time.Time{}
			return
		}
	}
	rs.after = append(rs.after, func() {
		go func() {
			for _, m := range out {
				if err := rs.do(m); err != nil && !errors.Is(err, ErrNotMember) {
					rs.logf("lobby: rooms: drop a session that stopped reading: %v", err)
				}
			}
			rs.tidy()
		}()
	})
}

// forgetUnused drops the tokens of local sessions in no room.
func (rs *Rooms) forgetUnused() {
	used := map[string]bool{}
	for _, r := range rs.rooms {
		for _, m := range r.members {
			used[m.sid] = true
		}
		for _, w := range r.watchers {
			used[w.sid] = true
		}
	}
	rs.sessions.Range(func(k, v any) bool {
		if s := v.(*roomSession); !used[s.sid] && s.pending == 0 {
			s.forget()
			rs.sessions.Delete(s.sid)
			if rs.bySink[s.sink] == s {
				delete(rs.bySink, s.sink)
			}
		}
		return true
	})
}

// publish publishes a lifecycle event.
func (rs *Rooms) publish(ctx context.Context, m roomMsg) (bus.Event, error) {
	return rs.publishID(ctx, "", m)
}

func (rs *Rooms) publishID(ctx context.Context, id string, m roomMsg) (bus.Event, error) {
	m.Inst = rs.cfg.Instance
	body, err := json.Marshal(m)
	if err != nil {
		return bus.Event{}, fmt.Errorf("lobby: encode %s: %w", m.Op, err)
	}
	ev, err := rs.cfg.Bus.Publish(ctx, RoomsTopic, bus.Message{ID: id, Kind: m.Op, Body: body})
	if err != nil {
		return bus.Event{}, fmt.Errorf("lobby: room %s: %w", m.Code, err)
	}
	return ev, nil
}

// do publishes a change and waits until this server's fold applied it:
// the fold's verdict on it is the result.
func (rs *Rooms) do(m roomMsg) error {
	ctx, cancel := context.WithTimeout(rs.ctx, roomsTimeout)
	defer cancel()
	m.Wait = true
	ev, err := rs.publish(ctx, m)
	if err != nil {
		return err
	}
	return rs.await(ctx, ev)
}

// await waits until the fold applied ev and returns its verdict.
func (rs *Rooms) await(ctx context.Context, ev bus.Event) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for rs.applied < ev.Seq {
		wake := rs.wake
		rs.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			rs.mu.Lock()
			if rs.applied < ev.Seq {
				rs.gaveUp[ev.ID] = true
			} else {
				delete(rs.outcome, ev.ID)
			}
			return fmt.Errorf("lobby: the rooms did not answer: %w", ctx.Err())
		}
		rs.mu.Lock()
	}
	err := rs.outcome[ev.ID]
	delete(rs.outcome, ev.ID)
	return err
}

// read folds the lifecycle events until the rooms close.
func (rs *Rooms) read(sub bus.Subscription) {
	defer sub.Close()
	for {
		ev, err := sub.Next(rs.ctx)
		if errors.Is(err, bus.ErrGap) {
			rs.logf("lobby: rooms: %v", err)
			continue
		}
		if err != nil {
			return
		}
		var m roomMsg
		jerr := json.Unmarshal(ev.Body, &m)
		if jerr != nil {
			rs.logf("lobby: rooms: event %d: %v", ev.Seq, jerr)
		}
		rs.mu.Lock()
		if jerr == nil && m.Inst != rs.cfg.Instance && m.Inst != "" && !rs.others.Load() {
			// Not alone: the other servers need this one's progress,
			// of the races under way too.
			rs.others.Store(true)
			rs.after = append(rs.after, rs.offerAll)
		}
		if jerr == nil {
			err := rs.apply(m, ev)
			if r := rs.rooms[m.Code]; r != nil {
				// A member served by a server not followed yet (a
				// join, a comeback elsewhere): read its progress too.
				rs.followInstances(r)
				r.mu.Lock()
				if rs.applyHeld(r) {
					rs.endAfter(r.code)
				}
				r.mu.Unlock()
			}
			if m.Wait && m.Inst == rs.cfg.Instance {
				if rs.gaveUp[ev.ID] {
					delete(rs.gaveUp, ev.ID)
				} else {
					rs.outcome[ev.ID] = err
				}
			}
		}
		rs.applied = ev.Seq
		close(rs.wake)
		rs.wake = make(chan struct{})
		rs.unlock()
	}
}

// offerAll offers the progress of this server's racers in every room to
// the coalescer, as news: what the other servers missed while this one
// thought it was alone.
func (rs *Rooms) offerAll() {
	rs.mu.Lock()
	rooms := rs.sortedRooms()
	rs.mu.Unlock()
	for _, r := range rooms {
		r.mu.Lock()
		o := rs.progressOf(r, true)
		r.mu.Unlock()
		if len(o.msg.Racers) > 0 {
			rs.offerProgress(r, o)
		}
	}
}

// keepLease takes part in the race for the lease until the rooms close:
// it tries to hold it every LeaseTTL/3, and its holder runs the rooms'
// clock at each try.
func (rs *Rooms) keepLease() {
	every := rs.cfg.LeaseTTL / 3
	for {
		rs.tryLease()
		select {
		case <-rs.ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// holdOwn takes or keeps this server's own lease, which says it runs.
func (rs *Rooms) holdOwn(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, roomsTimeout)
	defer cancel()
	if _, _, err := rs.cfg.Lease.Hold(ctx, instanceLeasePrefix+rs.cfg.Instance, rs.cfg.Instance, rs.cfg.LeaseTTL); err != nil {
		rs.logf("lobby: rooms: hold this server's lease: %v", err)
	}
}

// tryLease holds or takes the lease, then runs the holder's duties.
func (rs *Rooms) tryLease() {
	rs.measure(rs.ctx)
	rs.holdOwn(rs.ctx)
	ctx, cancel := context.WithTimeout(rs.ctx, roomsTimeout)
	defer cancel()
	held, prev, err := rs.cfg.Lease.Hold(ctx, raceLease, rs.cfg.Instance, rs.cfg.LeaseTTL)
	if err != nil {
		rs.logf("lobby: rooms: hold the lease: %v", err)
		held = false
	}
	rs.mu.Lock()
	was := rs.holder.Load()
	rs.holder.Store(held)
	rs.tried = true
	var again []RaceResult
	if held && !was {
		// A new holder stores again the last results (the store keeps
		// one per key): the one before may have died before it did.
		for _, r := range rs.rooms {
			if r.lastEnd != nil {
				again = append(again, *r.lastEnd)
			}
		}
	}
	rs.mu.Unlock()
	if held && prev != "" && prev != rs.cfg.Instance {
		// The holder before died without a word: its sessions are gone.
		if _, err := rs.publish(ctx, roomMsg{Op: "gone", Gone: prev, At: rs.clusterNow().UnixMilli()}); err != nil {
			rs.logf("lobby: rooms: %v", err)
		}
	}
	for _, res := range again {
		rs.record(res)
	}
	if held {
		rs.duties()
	}
}

// record has OnRaceEnd store a race's result, and notes whether it did.
func (rs *Rooms) record(res RaceResult) {
	if rs.cfg.OnRaceEnd == nil {
		return
	}
	err := rs.cfg.OnRaceEnd(res)
	if err != nil {
		rs.logf("lobby: rooms: store race %s round %d (tried again later): %v", res.Code, res.Round, err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.rooms[res.Code]; r != nil && r.lastEnd != nil && r.lastEnd.Round == res.Round {
		r.unstored = err != nil
	}
}

// duties are the lease holder's: tell of the servers that died (their
// leases ran out), end the races that are over, close the rooms empty for
// EmptyRoomClose.
func (rs *Rooms) duties() {
	rs.reap()
	rs.mu.Lock()
	now := rs.cfg.Clock.Now()
	clusterNow := now.Add(rs.offset)
	var ends []string
	var closes []string
	var unstored []RaceResult
	var lapses []roomMsg
	for _, r := range rs.rooms {
		if r.unstored && r.lastEnd != nil {
			unstored = append(unstored, *r.lastEnd)
		}
		r.mu.Lock()
		done := r.phase == PhaseRacing && r.allDone()
		r.mu.Unlock()
		for _, m := range r.members {
			if !m.away.IsZero() && !clusterNow.Before(m.away.Add(rs.cfg.SeatGrace)) {
				lapses = append(lapses, roomMsg{Op: "lapse", Code: r.code, Target: m.ID, Round: r.round, At: m.away.UnixMilli()})
			}
		}
		if (r.phase == PhaseRacing || r.phase == PhaseCountdown) && (done || !r.deadline.IsZero() && !now.Before(r.deadline)) {
			ends = append(ends, r.code)
		}
		if !r.empty.IsZero() && now.Sub(r.empty) >= EmptyRoomClose && r.phase != PhaseRacing && r.phase != PhaseCountdown {
			closes = append(closes, r.code)
		}
	}
	rs.mu.Unlock()
	for _, res := range unstored {
		rs.record(res)
	}
	for _, m := range lapses {
		// The event's ID is the lapse's: two holders publish one.
		id := "lapse/" + m.Code + "/" + strconv.Itoa(m.Round) + "/" + strconv.FormatInt(m.At, 10) + "/" + m.Target
		ctx, cancel := context.WithTimeout(rs.ctx, roomsTimeout)
		if len(id) > bus.MaxIDLen {
			id = ""
		}
		if _, err := rs.publishID(ctx, id, m); err != nil {
			rs.logf("lobby: rooms: %v", err)
		}
		cancel()
	}
	for _, code := range ends {
		rs.endRace(code)
	}
	for _, code := range closes {
		ctx, cancel := context.WithTimeout(rs.ctx, roomsTimeout)
		if _, err := rs.publish(ctx, roomMsg{Op: "close", Code: code, Text: "nobody was in the room"}); err != nil {
			rs.logf("lobby: rooms: %v", err)
		}
		cancel()
	}
}

// reap looks for the servers with sessions in rooms whose own lease ran
// out: the holder takes it (so a server is reaped once), and tells the
// others that its sessions are gone.
func (rs *Rooms) reap() {
	rs.mu.Lock()
	others := map[string]bool{}
	for _, r := range rs.rooms {
		for _, m := range r.members {
			if m.present() && m.inst != rs.cfg.Instance {
				others[m.inst] = true
			}
		}
		for _, w := range r.watchers {
			if w.inst != rs.cfg.Instance {
				others[w.inst] = true
			}
		}
	}
	rs.mu.Unlock()
	ctx, cancel := context.WithTimeout(rs.ctx, roomsTimeout)
	defer cancel()
	for inst := range others {
		dead, _, err := rs.cfg.Lease.Hold(ctx, instanceLeasePrefix+inst, rs.cfg.Instance, rs.cfg.LeaseTTL)
		if err != nil {
			rs.logf("lobby: rooms: look at server %s: %v", inst, err)
			continue
		}
		if dead {
			if _, err := rs.publish(ctx, roomMsg{Op: "gone", Gone: inst, At: rs.clusterNow().UnixMilli()}); err != nil {
				rs.logf("lobby: rooms: %v", err)
			}
		}
	}
}

// endRace publishes the end of the room's race with its placings as this
// server sees them, if it holds the lease. The event's ID is the race's:
// a second end of the same race publishes nothing.
func (rs *Rooms) endRace(code string) {
	rs.mu.Lock()
	r := rs.rooms[code]
	if r == nil || !rs.holder.Load() || (r.phase != PhaseRacing && r.phase != PhaseCountdown) {
		rs.mu.Unlock()
		return
	}
	racers := make([]Racer, len(r.members))
	r.mu.Lock()
	for i, m := range r.members {
		racers[i] = r.racer(m)
		switch racers[i].State {
		case RacerWaiting:
			racers[i].State = RacerPlaying
		case RacerAway:
			racers[i].State = RacerLeft // not back before the end
		}
	}
	r.mu.Unlock()
	results := rank(racers)
	round := r.round
	dbNow := rs.cfg.Clock.Now().Add(rs.offset)
	id := "end/" + code + "/" + strconv.Itoa(round) + "/" + strconv.FormatInt(r.startsDB.UnixMilli(), 10)
	rs.mu.Unlock()
	ctx, cancel := context.WithTimeout(rs.ctx, roomsTimeout)
	defer cancel()
	if _, err := rs.publishID(ctx, id, roomMsg{Op: "end", Code: code, Round: round, At: dbNow.UnixMilli(),
		Results: toWirePlacings(results)}); err != nil {
		rs.logf("lobby: rooms: end race: %v", err)
	}
}

// apply folds one lifecycle event into the rooms, with rs.mu held; the
// error is the event's verdict (for its publisher, when waiting).
func (rs *Rooms) apply(m roomMsg, ev bus.Event) error {
	switch m.Op {
	case "hello":
		return nil
	case "gone":
		at := ev.At
		if m.At != 0 {
			at = time.UnixMilli(m.At)
		}
		rs.gone(m.Gone, at)
		return nil
	case "wrong":
		// A wrong room code, counted on the cluster's clock as its
		// publisher read it: the same count on every server.
		noteWrongCode(rs.wrong, m.Target, time.UnixMilli(m.At))
		return nil
	}
	r := rs.rooms[m.Code]
	if m.Op == "open" {
		return rs.open(m, ev)
	}
	if r == nil {
		return fmt.Errorf("%w %s", ErrNoRoom, m.Code)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch m.Op {
	case "join":
		return rs.join(r, m)
	case "leave":
		mb := r.member(m.Target)
		if mb == nil || !mb.present() || (m.Sid != "" && mb.sid != m.Sid) {
			return ErrNotMember
		}
		rs.leave(r, mb)
	case "ready":
		mb := r.member(m.Target)
		switch {
		case mb == nil || !mb.present():
			return ErrNotMember
		case r.phase != PhaseWaiting:
			return ErrNotWaiting
		}
		if mb.ready != m.Ready {
			mb.ready = m.Ready
			rs.changed(r)
		}
	case "lapse":
		rs.lapse(r, m)
	case "start":
		return rs.start(r, m)
	case "end":
		rs.end(r, m)
	case "rematch":
		return rs.rematch(r, m)
	case "chat":
		mb := r.member(m.Target)
		switch {
		case mb == nil || !mb.present():
			return ErrNotMember
		case r.muted[mb.ID]:
			return ErrMuted
		}
		// The limit is the fold's: it sees the player's lines from
		// every server, in the same order everywhere.
		lim := r.chatLim[mb.ID]
		if lim == nil {
			lim = &chatLimiter{}
			r.chatLim[mb.ID] = lim
		}
		if !lim.allow(time.UnixMilli(m.At)) {
			return ErrChatTooFast
		}
		cl := ChatLine{Code: r.code, FromID: mb.ID, From: mb.Name, Text: keys.Clean(m.Text, 10*MaxChatLen),
			At: time.UnixMilli(m.At).Add(-rs.offset)}
		r.chat = append(r.chat, cl)
		if len(r.chat) > ChatHistory {
			r.chat = slices.Delete(r.chat, 0, len(r.chat)-ChatHistory)
		}
		rs.broadcast(r, cl)
	case "mute":
		mb := r.member(m.Target)
		switch {
		case r.host != m.Who.ID:
			return ErrNotHost
		case mb == nil || m.Target == m.Who.ID:
			return ErrNotMember
		}
		if r.muted[mb.ID] != m.Muted {
			if r.muted == nil {
				r.muted = map[string]bool{}
			}
			if m.Muted {
				r.muted[mb.ID] = true
			} else {
				delete(r.muted, mb.ID)
			}
			rs.changed(r)
		}
	case "watch":
		return rs.watch(r, m)
	case "unwatch":
		for _, w := range r.watchers {
			if w.id == m.Target && (m.Sid == "" || w.sid == m.Sid) {
				r.watchers = slices.DeleteFunc(r.watchers, func(x *watcher) bool { return x == w })
				rs.changed(r)
				return nil
			}
		}
		return ErrNotMember
	case "close":
		rs.close(r, m.Text)
	}
	return nil
}

func (r *room) member(id string) *member {
	for _, m := range r.members {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func (r *room) presentCount() int {
	n := 0
	for _, m := range r.members {
		if m.present() {
			n++
		}
	}
	return n
}

// allDone reports whether every racer has cleared, is stuck or left: a
// racer away with their server is not done until their seat's grace runs
// out.
func (r *room) allDone() bool {
	for _, m := range r.members {
		if (m.present() || !m.away.IsZero()) && m.progress.State == RacerPlaying {
			return false
		}
	}
	return true
}

func (r *room) cards() int { return r.cfg.Rules.PyramidSize() }

// open folds the opening of a room.
func (rs *Rooms) open(m roomMsg, ev bus.Event) error {
	if m.Cfg == nil || m.Who == nil {
		return ErrBadRoomConfig
	}
	if r := rs.rooms[m.Code]; r != nil {
		return errCodeTaken
	}
	// MaxRooms is not the fold's to check (servers may be configured
	// apart, and the fold must decide alike everywhere): Create checks it.
	for _, r := range rs.rooms {
		if r.host == m.Who.ID {
			return fmt.Errorf("%w (%s)", ErrAlreadyHosting, r.code)
		}
	}
	rules, err := engine.ParseRules(m.Cfg.Rules)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRoomConfig, err)
	}
	cfg, err := RoomConfig{Rules: rules, Deal: m.Cfg.Deal, Verdict: engine.Verdict(m.Cfg.Verdict), Public: m.Cfg.Public,
		Rated: m.Cfg.Rated, TimeLimit: time.Duration(m.Cfg.LimitMS) * time.Millisecond, MaxPlayers: m.Cfg.Max}.normalize()
	if err != nil {
		return err
	}
	created := ev.At.Add(-rs.offset)
	if created.IsZero() || ev.At.IsZero() {
		created = rs.cfg.Clock.Now()
	}
	id := m.RoomID
	if id == "" {
		id = "seq-" + strconv.FormatUint(ev.Seq, 10) // an open of a server before room IDs
	}
	r := &room{code: m.Code, id: id, created: created, cfg: cfg, round: 1, host: m.Who.ID, chatLim: map[string]*chatLimiter{}}
	r.mu.Lock()
	defer r.mu.Unlock()
	rs.rooms[m.Code] = r
	rs.byCode.Store(m.Code, r)
	mb := &member{Entrant: Entrant{ID: m.Who.ID, Name: keys.Clean(m.Who.Name, keys.MaxNameWidth), Guest: m.Who.Guest},
		inst: m.Inst, sid: m.Sid}
	r.members = append(r.members, mb)
	rs.followProgress(r)
	rs.leaveOthers(r, mb.ID, m.Inst, m.Sid)
	rs.changed(r)
	return nil
}

// errCodeTaken: two servers drew the same code at once; the later tries
// another.
var errCodeTaken = errors.New("lobby: room code taken")

// join folds a join.
func (rs *Rooms) join(r *room, m roomMsg) error {
	if m.Who == nil {
		return ErrNotMember
	}
	name := keys.Clean(m.Who.Name, keys.MaxNameWidth)
	if mb := r.member(m.Who.ID); mb != nil {
		if mb.present() && (mb.inst != m.Inst || mb.sid != m.Sid) {
			if sink := rs.sinkOf(mb.inst, mb.sid); sink != nil {
				sink.Post(SeatTakenOver{Code: r.code})
			}
		}
		if mb.inst != m.Inst && m.Inst == rs.cfg.Instance {
			// A racer who comes to this server from another: the
			// removals so far, for the time of the last one.
			mb.removals = nil
			if mb.progress.Removed > 0 {
				mb.removals = []removal{{removed: mb.progress.Removed, at: mb.lastRemoval}}
			}
		}
		mb.Name, mb.inst, mb.sid = name, m.Inst, m.Sid
		mb.away, mb.lost = time.Time{}, false // back, from wherever they were
		if r.phase == PhaseRacing {
			rs.coalesceRacer(r, mb)
		}
	} else {
		switch {
		case r.phase == PhaseCountdown || r.phase == PhaseRacing:
			return ErrRaceUnderway
		case len(r.members) >= r.cfg.MaxPlayers:
			return ErrRoomFull
		}
		r.members = append(r.members, &member{Entrant: Entrant{ID: m.Who.ID, Name: name, Guest: m.Who.Guest},
			inst: m.Inst, sid: m.Sid})
	}
	r.empty = time.Time{}
	rs.pickHost(r)
	rs.leaveOthers(r, m.Who.ID, m.Inst, m.Sid)
	rs.changed(r)
	return nil
}

// leaveOthers takes a player who went into keep out of every other room
// (one room at a time).
func (rs *Rooms) leaveOthers(keep *room, playerID, inst, sid string) {
	for _, r := range rs.sortedRooms() {
		if r == keep {
			continue
		}
		rs.leaveOther(keep, r, playerID, inst, sid)
	}
}

// leaveOther is leaveOthers for one other room, r, whose lock it takes
// (keep's is held).
func (rs *Rooms) leaveOther(keep, r *room, playerID, inst, sid string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if mb := r.member(playerID); mb != nil && mb.present() {
		if mb.inst != inst || mb.sid != sid {
			if sink := rs.sinkOf(mb.inst, mb.sid); sink != nil {
				sink.Post(SeatTakenOver{Code: r.code})
			}
		}
		rs.leave(r, mb)
	}
	if r.host == playerID && r.presentCount() == 0 && (r.phase == PhaseWaiting || r.phase == PhaseResults) {
		rs.close(r, "its host went to room "+keep.code)
	}
}

// sortedRooms is the open rooms, oldest first (then by code), for folds
// that must visit them in the same order everywhere.
func (rs *Rooms) sortedRooms() []*room {
	out := make([]*room, 0, len(rs.rooms))
	for _, r := range rs.rooms {
		out = append(out, r)
	}
	slices.SortFunc(out, (*room).compare)
	return out
}

// compare orders rooms oldest first, then by code: the order every
// server's fold visits them in.
func (r *room) compare(o *room) int {
	if c := r.created.Compare(o.created); c != 0 {
		return c
	}
	return strings.Compare(r.code, o.code)
}

// oldest returns the oldest open room for which has holds, or nil, with
// rs.mu held: a look-up that neither sorts nor copies the rooms.
func (rs *Rooms) oldest(has func(*room) bool) *room {
	var best *room
	for _, r := range rs.rooms {
		if has(r) && (best == nil || r.compare(best) < 0) {
			best = r
		}
	}
	return best
}

// listing is the room's line in the list of public rooms, with its lock
// held: no snapshot of the members, results or chat is built (every Lobby
// viewer asks for the list at each presence flush).
func (r *room) listing() RoomInfo {
	info := RoomInfo{Code: r.code, RulesID: r.cfg.Rules.ID(), RulesTitle: r.cfg.Rules.Title(), Phase: r.phase,
		MaxPlayers: r.cfg.MaxPlayers, Spectators: len(r.watchers), Rated: r.cfg.Rated, TimeLimit: r.cfg.TimeLimit,
		TimeLimitS: int(r.cfg.TimeLimit / time.Second), Created: r.created}
	for _, m := range r.members {
		if m.present() {
			info.Players++
		}
		if m.ID == r.host {
			info.Host = m.Name
		}
	}
	return info
}

// hostsOther reports whether the player hosts an open room other than r.
func (rs *Rooms) hostsOther(playerID string, r *room) bool {
	for _, o := range rs.rooms {
		if o != r && o.host == playerID {
			return true
		}
	}
	return false
}

// pickHost passes the host's part to the first member present when the
// host is not, skipping members who host another room.
func (rs *Rooms) pickHost(r *room) {
	if h := r.member(r.host); h != nil && h.present() {
		return
	}
	for _, m := range r.members {
		if m.present() && m.ID != r.host && !rs.hostsOther(m.ID, r) {
			r.host = m.ID
			return
		}
	}
}

// leave folds a member's leaving (or being gone with their server).
func (rs *Rooms) leave(r *room, m *member) {
	m.sid, m.ready = "", false
	if r.phase == PhaseWaiting || r.phase == PhaseResults {
		r.members = slices.DeleteFunc(r.members, func(x *member) bool { return x == m })
	}
	rs.pickHost(r)
	if r.presentCount() == 0 && r.empty.IsZero() {
		r.empty = rs.cfg.Clock.Now()
	}
	if r.phase == PhaseRacing {
		rs.coalesceRacer(r, m)
		if rs.checkDone(r) {
			rs.endAfter(r.code)
		}
	}
	rs.changed(r)
}

// gone folds the end of a server: its sessions leave their rooms.
func (rs *Rooms) gone(inst string, at time.Time) {
	for _, r := range rs.sortedRooms() {
		rs.goneFrom(r, inst, at)
	}
}

// goneFrom is gone for one room, whose lock it takes: in a race, the
// server's racers are away (their seats wait for them, SeatGrace from at
// on the cluster's clock); in the waiting room or after a race they
// leave.
func (rs *Rooms) goneFrom(r *room, inst string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range slices.Clone(r.members) {
		if !m.present() || m.inst != inst {
			continue
		}
		if r.phase == PhaseRacing || r.phase == PhaseCountdown {
			m.away = at
		}
		rs.leave(r, m)
	}
	n := len(r.watchers)
	r.watchers = slices.DeleteFunc(r.watchers, func(w *watcher) bool { return w.inst == inst })
	if len(r.watchers) != n {
		rs.changed(r)
	}
}

// checkDone reports whether this server holds the lease and every racer
// of r is done: then the race is to end (endRace, with no lock held),
// with r's lock held.
func (rs *Rooms) checkDone(r *room) bool {
	return rs.holder.Load() && r.phase == PhaseRacing && r.allDone()
}

// endAfter has the current locked call (rs.mu held) end the room's race
// once unlocked.
func (rs *Rooms) endAfter(code string) {
	rs.after = append(rs.after, func() { go rs.endRace(code) })
}

// lapse folds the end of an away racer's grace: unless they came back,
// their seat is lost, and they count as left.
func (rs *Rooms) lapse(r *room, m roomMsg) {
	mb := r.member(m.Target)
	if mb == nil || mb.present() || mb.away.IsZero() || r.round != m.Round ||
		r.phase != PhaseRacing && r.phase != PhaseCountdown {
		return
	}
	mb.away, mb.lost = time.Time{}, true
	if r.phase == PhaseRacing {
		rs.coalesceRacer(r, mb)
		if rs.checkDone(r) {
			rs.endAfter(r.code)
		}
	}
	rs.changed(r)
}

// clusterNow is the time on the cluster's clock, as this server reckons it.
func (rs *Rooms) clusterNow() time.Time {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.cfg.Clock.Now().Add(rs.offset)
}

// start folds the host's start.
func (rs *Rooms) start(r *room, m roomMsg) error {
	switch {
	case r.member(m.Target) == nil:
		return ErrNotMember
	case r.host != m.Target:
		return ErrNotHost
	case r.phase != PhaseWaiting:
		return ErrNotWaiting
	case r.presentCount() < MinRacers:
		return ErrTooFewRacers
	}
	r.phase = PhaseCountdown
	r.startsDB = time.UnixMilli(m.At)
	r.startsAt = r.startsDB.Add(-rs.offset)
	r.deadline = r.startsAt.Add(r.cfg.TimeLimit)
	for _, mb := range r.members {
		mb.ready = false
	}
	round := r.round
	rs.setTimer(r, r.startsAt, func() { rs.begin(r.code, round) })
	rs.broadcast(r, CountdownStarted{Code: r.code, Round: r.round, StartsAt: r.startsAt, Deal: r.cfg.Deal, RulesID: r.cfg.Rules.ID()})
	rs.changed(r)
	if rs.cfg.OnCountdown != nil {
		c := Countdown{Code: r.code, Round: r.round, RaceKey: r.id + "/" + strconv.Itoa(r.round), RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal}
		for _, mb := range r.members {
			if mb.present() && mb.inst == rs.cfg.Instance && !mb.Guest {
				c.Racers = append(c.Racers, mb.ID)
			}
		}
		if len(c.Racers) > 0 {
			rs.after = append(rs.after, func() { rs.cfg.OnCountdown(c) })
		}
	}
	return nil
}

// Countdown is a race's countdown as a server's OnCountdown hook hears
// of it: the race, and the racers this server serves.
type Countdown struct {
	Code    string
	Round   int
	RaceKey string // Snapshot.RaceKey of the race
	RulesID string
	Deal    uint64
	// Racers is the player IDs of the racers of this server (guests
	// left out: nothing of theirs is stored).
	Racers []string
}

// setTimer sets the room's timer for at on this server's clock.
func (rs *Rooms) setTimer(r *room, at time.Time, f func()) {
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = rs.cfg.Clock.AfterFunc(at.Sub(rs.cfg.Clock.Now()), f)
}

// begin ends the countdown of round on this server.
func (rs *Rooms) begin(code string, round int) {
	rs.mu.Lock()
	defer rs.unlock()
	r := rs.rooms[code]
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase != PhaseCountdown || r.round != round {
		return
	}
	r.phase = PhaseRacing
	for _, m := range r.members {
		if m.progress.State == RacerWaiting {
			m.progress.State = RacerPlaying
		}
	}
	rs.setTimer(r, r.deadline, func() { rs.endRace(code) })
	rs.broadcast(r, RaceStarted{Code: r.code, Round: r.round, Deadline: r.deadline})
	if rs.checkDone(r) {
		rs.endAfter(code)
	}
	rs.changed(r)
}

// end folds the end of a race.
func (rs *Rooms) end(r *room, m roomMsg) {
	if r.round != m.Round || (r.phase != PhaseRacing && r.phase != PhaseCountdown) {
		return
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	void := false
	for _, mb := range r.members {
		void = void || mb.lost || !mb.away.IsZero()
	}
	r.phase = PhaseResults
	r.ended = time.UnixMilli(m.At).Add(-rs.offset)
	r.results = fromWirePlacings(m.Results)
	r.members = slices.DeleteFunc(r.members, func(mb *member) bool { return !mb.present() })
	rs.pickHost(r)
	if r.presentCount() == 0 && r.empty.IsZero() {
		r.empty = rs.cfg.Clock.Now()
	}
	rs.broadcast(r, RaceEnded{Code: r.code, Round: r.round, Results: slices.Clone(r.results)})
	rs.changed(r)
	res := RaceResult{Code: r.code, RoomID: r.id, Round: r.round, RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal, Verdict: r.cfg.Verdict,
		Rated: r.cfg.Rated, Void: void, Started: r.startsDB, Ended: time.UnixMilli(m.At), Placings: slices.Clone(r.results)}
	r.lastEnd, r.unstored = &res, false
	if rs.holder.Load() {
		rs.after = append(rs.after, func() { rs.record(res) })
	}
	if rs.cfg.OnRoundOver != nil {
		code, round, ps := r.code, r.round, slices.Clone(r.results)
		rs.after = append(rs.after, func() { rs.cfg.OnRoundOver(code, round, ps) })
	}
}

// rematch folds the host's rematch.
func (rs *Rooms) rematch(r *room, m roomMsg) error {
	switch {
	case r.member(m.Target) == nil:
		return ErrNotMember
	case r.host != m.Target:
		return ErrNotHost
	case r.phase != PhaseResults:
		return ErrNotOver
	case m.Cfg == nil:
		return ErrBadRoomConfig
	}
	r.cfg.Deal, r.cfg.Verdict, r.cfg.Rated = m.Cfg.Deal, engine.Verdict(m.Cfg.Verdict), m.Cfg.Rated
	r.round++
	r.phase = PhaseWaiting
	r.results = nil
	r.startsDB, r.startsAt, r.deadline, r.ended = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	for _, mb := range r.members {
		mb.ready, mb.progress, mb.lastRemoval, mb.finish, mb.removals = false, Progress{}, 0, 0, nil
		mb.away, mb.lost = time.Time{}, false
		mb.line, mb.lineKnown, mb.lineSum = nil, false, 0
	}
	rs.changed(r)
	return nil
}

// watch folds a spectator's coming.
func (rs *Rooms) watch(r *room, m roomMsg) error {
	for _, w := range r.watchers {
		if w.id == m.Target {
			if w.inst != m.Inst || w.sid != m.Sid {
				if sink := rs.sinkOf(w.inst, w.sid); sink != nil {
					sink.Post(SeatTakenOver{Code: r.code})
				}
			}
			w.inst, w.sid = m.Inst, m.Sid
			rs.changed(r)
			return nil
		}
	}
	if len(r.watchers) >= MaxSpectators {
		return ErrTooManySpectators
	}
	r.watchers = append(r.watchers, &watcher{id: m.Target, inst: m.Inst, sid: m.Sid})
	rs.changed(r)
	return nil
}

// close folds the closing of a room.
func (rs *Rooms) close(r *room, reason string) {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	over := r.phase == PhaseCountdown || r.phase == PhaseRacing
	rs.broadcast(r, RoomClosed{Code: r.code, Reason: reason})
	r.phase, r.reason = PhaseClosed, reason
	rs.changed(r)
	delete(rs.rooms, r.code)
	rs.byCode.Delete(r.code)
	if r.stop != nil {
		r.stop()
	}
	rs.forgetUnused()
	if rs.cfg.OnRoundOver != nil && over {
		code, round := r.code, r.round
		var ps []Placing
		for _, m := range r.members {
			ps = append(ps, Placing{ID: m.ID})
		}
		rs.after = append(rs.after, func() { rs.cfg.OnRoundOver(code, round, ps) })
	}
}

// local calls f for each of this server's sessions in the room: members,
// then spectators.
func (rs *Rooms) local(r *room, f func(*roomSession)) {
	for _, m := range r.members {
		if s := rs.sessionOf(m.inst, m.sid); s != nil {
			f(s)
		}
	}
	for _, w := range r.watchers {
		if s := rs.sessionOf(w.inst, w.sid); s != nil {
			f(s)
		}
	}
}

// broadcast posts ev to this server's sessions in the room.
func (rs *Rooms) broadcast(r *room, ev Event) {
	rs.local(r, func(s *roomSession) { rs.post(s, ev) })
}

// changed shows the room's new snapshot to this server's sessions in it.
func (rs *Rooms) changed(r *room) {
	r.seq++
	var ev Event = RoomChanged{Snapshot: rs.snapshot(r)}
	key := RoomKey(r.code)
	rs.local(r, func(s *roomSession) { s.sink.Coalesce(key, ev) })
}

// coalesceRacer shows m's line of the racer panel to this server's
// sessions in the room.
func (rs *Rooms) coalesceRacer(r *room, m *member) {
	var ev Event = RacerProgress{Code: r.code, Round: r.round, Racer: r.racer(m)}
	key := RacerKey(r.code, m.ID)
	rs.local(r, func(s *roomSession) { s.sink.Coalesce(key, ev) })
}

// racer is m as the racer panel shows it.
func (r *room) racer(m *member) Racer {
	v := Racer{ID: m.ID, Name: m.Name, Guest: m.Guest, Host: m.ID == r.host, Ready: m.ready, Present: m.present(),
		Muted: r.muted[m.ID], Progress: m.progress, Cards: r.cards(), Finish: m.finish, LastRemoval: m.lastRemoval,
		Away: !m.away.IsZero(), Lost: m.lost}
	return v.placed(r.phase, r.results)
}

func (rs *Rooms) snapshot(r *room) Snapshot {
	s := Snapshot{
		Code: r.code, RoomID: r.id, Phase: r.phase, Round: r.round, Seq: r.seq,
		RulesID: r.cfg.Rules.ID(), RulesTitle: r.cfg.Rules.Title(), Deal: r.cfg.Deal, Verdict: r.cfg.Verdict,
		Public: r.cfg.Public, Rated: r.cfg.Rated, TimeLimit: r.cfg.TimeLimit, MaxPlayers: r.cfg.MaxPlayers, Cards: r.cards(),
		Host: r.host, StartsAt: r.startsAt, Ended: r.ended,
		Members: make([]Racer, len(r.members)), Spectators: len(r.watchers),
		Results: slices.Clone(r.results), Chat: slices.Clone(r.chat), ClosedReason: r.reason,
	}
	if r.phase == PhaseRacing || r.phase == PhaseResults {
		s.Deadline = r.deadline
	}
	for i, m := range r.members {
		s.Members[i] = r.racer(m)
	}
	return s
}
