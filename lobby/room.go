package lobby

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"pyramid/engine"
	"pyramid/keys"
)

// Limits and timings of race rooms.
const (
	// MinRacers is the number of racers a race needs to start.
	MinRacers = 2
	// MaxRacers is the most racers a room can hold.
	MaxRacers = 8
	// DefaultTimeLimit is a race's time limit unless the room sets one.
	DefaultTimeLimit = 10 * time.Minute
	// MinTimeLimit and MaxTimeLimit bound a room's time limit.
	MinTimeLimit = time.Minute
	MaxTimeLimit = time.Hour
	// CountdownTime is the countdown between the host's start and the
	// race.
	CountdownTime = 3 * time.Second
	// EmptyRoomClose is how long a room with nobody in it stays open.
	EmptyRoomClose = time.Minute
	// RoomDropAfter is how long a session may refuse events before it is
	// dropped from the room (it may come back); the lobby's DropAfter
	// rule, for rooms.
	RoomDropAfter = 5 * time.Second
	// MaxSpectators is the most spectators one room takes.
	MaxSpectators = 50
)

// Errors of rooms. Their messages are meant for players as they are.
var (
	// ErrRoomClosed: the room closed (empty for a minute, or by an admin).
	ErrRoomClosed = errors.New("the room is closed")
	// ErrRoomFull: every seat is taken.
	ErrRoomFull = errors.New("the room is full")
	// ErrRaceUnderway: newcomers cannot join a race that started.
	ErrRaceUnderway = errors.New("the race has started; you can watch it")
	// ErrNotHost: starting, a rematch and muting are the host's.
	ErrNotHost = errors.New("only the room's host can do that")
	// ErrNotMember: the player has no session in the room.
	ErrNotMember = errors.New("you are not in this room")
	// ErrSeatTaken: a report from a session of the racer whose seat
	// another of their sessions took over (SeatTakenOver): only the
	// session holding the seat plays it.
	ErrSeatTaken = errors.New("your seat is another session's now")
	// ErrTooFewRacers: a start with fewer than MinRacers in the room.
	ErrTooFewRacers = errors.New("a race needs at least two racers in the room")
	// ErrNotWaiting: a start or a ready mark after the race started.
	ErrNotWaiting = errors.New("the room is not waiting for a start")
	// ErrNotRacing: a progress report outside the race.
	ErrNotRacing = errors.New("the race is not running")
	// ErrNotOver: a rematch before the race ended.
	ErrNotOver = errors.New("the race is not over")
	// ErrRaceOver: a report from a racer who cleared or got stuck.
	ErrRaceOver = errors.New("your race is over")
	// ErrBadProgress: a report that cannot be right (the session's bug).
	ErrBadProgress = errors.New("progress report does not add up")
	// ErrTooManySpectators: MaxSpectators watch already.
	ErrTooManySpectators = errors.New("the room has as many spectators as it can take")
	// ErrBadRoomConfig: rules, time limit or seats out of range.
	ErrBadRoomConfig = errors.New("not a valid room")
)

// Phase is where a room stands.
type Phase int

// The phases of a room, in the order a race goes through them. A rematch
// goes from PhaseResults back to PhaseWaiting.
const (
	PhaseWaiting Phase = iota
	PhaseCountdown
	PhaseRacing
	PhaseResults
	PhaseClosed
)

var phaseNames = [...]string{"waiting", "countdown", "racing", "results", "closed"}

// String returns the phase's name.
func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return "unknown"
	}
	return phaseNames[p]
}

// MarshalText writes the phase's name, for JSON.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Entrant is who joins a room: a session's player as the room knows them.
// (It is not the lobby's Player because a guest needs an ID here too: a
// seat to come back to and a chat limit of its own.)
type Entrant struct {
	// ID is the store's player ID; for a guest, a token unique to the
	// session (say "guest-" and the lobby's session number), so two
	// guests never share a seat and a guest is never taken over.
	ID string
	// Name is the display name, already safe to print.
	Name  string
	Guest bool
}

