package lobby

// Race rooms (Rooms): 2–8 players race their own game of one deal, with
// spectators and chat, on one server or on the servers of a cluster. The
// same code serves both: the rooms are a state machine over an ordered
// log of ops (RoomLog), which the cluster layer (package cluster) carries
// over a bus: one server's in memory, a cluster's on PostgreSQL.
//
// The design, in short:
//
//   - The rooms' life is the log: every change (a room opened, a join, a
//     leave, a ready mark, a start, a chat line, a mute, a removal, a
//     spectator, the end of a race, a rematch, a close, a server gone, a
//     seat lost) is an op (RoomOp), and every server applies the same ops in the same order
//     to the same rooms (Apply): membership, the host, the
//     one-room-per-player and one-hosted-room rules, full rooms and races
//     under way are decided by the fold, the same way everywhere. A server
//     that asks for a change logs it and waits until its own fold has
//     applied it to learn whether it was taken (RoomLog.Do).
//   - Times come from one clock. The start moment is the cluster's clock
//     plus CountdownTime (RoomLog.Now, read by the server that starts the
//     race and carried in the op); the cluster layer measures this
//     server's offset to that clock (SetOffset), and the rooms set their
//     timers by it, so every server counts down together. The deadline is
//     the start plus the time limit.
//   - Progress stays where the racer is: each racer's board lives on the
//     server that serves them, which stores every move (race) and reports
//     it here (Room.Report): the room's view of its own racers changes at
//     once, and the newest progress of this server's racers in a room goes
//     to the other servers (RoomLog.Offer, coalesced), which apply it
//     (ApplyProgress). A server alone (no other server's op seen) offers
//     no progress.
//   - One server holds the races' lease (the cluster layer decides which,
//     SetHolder) and runs the clock for every room (Duties): it ends races
//     (everybody done, or the deadline), closes rooms empty for
//     EmptyRoomClose, and stores each race's result (OnRaceEnd). A new
//     holder stores again the results of the races that ended last (the
//     store keeps one race per key: a second write changes nothing). A
//     race's end op has a fixed once key, so that two servers ending it at
//     once log one end.
//   - A racer whose server is gone is away (RacerAway): their seat, and
//     the race, wait for them to come back to any server for SeatGrace,
//     from the moment the server was declared gone; the holder then
//     declares the seat lost (the racer counts as left). A race in which
//     a racer was lost so is void (RaceResult.Void): stored, unrated.
//   - A room's methods never block on a session: a session's sink takes
//     events without waiting (Sink), and one that refuses them for
//     RoomDropAfter leaves its rooms (a racer keeps their seat).

import (
	"crypto/rand"
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

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/rating"
)

// DefaultSeatGrace is how long a racer whose server died keeps their
// seat unless RoomsConfig says: long enough to reconnect, through a
// balancer, to another server.
const DefaultSeatGrace = time.Minute

// Tracer times stages of the rooms' work, a debugging aid (bus.Trace is
// one).
type Tracer interface {
	Since(stage string, from time.Time)
}

// TraceReportStage is the stage a Tracer is told of for each report of
// a racer of this server (the room's lock, the offer).
const TraceReportStage = "progress: a report here (room's lock, offer)"

// RoomsConfig configures the rooms.
type RoomsConfig struct {
	// Instance names this server in the log (unique per running server).
	Instance string
	// Clock sets the timers; SystemClock() when nil.
	Clock Clock
	// MaxRooms bounds the rooms open in the cluster that this server
	// opens new ones beside (DefaultMaxRooms when 0).
	MaxRooms int
	// MaxRoomsPerAddress bounds the open rooms opened from one address
	// (ErrAddressRooms); a share of MaxRooms when 0 (AddressRoomsShare).
	MaxRoomsPerAddress int
	// Rand is the source of room codes; crypto/rand when nil.
	Rand io.Reader
	// OnRaceEnd is called on the lease holder for each race that ended,
	// with no lock held; maybe more than once for one race (after a
	// takeover of the lease): RaceResult.Key is the same each time, for
	// the store to keep it once.
	// A result it fails to store (an error) is stored again at the
	// holder's next Duties.
	// It returns how the stored race counted for each racer with a key
	// (read back from the store, so that a retry or a new holder tells the
	// same), which the holder logs for every server's results (OpRated).
	OnRaceEnd func(RaceResult) ([]RatingChange, error)
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
	// ArenaDeal picks the deal of a new arena race on the lease holder
	// (a deal the solver proves winnable), with no lock held; a deal
	// drawn at random when nil.
	ArenaDeal func(rulesID string) (uint64, engine.Verdict)
	// OnArenaRace is called on the lease holder after OnRaceEnd stored
	// an arena race (RaceResult.Arena), with no lock held, maybe more
	// than once for one race: it scores the race in the arena (once, by
	// the race's key) and returns its racers' new lines, which the holder
	// logs for every server (OpArenaScore). A failure is tried again with
	// the race's store.
	OnArenaRace func(RaceResult) ([]ArenaStanding, error)
	// OnRated is called on every server when the ratings of a stored
	// race reach it (the holder's OpRated) and the race moved somebody's
	// rating, with no lock held, with the race's rules ID: the rating
	// lists of those rules may have changed.
	OnRated func(rulesID string)
	// Logf, when set, is told of failures.
	Logf func(format string, args ...any)
	// Trace, when set, times each report (TraceReportStage).
	Trace Tracer
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
	cfg RoomsConfig
	log RoomLog
	// byCode is the open rooms by code (as rooms), read without mu:
	// written with mu held, with rooms.
	byCode sync.Map
	// holder: this server holds the races' lease (written with mu held).
	holder atomic.Bool
	// others is set once an op of another server was applied: from then
	// on this server offers its racers' progress.
	others atomic.Bool
	// sessions is this server's sinks, by token (*roomSession),
	// changed with mu held and read without it: a room's progress finds
	// its local sessions with the room's lock alone.
	sessions sync.Map
	// bySink finds the session of a sink of a comparable type (every
	// sink but a test's), under mu.
	bySink map[Sink]*roomSession
	// used is forgetUnused's set of the tokens in use, under mu, kept
	// from one walk to the next rather than made anew each time.
	used map[string]bool
	// tidied is when forgetUnused last walked the rooms, tidyDue whether
	// its next walk is set, under mu.
	tidied  time.Time
	tidyDue bool
	// arenaViews is each arena's standings as its views read them
	// (*arenaViews by ID), read without mu (arena_fold.go).
	arenaViews sync.Map

	mu     sync.Mutex
	rooms  map[string]*room // open rooms by code
	arenas map[int64]*arenaRun
	// watchers follow arenas from outside (WatchArena), under their own
	// lock: a racer's move reaches them holding its room's lock only.
	watchers arenaWatchers
	offset   time.Duration // the cluster's clock minus this server's
	// recording counts, by arena, the races of the arena this holder is
	// storing (end, off the log's goroutine): the arena does not end
	// before their scores are logged (arenaDuties).
	recording map[int64]int
	sids      int      // makes session tokens
	after     []func() // what the current locked call must do once unlocked
}

