package lobby

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/bus/pgbus"
	"pyramid/engine"
	"pyramid/store/storetest"
)

// The room scenarios run on every bus the rooms run over: in memory (one
// server alone, or servers of one process) and PostgreSQL's (a cluster).
// Each scenario is a func(t, env) in roomScenarios; TestRooms runs them
// on the in-process bus, TestRoomsPostgres on PostgreSQL (skipped without
// a test database).

// roomsEnv is servers of rooms on one bus, one lease and one fake clock
// (the rooms' timers; the lease's own loop runs once, at a server's
// start, with a TTL of an hour: the tests call tryLease themselves).
type roomsEnv struct {
	t     *testing.T
	clock *FakeClock
	lease *MemoryLease
	// bus is the bus a server, or a test that looks at the events, is
	// on: the same one each time in memory, a connection of its own to
	// one schema on PostgreSQL.
	bus func() bus.Bus

	every    time.Duration // ProgressEvery of the servers made next; 10 ms when 0
	maxRooms int           // MaxRooms of the servers made next
	rand     io.Reader     // Rand of the servers made next; crypto/rand when nil

	// fork makes another env on a bus of its own, for a subtest.
	fork func(t *testing.T) *roomsEnv

	mu         sync.Mutex
	ended      map[string][]RaceResult // by instance
	countdowns map[string][]Countdown  // by instance
	fail       int                     // OnRaceEnd fails this many times more
	solo       *Rooms                  // the server of one-server scenarios (one)
}

// roomScenario is one scenario of the rooms, run on each bus.
type roomScenario struct {
	name string
	run  func(t *testing.T, e *roomsEnv)
}

// roomScenarios is every scenario of the rooms: one server's, then the
// cluster's.
func roomScenarios() []roomScenario {
	return []roomScenario{
		{"Chat", testChat},
		{"NamesCleaned", testNamesCleaned},
		{"Rated", testRated},
		{"OldEventUnrated", testOldEventUnrated},
		{"RoomLifecycle", testRoomLifecycle},
		{"Deadline", testDeadline},
		{"LeaveAndRejoin", testLeaveAndRejoin},
		{"EverybodyLeavesEndsTheRace", testEverybodyLeavesEndsTheRace},
		{"LeaveDuringCountdown", testLeaveDuringCountdown},
		{"Takeover", testTakeover},
		{"DropAfterRefusing", testDropAfterRefusing},
		{"DropDuringRaceKeepsSeat", testDropDuringRaceKeepsSeat},
		{"EmptyRoomCloses", testEmptyRoomCloses},
		{"HostLeavesPassesHost", testHostLeavesPassesHost},
		{"RegistryLimits", testRegistryLimits},
		{"Spectators", testSpectators},
		{"ReportChecks", testReportChecks},
		{"LastRemovalWithUndo", testLastRemovalWithUndo},
		{"QuickMatch", testQuickMatch},
		{"WrongCodesThrottled", testWrongCodesThrottled},
		{"AdminClose", testAdminClose},
		{"ConcurrentRoom", testConcurrentRoom},
		{"Seated", testSeated},
		{"ReportFromTheSeatOnly", testReportFromTheSeatOnly},
		{"JoinLeavesTheOldRoom", testJoinLeavesTheOldRoom},
		{"QuickAndCreateLeaveTheOldRoom", testQuickAndCreateLeaveTheOldRoom},
		{"Race", testRace},
		{"ProgressBesideTheRoomsLock", testProgressBesideTheRoomsLock},
		{"OneRoomAtATime", testOneRoomAtATime},
		{"LeaseTakeover", testLeaseTakeover},
		{"ServerDies", testServerDies},
		{"RacersServerDies", testRacersServerDies},
		{"DropsRefusingSession", testDropsRefusingSession},
		{"StoreRetried", testStoreRetried},
		{"DeadlineOneEnd", testDeadlineOneEnd},
		{"QuickMatchWatchMute", testQuickMatchWatchMute},
		{"LateServer", testLateServer},
		{"StoredGameIsNews", testStoredGameIsNews},
		{"ProgressTopics", testProgressTopics},
		{"ProgressBeforeTheStart", testProgressBeforeTheStart},
		{"WrongCodesAcrossServers", testWrongCodesAcrossServers},
		{"ChatLimitAcrossServers", testChatLimitAcrossServers},
		{"OfferNewest", testOfferNewest},
		{"ProgressUnchangedRacers", testProgressUnchangedRacers},
		{"RematchBothLeave", testRematchBothLeave},
		{"BoardFromEvents", testBoardFromEvents},
		{"CountdownHook", testCountdownHook},
	}
}

// TestRooms runs the scenarios on the in-process bus.
func TestRooms(t *testing.T) {
	for _, sc := range roomScenarios() {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, memoryEnv(t)) })
	}
}