// RoomConfig is what a room races.
type RoomConfig struct {
	Rules engine.Rules
	Deal  uint64
	// Verdict is what the solver said of the deal, for the results.
	Verdict engine.Verdict
	// Public rooms are listed and found by quick match; private ones
	// (the default) only by code.
	Public bool
	// TimeLimit is DefaultTimeLimit when zero.
	TimeLimit time.Duration
	// MaxPlayers is MaxRacers when zero.
	MaxPlayers int
	// Rated is set for a room whose deal nobody chose (the solver picked
	// one it proves winnable): its races change ratings and count in race
	// records. A deal the host chose may be one they solved offline or
	// played as a daily, so such a room's races are stored and shown but
	// unrated. The zero value is unrated: a room nobody said is rated
	// never counts.
	Rated bool
}

// normalize fills in the defaults and checks the rest.
func (c RoomConfig) normalize() (RoomConfig, error) {
	if c.TimeLimit == 0 {
		c.TimeLimit = DefaultTimeLimit
	}
	if c.MaxPlayers == 0 {
		c.MaxPlayers = MaxRacers
	}
	switch {
	case c.Rules.Validate() != nil:
		return c, fmt.Errorf("%w: %w", ErrBadRoomConfig, c.Rules.Validate())
	case c.TimeLimit < MinTimeLimit || c.TimeLimit > MaxTimeLimit:
		return c, fmt.Errorf("%w: the time limit must be %v to %v", ErrBadRoomConfig, MinTimeLimit, MaxTimeLimit)
	case c.MaxPlayers < MinRacers || c.MaxPlayers > MaxRacers:
		return c, fmt.Errorf("%w: a room holds %d to %d players", ErrBadRoomConfig, MinRacers, MaxRacers)
	}
	return c, nil
}

// Snapshot is a room as it stands, everything a screen needs to draw it.
// Its slices are the snapshot's own: the room never changes them (and
// neither may the receiver, as several sessions share one).
type Snapshot struct {
	Code string
	// RoomID names the room apart from every other room, ever (a code is
	// reused once its room closes): RaceKey is made of it.
	RoomID     string
	Phase      Phase
	Round      int // 1 for the first race, one more for each rematch
	Seq        uint64
	RulesID    string
	RulesTitle string
	Deal       uint64
	Verdict    engine.Verdict
	Public     bool
	Rated      bool // RoomConfig.Rated of the room's current deal
	TimeLimit  time.Duration
	MaxPlayers int
	Cards      int    // pyramid size: 28 or 45
	Host       string // the host's player ID
	// StartsAt is when the race starts (set from the countdown on),
	// Deadline when the time limit runs out (set from the start on),
	// Ended when it ended.
	StartsAt, Deadline, Ended time.Time
	Members                   []Racer   // in seat order
	Spectators                int       // how many watch
	Results                   []Placing // the last race's placings, from PhaseResults on
	Chat                      []ChatLine
	ClosedReason              string // why the room closed, in PhaseClosed
}

// RaceKey names the room's current round apart from every other race,
// the same on every server: a racer's stored game of the race is kept
// under it (one per racer per race).
func (s Snapshot) RaceKey() string { return s.RoomID + "/" + strconv.Itoa(s.Round) }

// Member returns the member with this player ID.
func (s Snapshot) Member(id string) (Racer, bool) {
	for _, m := range s.Members {
		if m.ID == id {
			return m, true
		}
	}
	return Racer{}, false
}

// Events a room sends. Every one names its room; those about a race carry
// the round, so that a session can ignore anything left over from an
// earlier race of the room.
type (
	// RoomChanged is coalesced under the key RoomKey(code) whenever
	// members, ready marks, the host, the phase or the spectators change.
	RoomChanged struct{ Snapshot Snapshot }
	// RacerProgress is coalesced under RacerKey(code, id) on each report
	// of a racer.
	RacerProgress struct {
		Code  string
		Round int
		Racer Racer
	}
	// CountdownStarted is posted when the host starts a race.
	CountdownStarted struct {
		Code     string
		Round    int
		StartsAt time.Time
		Deal     uint64
		RulesID  string
	}
	// RaceStarted is posted when the countdown ends.
	RaceStarted struct {
		Code     string
		Round    int
		Deadline time.Time
	}
	// RaceEnded is posted when the race ends.
	RaceEnded struct {
		Code    string
		Round   int
		Results []Placing
	}
	// SeatTakenOver is posted to a session whose seat or view another
	// session of the same player took.
	SeatTakenOver struct{ Code string }
	// RoomClosed is posted to everybody in a room that closes.
	RoomClosed struct{ Code, Reason string }
	// Missed is posted to a session that refused events for a while and
	// then took one again: it lost some, and should redraw from
	// Room.Snapshot.
	Missed struct{ Code string }
)

