package roomtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"pyramid/lobby"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
)

// The scenarios of one server's rooms (the one-server ones; the cluster's
// are in rooms_cluster_test.go), run on each bus by TestRooms and
// TestRoomsPostgres.

func testRoomLifecycle(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	s := r.Snapshot()
	if s.Public || s.TimeLimit != lobby.DefaultTimeLimit || s.MaxPlayers != lobby.MaxRacers || s.Host != "id-alice" ||
		s.Phase != lobby.PhaseWaiting || s.Cards != 28 || s.Round != 1 || s.RoomID == "" {
		t.Fatalf("new room: %+v", s)
	}
	wantErr(t, "Start alone", r.Start("id-alice"), lobby.ErrTooFewRacers)
	b := e.join(r, "bob")
	c := e.join(r, "carol")
	wantErr(t, "Ready", r.SetReady("id-bob", true), nil)
	if s, _ := a.room(r.Code()); len(s.Members) != 3 || !s.Members[1].Ready || s.Members[0].Ready {
		t.Fatalf("alice sees %+v", s.Members)
	}
	wantErr(t, "Start by bob", r.Start("id-bob"), lobby.ErrNotHost)
	wantErr(t, "Start by a stranger", r.Start("id-zed"), lobby.ErrNotMember)
	wantErr(t, "Report early", r.Report("id-bob", held(r, "id-bob"), lobby.Progress{State: lobby.RacerPlaying}, nil), lobby.ErrNotRacing)
	err := r.Start("id-alice")
	wantErr(t, "Start with carol not ready", err, lobby.ErrNotAllReady)
	if err == nil || !strings.Contains(err.Error(), "waiting for carol") {
		t.Errorf("Start with carol not ready: %v, want it to name carol", err)
	}
	if s := r.Snapshot(); s.Phase != lobby.PhaseWaiting {
		t.Fatalf("a refused start: phase %v", s.Phase)
	}
	wantErr(t, "Start", startReady(r, "id-alice"), nil)
	wantErr(t, "Start twice", r.Start("id-alice"), lobby.ErrNotWaiting)
	wantErr(t, "Join mid-race", func() error { _, err := e.one().Join(r, pl("dave"), newSink()); return err }(), lobby.ErrRaceUnderway)

	// Everybody gets the same moment.
	for name, s := range map[string]*fakeSink{"alice": a, "bob": b, "carol": c} {
		ev, ok := hasPost[lobby.CountdownStarted](s)
		if !ok || !ev.StartsAt.Equal(t0.Add(lobby.CountdownTime)) || ev.Deal != 42 {
			t.Errorf("%s: countdown %+v, %v", name, ev, ok)
		}
	}
	e.clock.Advance(lobby.CountdownTime - time.Millisecond)
	if p := r.Snapshot().Phase; p != lobby.PhaseCountdown {
		t.Fatalf("phase %v before the countdown ended", p)
	}
	sameRound(t, "in the countdown", r.Round(), r.Snapshot())
	e.clock.Advance(time.Millisecond)
	if ev, ok := hasPost[lobby.RaceStarted](b); !ok || !ev.Deadline.Equal(t0.Add(lobby.CountdownTime+lobby.DefaultTimeLimit)) {
		t.Fatalf("race started %+v, %v", ev, ok)
	}
	sameRound(t, "racing", r.Round(), r.Snapshot())
	if got := r.Round(); got.Phase != lobby.PhaseRacing || got.Round != 1 || got.Deal != 42 || !got.StartsAt.Equal(t0.Add(lobby.CountdownTime)) {
		t.Fatalf("racing: Round() = %+v", got)
	}

	e.clock.Advance(30 * time.Second)
	report(t, r, "bob", 2, lobby.RacerPlaying)
	if got, ok := c.racer(r.Code(), "id-bob"); !ok || got.Removed != 2 || got.LastRemoval != 30*time.Second || got.State != lobby.RacerPlaying {
		t.Errorf("carol sees bob as %+v, %v", got, ok)
	}
	e.clock.Advance(30 * time.Second)
	report(t, r, "alice", 28, lobby.RacerCleared)
	wantErr(t, "report after clearing", r.Report("id-alice", held(r, "id-alice"), lobby.Progress{Removed: 28, State: lobby.RacerCleared}, nil), lobby.ErrRaceOver)
	e.clock.Advance(10 * time.Second)
	report(t, r, "bob", 20, lobby.RacerStuck)
	report(t, r, "carol", 22, lobby.RacerPlaying)
	settled(t, e.one())
	if len(e.results("one")) != 0 || r.Snapshot().Phase != lobby.PhaseRacing {
		t.Fatal("race ended with carol playing")
	}
	report(t, r, "carol", 22, lobby.RacerStuck)

	res := e.stored(1)
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	if got, want := placings(res[0].Placings), "1:alice:cleared 2:carol:stuck 3:bob:stuck"; got != want {
		t.Errorf("placings %s, want %s", got, want)
	}
	if p := res[0].Placings[0]; !p.Cleared || p.Time != 60*time.Second {
		t.Errorf("winner %+v", p)
	}
	if !res[0].Started.Equal(t0.Add(lobby.CountdownTime)) || !res[0].Ended.Equal(t0.Add(lobby.CountdownTime+70*time.Second)) ||
		res[0].Deal != 42 || res[0].RulesID != engine.Classic().ID() || res[0].Verdict != engine.Winnable ||
		res[0].Key() != s.RoomID+"/1" {
		t.Errorf("result %+v", res[0])
	}
	eventually(t, "alice's RaceEnded", func() bool { ev, ok := hasPost[lobby.RaceEnded](a); return ok && len(ev.Results) == 3 })
	s = r.Snapshot()
	if s.Phase != lobby.PhaseResults || len(s.Results) != 3 || s.Members[0].Place != 1 {
		t.Errorf("after the race: %+v", s)
	}
	// The deadline timer is gone: nothing ends twice.
	e.clock.Advance(lobby.DefaultTimeLimit)
	settled(t, e.one())
	if len(e.results("one")) != 1 {
		t.Errorf("%d results after the deadline passed", len(e.results("one")))
	}

	// Rematch.
	wantErr(t, "Rematch by bob", r.Rematch("id-bob", 43, engine.Unknown, true), lobby.ErrNotHost)
	wantErr(t, "Rematch", r.Rematch("id-alice", 43, engine.Unknown, true), nil)
	s = r.Snapshot()
	if s.Phase != lobby.PhaseWaiting || s.Round != 2 || s.Deal != 43 || len(s.Results) != 0 || len(s.Members) != 3 ||
		s.Members[0].Removed != 0 || s.Members[0].State != lobby.RacerWaiting || !s.StartsAt.IsZero() || s.RaceKey() != s.RoomID+"/2" {
		t.Errorf("after the rematch: %+v", s)
	}
	sameRound(t, "after the rematch", r.Round(), s)
	wantErr(t, "Rematch while waiting", r.Rematch("id-alice", 44, engine.Unknown, true), lobby.ErrNotOver)
	gone := closedRoom(t, e.one())
	sameRound(t, "no such room", gone.Round(), gone.Snapshot())
}