// memoryEnv is an env on a bus in memory of its own.
func memoryEnv(t *testing.T) *roomsEnv {
	clock := NewFakeClock(t0)
	b := bus.NewMemory(bus.MemoryOptions{Now: clock.Now, Lossless: true})
	t.Cleanup(func() { b.Close() })
	e := newRoomsEnv(t, clock, func() bus.Bus { return b })
	e.fork = memoryEnv
	return e
}

// TestRoomsPostgres runs the scenarios on PostgreSQL's bus, each in a
// schema of its own.
func TestRoomsPostgres(t *testing.T) {
	storetest.PostgresURL(t) // skips without PostgreSQL
	for _, sc := range roomScenarios() {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, postgresEnv(t)) })
	}
}

// postgresEnv is an env on PostgreSQL's bus, in a schema of its own.
func postgresEnv(t *testing.T) *roomsEnv {
	u := storetest.PostgresSchemaURL(t)
	open := func() bus.Bus {
		b, err := pgbus.Open(context.Background(), u, pgbus.Options{RetainTopic: map[string]int{RoomsTopic: RoomsRetain}})
		if err != nil {
			t.Fatalf("open the bus: %v", err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	e := newRoomsEnv(t, NewFakeClock(t0), open)
	e.fork = postgresEnv
	return e
}

func newRoomsEnv(t *testing.T, clock *FakeClock, b func() bus.Bus) *roomsEnv {
	return &roomsEnv{t: t, clock: clock, bus: b, lease: NewMemoryLease(clock), ended: map[string][]RaceResult{},
		countdowns: map[string][]Countdown{}}
}

// server starts a server of rooms named name; it stops when the test
// ends.
func (e *roomsEnv) server(name string) *Rooms {
	e.t.Helper()
	every := e.every
	if every == 0 {
		every = 10 * time.Millisecond
	}
	var rs *Rooms
	rs, err := NewRooms(context.Background(), RoomsConfig{Bus: e.bus(), Instance: name, Lease: e.lease, LeaseTTL: time.Hour,
		Clock: e.clock, ProgressEvery: every, MaxRooms: e.maxRooms, Rand: e.rand,
		OnRaceEnd: func(res RaceResult) error {
			// The hook runs with no lock held: it may look at the rooms.
			rs.Public()
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.fail > 0 {
				e.fail--
				return errors.New("the store is down")
			}
			e.ended[name] = append(e.ended[name], res)
			return nil
		},
		OnCountdown: func(c Countdown) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.countdowns[name] = append(e.countdowns[name], c)
		},
		Logf: e.t.Logf})
	if err != nil {
		e.t.Fatalf("NewRooms %s: %v", name, err)
	}
	e.t.Cleanup(rs.kill)
	// The lease loop's first try is done before the test goes on.
	eventually(e.t, name+" tried the lease", func() bool { rs.mu.Lock(); defer rs.mu.Unlock(); return rs.tried })
	return rs
}

// one is the server of a one-server scenario, started on first use.
func (e *roomsEnv) one() *Rooms {
	if e.solo == nil {
		e.solo = e.server("one")
	}
	return e.solo
}

func (e *roomsEnv) results(name string) []RaceResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]RaceResult(nil), e.ended[name]...)
}

// stored waits until the one-server scenario's server stored n races, and
// returns them.
func (e *roomsEnv) stored(n int) []RaceResult {
	e.t.Helper()
	eventually(e.t, fmt.Sprintf("%d races stored", n), func() bool { return len(e.results("one")) >= n })
	return e.results("one")
}

// create opens a room hosted by name on the one-server scenario's server.
func (e *roomsEnv) create(name string, cfg RoomConfig) (*Room, *fakeSink) {
	e.t.Helper()
	s := newSink()
	r, _, err := e.one().Create(pl(name), s, cfg)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return r, s
}

// join puts name in r on the one-server scenario's server.
func (e *roomsEnv) join(r *Room, name string) *fakeSink {
	e.t.Helper()
	s := newSink()
	if _, err := e.one().Join(r, pl(name), s); err != nil {
		e.t.Fatalf("Join(%s): %v", name, err)
	}
	return s
}

// race makes a room of alice (host), bob and carol on the one-server
// scenario's server, started and past the countdown.
func (e *roomsEnv) race(cfg RoomConfig) (*Room, map[string]*fakeSink) {
	e.t.Helper()
	r, a := e.create("alice", cfg)
	sinks := map[string]*fakeSink{"alice": a, "bob": e.join(r, "bob"), "carol": e.join(r, "carol")}
	wantErr(e.t, "Start", r.Start("id-alice"), nil)
	e.clock.Advance(CountdownTime)
	if p := r.Snapshot().Phase; p != PhaseRacing {
		e.t.Fatalf("phase %v after the countdown", p)
	}
	return r, sinks
}