// RoomKey is the coalescing key of a room's RoomChanged events.
func RoomKey(code string) string { return "room/" + code }

// RacerKey is the coalescing key of one racer's RacerProgress events.
func RacerKey(code, playerID string) string { return "room/" + code + "/racer/" + playerID }

// Key is a key that tells this race from every other, for storing it
// once: instance names the server (rooms on two servers may share a code).
func (r RaceResult) Key(instance string) string {
	return fmt.Sprintf("%s/%s/%d/%d", instance, r.Code, r.Round, r.Started.UnixMilli())
}

// RaceResult is a finished race, for storing.
type RaceResult struct {
	Code    string
	Round   int
	RulesID string
	Deal    uint64
	Verdict engine.Verdict
	// Rated is the room's RoomConfig.Rated for this race: an unrated
	// race's placings are stored, and change no rating, win or podium.
	Rated bool
	// Void is set for a race in which a racer was lost with their server
	// (Racer.Lost, or still away at the end): the server failed them, so
	// the race is stored unrated whatever Rated says.
	Void     bool
	Started  time.Time
	Ended    time.Time
	Placings []Placing
}

// seat is one session's place in a room: its sink and how long it has
// refused events.
type seat struct {
	sink Sink
	gen  int // goes up with each new sink, so a stale drop check is ignored
	sinkRefusals
}

// sinkRefusals is how long a sink has refused events, for a Room's seat and a
// shared room's session alike.
type sinkRefusals struct {
	refused time.Time // when the sink first refused an event in a row; zero when it takes them
	drop    Timer     // the check the first refusal armed
}

// forget clears the refusals and stops their check.
func (f *sinkRefusals) forget() {
	f.refused = time.Time{}
	if f.drop != nil {
		f.drop.Stop()
		f.drop = nil
	}
}

type removal struct {
	removed int
	at      time.Duration
}

type member struct {
	Entrant
	seat
	ready    bool
	progress Progress
	removals []removal // the counts of removed cards reached, and when
	finish   time.Duration
	chat     chatLimiter
}

func (m *member) present() bool { return m.sink != nil }

type spectator struct {
	id string
	seat
}

// hooks are how a room tells its registry things, always called with no
// lock held.
type hooks struct {
	onEnd   func(RaceResult)
	onClose func(*Room)
	// hosts, shared by a registry's rooms, keeps a player from hosting
	// two rooms when a host's part passes to them; nil outside one.
	hosts *hostBook
}

// Room is a race room: 2–8 players race their own game of one deal. Its
// methods are safe for concurrent use, never block on a session, and
// report refusals with the errors above. A room calls its members' sinks
// with its lock held, so a Sink must never call back into the room.
type Room struct {
	code    string
	id      string
	clock   Clock
	created time.Time
	hooks   hooks

	mu         sync.Mutex
	cfg        RoomConfig
	phase      Phase
	round      int
	seq        uint64
	host       string
	members    []*member
	spectators []*spectator
	startsAt   time.Time
	deadline   time.Time
	ended      time.Time
	results    []Placing
	chat       []ChatLine
	muted      map[string]bool // player IDs the host muted
	timer      Timer           // the countdown or the deadline
	closeTimer Timer           // set while the room is empty
	closeGen   int             // tells a stale closeTimer call from the current one
	reason     string
	// after is what the current call must do once the lock is released.
	after []func()
}

// newRoom makes a room; the registry adds its host.
func newRoom(code string, clock Clock, cfg RoomConfig, h hooks) *Room {
	return &Room{code: code, id: newRoomID(), clock: clock, created: clock.Now(), hooks: h, cfg: cfg, round: 1}
}