func testDeadline(t *testing.T, e *roomsEnv) {
	cfg := classic()
	cfg.TimeLimit = 2 * time.Minute
	r, _ := e.race(cfg)
	e.clock.Advance(time.Minute)
	report(t, r, "bob", 10, lobby.RacerPlaying)
	report(t, r, "carol", 10, lobby.RacerPlaying)
	e.clock.Advance(10 * time.Second)
	report(t, r, "alice", 12, lobby.RacerPlaying)
	e.clock.Advance(50*time.Second - time.Millisecond)
	settled(t, e.one())
	if len(e.results("one")) != 0 {
		t.Fatal("race ended before the deadline")
	}
	e.clock.Advance(time.Millisecond)
	res := e.stored(1)
	if got, want := placings(res[0].Placings), "1:alice:playing 2:bob:playing 2:carol:playing"; got != want {
		t.Errorf("placings %s, want %s", got, want)
	}
	eventually(t, "the room shows the results", func() bool { return r.Snapshot().Phase == lobby.PhaseResults })
	wantErr(t, "report after the deadline", r.Report("id-bob", held(r, "id-bob"), lobby.Progress{Removed: 11, State: lobby.RacerPlaying}, nil), lobby.ErrNotRacing)
}

func testLeaveAndRejoin(t *testing.T, e *roomsEnv) {
	r, sinks := e.race(classic())
	e.clock.Advance(10 * time.Second)
	report(t, r, "bob", 6, lobby.RacerPlaying)
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	wantErr(t, "Leave twice", r.Leave("id-bob", held(r, "id-bob")), lobby.ErrNotMember)
	wantErr(t, "Report after leaving", r.Report("id-bob", held(r, "id-bob"), lobby.Progress{Removed: 8, State: lobby.RacerPlaying}, nil), lobby.ErrNotMember)
	if got, _ := sinks["alice"].racer(r.Code(), "id-bob"); got.State != lobby.RacerLeft || got.Present {
		t.Errorf("alice sees bob as %+v", got)
	}
	// Back in the same seat with the same progress.
	nb := newSink()
	snap, err := e.one().Join(r, pl("bob"), nb)
	wantErr(t, "rejoin", err, nil)
	if m, ok := snap.Member("id-bob"); !ok || m.Removed != 6 || m.State != lobby.RacerPlaying || !m.Present || snap.Members[1].ID != "id-bob" {
		t.Errorf("bob back as %+v", snap.Members)
	}
	report(t, r, "bob", 8, lobby.RacerPlaying)

	// Bob leaves for good; the others finish; bob ranks as left.
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	report(t, r, "alice", 3, lobby.RacerStuck)
	report(t, r, "carol", 1, lobby.RacerStuck)
	res := e.stored(1)
	if got, want := placings(res[0].Placings), "1:alice:stuck 2:carol:stuck 3:bob:left"; got != want {
		t.Errorf("placings %s, want %s", got, want)
	}
	// Bob's seat went with the race.
	eventually(t, "two members after the race", func() bool { return len(r.Snapshot().Members) == 2 })
}

