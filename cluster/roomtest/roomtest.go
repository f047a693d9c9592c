// Package roomtest is the conformance suite of the race rooms over a bus
// (cluster.Rooms, the rooms of package lobby over the log of package
// cluster): every scenario of the rooms, one server's and a cluster's,
// run on each bus the rooms run over, as storetest does for the stores.
// Run runs it; package cluster runs it on the bus in memory (a server
// alone's) and on PostgreSQL's (a cluster's).
package roomtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
)

// Buses makes, for one scenario, the buses its servers are on: each call
// of the func it returns is the bus of a server (or of a test that looks
// at the events), all on one medium: the same bus in memory, or a
// connection of its own to one schema on PostgreSQL. now is the
// scenario's clock, for a bus that stamps events with its own.
type Buses func(t *testing.T, now func() time.Time) func() bus.Bus

// Run runs every scenario of the rooms on the buses, each in a subtest
// of its own on buses of its own.
func Run(t *testing.T, buses Buses) {
	for _, sc := range roomScenarios() {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, newRoomsEnv(t, buses)) })
	}
}

// roomsEnv is servers of rooms on one bus, one lease and one fake clock
// (the rooms' timers; the lease's own loop runs once, at a server's
// start, with a TTL of an hour: the tests call TryLease themselves).
type roomsEnv struct {
	t *testing.T
	// logMu guards logDone, set once the scenario ended (logf).
	logMu   sync.Mutex
	logDone bool
	clock   *lobby.FakeClock
	lease   *cluster.MemoryLease
	// bus is the bus a server, or a test that looks at the events, is
	// on.
	bus func() bus.Bus

	every      time.Duration // ProgressEvery of the servers made next; 10 ms when 0
	maxRooms   int           // MaxRooms of the servers made next
	perAddress int           // MaxRoomsPerAddress of the servers made next
	rand       io.Reader     // Rand of the servers made next; crypto/rand when nil
	// slowProgress, when set, holds the progress the servers made next
	// publish until it is closed (or the publish times out): their
	// progress comes late, after the ops.
	slowProgress chan struct{}

	// fork makes another env on buses of its own, for a subtest.
	fork func(t *testing.T) *roomsEnv

	mu         sync.Mutex
	ended      map[string][]lobby.RaceResult // by instance
	countdowns map[string][]lobby.Countdown  // by instance
	fail       int                           // OnRaceEnd fails this many times more
	arena      arenaScores                   // the arenas' scores, as a store keeps them
	solo       *cluster.Rooms                // the server of one-server scenarios (one)
}

func newRoomsEnv(t *testing.T, buses Buses) *roomsEnv {
	clock := lobby.NewFakeClock(t0)
	e := &roomsEnv{t: t, clock: clock, bus: buses(t, clock.Now), lease: cluster.NewMemoryLease(clock),
		ended: map[string][]lobby.RaceResult{}, countdowns: map[string][]lobby.Countdown{}}
	e.fork = func(t *testing.T) *roomsEnv { return newRoomsEnv(t, buses) }
	t.Cleanup(func() { // the first registered: it runs after the servers are killed
		e.logMu.Lock()
		defer e.logMu.Unlock()
		e.logDone = true
	})
	return e
}