// unlock releases the lock and runs what the call left to do after it.
func (r *Room) unlock() {
	after := r.after
	r.after = nil
	r.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// Code returns the room's code.
func (r *Room) Code() string { return r.code }

// Created returns when the room was made.
func (r *Room) Created() time.Time { return r.created }

// Host returns the host's player ID.
func (r *Room) Host() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.host
}

// Phase returns where the room stands.
func (r *Room) Phase() Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase
}

// Snapshot returns the room as it stands.
func (r *Room) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshot()
}

// RoundOf is what a racer's move is checked against: the room's phase,
// round and deal, and when the round's race started. A room gives it
// without building a whole Snapshot (every racer's move asks).
type RoundOf struct {
	RoomID   string
	Phase    Phase
	Round    int
	RulesID  string
	Deal     uint64
	StartsAt time.Time
}

// Round returns the room's current round.
func (r *Room) Round() RoundOf {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RoundOf{RoomID: r.id, Phase: r.phase, Round: r.round, RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal, StartsAt: r.startsAt}
}

// RaceKey is Snapshot.RaceKey of the round.
func (r RoundOf) RaceKey() string { return r.RoomID + "/" + strconv.Itoa(r.Round) }

func (r *Room) cards() int { return r.cfg.Rules.PyramidSize() }

func (r *Room) snapshot() Snapshot {
	s := Snapshot{
		Code: r.code, RoomID: r.id, Phase: r.phase, Round: r.round, Seq: r.seq,
		RulesID: r.cfg.Rules.ID(), RulesTitle: r.cfg.Rules.Title(), Deal: r.cfg.Deal, Verdict: r.cfg.Verdict,
		Public: r.cfg.Public, Rated: r.cfg.Rated, TimeLimit: r.cfg.TimeLimit, MaxPlayers: r.cfg.MaxPlayers, Cards: r.cards(),
		Host: r.host, StartsAt: r.startsAt, Deadline: r.deadline, Ended: r.ended,
		Members: make([]Racer, len(r.members)), Spectators: len(r.spectators),
		Results: slices.Clone(r.results), Chat: slices.Clone(r.chat), ClosedReason: r.reason,
	}
	for i, m := range r.members {
		s.Members[i] = r.racer(m)
	}
	return s
}

// racer is m as the racer panel shows it.
func (r *Room) racer(m *member) Racer {
	v := Racer{
		ID: m.ID, Name: m.Name, Guest: m.Guest, Host: m.ID == r.host, Ready: m.ready, Present: m.present(),
		Muted: r.muted[m.ID], Progress: m.progress, Cards: r.cards(), Finish: m.finish,
	}
	if n := len(m.removals); n > 0 {
		v.LastRemoval = m.removals[n-1].at
	}
	return v.placed(r.phase, r.results)
}

// placed finishes a racer's line with what the room's phase and results say
// of it, alike for a local room and a shared one: a racer gone during or
// after the race has left, and a ranked racer has a place.
func (v Racer) placed(phase Phase, results []Placing) Racer {
	if (phase == PhaseRacing || phase == PhaseResults) && !v.Present && v.State == RacerPlaying {
		v.State = RacerLeft
		if v.Away && phase == PhaseRacing {
			v.State = RacerAway
		}
	}
	for _, p := range results {
		if p.ID == v.ID {
			v.Place = p.Place
		}
	}
	return v
}