func testEverybodyLeavesEndsTheRace(t *testing.T, e *roomsEnv) {
	r, _ := e.race(classic())
	for _, n := range []string{"alice", "bob", "carol"} {
		wantErr(t, "Leave", r.Leave("id-"+n, held(r, "id-"+n)), nil)
	}
	if res := e.stored(1); placings(res[0].Placings) != "1:alice:left 1:bob:left 1:carol:left" {
		t.Errorf("results %+v", res)
	}
	e.clock.Advance(lobby.EmptyRoomClose)
	e.one().TryLease() // the holder's duties: the empty room closes
	eventually(t, "the empty room closed", func() bool { return r.Snapshot().Phase == lobby.PhaseClosed && e.one().Len() == 0 })
}

func testLeaveDuringCountdown(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	e.join(r, "bob")
	wantErr(t, "Start", startReady(r, "id-alice"), nil)
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	e.clock.Advance(lobby.CountdownTime)
	if p := r.Snapshot().Phase; p != lobby.PhaseRacing {
		t.Fatalf("phase %v", p)
	}
	if m, _ := r.Snapshot().Member("id-bob"); m.State != lobby.RacerLeft || m.Present {
		t.Errorf("bob is %+v", m)
	}
	if s, _ := a.room(r.Code()); s.Phase != lobby.PhaseRacing {
		t.Errorf("alice sees phase %v", s.Phase)
	}
	report(t, r, "alice", 28, lobby.RacerCleared)
	if res := e.stored(1); placings(res[0].Placings) != "1:alice:cleared 2:bob:left" {
		t.Errorf("results %+v", res)
	}
}

func testTakeover(t *testing.T, e *roomsEnv) {
	r, old := e.create("alice", classic())
	e.join(r, "bob")
	old.events()
	neu := newSink()
	_, err := e.one().Join(r, pl("alice"), neu)
	wantErr(t, "second session", err, nil)
	if _, ok := hasPost[lobby.SeatTakenOver](old); !ok {
		t.Error("the first session was not told")
	}
	// Joining again with the same session is no takeover.
	neu.events()
	if _, err := e.one().Join(r, pl("alice"), neu); err != nil {
		t.Fatal(err)
	}
	if _, ok := hasPost[lobby.SeatTakenOver](neu); ok {
		t.Error("same session told it was taken over")
	}
	old.events()
	wantErr(t, "Say", r.Say("id-bob", "hi"), nil)
	if len(old.events()) != 0 {
		t.Error("the old session still gets events")
	}
	if _, ok := hasPost[lobby.ChatLine](neu); !ok {
		t.Error("the new session gets no chat")
	}
	if s := r.Snapshot(); len(s.Members) != 2 || s.Host != "id-alice" {
		t.Errorf("after takeover: %+v", s.Members)
	}
}

func testDropAfterRefusing(t *testing.T, e *roomsEnv) {
	r, _ := e.create("alice", classic())
	b := e.join(r, "bob")
	c := e.join(r, "carol")
	b.setRefuse(true)
	c.setRefuse(true)
	wantErr(t, "Say", r.Say("id-alice", "one"), nil)
	e.clock.Advance(2 * time.Second)
	c.setRefuse(false) // carol reads again
	e.clock.Advance(lobby.RoomDropAfter - 2*time.Second - time.Millisecond)
	settled(t, e.one())
	if _, ok := r.Snapshot().Member("id-bob"); !ok {
		t.Fatal("bob dropped early")
	}
	e.clock.Advance(time.Millisecond)
	eventually(t, "bob, who refused for 5 s, dropped", func() bool { _, ok := r.Snapshot().Member("id-bob"); return !ok })
	if _, ok := r.Snapshot().Member("id-carol"); !ok {
		t.Error("carol, who read again, was dropped")
	}
	if _, ok := hasPost[lobby.Missed](c); !ok {
		t.Error("carol was not told she missed events")
	}
	// Bob may come back.
	b.setRefuse(false)
	if _, err := e.one().Join(r, pl("bob"), b); err != nil {
		t.Errorf("bob back: %v", err)
	}
}