// logf is the servers' log: the test's until the scenario ends. A
// server's goroutine may still be at work then (the record of a race that
// ended), and the testing package may not be written to after a test.
func (e *roomsEnv) logf(format string, args ...any) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	if !e.logDone {
		e.t.Logf(format, args...)
	}
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
		{"FindCodes", testFindCodes},
		{"AdminClose", testAdminClose},
		{"ConcurrentRoom", testConcurrentRoom},
		{"Seated", testSeated},
		{"ReportFromTheSeatOnly", testReportFromTheSeatOnly},
		{"JoinLeavesTheOldRoom", testJoinLeavesTheOldRoom},
		{"QuickAndCreateLeaveTheOldRoom", testQuickAndCreateLeaveTheOldRoom},
		{"Race", testRace},
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
		{"WrongCodesLogNothing", testWrongCodesLogNothing},
		{"MuteHoldsForAddress", testMuteHoldsForAddress},
		{"HostRemoves", testHostRemoves},
		{"HostRemovesRacer", testHostRemovesRacer},
		{"AllReadyStarts", testAllReadyStarts},
		{"IdleHost", testIdleHost},
		{"IdleHostAcrossServers", testIdleHostAcrossServers},
		{"PrivateSpectator", testPrivateSpectator},
		{"ChatLimitAcrossServers", testChatLimitAcrossServers},
		{"SpectatorChat", testSpectatorChat},
		{"SpectatorMuteHoldsForAddress", testSpectatorMuteHoldsForAddress},
		{"SpectatorChatAcrossServers", testSpectatorChatAcrossServers},
		{"ProgressUnchangedRacers", testProgressUnchangedRacers},
		{"RematchBothLeave", testRematchBothLeave},
		{"BoardFromEvents", testBoardFromEvents},
		{"CountdownHook", testCountdownHook},
		{"RatingsReachResults", testRatingsReachResults},
		{"Arena", testArena},
		{"ArenaAlone", testArenaAlone},
		{"ArenaFreeWhenDone", testArenaFreeWhenDone},
		{"ArenaPauseAndLeave", testArenaPauseAndLeave},
		{"ArenaServerDies", testArenaServerDies},
		{"ArenaEnds", testArenaEnds},
		{"ArenaIdle", testArenaIdle},
		{"ArenaPairsOnTime", testArenaPairsOnTime},
		{"ConcurrentVerdicts", testConcurrentVerdicts},
	}
}

// server starts a server of rooms named name; it stops when the test
// ends.
func (e *roomsEnv) server(name string) *cluster.Rooms {
	e.t.Helper()
	every := e.every
	if every == 0 {
		every = 10 * time.Millisecond
	}
	var made atomic.Pointer[cluster.Rooms]
	b := e.bus()
	if e.slowProgress != nil {
		b = &slowProgressBus{Bus: b, release: e.slowProgress}
	}
	rs, err := cluster.NewRooms(context.Background(), cluster.RoomsConfig{Bus: b, Lease: e.lease, LeaseTTL: time.Hour,
		ProgressEvery: every, RoomsConfig: lobby.RoomsConfig{Instance: name, Clock: e.clock, MaxRooms: e.maxRooms, MaxRoomsPerAddress: e.perAddress, Rand: e.rand,
			OnRaceEnd: func(res lobby.RaceResult) ([]lobby.RatingChange, error) {
				// The hook runs with no lock held: it may look at the rooms
				// (a new holder's first store may come before NewRooms returns).
				if rs := made.Load(); rs != nil {
					rs.Public()
				}
				e.mu.Lock()
				defer e.mu.Unlock()
				if e.fail > 0 {
					e.fail--
					return nil, errors.New("the store is down")
				}
				e.ended[name] = append(e.ended[name], res)
				return storedRatings(res), nil
			},
			OnArenaRace: e.scoreArenaRace,
			OnCountdown: func(c lobby.Countdown) {
				e.mu.Lock()
				defer e.mu.Unlock()
				e.countdowns[name] = append(e.countdowns[name], c)
			},
			Logf: e.logf}})
	if err != nil {
		e.t.Fatalf("NewRooms %s: %v", name, err)
	}
	made.Store(rs)
	e.t.Cleanup(rs.Kill)
	return rs
}

// slowProgressBus is a bus whose progress of rooms waits for release
// (or the publish's context) before it goes out; the rest goes at once.
type slowProgressBus struct {
	bus.Bus
	release <-chan struct{}
}