func (r *Room) member(id string) *member {
	for _, m := range r.members {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func (r *Room) presentCount() int {
	n := 0
	for _, m := range r.members {
		if m.present() {
			n++
		}
	}
	return n
}

// post sends a discrete event to one seat and keeps track of refusals: the
// first refusal in a row arms a check RoomDropAfter later.
func (r *Room) post(s *seat, ev Event) {
	if s.sink == nil {
		return
	}
	if s.sink.Post(ev) {
		if !s.refused.IsZero() {
			s.forget()
		}
		return
	}
	if s.refused.IsZero() {
		s.refused = r.clock.Now()
		gen, since := s.gen, s.refused
		s.drop = r.clock.AfterFunc(RoomDropAfter, func() { r.checkDrop(s, gen, since) })
	}
}

// checkDrop runs RoomDropAfter after a seat first refused an event: if it
// has refused everything since, and refuses to hear that it missed some,
// it is dropped.
func (r *Room) checkDrop(s *seat, gen int, since time.Time) {
	r.mu.Lock()
	defer r.unlock()
	if r.phase == PhaseClosed || s.sink == nil || s.gen != gen || !s.refused.Equal(since) {
		return
	}
	s.drop = nil
	if s.sink.Post(Missed{Code: r.code}) {
		s.refused = time.Time{}
		return
	}
	for _, m := range r.members {
		if &m.seat == s {
			r.leave(m)
			return
		}
	}
	for _, v := range r.spectators {
		if &v.seat == s {
			r.unwatch(v)
			return
		}
	}
}

// setSink gives a seat a new session (or none), forgetting the old one's
// refusals.
func (s *seat) setSink(sink Sink) {
	s.sink = sink
	s.gen++
	s.forget()
}

// everyone calls f for each seat with a session: members, then spectators.
func (r *Room) everyone(f func(s *seat)) {
	for _, m := range r.members {
		if m.present() {
			f(&m.seat)
		}
	}
	for _, v := range r.spectators {
		f(&v.seat)
	}
}

// broadcast posts ev to everyone.
func (r *Room) broadcast(ev Event) {
	r.everyone(func(s *seat) { r.post(s, ev) })
}

// changed tells everyone that the room changed, with one snapshot shared
// by all.
func (r *Room) changed() {
	r.seq++
	var ev Event = RoomChanged{Snapshot: r.snapshot()}
	key := RoomKey(r.code)
	r.everyone(func(s *seat) { s.sink.Coalesce(key, ev) })
}

// sameSink reports whether a and b are the same session's sink, without
// panicking on sinks of a type == cannot compare.
func sameSink(a, b Sink) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() || !va.Comparable() {
		return false
	}
	return a == b
}

// Join puts a player in the room, or back in their seat: a racer who left
// a race comes back to it with their progress until the race ends. A
// player already in the room with another session takes the seat over:
// the old session gets SeatTakenOver. Newcomers are refused while a race
// runs (ErrRaceUnderway) and when the room is full.
func (r *Room) Join(p Entrant, sink Sink) (Snapshot, error) {
	if sink == nil {
		return Snapshot{}, errors.New("lobby: Join without a sink")
	}
	// Names should come clean already; this makes sure no screen ever
	// gets one raw.
	p.Name = keys.Clean(p.Name, keys.MaxNameWidth)
	r.mu.Lock()
	defer r.unlock()
	if r.phase == PhaseClosed {
		return Snapshot{}, ErrRoomClosed
	}
	if m := r.member(p.ID); m != nil {
		if m.present() && !sameSink(m.sink, sink) {
			r.post(&m.seat, SeatTakenOver{Code: r.code})
		}
		m.Name = p.Name
		m.setSink(sink)
		if r.phase == PhaseRacing {
			r.coalesceRacer(m)
		}
	} else {
		switch {
		case r.phase == PhaseCountdown || r.phase == PhaseRacing:
			return Snapshot{}, ErrRaceUnderway
		case len(r.members) >= r.cfg.MaxPlayers:
			return Snapshot{}, ErrRoomFull
		}
		m := &member{Entrant: p}
		m.setSink(sink)
		r.members = append(r.members, m)
	}
	r.occupied()
	r.changed()
	return r.snapshot(), nil
}

// occupied notes that somebody is in the room: it stays open, and it has a
// host who is here.
func (r *Room) occupied() {
	if r.closeTimer != nil {
		r.closeTimer.Stop()
		r.closeTimer = nil
	}
	r.pickHost()
}

// pickHost passes the host's part to the first member present when the
// host is not, skipping members who host another room (a player hosts
// one room at a time): when every member present does, the part stays.
func (r *Room) pickHost() {
	if h := r.member(r.host); h != nil && h.present() {
		return
	}
	for _, m := range r.members {
		if m.present() && m.ID != r.host && r.hooks.hosts.claim(m.ID, r) {
			r.hooks.hosts.release(r.host, r)
			r.host = m.ID
			return
		}
	}
}

// moveOut takes the player out of the room because they went into
// another (Rooms.Join): like Leave, and a session of theirs other than
// sink is told its seat went. A room the player hosts and nobody is in,
// waiting or showing results, goes: it closes, so that its host's part
// does not keep them from taking over another room's.
func (r *Room) moveOut(playerID string, sink Sink, to string) {
	r.mu.Lock()
	defer r.unlock()
	if r.phase == PhaseClosed {
		return
	}
	if m := r.member(playerID); m != nil && m.present() {
		if !sameSink(m.sink, sink) {
			r.post(&m.seat, SeatTakenOver{Code: r.code})
		}
		r.leave(m)
	}
	if r.host == playerID && r.presentCount() == 0 && (r.phase == PhaseWaiting || r.phase == PhaseResults) {
		r.close("its host went to room " + to)
	}
}

// waitingFor reports whether the room is public, of these rules, and
// waiting for players.
func (r *Room) waitingFor(rulesID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfg.Public && r.phase == PhaseWaiting && r.cfg.Rules.ID() == rulesID
}

// Seated reports whether the player has a seat in the room, with a session
// or (during a race, after leaving) without.
func (r *Room) Seated(playerID string) bool {
	r.mu.Lock()
	defer r.unlock()
	return r.phase != PhaseClosed && r.member(playerID) != nil
}

// Leave takes a player's session, the one whose sink is from, out of the
// room; a session whose seat another took over leaves nothing
// (ErrSeatTaken). In the waiting room and after a race the seat goes too;
// during a race the seat stays, so the racer can come back until the race
// ends, and counts as left. A room nobody is in closes EmptyRoomClose later.
func (r *Room) Leave(playerID string, from Sink) error {
	r.mu.Lock()
	defer r.unlock()
	m := r.member(playerID)
	switch {
	case m == nil || !m.present():
		return ErrNotMember
	case !sameSink(m.sink, from):
		return ErrSeatTaken
	}
	r.leave(m)
	return nil
}

func (r *Room) leave(m *member) {
	m.setSink(nil)
	m.ready = false
	if r.phase == PhaseWaiting || r.phase == PhaseResults {
		r.members = slices.DeleteFunc(r.members, func(x *member) bool { return x == m })
	}
	r.pickHost()
	if r.presentCount() == 0 && r.closeTimer == nil && r.phase != PhaseClosed {
		r.closeGen++
		gen := r.closeGen
		r.closeTimer = r.clock.AfterFunc(EmptyRoomClose, func() { r.closeIfEmpty(gen) })
	}
	if r.phase == PhaseRacing {
		r.coalesceRacer(m)
		if r.allDone() {
			r.end()
			return
		}
	}
	r.changed()
}

func (r *Room) closeIfEmpty(gen int) {
	r.mu.Lock()
	defer r.unlock()
	if r.closeTimer == nil || gen != r.closeGen || r.presentCount() > 0 {
		return
	}
	r.closeTimer = nil
	r.close("nobody was in the room")
}

// SetReady sets a member's ready mark in the waiting room.
func (r *Room) SetReady(playerID string, ready bool) error {
	r.mu.Lock()
	defer r.unlock()
	m := r.member(playerID)
	switch {
	case m == nil || !m.present():
		return ErrNotMember
	case r.phase != PhaseWaiting:
		return ErrNotWaiting
	}
	if m.ready != ready {
		m.ready = ready
		r.changed()
	}
	return nil
}

// Start starts the countdown now: the host only, in the waiting room, with
// at least MinRacers members in. The race starts CountdownTime later.
func (r *Room) Start(playerID string) error {
	return r.StartAt(playerID, r.clock.Now().Add(CountdownTime))
}

// StartAt is Start with the moment the race starts given, so that rooms on
// several servers can take it from one clock (the database's). A moment
// already past starts the race at once.
func (r *Room) StartAt(playerID string, at time.Time) error {
	r.mu.Lock()
	defer r.unlock()
	switch {
	case r.phase == PhaseClosed:
		return ErrRoomClosed
	case r.member(playerID) == nil:
		return ErrNotMember
	case r.host != playerID:
		return ErrNotHost
	case r.phase != PhaseWaiting:
		return ErrNotWaiting
	case r.presentCount() < MinRacers:
		return ErrTooFewRacers
	}
	r.phase = PhaseCountdown
	r.startsAt = at
	for _, m := range r.members {
		m.ready = false
	}
	round := r.round
	r.timer = r.clock.AfterFunc(at.Sub(r.clock.Now()), func() { r.begin(round) })
	r.broadcast(CountdownStarted{Code: r.code, Round: r.round, StartsAt: at, Deal: r.cfg.Deal, RulesID: r.cfg.Rules.ID()})
	r.changed()
	return nil
}

// begin ends the countdown of round.
func (r *Room) begin(round int) {
	r.mu.Lock()
	defer r.unlock()
	if r.phase != PhaseCountdown || r.round != round {
		return
	}
	r.phase = PhaseRacing
	r.deadline = r.startsAt.Add(r.cfg.TimeLimit)
	for _, m := range r.members {
		m.progress.State = RacerPlaying
	}
	r.timer = r.clock.AfterFunc(r.deadline.Sub(r.clock.Now()), func() { r.timeUp(round) })
	r.broadcast(RaceStarted{Code: r.code, Round: r.round, Deadline: r.deadline})
	if r.allDone() {
		r.end()
		return
	}
	r.changed()
}

func (r *Room) timeUp(round int) {
	r.mu.Lock()
	defer r.unlock()
	if r.phase == PhaseRacing && r.round == round {
		r.end()
	}
}

// allDone reports whether every racer has cleared, is stuck or left.
func (r *Room) allDone() bool {
	for _, m := range r.members {
		if m.present() && m.progress.State == RacerPlaying {
			return false
		}
	}
	return true
}

// Report records a racer's progress, sent by the session whose sink is
// from, and shows it to everybody in the room. Only the session holding
// the seat reports (ErrSeatTaken for one whose seat another session took
// over). The room notes the time of each removal itself, by its own clock.
// After a racer cleared or got stuck their race is over (ErrRaceOver).
func (r *Room) Report(playerID string, from Sink, p Progress) error {
	r.mu.Lock()
	defer r.unlock()
	m := r.member(playerID)
	switch {
	case m == nil || !m.present():
		return ErrNotMember
	case !sameSink(m.sink, from):
		return ErrSeatTaken
	case r.phase != PhaseRacing:
		return ErrNotRacing
	case m.progress.State != RacerPlaying:
		return ErrRaceOver
	case p.Removed < 0 || p.Removed > r.cards() || p.Moves < 0 || p.Pass < 0:
		return fmt.Errorf("%w: %d of %d cards removed in %d moves", ErrBadProgress, p.Removed, r.cards(), p.Moves)
	case p.State != RacerPlaying && p.State != RacerStuck && p.State != RacerCleared:
		return fmt.Errorf("%w: state %v", ErrBadProgress, p.State)
	case p.State == RacerCleared && p.Removed != r.cards():
		return fmt.Errorf("%w: cleared with %d of %d cards removed", ErrBadProgress, p.Removed, r.cards())
	}
	el := r.clock.Now().Sub(r.startsAt)
	for n := len(m.removals); n > 0 && m.removals[n-1].removed > p.Removed; n-- {
		m.removals = m.removals[:n-1]
	}
	if n := len(m.removals); p.Removed > 0 && (n == 0 || m.removals[n-1].removed < p.Removed) {
		m.removals = append(m.removals, removal{removed: p.Removed, at: el})
	}
	if p.State == RacerCleared {
		m.finish = el
	}
	m.progress = p
	r.coalesceRacer(m)
	if r.allDone() {
		r.end()
	}
	return nil
}

// coalesceRacer shows m's line of the racer panel to everybody.
func (r *Room) coalesceRacer(m *member) {
	// Boxed once, not once per sink.
	var ev Event = RacerProgress{Code: r.code, Round: r.round, Racer: r.racer(m)}
	key := RacerKey(r.code, m.ID)
	r.everyone(func(s *seat) { s.sink.Coalesce(key, ev) })
}

// end ends the race: placings for everybody, the seats of those who left
// go, and the result goes to the registry.
func (r *Room) end() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.phase = PhaseResults
	r.ended = r.clock.Now()
	racers := make([]Racer, len(r.members))
	for i, m := range r.members {
		racers[i] = r.racer(m)
	}
	r.results = rank(racers)
	r.members = slices.DeleteFunc(r.members, func(m *member) bool { return !m.present() })
	r.pickHost()
	r.broadcast(RaceEnded{Code: r.code, Round: r.round, Results: slices.Clone(r.results)})
	r.changed()
	if r.hooks.onEnd != nil {
		res := RaceResult{Code: r.code, Round: r.round, RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal,
			Verdict: r.cfg.Verdict, Rated: r.cfg.Rated, Started: r.startsAt, Ended: r.ended, Placings: slices.Clone(r.results)}
		r.after = append(r.after, func() { r.hooks.onEnd(res) })
	}
}