func testDropDuringRaceKeepsSeat(t *testing.T, e *roomsEnv) {
	r, sinks := e.race(classic())
	report(t, r, "bob", 4, lobby.RacerPlaying)
	sinks["bob"].setRefuse(true)
	wantErr(t, "Say", r.Say("id-alice", "hurry"), nil)
	e.clock.Advance(lobby.RoomDropAfter)
	eventually(t, "bob dropped", func() bool { m, _ := r.Snapshot().Member("id-bob"); return !m.Present })
	m, ok := r.Snapshot().Member("id-bob")
	if !ok || m.Present || m.State != lobby.RacerLeft || m.Removed != 4 {
		t.Fatalf("bob after the drop: %+v, %v", m, ok)
	}
	sinks["bob"].setRefuse(false)
	snap, err := e.one().Join(r, pl("bob"), sinks["bob"])
	if m, _ := snap.Member("id-bob"); err != nil || m.State != lobby.RacerPlaying || m.Removed != 4 {
		t.Errorf("bob back: %+v, %v", m, err)
	}
}

func testEmptyRoomCloses(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	spec := newSink()
	if _, err := r.Watch("id-zed", spec); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Leave", r.Leave("id-alice", held(r, "id-alice")), nil)
	e.clock.Advance(lobby.EmptyRoomClose / 2)
	e.one().TryLease()
	// Coming back keeps it open.
	if _, err := e.one().Join(r, pl("alice"), a); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(lobby.EmptyRoomClose)
	e.one().TryLease()
	settled(t, e.one())
	if r.Snapshot().Phase == lobby.PhaseClosed {
		t.Fatal("closed with alice in it")
	}
	wantErr(t, "Leave", r.Leave("id-alice", held(r, "id-alice")), nil)
	e.clock.Advance(lobby.EmptyRoomClose - time.Millisecond)
	e.one().TryLease()
	settled(t, e.one())
	if r.Snapshot().Phase == lobby.PhaseClosed || e.one().Len() != 1 {
		t.Fatal("closed early")
	}
	e.clock.Advance(time.Millisecond)
	e.one().TryLease()
	eventually(t, "the room closed", func() bool { return r.Snapshot().Phase == lobby.PhaseClosed && e.one().Len() == 0 })
	if ev, ok := hasPost[lobby.RoomClosed](spec); !ok || ev.Code != r.Code() {
		t.Errorf("the spectator was not told: %+v", ev)
	}
	if _, err := e.one().Join(r, pl("alice"), a); !errors.Is(err, lobby.ErrNoRoom) {
		t.Errorf("Join a closed room: %v", err)
	}
	if _, err := e.one().Find(r.Code()); !errors.Is(err, lobby.ErrNoRoom) {
		t.Errorf("Find a closed room: %v", err)
	}
}

func testHostLeavesPassesHost(t *testing.T, e *roomsEnv) {
	r, _ := e.create("alice", classic())
	e.join(r, "bob")
	wantErr(t, "Leave", r.Leave("id-alice", held(r, "id-alice")), nil)
	if h := r.Snapshot().Host; h != "id-bob" {
		t.Errorf("host %s, want id-bob", h)
	}
	// Alice hosts no room now, so she may open one.
	if _, _, err := e.one().Create(pl("alice"), newSink(), classic()); err != nil {
		t.Errorf("Create: %v", err)
	}
}