// sharedRace makes a room on a with ann, bob joining on b, and starts the
// race: both servers count down together and race.
func sharedRace(t *testing.T, e *roomsEnv, a, b *Rooms) (code string, ann, bob *fakeSink) {
	t.Helper()
	ann, bob = newSink(), newSink()
	h, snap, err := a.Create(pl("ann"), ann, classic())
	wantErr(t, "Create", err, nil)
	code = h.Code()
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(code); return ok })
	hb, err := b.Find("id-bob", code)
	wantErr(t, "Find on b", err, nil)
	snap, err = b.Join(hb, pl("bob"), bob)
	wantErr(t, "Join on b", err, nil)
	if len(snap.Members) != 2 {
		t.Fatalf("after bob's join on b: %d members, want 2", len(snap.Members))
	}
	eventually(t, "a sees bob", func() bool { return len(h.Snapshot().Members) == 2 })
	wantErr(t, "bob ready", hb.SetReady("id-bob", true), nil)
	eventually(t, "a sees bob ready", func() bool { m, _ := h.Snapshot().Member("id-bob"); return m.Ready })
	wantErr(t, "Start by bob (not the host)", hb.Start("id-bob"), ErrNotHost)
	wantErr(t, "Start", h.Start("id-ann"), nil)
	eventually(t, "both count down", func() bool {
		return phaseOf(a, code) == PhaseCountdown && phaseOf(b, code) == PhaseCountdown
	})
	sa, sb := h.Snapshot(), hb.Snapshot()
	if !sa.StartsAt.Equal(sb.StartsAt) || !sa.StartsAt.Equal(t0.Add(CountdownTime)) {
		t.Fatalf("start moments %v and %v, want both %v", sa.StartsAt, sb.StartsAt, t0.Add(CountdownTime))
	}
	e.clock.Advance(CountdownTime)
	eventually(t, "both race", func() bool { return phaseOf(a, code) == PhaseRacing && phaseOf(b, code) == PhaseRacing })
	return code, ann, bob
}

// countReader is a deterministic source of room codes: 0, 1, 2, … bytes.
type countReader struct{ n byte }

func (c *countReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.n
		c.n++
	}
	return len(p), nil
}

func pl(name string) Entrant { return Entrant{ID: "id-" + name, Name: name} }

func classic() RoomConfig {
	return RoomConfig{Rules: engine.Classic(), Deal: 42, Verdict: engine.Winnable}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// held is the sink of the session on this server holding the seat of id
// in room h (nil: none), for tests that report as that session.
func held(h *Room, id string) Sink {
	rs := h.rs
	r := rs.lookup(h.code)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.member(id); m != nil {
		return rs.sinkOf(m.inst, m.sid)
	}
	return nil
}

func report(t *testing.T, r *Room, name string, removed int, st RacerState) {
	t.Helper()
	wantErr(t, "Report "+name, r.Report("id-"+name, held(r, "id-"+name), Progress{Removed: removed, Moves: removed, Pass: 1, State: st}, nil), nil)
}

func placings(ps []Placing) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d:%s:%v", p.Place, p.Name, p.State)
	}
	return s
}

// placingTimes is placings with the cards removed and the times.
func placingTimes(ps []Placing) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d:%s:%v:%d:%v", p.Place, p.Name, p.State, p.Removed, p.Time)
	}
	return s
}

// sameRound checks a room's Round against its Snapshot taken at the same
// moment.
func sameRound(t *testing.T, when string, got RoundOf, s Snapshot) {
	t.Helper()
	want := RoundOf{RoomID: s.RoomID, Phase: s.Phase, Round: s.Round, RulesID: s.RulesID, Deal: s.Deal, StartsAt: s.StartsAt}
	if s.Phase == PhaseClosed {
		want = RoundOf{Phase: PhaseClosed}
	}
	if got != want {
		t.Errorf("%s: Round() = %+v, want %+v (the snapshot's)", when, got, want)
	}
}

// eventually polls cond until it holds, for at most ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}

func phaseOf(rs *Rooms, code string) Phase {
	if r, ok := rs.Room(code); ok {
		return r.Snapshot().Phase
	}
	return PhaseClosed
}

func (s *fakeSink) has(pred func(Event) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range s.posts {
		if pred(ev) {
			return true
		}
	}
	for _, ev := range s.latest {
		if pred(ev) {
			return true
		}
	}
	return false
}

func isEnded(ev Event) bool { _, ok := ev.(RaceEnded); return ok }

// settled waits until rs's fold has applied every event published so far
// on the rooms' topic: a hello of the test's, awaited.
func settled(t *testing.T, rs *Rooms) {
	t.Helper()
	if err := rs.do(roomMsg{Op: "hello"}); err != nil {
		t.Fatalf("hello: %v", err)
	}
}