// Rematch takes the room back to the waiting room for a new race of deal
// (the caller picks it, says what the solver found of it and whether the
// race is rated: RoomConfig.Rated): the host only, after a race.
// Everybody still in the room stays, spectators too.
func (r *Room) Rematch(playerID string, deal uint64, verdict engine.Verdict, rated bool) error {
	r.mu.Lock()
	defer r.unlock()
	switch {
	case r.phase == PhaseClosed:
		return ErrRoomClosed
	case r.member(playerID) == nil:
		return ErrNotMember
	case r.host != playerID:
		return ErrNotHost
	case r.phase != PhaseResults:
		return ErrNotOver
	}
	r.cfg.Deal, r.cfg.Verdict, r.cfg.Rated = deal, verdict, rated
	r.round++
	r.phase = PhaseWaiting
	r.results = nil
	r.startsAt, r.deadline, r.ended = time.Time{}, time.Time{}, time.Time{}
	for _, m := range r.members {
		m.ready = false
		m.progress = Progress{}
		m.removals = nil
		m.finish = 0
	}
	r.changed()
	return nil
}

// Watch adds a spectator, who sees the room and every racer's progress but
// takes no part. A second session of the same viewer takes the view over.
func (r *Room) Watch(viewerID string, sink Sink) (Snapshot, error) {
	if sink == nil {
		return Snapshot{}, errors.New("lobby: Watch without a sink")
	}
	r.mu.Lock()
	defer r.unlock()
	if r.phase == PhaseClosed {
		return Snapshot{}, ErrRoomClosed
	}
	var v *spectator
	for _, x := range r.spectators {
		if x.id == viewerID {
			v = x
		}
	}
	if v != nil {
		if !sameSink(v.sink, sink) {
			r.post(&v.seat, SeatTakenOver{Code: r.code})
		}
	} else {
		if len(r.spectators) >= MaxSpectators {
			return Snapshot{}, ErrTooManySpectators
		}
		v = &spectator{id: viewerID}
		r.spectators = append(r.spectators, v)
	}
	v.setSink(sink)
	r.changed()
	return r.snapshot(), nil
}