func testRegistryLimits(t *testing.T, e *roomsEnv) {
	e.maxRooms = 2
	e.create("alice", classic())
	_, _, err := e.one().Create(pl("alice"), newSink(), classic())
	wantErr(t, "second room", err, lobby.ErrAlreadyHosting)
	e.create("bob", classic())
	_, _, err = e.one().Create(pl("carol"), newSink(), classic())
	wantErr(t, "third room", err, lobby.ErrTooManyRooms)
	// One address opens a quarter of the rooms at most (here 8 of 32);
	// another address still opens one.
	e.maxRooms = 32
	many := e.server("many")
	from := func(name, addr string) lobby.Entrant { p := pl(name); p.Addr = addr; return p }
	for i := range 32 / lobby.AddressRoomsShare {
		_, _, err = many.Create(from("flood"+strconv.Itoa(i), "203.0.113.7"), newSink(), classic())
		wantErr(t, "a room of the address", err, nil)
	}
	_, _, err = many.Create(from("flood-more", "203.0.113.7"), newSink(), classic())
	wantErr(t, "one room more from the address", err, lobby.ErrAddressRooms)
	_, _, err = many.Create(from("newcomer", "198.51.100.2"), newSink(), classic())
	wantErr(t, "a room from another address", err, nil)
	// --max-rooms-per-address sets the share itself.
	e.perAddress = 2
	few := e.server("few")
	for i := range 2 {
		_, _, err = few.Create(from("few"+strconv.Itoa(i), "192.0.2.44"), newSink(), classic())
		wantErr(t, "a room of the address under its own bound", err, nil)
	}
	_, _, err = few.Create(from("few-more", "192.0.2.44"), newSink(), classic())
	wantErr(t, "one room more than the address's own bound", err, lobby.ErrAddressRooms)
	e.perAddress = 0
	e.maxRooms = 2
	bad := classic()
	bad.MaxPlayers = 9
	_, _, err = e.one().Create(pl("dave"), newSink(), bad)
	wantErr(t, "9 players", err, lobby.ErrBadRoomConfig)
	bad = classic()
	bad.TimeLimit = time.Second
	_, _, err = e.one().Create(pl("dave"), newSink(), bad)
	wantErr(t, "1 s", err, lobby.ErrBadRoomConfig)

	// A room of 2 is full with 2.
	e.maxRooms = 0
	cfg := classic()
	cfg.MaxPlayers = 2
	r2, _, err := e.server("two").Create(pl("erin"), newSink(), cfg)
	wantErr(t, "a room of 2", err, nil)
	_, err = e.solo.Join(r2, pl("frank"), newSink())
	wantErr(t, "second in a room of 2", err, nil)
	_, err = e.solo.Join(r2, pl("gina"), newSink())
	wantErr(t, "third in a room of 2", err, lobby.ErrRoomFull)
}

func testSpectators(t *testing.T, e *roomsEnv) {
	r, _ := e.create("alice", classic())
	e.join(r, "bob")
	var first *fakeSink
	for i := range lobby.MaxSpectators {
		s := newSink()
		if i == 0 {
			first = s
		}
		if _, err := r.Watch(fmt.Sprintf("viewer-%d", i), s); err != nil {
			t.Fatalf("spectator %d: %v", i, err)
		}
	}
	_, err := r.Watch("one-too-many", newSink())
	wantErr(t, "51st spectator", err, lobby.ErrTooManySpectators)
	// The same viewer again takes the view over and takes no new place.
	again := newSink()
	if _, err := r.Watch("viewer-0", again); err != nil {
		t.Fatal(err)
	}
	if _, ok := hasPost[lobby.SeatTakenOver](first); !ok {
		t.Error("first view not told")
	}
	if n := r.Snapshot().Spectators; n != lobby.MaxSpectators {
		t.Errorf("%d spectators", n)
	}
	wantErr(t, "spectator says", r.Say("viewer-0", "go bob"), lobby.ErrNotMember)
	wantErr(t, "Start", startReady(r, "id-alice"), nil)
	e.clock.Advance(lobby.CountdownTime)
	report(t, r, "bob", 2, lobby.RacerPlaying)
	if got, ok := again.racer(r.Code(), "id-bob"); !ok || got.Removed != 2 {
		t.Errorf("spectator sees bob as %+v", got)
	}
	report(t, r, "bob", 28, lobby.RacerCleared)
	report(t, r, "alice", 0, lobby.RacerStuck)
	eventually(t, "the spectator sees the end", func() bool { _, ok := hasPost[lobby.RaceEnded](again); return ok })
	wantErr(t, "Rematch", r.Rematch("id-alice", 7, engine.Unknown, true), nil)
	if n := r.Snapshot().Spectators; n != lobby.MaxSpectators {
		t.Errorf("%d spectators after the rematch", n)
	}
	wantErr(t, "Unwatch by the first view", r.Unwatch("viewer-0", first), lobby.ErrSeatTaken)
	wantErr(t, "Unwatch", r.Unwatch("viewer-0", again), nil)
	wantErr(t, "Unwatch again", r.Unwatch("viewer-0", again), lobby.ErrNotMember)
}

func testReportChecks(t *testing.T, e *roomsEnv) {
	r, _ := e.race(classic())
	for _, p := range []lobby.Progress{
		{Removed: 29, State: lobby.RacerPlaying},
		{Removed: -1, State: lobby.RacerPlaying},
		{Removed: 27, State: lobby.RacerCleared},
		{Removed: 3, State: lobby.RacerLeft},
		{Removed: 3, Moves: -1, State: lobby.RacerPlaying},
	} {
		if err := r.Report("id-bob", held(r, "id-bob"), p, nil); !errors.Is(err, lobby.ErrBadProgress) {
			t.Errorf("Report %+v: %v", p, err)
		}
	}
	wantErr(t, "stranger", r.Report("id-zed", held(r, "id-zed"), lobby.Progress{State: lobby.RacerPlaying}, nil), lobby.ErrNotMember)
}