// roomSession is one local session's sink and its token, and how long
// it has refused events.
type roomSession struct {
	sid  string
	sink Sink
	// pending counts the ops logged with the token and not yet applied
	// (sidOf), under Rooms.mu.
	pending int
	sinkRefusals
}

// room is one room as the fold knows it, plus this server's
// sessions in it.
type room struct {
	// mu is the room's lock (Rooms' doc): with Rooms.mu to
	// change the fields, alone for the members' progress, lastRemoval,
	// finish and removals, and for held.
	mu   sync.Mutex
	code string
	id   string // the room's ID (Snapshot.RoomID), from its open op
	// openedFrom is the address the room was opened from (its first
	// host's Entrant.Addr; empty when unknown), for AddressRoomsShare.
	openedFrom string
	created    time.Time
	cfg        RoomConfig
	phase      Phase
	round      int
	seq        uint64
	host       string
	members    []*member
	watchers   []*watcher
	startsDB   time.Time // the start on the cluster's clock
	startsAt   time.Time // the start on this server's clock
	deadline   time.Time
	ended      time.Time
	results    []Placing
	lastEnd    *RaceResult // the last race's result, for a new lease holder to store again
	unstored   bool        // the holder failed to store lastEnd: its next tick tries again
	chat       []ChatLine
	// muted and removed are the members the host muted or removed, by
	// ID; mutedAddrs and removedAddrs their addresses (Entrant.Addr), so
	// that a guest coming back as another guest is still muted or kept
	// out. Both hold for the life of the room.
	muted, mutedAddrs     map[string]bool
	removed, removedAddrs map[string]bool
	reason                string
	empty                 time.Time // since when nobody is in it; zero when somebody is
	// lastAt is the latest moment of an op of the room (its At, on the
	// cluster's clock); hostActed when the host last acted in the room
	// or became host, readyAt when a racer other than the host last
	// marked ready (HostIdle).
	lastAt, hostActed, readyAt time.Time

	timer   Timer                   // this server's countdown or deadline
	chatLim map[string]*chatLimiter // the members' chat limits, on the cluster's clock (the fold's)
	// followed is the servers whose progress of the room this server
	// reads (followInstances).
	followed map[string]bool
	// held is, per server, its newest progress that this server's fold
	// was not ready for (the race's start or a member's join not applied
	// here yet: progress and ops come apart), applied again after the
	// room's next op.
	held map[string]ServerProgress
	// outage is set when a server with racers in the race could not
	// reach the database for a while during it (OpOutage): they could
	// not move, so the race is void.
	outage bool
}

type member struct {
	Entrant
	inst, sid string // the server and session serving the member; sid empty: none
	// line is the racer's moves, as their server last reported them
	// (Report) or as its progress made them whole; lineKnown is false
	// before the first, or after progress the line could not follow.
	// A line is never changed once it is the room's: each report brings
	// a new one.
	line      []string
	lineKnown bool
	// lineSum is the sum of the line of the racer's last progress from
	// another server (LineSummary), 0 for a racer of this server; sent is
	// the line of this server's racer as its last Progress told it.
	lineSum uint32
	sent    []string
	// away is when the member's server was declared gone in a race, on
	// the cluster's clock (zero: not away); lost is set once their seat's
	// grace ran out without them.
	away        time.Time
	lost        bool
	ready       bool
	berserk     bool // an arena racer who gave up undo (OpBerserk)
	forfeit     bool // an arena racer out for not moving in time (OpArenaForfeit)
	progress    Progress
	lastRemoval time.Duration
	finish      time.Duration
	removals    []removal // this server's own racers only
}

func (m *member) present() bool { return m.sid != "" }

type watcher struct {
	id, inst, sid string
	// addr and guest are the spectator's, as their last chat line said
	// (a mute holds for a guest's address, as a member's): empty before.
	addr  string
	guest bool
}