// Unwatch takes a spectator out.
func (r *Room) Unwatch(viewerID string) error {
	r.mu.Lock()
	defer r.unlock()
	for _, v := range r.spectators {
		if v.id == viewerID {
			r.unwatch(v)
			return nil
		}
	}
	return ErrNotMember
}

func (r *Room) unwatch(v *spectator) {
	v.setSink(nil)
	r.spectators = slices.DeleteFunc(r.spectators, func(x *spectator) bool { return x == v })
	r.changed()
}

// Close closes the room (an admin's doing, or the server's): a race that
// runs is abandoned, unranked and unstored, and everybody gets RoomClosed
// with the reason.
func (r *Room) Close(reason string) {
	r.mu.Lock()
	defer r.unlock()
	r.close(reason)
}

func (r *Room) close(reason string) {
	if r.phase == PhaseClosed {
		return
	}
	for _, t := range []Timer{r.timer, r.closeTimer} {
		if t != nil {
			t.Stop()
		}
	}
	r.timer, r.closeTimer = nil, nil
	r.hooks.hosts.release(r.host, r)
	r.broadcast(RoomClosed{Code: r.code, Reason: reason})
	r.phase, r.reason = PhaseClosed, reason
	r.changed()
	r.everyone(func(s *seat) { s.setSink(nil) })
	r.spectators = nil
	if r.hooks.onClose != nil {
		r.after = append(r.after, func() { r.hooks.onClose(r) })
	}
}