func (b *slowProgressBus) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	if strings.HasPrefix(topic, strings.TrimSuffix(cluster.ProgressTopic("", ""), ".")) {
		select {
		case <-b.release:
		case <-ctx.Done():
			return bus.Event{}, ctx.Err()
		}
	}
	return b.Bus.Publish(ctx, topic, m)
}

// one is the server of a one-server scenario, started on first use.
func (e *roomsEnv) one() *cluster.Rooms {
	if e.solo == nil {
		e.solo = e.server("one")
	}
	return e.solo
}

func (e *roomsEnv) results(name string) []lobby.RaceResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]lobby.RaceResult(nil), e.ended[name]...)
}

// stored waits until the one-server scenario's server stored n races, and
// returns them.
func (e *roomsEnv) stored(n int) []lobby.RaceResult {
	e.t.Helper()
	eventually(e.t, fmt.Sprintf("%d races stored", n), func() bool { return len(e.results("one")) >= n })
	return e.results("one")
}

// create opens a room hosted by name on the one-server scenario's server.
func (e *roomsEnv) create(name string, cfg lobby.RoomConfig) (*lobby.Room, *fakeSink) {
	e.t.Helper()
	s := newSink()
	r, _, err := e.one().Create(pl(name), s, cfg)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return r, s
}

// join puts name in r on the one-server scenario's server.
func (e *roomsEnv) join(r *lobby.Room, name string) *fakeSink {
	e.t.Helper()
	s := newSink()
	if _, err := e.one().Join(r, pl(name), s); err != nil {
		e.t.Fatalf("Join(%s): %v", name, err)
	}
	return s
}

// startReady marks ready every racer of h present but its host, host,
// and has the host start the race: a start needs them ready.
func startReady(h *lobby.Room, host string) error {
	for _, m := range h.Snapshot().Members {
		if m.Present && m.ID != host && !m.Ready {
			if err := h.SetReady(m.ID, true); err != nil {
				return fmt.Errorf("ready %s: %w", m.ID, err)
			}
		}
	}
	return h.Start(host)
}

// race makes a room of alice (host), bob and carol on the one-server
// scenario's server, started and past the countdown.
func (e *roomsEnv) race(cfg lobby.RoomConfig) (*lobby.Room, map[string]*fakeSink) {
	e.t.Helper()
	r, a := e.create("alice", cfg)
	sinks := map[string]*fakeSink{"alice": a, "bob": e.join(r, "bob"), "carol": e.join(r, "carol")}
	wantErr(e.t, "Start", startReady(r, "id-alice"), nil)
	e.clock.Advance(lobby.CountdownTime)
	if p := r.Snapshot().Phase; p != lobby.PhaseRacing {
		e.t.Fatalf("phase %v after the countdown", p)
	}
	return r, sinks
}

// sharedRace makes a room on a with ann, bob joining on b, and starts the
// race: both servers count down together and race.
func sharedRace(t *testing.T, e *roomsEnv, a, b *cluster.Rooms) (code string, ann, bob *fakeSink) {
	t.Helper()
	ann, bob = newSink(), newSink()
	h, snap, err := a.Create(pl("ann"), ann, classic())
	wantErr(t, "Create", err, nil)
	code = h.Code()
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(code); return ok })
	hb, err := b.Find(code)
	wantErr(t, "Find on b", err, nil)
	snap, err = b.Join(hb, pl("bob"), bob)
	wantErr(t, "Join on b", err, nil)
	if len(snap.Members) != 2 {
		t.Fatalf("after bob's join on b: %d members, want 2", len(snap.Members))
	}
	eventually(t, "a sees bob", func() bool { return len(h.Snapshot().Members) == 2 })
	wantErr(t, "bob ready", hb.SetReady("id-bob", true), nil)
	eventually(t, "a sees bob ready", func() bool { m, _ := h.Snapshot().Member("id-bob"); return m.Ready })
	wantErr(t, "Start by bob (not the host)", hb.Start("id-bob"), lobby.ErrNotHost)
	wantErr(t, "Start", startReady(h, "id-ann"), nil)
	eventually(t, "both count down", func() bool {
		return phaseOf(a, code) == lobby.PhaseCountdown && phaseOf(b, code) == lobby.PhaseCountdown
	})
	sa, sb := h.Snapshot(), hb.Snapshot()
	if !sa.StartsAt.Equal(sb.StartsAt) || !sa.StartsAt.Equal(t0.Add(lobby.CountdownTime)) {
		t.Fatalf("start moments %v and %v, want both %v", sa.StartsAt, sb.StartsAt, t0.Add(lobby.CountdownTime))
	}
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "both race", func() bool { return phaseOf(a, code) == lobby.PhaseRacing && phaseOf(b, code) == lobby.PhaseRacing })
	return code, ann, bob
}