// NewRooms makes this server's rooms over log, which applies its ops to
// them (Apply) from then on: the cluster layer makes both (package
// cluster), and reads the ops logged before this server started into the
// rooms before their first use.
func NewRooms(cfg RoomsConfig, log RoomLog) (*Rooms, error) {
	if log == nil || cfg.Instance == "" {
		return nil, errors.New("lobby: rooms need a log and an instance name")
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock()
	}
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = DefaultMaxRooms
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.SeatGrace <= 0 {
		cfg.SeatGrace = DefaultSeatGrace
	}
	return &Rooms{cfg: cfg, log: log, rooms: map[string]*room{}, arenas: map[int64]*arenaRun{},
		bySink: map[Sink]*roomSession{}, recording: map[int64]int{}}, nil
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

// SetOffset sets this server's offset to the cluster's clock (the
// cluster's time minus this server's), as the cluster layer measured it.
func (rs *Rooms) SetOffset(off time.Duration) {
	rs.mu.Lock()
	rs.offset = off
	rs.mu.Unlock()
}

// nowLocked is the time on the cluster's clock as this server reckons
// it (its clock and the offset measured), with rs.mu held: the moment of
// an op it logs.
func (rs *Rooms) nowLocked() time.Time { return rs.cfg.Clock.Now().Add(rs.offset) }

// now is nowLocked, taking rs.mu.
func (rs *Rooms) now() time.Time {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.nowLocked()
}

// Offset returns this server's offset to the cluster's clock: the
// database's time minus this server's, as last measured.
func (rs *Rooms) Offset() time.Duration {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.offset
}

// Holder reports whether this server holds the races' lease (SetHolder).
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
// sight, for an op about to be logged, with rs.mu held: the token is kept
// (forgetUnused) until the caller says the op was applied (doneWith),
// whatever the fold of other ops meanwhile.
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

// doneWith says that the op logged with a token from sidOf was applied
// (or given up on): the token may go once its session is in no room.
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
	var out []RoomOp
	for _, r := range rs.sortedRooms() {
		in := false
		for _, m := range r.members {
			if m.inst == rs.cfg.Instance && m.sid == s.sid {
				in = true
				out = append(out, RoomOp{Kind: OpLeave, Code: r.code, Target: m.ID, Sid: s.sid, At: rs.nowLocked()})
			}
		}
		for _, w := range r.watchers {
			if w.inst == rs.cfg.Instance && w.sid == s.sid {
				in = true
				out = append(out, RoomOp{Kind: OpUnwatch, Code: r.code, Target: w.id, Sid: s.sid})
			}
		}
		if in && s.sink.Post(Missed{Code: r.code}) {
			s.refused = time.Time{}
			return
		}
	}
	for _, id := range rs.arenaIDs() {
		if p := rs.arenas[id].sessionPlayer(rs.cfg.Instance, s.sid); p != nil {
			out = append(out, RoomOp{Kind: OpArenaLeave, Arena: &ArenaInfo{ID: id}, Target: p.ID, Sid: s.sid, At: rs.nowLocked()})
		}
	}
	rs.after = append(rs.after, func() {
		go func() {
			for _, m := range out {
				if err := rs.log.Do(m); err != nil && !errors.Is(err, ErrNotMember) && !errors.Is(err, ErrNotInArena) {
					rs.logf("lobby: rooms: drop a session that stopped reading: %v", err)
				}
			}
			rs.tidy()
		}()
	})
}

// tidyEvery is how often at most forgetUnused walks the rooms: it is
// asked after every op and leave, and a burst of them (an arena's
// pairings) walked every room, arena player and session each time under
// the rooms' lock. A token in no room is forgotten within it.
const tidyEvery = time.Second