// testLastRemovalWithUndo: an undo takes the time of the last removal back
// to when the racer first reached the count they are back to.
func testLastRemovalWithUndo(t *testing.T, e *roomsEnv) {
	r, sinks := e.race(classic())
	steps := []struct {
		after   time.Duration
		removed int
		want    time.Duration
	}{
		{10 * time.Second, 2, 10 * time.Second},
		{10 * time.Second, 4, 20 * time.Second},
		{5 * time.Second, 4, 20 * time.Second}, // a draw: no removal
		{5 * time.Second, 2, 10 * time.Second}, // undo
		{5 * time.Second, 3, 35 * time.Second},
		{5 * time.Second, 0, 0},
	}
	for i, st := range steps {
		e.clock.Advance(st.after)
		report(t, r, "bob", st.removed, lobby.RacerPlaying)
		got, _ := sinks["carol"].racer(r.Code(), "id-bob")
		if got.LastRemoval != st.want {
			t.Errorf("step %d: last removal %v, want %v", i+1, got.LastRemoval, st.want)
		}
	}
}

func testQuickMatch(t *testing.T, e *roomsEnv) {
	rs := e.one()
	// A private room and a public room of other rules are never matched.
	// (Rooms list oldest first: each is made a second after the last.)
	e.create("priv", classic())
	other := classic()
	other.Rules = engine.MustRules("double")
	other.Public = true
	e.clock.Advance(time.Second)
	e.create("dbl", other)
	e.clock.Advance(time.Second)

	_, _, err := rs.QuickJoin(pl("alice"), newSink(), engine.Classic().ID())
	wantErr(t, "QuickJoin with no room", err, lobby.ErrNoRoom)
	r1, _, created, err := rs.QuickMatch(pl("alice"), newSink(), classic())
	if err != nil || !created || !r1.Snapshot().Public || r1.Snapshot().Host != "id-alice" {
		t.Fatalf("first quick match: %v, created %v", err, created)
	}
	r2, _, created, err := rs.QuickMatch(pl("bob"), newSink(), classic())
	if err != nil || created || r2.Code() != r1.Code() {
		t.Fatalf("second quick match: %v, created %v, same room %v", err, created, r2.Code() == r1.Code())
	}
	if r, _, err := rs.QuickJoin(pl("erin"), newSink(), engine.Classic().ID()); err != nil || r.Code() != r1.Code() {
		t.Fatalf("QuickJoin: %v", err)
	}
	// A racing room is not matched either.
	wantErr(t, "Start", startReady(r1, "id-alice"), nil)
	e.clock.Advance(time.Second)
	r3, _, created, err := rs.QuickMatch(pl("carol"), newSink(), classic())
	if err != nil || !created || r3.Code() == r1.Code() {
		t.Fatalf("third quick match: %v, created %v", err, created)
	}
	// The oldest waiting room comes first.
	e.clock.Advance(time.Second)
	r4, _, created, _ := rs.QuickMatch(pl("dave"), newSink(), classic())
	if created || r4.Code() != r3.Code() {
		t.Errorf("dave not put with carol")
	}
	list := rs.Public()
	if len(list) != 3 || list[0].RulesID != other.Rules.ID() {
		t.Fatalf("public rooms: %+v", list)
	}
	if b, err := json.Marshal(list[1]); err != nil || !strings.Contains(string(b), `"phase":"countdown"`) ||
		!strings.Contains(string(b), `"code":"`+r1.Code()+`"`) || !strings.Contains(string(b), `"players":3`) {
		t.Errorf("rooms --json line %s, %v", b, err)
	}
	if l := list[1]; l.Code != r1.Code() || l.Phase != lobby.PhaseCountdown || l.Players != 3 || l.Host != "alice" || l.TimeLimitS != 600 {
		t.Errorf("public room line %+v", l)
	}
	// The Lobby screen's list: the rooms that wait for players, oldest
	// first, the same lines.
	if w := rs.Waiting(); len(w) != 2 || w[0] != list[0] || w[1] != list[2] {
		t.Errorf("waiting rooms %+v, want the first and third of %+v", w, list)
	}
}

// testFindCodes: Find reads a code as typed, tells a code no room has
// (ErrNoRoom) from text that is no code (ErrBadCode), and refuses
// nobody: the budget of wrong codes is the caller's (package budget).
func testFindCodes(t *testing.T, e *roomsEnv) {
	rs := e.one()
	r, _ := e.create("alice", classic())
	if got, err := rs.Find(" " + strings.ToLower(r.Code()) + " "); err != nil || got.Code() != r.Code() {
		t.Fatalf("Find: %v", err)
	}
	for i := range 100 {
		code, want := "XXXXXX", lobby.ErrNoRoom
		if i%2 == 1 {
			code, want = "nope", lobby.ErrBadCode
		}
		if _, err := rs.Find(code); !errors.Is(err, want) {
			t.Fatalf("wrong code %d: got %v, want %v", i+1, err, want)
		}
	}
	if _, err := rs.Find(r.Code()); err != nil {
		t.Errorf("the right code after 100 wrong ones: %v", err)
	}
}