func pl(name string) lobby.Entrant { return lobby.Entrant{ID: "id-" + name, Name: name} }

func classic() lobby.RoomConfig {
	return lobby.RoomConfig{Rules: engine.Classic(), Deal: 42, Verdict: engine.Winnable}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// held is the sink of the session on this server holding the seat of id
// in room h (nil: none), for tests that report as that session.
func held(h *lobby.Room, id string) lobby.Sink { return h.SeatSink(id) }

func report(t *testing.T, r *lobby.Room, name string, removed int, st lobby.RacerState) {
	t.Helper()
	wantErr(t, "Report "+name, r.Report("id-"+name, held(r, "id-"+name), lobby.Progress{Removed: removed, Moves: removed, Pass: 1, State: st}, nil), nil)
}

func placings(ps []lobby.Placing) string {
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
func placingTimes(ps []lobby.Placing) string {
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
func sameRound(t *testing.T, when string, got lobby.RoundOf, s lobby.Snapshot) {
	t.Helper()
	want := lobby.RoundOf{RoomID: s.RoomID, Phase: s.Phase, Round: s.Round, RulesID: s.RulesID, Deal: s.Deal, StartsAt: s.StartsAt}
	if s.Phase == lobby.PhaseClosed {
		want = lobby.RoundOf{Phase: lobby.PhaseClosed}
	}
	if got != want {
		t.Errorf("%s: Round() = %+v, want %+v (the snapshot's)", when, got, want)
	}
}

// eventually polls cond until it holds, for at most ten seconds; seen,
// given, says what cond last saw when it times out.
func eventually(t *testing.T, what string, cond func() bool, seen ...func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			for _, s := range seen {
				what += "; last seen: " + s()
			}
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}

// countingDown waits until every server has the room counting down. A
// server sets its countdown's timer in the fold of the op that opened the
// room, after it told the players: a fake clock advanced before that
// fold is done would leave the timer unrun.
func countingDown(t *testing.T, code string, servers ...*cluster.Rooms) {
	t.Helper()
	for _, rs := range servers {
		eventually(t, "the countdown of room "+code, func() bool { return phaseOf(rs, code) == lobby.PhaseCountdown })
	}
}

func phaseOf(rs *cluster.Rooms, code string) lobby.Phase {
	if r, ok := rs.Room(code); ok {
		return r.Snapshot().Phase
	}
	return lobby.PhaseClosed
}

func (s *fakeSink) has(pred func(lobby.Event) bool) bool {
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

func isEnded(ev lobby.Event) bool { _, ok := ev.(lobby.RaceEnded); return ok }

// closedRoom is the handle of a room of rs that closed.
func closedRoom(t *testing.T, rs *cluster.Rooms) *lobby.Room {
	t.Helper()
	h, _, err := rs.Create(pl("ghost"), newSink(), classic())
	wantErr(t, "Create the ghost's room", err, nil)
	wantErr(t, "Close the ghost's room", rs.Close(h.Code(), "a test"), nil)
	return h
}

// settled waits until rs applied every op logged so far.
func settled(t *testing.T, rs *cluster.Rooms) {
	t.Helper()
	if err := rs.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
}