// forgetUnused drops the tokens of local sessions in no room: now when
// the last walk was tidyEvery ago or more, otherwise at the end of that
// interval, with rs.mu held.
func (rs *Rooms) forgetUnused() {
	now := rs.cfg.Clock.Now()
	if wait := rs.tidied.Add(tidyEvery).Sub(now); wait > 0 {
		if !rs.tidyDue {
			rs.tidyDue = true
			rs.cfg.Clock.AfterFunc(wait, func() {
				rs.mu.Lock()
				defer rs.unlock()
				rs.tidyDue = false
				rs.forgetUnused()
			})
		}
		return
	}
	rs.tidied = now
	if rs.used == nil {
		rs.used = map[string]bool{}
	}
	used := rs.used
	clear(used)
	for _, r := range rs.rooms {
		for _, m := range r.members {
			used[m.sid] = true
		}
		for _, w := range r.watchers {
			used[w.sid] = true
		}
	}
	for _, ar := range rs.arenas {
		if ar.over {
			continue
		}
		for _, p := range ar.players {
			if p.inst == rs.cfg.Instance {
				used[p.sid] = true
			}
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

// Apply applies one op of the log to the rooms: the cluster layer calls
// it for every op, in the log's order, on every server. The error is the
// op's verdict (for the server that logged it, when it waits: RoomLog.Do).
func (rs *Rooms) Apply(op RoomOp) error {
	rs.mu.Lock()
	defer rs.unlock()
	if op.Inst != rs.cfg.Instance && op.Inst != "" && !rs.others.Load() {
		// Not alone: the other servers need this one's progress, of the
		// races under way too.
		rs.others.Store(true)
		rs.after = append(rs.after, rs.offerAll)
	}
	err := rs.apply(op)
	if r := rs.rooms[op.Code]; r != nil {
		// A member served by a server not followed yet (a join, a
		// comeback elsewhere): read its progress too.
		rs.followInstances(r)
		r.mu.Lock()
		if rs.applyHeld(r) {
			rs.endAfter(r.code)
		}
		r.mu.Unlock()
	}
	return err
}

// offerAll offers the progress of this server's racers in every room to
// the log, as news: what the other servers missed while this one thought
// it was alone.
func (rs *Rooms) offerAll() {
	rs.mu.Lock()
	rooms := rs.sortedRooms()
	rs.mu.Unlock()
	for _, r := range rooms {
		r.mu.Lock()
		mine := false
		for _, m := range r.members {
			mine = mine || m.inst == rs.cfg.Instance
		}
		r.mu.Unlock()
		if mine {
			rs.log.Offer(r.code, true)
		}
	}
}

// SetHolder says whether this server holds the races' lease (the cluster
// layer keeps it). A server that just took it stores again the last
// result of every room: the holder before may have died before it did.
func (rs *Rooms) SetHolder(held bool) {
	rs.mu.Lock()
	was := rs.holder.Swap(held)
	var again []RaceResult
	if held && !was {
		for _, r := range rs.rooms {
			if r.lastEnd != nil {
				again = append(again, *r.lastEnd)
			}
		}
	}
	rs.mu.Unlock()
	for _, res := range again {
		rs.record(res)
	}
}

// Servers returns the other servers with sessions in the rooms: those
// the lease holder watches for their death (the cluster layer logs OpGone
// for one that died).
func (rs *Rooms) Servers() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	add := func(inst string) {
		if inst != rs.cfg.Instance && !seen[inst] {
			seen[inst] = true
			out = append(out, inst)
		}
	}
	for _, r := range rs.sortedRooms() {
		for _, m := range r.members {
			if m.present() {
				add(m.inst)
			}
		}
		for _, w := range r.watchers {
			add(w.inst)
		}
	}
	for _, id := range rs.arenaIDs() {
		for _, p := range rs.arenas[id].players {
			if p.sid != "" {
				add(p.inst)
			}
		}
	}
	return out
}

// record has OnRaceEnd store a race's result, and notes whether it did.
func (rs *Rooms) record(res RaceResult) {
	if rs.cfg.OnRaceEnd == nil {
		return
	}
	ratings, err := rs.cfg.OnRaceEnd(res)
	if err != nil {
		rs.logf("lobby: rooms: store race %s round %d (tried again later): %v", res.Code, res.Round, err)
	} else if len(ratings) > 0 {
		// The op is the race's once: two holders log one.
		rs.log.Post("rated/"+res.Code+"/"+res.Key(), RoomOp{Kind: OpRated, Code: res.Code, Round: res.Round, Ratings: ratings})
	}
	if err == nil && res.Arena != 0 && rs.cfg.OnArenaRace != nil {
		var lines []ArenaStanding
		if lines, err = rs.cfg.OnArenaRace(res); err != nil {
			rs.logf("lobby: rooms: score arena race %s round %d (tried again later): %v", res.Code, res.Round, err)
		} else if len(lines) > 0 {
			rs.log.Post("arenascore/"+res.Key(), RoomOp{Kind: OpArenaScore, Arena: &ArenaInfo{ID: res.Arena}, Lines: lines})
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.rooms[res.Code]; r != nil && r.lastEnd != nil && r.lastEnd.Round == res.Round {
		r.unstored = err != nil
	}
}

// Duties are the lease holder's, run by the cluster layer every little
// while: store again the results that failed to, declare lost the seats
// whose grace ran out, forfeit the arena racers who made no move in time
// (arenaIdle), end the races that are over, close the rooms empty for
// EmptyRoomClose.
func (rs *Rooms) Duties() {
	if !rs.holder.Load() {
		return
	}
	rs.mu.Lock()
	now := rs.cfg.Clock.Now()
	clusterNow := now.Add(rs.offset)
	var ends []string
	var closes []string
	var unstored []RaceResult
	var lapses, forfeits []RoomOp
	idle := map[string]RoomOp{} // by the op's once
	for _, r := range rs.rooms {
		if rs.idleHost(r, clusterNow) != nil {
			// Once per host's idle spell: two holders log one.
			once := "idlehost/" + r.code + "/" + r.host + "/" + strconv.FormatInt(r.hostActed.UnixMilli(), 10)
			idle[once] = RoomOp{Kind: OpIdleHost, Code: r.code, Target: r.host, At: clusterNow}
		}
		if r.unstored && r.lastEnd != nil {
			unstored = append(unstored, *r.lastEnd)
		}
		r.mu.Lock()
		done := r.phase == PhaseRacing && r.allDone()
		forfeits = append(forfeits, rs.arenaIdle(r, clusterNow)...)
		r.mu.Unlock()
		for _, m := range r.members {
			if !m.away.IsZero() && !clusterNow.Before(m.away.Add(rs.cfg.SeatGrace)) {
				lapses = append(lapses, RoomOp{Kind: OpLapse, Code: r.code, Target: m.ID, Round: r.round, At: m.away})
			}
		}
		if (r.phase == PhaseRacing || r.phase == PhaseCountdown) && (done || !r.deadline.IsZero() && !now.Before(r.deadline)) {
			ends = append(ends, r.code)
		}
		if !r.empty.IsZero() && now.Sub(r.empty) >= EmptyRoomClose && r.phase != PhaseRacing && r.phase != PhaseCountdown {
			closes = append(closes, r.code)
		}
	}
	arenaEnds, pairings := rs.arenaDuties(clusterNow)
	rs.mu.Unlock()
	for _, id := range arenaEnds {
		rs.log.Post(arenaEndOnce(id), RoomOp{Kind: OpArenaEnd, Arena: &ArenaInfo{ID: id}, At: clusterNow})
	}
	for _, p := range pairings {
		go rs.pairArena(p)
	}
	for _, res := range unstored {
		rs.record(res)
	}
	for _, m := range lapses {
		// The op is the lapse's once: two holders log one.
		rs.log.Post("lapse/"+m.Code+"/"+strconv.Itoa(m.Round)+"/"+strconv.FormatInt(m.At.UnixMilli(), 10)+"/"+m.Target, m)
	}
	for once, m := range idle {
		rs.log.Post(once, m)
	}
	for _, m := range forfeits {
		rs.log.Post(arenaForfeitOnce(m), m)
	}
	for _, code := range ends {
		rs.endRace(code)
	}
	for _, code := range closes {
		rs.log.Post("", RoomOp{Kind: OpClose, Code: code, Text: "nobody was in the room"})
	}
}

// endRace logs the end of the room's race with its placings as this
// server sees them, if it holds the lease. The op is the race's once: a
// second end of the same race logs nothing.
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
	rs.log.Post(id, RoomOp{Kind: OpEnd, Code: code, Round: round, At: dbNow, Results: results})
}

// apply folds one op into the rooms, with rs.mu held; the error is the
// op's verdict (for the server that logged it, when it waits).
func (rs *Rooms) apply(m RoomOp) error {
	switch m.Kind {
	case OpHello:
		return nil
	case OpGone:
		at := m.Logged
		if !m.At.IsZero() {
			at = m.At
		}
		rs.gone(m.Gone, at, m.Inst)
		return nil
	case OpOutage:
		rs.outage(m)
		return nil
	}
	if handled, err := rs.applyArena(m); handled {
		return err
	}
	r := rs.rooms[m.Code]
	if m.Kind == OpOpen {
		return rs.open(m)
	}
	if r == nil {
		return fmt.Errorf("%w %s", ErrNoRoom, m.Code)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noteActs(m)
	switch m.Kind {
	case OpJoin:
		return rs.join(r, m)
	case OpLeave:
		mb := r.member(m.Target)
		if mb == nil || !mb.present() || (m.Sid != "" && mb.sid != m.Sid) {
			return ErrNotMember
		}
		rs.leave(r, mb)
	case OpReady:
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
		if m.Ready && !m.At.IsZero() && r.presentCount() >= MinRacers && len(r.notReady("")) == 0 {
			// Everybody is ready: the race starts by itself (an op of a
			// server before this rule, which has no moment, does not).
			rs.countdown(r, m.At.Add(CountdownTime))
		}
	case OpIdleHost:
		rs.passIdleHost(r, m)
	case OpLapse:
		rs.lapse(r, m)
	case OpStart:
		return rs.start(r, m)
	case OpEnd:
		rs.end(r, m)
	case OpRated:
		rs.rated(r, m)
	case OpRematch:
		return rs.rematch(r, m)
	case OpChat:
		mb, err := r.chatAuthor(m) // chat.go: a member, or a spectator
		if w := r.watcher(mb.ID); err == nil && m.Who != nil && w != nil {
			// What a mute of the spectator holds for, from now on.
			w.addr, w.guest = mb.Addr, mb.Guest
		}
		switch {
		case err != nil:
			return err
		case r.isMuted(&mb):
			return ErrMuted
		}
		// The limit is the fold's: it sees the player's lines from
		// every server, in the same order everywhere.
		lim := r.chatLim[mb.ID]
		if lim == nil {
			lim = &chatLimiter{}
			r.chatLim[mb.ID] = lim
		}
		if !lim.allow(m.At) {
			return ErrChatTooFast
		}
		cl := ChatLine{Code: r.code, FromID: mb.ID, From: mb.Name, Text: keys.Clean(m.Text, 10*MaxChatLen),
			At: m.At.Add(-rs.offset), Watching: m.Who != nil}
		r.chat = append(r.chat, cl)
		if len(r.chat) > ChatHistory {
			r.chat = slices.Delete(r.chat, 0, len(r.chat)-ChatHistory)
		}
		rs.broadcast(r, cl)
	case OpMute:
		mb := r.member(m.Target)
		switch {
		case m.Who == nil || r.host != m.Who.ID:
			return ErrNotHost
		case mb == nil && !r.mutable(m.Target, m.Muted) || m.Target == m.Who.ID:
			return ErrNotMember
		}
		target := Entrant{ID: m.Target} // one muted who left
		if mb != nil {
			target = mb.Entrant
		} else if w := r.watcher(m.Target); w != nil {
			target = Entrant{ID: w.id, Addr: w.addr, Guest: w.guest}
		}
		if r.isMuted(&target) != m.Muted {
			r.muted, r.mutedAddrs = mark(r.muted, target.ID, m.Muted), mark(r.mutedAddrs, target.Addr, m.Muted)
			rs.changed(r)
		}
	case OpRemove:
		return rs.remove(r, m)
	case OpWatch:
		return rs.watch(r, m)
	case OpUnwatch:
		for _, w := range r.watchers {
			if w.id == m.Target && (m.Sid == "" || w.sid == m.Sid) {
				r.watchers = slices.DeleteFunc(r.watchers, func(x *watcher) bool { return x == w })
				rs.changed(r)
				return nil
			}
		}
		return ErrNotMember
	case OpClose:
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
func (rs *Rooms) open(m RoomOp) error {
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
	rules, err := engine.ParseRules(m.Cfg.RulesID)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRoomConfig, err)
	}
	cfg, err := RoomConfig{Rules: rules, Deal: m.Cfg.Deal, Verdict: m.Cfg.Verdict, Public: m.Cfg.Public,
		Rated: m.Cfg.Rated, TimeLimit: m.Cfg.TimeLimit, MaxPlayers: m.Cfg.MaxPlayers}.normalize()
	if err != nil {
		return err
	}
	created := m.Logged.Add(-rs.offset)
	if m.Logged.IsZero() {
		created = rs.cfg.Clock.Now()
	}
	id := m.RoomID
	if id == "" {
		id = "seq-" + strconv.FormatUint(m.Seq, 10) // an open of a server before room IDs
	}
	r := &room{code: m.Code, id: id, openedFrom: m.Who.Addr, created: created, cfg: cfg, round: 1, host: m.Who.ID, chatLim: map[string]*chatLimiter{},
		lastAt: m.At, hostActed: m.At}
	r.mu.Lock()
	defer r.mu.Unlock()
	rs.rooms[m.Code] = r
	rs.byCode.Store(m.Code, r)
	mb := &member{Entrant: Entrant{ID: m.Who.ID, Name: keys.Clean(m.Who.Name, keys.MaxNameWidth), Guest: m.Who.Guest, Addr: m.Who.Addr},
		inst: m.Inst, sid: m.Sid}
	r.members = append(r.members, mb)
	rs.leaveOthers(r, mb.ID, m.Inst, m.Sid)
	rs.changed(r)
	return nil
}

// errCodeTaken: two servers drew the same code at once; the later tries
// another.
var errCodeTaken = errors.New("lobby: room code taken")

// isMuted reports whether the host muted p: their account, or,
// for a guest, their address (a guest has no account to hold it: a
// muted guest, or a muted player back as a guest, comes back muted).
// Players with keys who share an address (a club behind one NAT) are
// judged by their accounts, and the host is never muted.
func (r *room) isMuted(p *Entrant) bool {
	return p.ID != r.host && (r.muted[p.ID] || r.guestAddrIn(p, r.mutedAddrs))
}

// isRemoved reports whether the host removed p from the room: their
// account, or, for a guest, their address, as isMuted.
func (r *room) isRemoved(p *Entrant) bool {
	return p.ID != r.host && (r.removed[p.ID] || r.guestAddrIn(p, r.removedAddrs))
}

// guestAddrIn reports whether p is a guest whose address is in addrs.
func (r *room) guestAddrIn(p *Entrant, addrs map[string]bool) bool {
	return p.Guest && p.Addr != "" && addrs[p.Addr]
}

// mark sets or clears key in set (made when nil); an empty key is no
// key (an address not known).
func mark(set map[string]bool, key string, on bool) map[string]bool {
	switch {
	case key == "":
	case on && set == nil:
		set = map[string]bool{key: true}
	case on:
		set[key] = true
	default:
		delete(set, key)
	}
	return set
}

// remove folds the host's removal of a member: their seat goes (in a race
// that runs, they count as left), their session is told, and their
// account and address are kept out of the room from then on.
func (rs *Rooms) remove(r *room, m RoomOp) error {
	mb := r.member(m.Target)
	switch {
	case m.Who == nil || r.host != m.Who.ID:
		return ErrNotHost
	case mb == nil || m.Target == m.Who.ID:
		return ErrNotMember
	}
	r.removed, r.removedAddrs = mark(r.removed, mb.ID, true), mark(r.removedAddrs, mb.Addr, true)
	if sink := rs.sinkOf(mb.inst, mb.sid); mb.present() && sink != nil {
		sink.Post(Removed{Code: r.code})
	}
	mb.away, mb.lost = time.Time{}, false // not waited for: left
	if mb.present() {
		rs.leave(r, mb) // in the waiting room or after a race, the seat goes
		return nil
	}
	if r.phase == PhaseWaiting || r.phase == PhaseResults {
		r.members = slices.DeleteFunc(r.members, func(x *member) bool { return x == mb })
	}
	if r.phase == PhaseRacing {
		rs.coalesceRacer(r, mb)
		if rs.checkDone(r) {
			rs.endAfter(r.code)
		}
	}
	rs.changed(r)
	return nil
}

// join folds a join.
func (rs *Rooms) join(r *room, m RoomOp) error {
	if m.Who == nil {
		return ErrNotMember
	}
	if r.isRemoved(m.Who) {
		return ErrRemoved
	}
	name := keys.Clean(m.Who.Name, keys.MaxNameWidth)
	if mb := r.member(m.Who.ID); mb != nil {
		if mb.forfeit {
			return ErrForfeited // arena_forfeit.go
		}
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
		mb.Name, mb.inst, mb.sid, mb.Addr = name, m.Inst, m.Sid, m.Who.Addr
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
		r.members = append(r.members, &member{Entrant: Entrant{ID: m.Who.ID, Name: name, Guest: m.Who.Guest, Addr: m.Who.Addr},
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
	rs.leaveOthersIn(rs.sortedRooms(), keep, playerID, inst, sid)
}

// leaveOthersIn is leaveOthers over rooms, the open rooms as sortedRooms
// gave them: a fold that seats several players sorts them once. A room
// closed since (by an earlier player's leave) is passed over, as a
// sortedRooms made now would.
func (rs *Rooms) leaveOthersIn(rooms []*room, keep *room, playerID, inst, sid string) {
	for _, r := range rooms {
		// Only a room the player is in or hosts has anything to leave:
		// the others are passed over without their lock (their members
		// and host are written with rs.mu held too).
		if r == keep || rs.rooms[r.code] != r || r.host != playerID && r.member(playerID) == nil {
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
			r.host, r.hostActed = m.ID, r.lastAt
			return
		}
	}
}

// noteActs notes the times HostIdle counts from, before m is folded: the
// op's, the host's action (a ready mark, a start, a chat line, a mute, a
// removal, a comeback), a ready mark of another racer. The times are the ops' own
// (At, on the cluster's clock as their server read it), so that every
// server counts the same; an op without one (a server's before this
// rule) counts for nothing.
func (r *room) noteActs(m RoomOp) {
	if m.At.IsZero() {
		return
	}
	at, actor := m.At, m.Target
	switch m.Kind {
	case OpJoin, OpMute, OpRemove:
		if m.Who != nil {
			actor = m.Who.ID
		}
	case OpStart:
		at = at.Add(-CountdownTime) // At is the race's start
	case OpReady, OpChat, OpLeave:
	default:
		return
	}
	if at.After(r.lastAt) {
		r.lastAt = at
	}
	if m.Kind == OpLeave {
		return
	}
	if actor == r.host {
		r.hostActed = at
	} else if m.Kind == OpReady && m.Ready {
		r.readyAt = at
	}
}

// idleHost is the racer the host's part passes to when the host has been
// idle at now (HostIdle): the first ready racer present who hosts no
// other room; nil while the host is not idle, or nobody is ready.
func (rs *Rooms) idleHost(r *room, now time.Time) *member {
	h := r.member(r.host)
	if r.phase != PhaseWaiting || h == nil || !h.present() || r.hostActed.IsZero() {
		return nil
	}
	since := r.hostActed
	if r.readyAt.After(since) {
		since = r.readyAt
	}
	if now.Before(since.Add(HostIdle)) {
		return nil
	}
	for _, mb := range r.members {
		if mb.present() && mb.ready && mb.ID != r.host && !rs.hostsOther(mb.ID, r) {
			return mb
		}
	}
	return nil
}

// passIdleHost folds the lease holder's word that the host was idle: if
// the fold agrees at the op's moment, the host's part passes to a ready
// racer, and the room is told why.
func (rs *Rooms) passIdleHost(r *room, m RoomOp) {
	if r.host != m.Target {
		return
	}
	to := rs.idleHost(r, m.At)
	if to == nil {
		return
	}
	from := r.member(r.host)
	r.host, r.hostActed = to.ID, m.At
	rs.broadcast(r, HostPassed{Code: r.code, From: from.Name, To: to.Name, ToID: to.ID})
	rs.changed(r)
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

// gone folds the end of a server: its sessions leave their rooms. A
// server declared gone by another (by) while it runs (it folds the op)
// was only out of reach for a while: its sessions, still here, take
// their seats again (comeBack).
func (rs *Rooms) gone(inst string, at time.Time, by string) {
	var back []comeback
	for _, r := range rs.sortedRooms() {
		back = append(back, rs.goneFrom(r, inst, at, inst == rs.cfg.Instance && by != "" && by != inst)...)
	}
	back = append(back, rs.arenaGone(inst, inst == rs.cfg.Instance && by != "" && by != inst)...)
	if len(back) > 0 {
		rs.after = append(rs.after, func() { go rs.comeBack(back) })
	}
}

// comeback is a seat of a session of this server to take again: the
// player, in the room (code), with the session's sink; a spectator's
// view when watch.
type comeback struct {
	arena ArenaInfo // an arena's player (ID not 0), not a room's
	code  string
	who   Entrant
	sink  Sink
	watch bool
}

// goneFrom is gone for one room, whose lock it takes: in a race, the
// server's racers are away (their seats wait for them, SeatGrace from at
// on the cluster's clock); in the waiting room or after a race they
// leave. With alive (this server is the one gone, and runs), it returns
// the seats of its sessions in a race or a waiting room, to take again.
func (rs *Rooms) goneFrom(r *room, inst string, at time.Time, alive bool) []comeback {
	r.mu.Lock()
	defer r.mu.Unlock()
	var back []comeback
	for _, m := range slices.Clone(r.members) {
		if !m.present() || m.inst != inst {
			continue
		}
		if s := rs.sessionOf(inst, m.sid); alive && s != nil && r.phase != PhaseResults {
			back = append(back, comeback{code: r.code, who: m.Entrant, sink: s.sink})
		}
		if r.phase == PhaseRacing || r.phase == PhaseCountdown {
			m.away = at
		}
		rs.leave(r, m)
	}
	n := len(r.watchers)
	r.watchers = slices.DeleteFunc(r.watchers, func(w *watcher) bool {
		if w.inst != inst {
			return false
		}
		if s := rs.sessionOf(inst, w.sid); alive && s != nil {
			back = append(back, comeback{code: r.code, who: Entrant{ID: w.id}, sink: s.sink, watch: true})
		}
		return true
	})
	if len(r.watchers) != n {
		rs.changed(r)
	}
	return back
}

// comeBack has this server's sessions take their seats again after
// another server declared this one gone (gone), as a player who
// reconnects does: a racer's seat waits for them, a waiting room takes
// them back while it has a seat.
func (rs *Rooms) comeBack(back []comeback) {
	for _, c := range back {
		if !rs.stillAway(c) {
			continue
		}
		var err error
		if c.arena.ID != 0 {
			_, err = rs.JoinArena(c.arena, c.who, c.sink, ArenaStanding{})
		} else if c.watch {
			_, err = rs.handle(c.code).Watch(c.who.ID, c.sink)
		} else {
			_, err = rs.Join(rs.handle(c.code), c.who, c.sink)
		}
		if err != nil {
			rs.logf("lobby: rooms: %s back in room %s after this server was declared gone: %v", c.who.ID, c.code, err)
		}
	}
}

// stillAway reports whether a seat to take again (comeBack) still waits:
// the racer is away from the race, or, from a waiting room, in no room,
// the spectator no longer watches; not when they came back meanwhile (a
// new session, on any server) or went elsewhere.
func (rs *Rooms) stillAway(c comeback) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if c.arena.ID != 0 {
		ar := rs.arenas[c.arena.ID]
		p := ar.player(c.who.ID)
		return p != nil && p.sid == "" && !ar.over
	}
	r := rs.rooms[c.code]
	if r == nil {
		return false
	}
	if c.watch {
		return !slices.ContainsFunc(r.watchers, func(w *watcher) bool { return w.id == c.who.ID })
	}
	if mb := r.member(c.who.ID); mb != nil {
		return !mb.present() && (r.phase == PhaseRacing || r.phase == PhaseCountdown)
	}
	return r.phase == PhaseWaiting && rs.oldest(func(o *room) bool { return o.member(c.who.ID) != nil }) == nil
}

// outage folds a server's time out of reach of the database (m.Inst,
// from m.At to when it was logged): every race it had racers in (still
// seated or away) that ran meanwhile is void, as they could not move.
func (rs *Rooms) outage(m RoomOp) {
	for _, r := range rs.sortedRooms() {
		r.mu.Lock()
		running := r.phase == PhaseRacing || r.phase == PhaseCountdown
		if running && !r.outage && (m.Logged.IsZero() || !r.startsDB.After(m.Logged)) &&
			slices.ContainsFunc(r.members, func(mb *member) bool { return mb.inst == m.Inst }) {
			r.outage = true
			var d time.Duration
			if !m.Logged.IsZero() && !m.At.IsZero() {
				d = m.Logged.Sub(m.At)
			}
			rs.broadcast(r, RaceVoided{Code: r.code, Round: r.round, Outage: d})
		}
		r.mu.Unlock()
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
func (rs *Rooms) lapse(r *room, m RoomOp) {
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

// start folds the host's start.
func (rs *Rooms) start(r *room, m RoomOp) error {
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
	if names := r.notReady(r.host); len(names) > 0 {
		return fmt.Errorf("%w: waiting for %s", ErrNotAllReady, strings.Join(names, ", "))
	}
	rs.countdown(r, m.At)
	return nil
}

// notReady is the names of the racers present who are not ready, but
// for the player except (the host, whose start is their ready mark).
func (r *room) notReady(except string) []string {
	var names []string
	for _, mb := range r.members {
		if mb.present() && !mb.ready && mb.ID != except {
			names = append(names, mb.Name)
		}
	}
	return names
}

// countdown starts the room's countdown to a race at at, on the
// cluster's clock.
func (rs *Rooms) countdown(r *room, at time.Time) {
	r.phase = PhaseCountdown
	r.startsDB = at
	r.outage = false
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
		c := Countdown{Code: r.code, Round: r.round, RaceKey: r.id + "/" + strconv.Itoa(r.round), RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal, Rated: r.cfg.Rated}
		for _, mb := range r.members {
			if mb.present() && mb.inst == rs.cfg.Instance && !mb.Guest {
				c.Racers = append(c.Racers, mb.ID)
			}
		}
		if len(c.Racers) > 0 {
			rs.after = append(rs.after, func() { rs.cfg.OnCountdown(c) })
		}
	}
}

// Countdown is a race's countdown as a server's OnCountdown hook hears
// of it: the race, and the racers this server serves.
type Countdown struct {
	Code    string
	Round   int
	RaceKey string // Snapshot.RaceKey of the race
	RulesID string
	Deal    uint64
	// Rated is RoomConfig.Rated: an unrated room's deal was chosen.
	Rated bool
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

// cleanPlacings is an end op's placings as the rooms keep them: the
// names cleaned, Cleared from the state.
func cleanPlacings(ps []Placing) []Placing {
	out := make([]Placing, len(ps))
	for i, p := range ps {
		p.Name = keys.Clean(p.Name, keys.MaxNameWidth)
		p.Cleared = p.State == RacerCleared
		out[i] = p
	}
	return out
}

// end folds the end of a race.
func (rs *Rooms) end(r *room, m RoomOp) {
	if r.round != m.Round || (r.phase != PhaseRacing && r.phase != PhaseCountdown) {
		return
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	void := r.outage
	for _, mb := range r.members {
		void = void || mb.lost || !mb.away.IsZero()
	}
	r.phase = PhaseResults
	r.ended = m.At.Add(-rs.offset)
	r.results = cleanPlacings(m.Results)
	if r.cfg.Arena.ID != 0 {
		rs.arenaRaceOver(r, m.At)
	}
	r.members = slices.DeleteFunc(r.members, func(mb *member) bool { return !mb.present() })
	rs.pickHost(r)
	if r.presentCount() == 0 && r.empty.IsZero() {
		r.empty = rs.cfg.Clock.Now()
	}
	rs.broadcast(r, RaceEnded{Code: r.code, Round: r.round, Results: slices.Clone(r.results)})
	rs.changed(r)
	res := RaceResult{Code: r.code, RoomID: r.id, Round: r.round, RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal, Verdict: r.cfg.Verdict,
		Rated: r.cfg.Rated, Void: void, Started: r.startsDB, Ended: m.At, Placings: slices.Clone(r.results), Arena: r.cfg.Arena.ID}
	r.lastEnd, r.unstored = &res, false
	if rs.holder.Load() {
		// Not on the goroutine of the fold, which is the log's reader:
		// storing a race is several writes to the store (on a cluster,
		// PostgreSQL's round trips and commits), and every op of the
		// rooms, of every server, waited behind each race stored.
		arenaID := r.cfg.Arena.ID
		if arenaID != 0 {
			rs.recording[arenaID]++
		}
		rs.after = append(rs.after, func() {
			go func() {
				rs.record(res)
				if arenaID != 0 {
					rs.mu.Lock()
					if rs.recording[arenaID]--; rs.recording[arenaID] <= 0 {
						delete(rs.recording, arenaID)
					}
					rs.mu.Unlock()
				}
			}()
		})
	}
	if rs.cfg.OnRoundOver != nil {
		code, round, ps := r.code, r.round, slices.Clone(r.results)
		rs.after = append(rs.after, func() { rs.cfg.OnRoundOver(code, round, ps) })
	}
}

// rated folds the ratings of a stored race into its results, while the
// room shows them.
func (rs *Rooms) rated(r *room, m RoomOp) {
	if r.round != m.Round || r.phase != PhaseResults {
		return
	}
	changed, moved := false, false
	for i := range r.results {
		p := &r.results[i]
		for _, c := range m.Ratings {
			if c.ID == p.ID && !p.Guest {
				c := c
				p.Rating, changed = &c, true
				moved = moved || c.Standing == rating.Rated
			}
		}
	}
	if changed {
		rs.changed(r)
	}
	if moved && rs.cfg.OnRated != nil {
		rules := r.cfg.Rules.ID()
		rs.after = append(rs.after, func() { rs.cfg.OnRated(rules) })
	}
}

// rematch folds the host's rematch.
func (rs *Rooms) rematch(r *room, m RoomOp) error {
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
	r.cfg.Deal, r.cfg.Verdict, r.cfg.Rated = m.Cfg.Deal, m.Cfg.Verdict, m.Cfg.Rated
	r.round++
	r.phase = PhaseWaiting
	r.results = nil
	r.startsDB, r.startsAt, r.deadline, r.ended = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	for _, mb := range r.members {
		mb.ready, mb.progress, mb.lastRemoval, mb.finish, mb.removals = false, Progress{}, 0, 0, nil
		mb.away, mb.lost = time.Time{}, false
		mb.line, mb.lineKnown, mb.lineSum, mb.sent = nil, false, 0, nil
	}
	rs.changed(r)
	return nil
}

// watch folds a spectator's coming.
func (rs *Rooms) watch(r *room, m RoomOp) error {
	if mb := r.member(m.Target); mb != nil && (r.phase == PhaseCountdown || r.phase == PhaseRacing) &&
		mb.progress.State != RacerStuck && mb.progress.State != RacerCleared {
		return ErrWatchOwnRace
	}
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
	if over && r.cfg.Arena.ID != 0 {
		rs.arenaRaceOver(r, r.lastAt)
	}
	rs.broadcast(r, RoomClosed{Code: r.code, Reason: reason})
	r.phase, r.reason = PhaseClosed, reason
	rs.changed(r)
	delete(rs.rooms, r.code)
	rs.byCode.Delete(r.code)
	rs.log.Unfollow(r.code)
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
	if r.cfg.Arena.ID != 0 {
		rs.arenaWatched(r.cfg.Arena.ID)
	}
}

// racer is m as the racer panel shows it.
func (r *room) racer(m *member) Racer {
	v := Racer{ID: m.ID, Name: m.Name, Guest: m.Guest, Host: m.ID == r.host, Ready: m.ready, Present: m.present(),
		Muted: r.isMuted(&m.Entrant), Progress: m.progress, Cards: r.cards(), Finish: m.finish, LastRemoval: m.lastRemoval,
		Away: !m.away.IsZero(), Lost: m.lost, Berserk: m.berserk}
	return v.placed(r.phase, r.results)
}

func (rs *Rooms) snapshot(r *room) Snapshot {
	s := Snapshot{
		Code: r.code, RoomID: r.id, Phase: r.phase, Round: r.round, Seq: r.seq,
		RulesID: r.cfg.Rules.ID(), RulesTitle: r.cfg.Rules.Title(), Deal: r.cfg.Deal, Verdict: r.cfg.Verdict,
		Public: r.cfg.Public, Rated: r.cfg.Rated, TimeLimit: r.cfg.TimeLimit, MaxPlayers: r.cfg.MaxPlayers, Cards: r.cards(),
		Host: r.host, StartsAt: r.startsAt, Ended: r.ended,
		Members: make([]Racer, len(r.members)), Spectators: len(r.watchers),
		Results: slices.Clone(r.results), Chat: slices.Clone(r.chat), ClosedReason: r.reason, Arena: r.cfg.Arena,
	}
	if r.phase == PhaseRacing || r.phase == PhaseResults {
		s.Deadline = r.deadline
	}
	for i, m := range r.members {
		s.Members[i] = r.racer(m)
	}
	return s
}