func testAdminClose(t *testing.T, e *roomsEnv) {
	r, sinks := e.race(classic())
	wantErr(t, "Close", e.one().Close(r.Code(), "closed by an admin"), nil)
	if ev, ok := hasPost[lobby.RoomClosed](sinks["bob"]); !ok || ev.Reason != "closed by an admin" {
		t.Errorf("bob told %+v, %v", ev, ok)
	}
	settled(t, e.one())
	if e.one().Len() != 0 || len(e.results("one")) != 0 {
		t.Errorf("%d rooms, %d results", e.one().Len(), len(e.results("one")))
	}
	wantErr(t, "Report", r.Report("id-bob", held(r, "id-bob"), lobby.Progress{State: lobby.RacerPlaying}, nil), lobby.ErrRoomClosed)
	wantErr(t, "Close again", e.one().Close(r.Code(), "x"), lobby.ErrNoRoom)
}

// testConcurrentRoom hammers one room from several goroutines, for the
// race detector.
func testConcurrentRoom(t *testing.T, e *roomsEnv) {
	r, _ := e.create("p0", classic())
	for i := 1; i < lobby.MaxRacers; i++ {
		e.join(r, fmt.Sprintf("p%d", i))
	}
	wantErr(t, "Start", startReady(r, "id-p0"), nil)
	e.clock.Advance(lobby.CountdownTime)
	var wg sync.WaitGroup
	for i := range lobby.MaxRacers {
		wg.Go(func() {
			id := fmt.Sprintf("id-p%d", i)
			from := held(r, id)
			for n := 1; n <= 28; n++ {
				st := lobby.RacerPlaying
				if n == 28 {
					st = lobby.RacerCleared
				}
				if err := r.Report(id, from, lobby.Progress{Removed: n, Moves: n, State: st}, nil); err != nil && !errors.Is(err, lobby.ErrNotRacing) {
					t.Error(err)
				}
				_ = r.Snapshot()
				if n%7 == 0 {
					_ = r.Say(id, "go")
				}
			}
		})
	}
	wg.Wait()
	if res := e.stored(1); len(res) != 1 || len(res[0].Placings) != lobby.MaxRacers {
		t.Errorf("results %+v", res)
	}
}

func testSeated(t *testing.T, e *roomsEnv) {
	r, _ := e.race(classic())
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	if got, ok := e.one().Seated("id-bob"); !ok || got.Code() != r.Code() {
		t.Error("bob, who dropped out of the race, has no seat to come back to")
	}
	if _, ok := e.one().Seated("id-zed"); ok {
		t.Error("a stranger has a seat")
	}
	report(t, r, "alice", 28, lobby.RacerCleared)
	report(t, r, "carol", 2, lobby.RacerStuck)
	eventually(t, "the race over", func() bool { return r.Snapshot().Phase == lobby.PhaseResults })
	if _, ok := e.one().Seated("id-bob"); ok {
		t.Error("bob still seated after the race")
	}
}

// testReportFromTheSeatOnly: a racer's session whose seat another
// session took over (on the same server, or on another) reports nothing;
// the new session's count.
func testReportFromTheSeatOnly(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, _, bob := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	bob2 := newSink()
	_, err := b.Join(hb, pl("bob"), bob2)
	wantErr(t, "bob's second session on b", err, nil)
	p := lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying}
	wantErr(t, "bob's old session reports", hb.Report("id-bob", bob, p, nil), lobby.ErrSeatTaken)
	wantErr(t, "a stranger's sink", hb.Report("id-bob", newSink(), p, nil), lobby.ErrSeatTaken)
	wantErr(t, "bob's new session reports", hb.Report("id-bob", bob2, p, nil), nil)
	eventually(t, "a shows the new session's move", func() bool { m, _ := ha.Snapshot().Member("id-bob"); return m.Moves == 1 })
	_, err = a.Join(ha, pl("bob"), newSink())
	wantErr(t, "bob's third session, on a", err, nil)
	eventually(t, "b knows bob's seat moved to a", func() bool {
		return hb.Report("id-bob", bob2, lobby.Progress{Removed: 4, Moves: 2, Pass: 1, State: lobby.RacerPlaying}, nil) != nil
	})
	wantErr(t, "bob's session on b reports", hb.Report("id-bob", bob2, lobby.Progress{Removed: 4, Moves: 2, Pass: 1, State: lobby.RacerPlaying}, nil), lobby.ErrNotMember)
	if m, _ := ha.Snapshot().Member("id-bob"); m.Moves != 1 {
		t.Errorf("a shows %d moves of bob's, want 1", m.Moves)
	}
}

// testJoinLeavesTheOldRoom: a session that goes into a new room leaves
// the one it was in; what becomes of the old room depends on what it was
// doing.
func testJoinLeavesTheOldRoom(t *testing.T, e *roomsEnv) {
	for _, tc := range []struct {
		name string
		// setup makes the old room, with bob in it on sink old, and
		// says whether bob hosts it.
		setup       func(e *roomsEnv, old *fakeSink) *lobby.Room
		sameSession bool
		wantClosed  bool // the old room closed
		wantSeat    bool // bob keeps a seat there (a race that runs)
		wantHost    string
	}{
		{
			name: "host of an empty waiting room: it closes",
			setup: func(e *roomsEnv, old *fakeSink) *lobby.Room {
				r, _, err := e.one().Create(pl("bob"), old, classic())
				wantErr(e.t, "Create", err, nil)
				return r
			},
			sameSession: true, wantClosed: true,
		},
		{
			name: "host of a waiting room with others: the part passes",
			setup: func(e *roomsEnv, old *fakeSink) *lobby.Room {
				r, _, err := e.one().Create(pl("bob"), old, classic())
				wantErr(e.t, "Create", err, nil)
				e.join(r, "carol")
				return r
			},
			sameSession: true, wantHost: "id-carol",
		},
		{
			name: "member of a waiting room, another session: told its seat went",
			setup: func(e *roomsEnv, old *fakeSink) *lobby.Room {
				r, _ := e.create("carol", classic())
				_, err := e.one().Join(r, pl("bob"), old)
				wantErr(e.t, "Join", err, nil)
				return r
			},
			wantHost: "id-carol",
		},
		{
			name: "racer of a race that runs: the seat stays",
			setup: func(e *roomsEnv, old *fakeSink) *lobby.Room {
				r, _ := e.create("carol", classic())
				_, err := e.one().Join(r, pl("bob"), old)
				wantErr(e.t, "Join", err, nil)
				wantErr(e.t, "Start", startReady(r, "id-carol"), nil)
				e.clock.Advance(lobby.CountdownTime)
				return r
			},
			sameSession: true, wantSeat: true, wantHost: "id-carol",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.fork(t)
			old := newSink()
			oldRoom := tc.setup(e, old)
			target, _ := e.create("alice", classic())
			sink := newSink()
			if tc.sameSession {
				sink = old
			}
			if _, err := e.one().Join(target, pl("bob"), sink); err != nil {
				t.Fatal(err)
			}
			snap := oldRoom.Snapshot()
			if closed := snap.Phase == lobby.PhaseClosed; closed != tc.wantClosed {
				t.Fatalf("old room's phase %v, want closed %v", snap.Phase, tc.wantClosed)
			}
			if tc.wantClosed {
				if _, ok := e.one().Room(oldRoom.Code()); ok {
					t.Error("the closed room is still listed")
				}
				return
			}
			m, seated := snap.Member("id-bob")
			if seated != tc.wantSeat || m.Present {
				t.Errorf("bob in the old room: %+v, seated %v; want seated %v, not present", m, seated, tc.wantSeat)
			}
			if snap.Host != tc.wantHost {
				t.Errorf("old room's host %s, want %s", snap.Host, tc.wantHost)
			}
			if _, told := hasPost[lobby.SeatTakenOver](old); told == tc.sameSession {
				t.Errorf("old session told SeatTakenOver: %v, want %v", told, !tc.sameSession)
			}
			if m, ok := target.Snapshot().Member("id-bob"); !ok || !m.Present {
				t.Errorf("bob is not in the new room: %+v", m)
			}
		})
	}
}

// testQuickAndCreateLeaveTheOldRoom: quick match and a new room move the
// player too.
func testQuickAndCreateLeaveTheOldRoom(t *testing.T, e *roomsEnv) {
	rs := e.one()
	old, _ := e.create("carol", classic())
	s := e.join(old, "bob")
	pub := classic()
	pub.Public = true
	_, _, created, err := rs.QuickMatch(pl("bob"), s, pub)
	if err != nil || !created {
		t.Fatalf("QuickMatch: %v, created %v", err, created)
	}
	if _, ok := old.Snapshot().Member("id-bob"); ok {
		t.Error("bob is still in carol's room after quick match")
	}
	dave := newSink()
	e.join(old, "dave")
	if _, _, err := rs.QuickJoin(pl("dave"), dave, pub.Rules.ID()); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.Snapshot().Member("id-dave"); ok {
		t.Error("dave is still in carol's room after quick join")
	}
	erin := e.join(old, "erin")
	if _, _, err := rs.Create(pl("erin"), erin, classic()); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.Snapshot().Member("id-erin"); ok {
		t.Error("erin is still in carol's room after opening her own")
	}
}
