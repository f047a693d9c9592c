package lobby

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
)

// countReader is a deterministic source of room codes: 0, 1, 2, … bytes.
type countReader struct{ n byte }

func (c *countReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.n
		c.n++
	}
	return len(p), nil
}

type env struct {
	t     *testing.T
	clock *FakeClock
	rooms *Rooms
	mu    sync.Mutex
	ended []RaceResult
}

func newEnv(t *testing.T, maxRooms int) *env {
	e := &env{t: t, clock: NewFakeClock(t0)}
	e.rooms = NewRooms(RoomsConfig{Clock: e.clock, MaxRooms: maxRooms, Rand: &countReader{},
		OnRaceEnd: func(res RaceResult) {
			// The hook runs with no lock held: it may look at the rooms.
			e.rooms.Public()
			if r, ok := e.rooms.Room(res.Code); !ok || r.Snapshot().Phase != PhaseResults {
				t.Errorf("race of %s ended, room not in results", res.Code)
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			e.ended = append(e.ended, res)
		}})
	return e
}

func (e *env) results() []RaceResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]RaceResult(nil), e.ended...)
}

func pl(name string) Entrant { return Entrant{ID: "id-" + name, Name: name} }

func classic() RoomConfig {
	return RoomConfig{Rules: engine.Classic(), Deal: 42, Verdict: engine.Winnable}
}

// create opens a room hosted by name.
func (e *env) create(name string, cfg RoomConfig) (*Room, *fakeSink) {
	e.t.Helper()
	s := newSink()
	r, _, err := e.rooms.Create(pl(name), s, cfg)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return r, s
}

func (e *env) join(r *Room, name string) *fakeSink {
	e.t.Helper()
	s := newSink()
	if _, err := r.Join(pl(name), s); err != nil {
		e.t.Fatalf("Join(%s): %v", name, err)
	}
	return s
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func report(t *testing.T, r *Room, name string, removed int, st RacerState) {
	t.Helper()
	wantErr(t, "Report "+name, r.Report("id-"+name, held(r, "id-"+name), Progress{Removed: removed, Moves: removed, Pass: 1, State: st}), nil)
}

// race makes a room of alice (host), bob and carol, started and past the
// countdown.
func (e *env) race(cfg RoomConfig) (*Room, map[string]*fakeSink) {
	e.t.Helper()
	r, a := e.create("alice", cfg)
	sinks := map[string]*fakeSink{"alice": a, "bob": e.join(r, "bob"), "carol": e.join(r, "carol")}
	wantErr(e.t, "Start", r.Start("id-alice"), nil)
	e.clock.Advance(CountdownTime)
	if p := r.Phase(); p != PhaseRacing {
		e.t.Fatalf("phase %v after the countdown", p)
	}
	return r, sinks
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

func TestRoomLifecycle(t *testing.T) {
	e := newEnv(t, 0)
	r, a := e.create("alice", classic())
	s := r.Snapshot()
	if s.Public || s.TimeLimit != DefaultTimeLimit || s.MaxPlayers != MaxRacers || s.Host != "id-alice" ||
		s.Phase != PhaseWaiting || s.Cards != 28 || s.Round != 1 {
		t.Fatalf("new room: %+v", s)
	}
	wantErr(t, "Start alone", r.Start("id-alice"), ErrTooFewRacers)
	b := e.join(r, "bob")
	c := e.join(r, "carol")
	wantErr(t, "Ready", r.SetReady("id-bob", true), nil)
	if s, _ := a.room(r.Code()); len(s.Members) != 3 || !s.Members[1].Ready || s.Members[0].Ready {
		t.Fatalf("alice sees %+v", s.Members)
	}
	wantErr(t, "Start by bob", r.Start("id-bob"), ErrNotHost)
	wantErr(t, "Start by a stranger", r.Start("id-zed"), ErrNotMember)
	wantErr(t, "Report early", r.Report("id-bob", held(r, "id-bob"), Progress{State: RacerPlaying}), ErrNotRacing)
	wantErr(t, "Start", r.Start("id-alice"), nil)
	wantErr(t, "Start twice", r.Start("id-alice"), ErrNotWaiting)
	wantErr(t, "Join mid-race", func() error { _, err := r.Join(pl("dave"), newSink()); return err }(), ErrRaceUnderway)

	// Everybody gets the same moment.
	for name, s := range map[string]*fakeSink{"alice": a, "bob": b, "carol": c} {
		ev, ok := hasPost[CountdownStarted](s)
		if !ok || !ev.StartsAt.Equal(t0.Add(CountdownTime)) || ev.Deal != 42 {
			t.Errorf("%s: countdown %+v, %v", name, ev, ok)
		}
	}
	e.clock.Advance(CountdownTime - time.Millisecond)
	if r.Phase() != PhaseCountdown {
		t.Fatalf("phase %v before the countdown ended", r.Phase())
	}
	sameRound(t, "in the countdown", r.Round(), r.Snapshot())
	e.clock.Advance(time.Millisecond)
	if ev, ok := hasPost[RaceStarted](b); !ok || !ev.Deadline.Equal(t0.Add(CountdownTime+DefaultTimeLimit)) {
		t.Fatalf("race started %+v, %v", ev, ok)
	}
	sameRound(t, "racing", r.Round(), r.Snapshot())
	if got := r.Round(); got.Phase != PhaseRacing || got.Round != 1 || got.Deal != 42 || !got.StartsAt.Equal(t0.Add(CountdownTime)) {
		t.Fatalf("racing: Round() = %+v", got)
	}

	e.clock.Advance(30 * time.Second)
	report(t, r, "bob", 2, RacerPlaying)
	if got, ok := c.racer(r.Code(), "id-bob"); !ok || got.Removed != 2 || got.LastRemoval != 30*time.Second || got.State != RacerPlaying {
		t.Errorf("carol sees bob as %+v, %v", got, ok)
	}
	e.clock.Advance(30 * time.Second)
	report(t, r, "alice", 28, RacerCleared)
	wantErr(t, "report after clearing", r.Report("id-alice", held(r, "id-alice"), Progress{Removed: 28, State: RacerCleared}), ErrRaceOver)
	e.clock.Advance(10 * time.Second)
	report(t, r, "bob", 20, RacerStuck)
	report(t, r, "carol", 22, RacerPlaying)
	if len(e.results()) != 0 {
		t.Fatal("race ended with carol playing")
	}
	report(t, r, "carol", 22, RacerStuck)

	res := e.results()
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	if got, want := placings(res[0].Placings), "1:alice:cleared 2:carol:stuck 3:bob:stuck"; got != want {
		t.Errorf("placings %s, want %s", got, want)
	}
	if p := res[0].Placings[0]; !p.Cleared || p.Time != 60*time.Second {
		t.Errorf("winner %+v", p)
	}
	if !res[0].Started.Equal(t0.Add(CountdownTime)) || !res[0].Ended.Equal(t0.Add(CountdownTime+70*time.Second)) ||
		res[0].Deal != 42 || res[0].RulesID != engine.Classic().ID() || res[0].Verdict != engine.Winnable {
		t.Errorf("result %+v", res[0])
	}
	if ev, ok := hasPost[RaceEnded](a); !ok || len(ev.Results) != 3 {
		t.Errorf("alice's RaceEnded %+v, %v", ev, ok)
	}
	s = r.Snapshot()
	if s.Phase != PhaseResults || len(s.Results) != 3 || s.Members[0].Place != 1 {
		t.Errorf("after the race: %+v", s)
	}
	// The deadline timer is gone: nothing ends twice.
	e.clock.Advance(DefaultTimeLimit)
	if len(e.results()) != 1 {
		t.Errorf("%d results after the deadline passed", len(e.results()))
	}

	// Rematch.
	wantErr(t, "Rematch by bob", r.Rematch("id-bob", 43, engine.Unknown, true), ErrNotHost)
	wantErr(t, "Rematch", r.Rematch("id-alice", 43, engine.Unknown, true), nil)
	s = r.Snapshot()
	if s.Phase != PhaseWaiting || s.Round != 2 || s.Deal != 43 || len(s.Results) != 0 || len(s.Members) != 3 ||
		s.Members[0].Removed != 0 || s.Members[0].State != RacerWaiting || !s.StartsAt.IsZero() {
		t.Errorf("after the rematch: %+v", s)
	}
	sameRound(t, "after the rematch", r.Round(), s)
	wantErr(t, "Rematch while waiting", r.Rematch("id-alice", 44, engine.Unknown, true), ErrNotOver)
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

func TestStartAtSharedMoment(t *testing.T) {
	e := newEnv(t, 0)
	r, a := e.create("alice", classic())
	b := e.join(r, "bob")
	at := t0.Add(5 * time.Second) // say, the database's now() + 5 s
	wantErr(t, "StartAt", r.StartAt("id-alice", at), nil)
	for _, s := range []*fakeSink{a, b} {
		if ev, _ := hasPost[CountdownStarted](s); !ev.StartsAt.Equal(at) {
			t.Errorf("StartsAt %v, want %v", ev.StartsAt, at)
		}
	}
	e.clock.Advance(4 * time.Second)
	if r.Phase() != PhaseCountdown {
		t.Fatalf("phase %v", r.Phase())
	}
	e.clock.Advance(time.Second)
	if r.Phase() != PhaseRacing {
		t.Fatalf("phase %v", r.Phase())
	}
}

func TestDeadline(t *testing.T) {
	e := newEnv(t, 0)
	cfg := classic()
	cfg.TimeLimit = 2 * time.Minute
	r, _ := e.race(cfg)
	e.clock.Advance(time.Minute)
	report(t, r, "bob", 10, RacerPlaying)
	report(t, r, "carol", 10, RacerPlaying)
	e.clock.Advance(10 * time.Second)
	report(t, r, "alice", 12, RacerPlaying)
	e.clock.Advance(50*time.Second - time.Millisecond)
	if len(e.results()) != 0 {
		t.Fatal("race ended before the deadline")
	}
	e.clock.Advance(time.Millisecond)
	res := e.results()
	if len(res) != 1 {
		t.Fatalf("%d results at the deadline", len(res))
	}
	if got, want := placings(res[0].Placings), "1:alice:playing 2:bob:playing 2:carol:playing"; got != want {
		t.Errorf("placings %s, want %s", got, want)
	}
	wantErr(t, "report after the deadline", r.Report("id-bob", held(r, "id-bob"), Progress{Removed: 11, State: RacerPlaying}), ErrNotRacing)
}

func TestLeaveAndRejoin(t *testing.T) {
	e := newEnv(t, 0)
	r, sinks := e.race(classic())
	e.clock.Advance(10 * time.Second)
	report(t, r, "bob", 6, RacerPlaying)
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	wantErr(t, "Leave twice", r.Leave("id-bob", held(r, "id-bob")), ErrNotMember)
	wantErr(t, "Report after leaving", r.Report("id-bob", held(r, "id-bob"), Progress{Removed: 8, State: RacerPlaying}), ErrNotMember)
	if got, _ := sinks["alice"].racer(r.Code(), "id-bob"); got.State != RacerLeft || got.Present {
		t.Errorf("alice sees bob as %+v", got)
	}
	// Back in the same seat with the same progress.
	nb := newSink()
	snap, err := r.Join(pl("bob"), nb)
	wantErr(t, "rejoin", err, nil)
	if m, ok := snap.Member("id-bob"); !ok || m.Removed != 6 || m.State != RacerPlaying || !m.Present || snap.Members[1].ID != "id-bob" {
		t.Errorf("bob back as %+v", snap.Members)
	}
	report(t, r, "bob", 8, RacerPlaying)

	// Bob leaves for good; the others finish; bob ranks as left.
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	report(t, r, "alice", 3, RacerStuck)
	report(t, r, "carol", 1, RacerStuck)
	res := e.results()
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	if got, want := placings(res[0].Placings), "1:alice:stuck 2:carol:stuck 3:bob:left"; got != want {
		t.Errorf("placings %s, want %s", got, want)
	}
	// Bob's seat went with the race.
	if s := r.Snapshot(); len(s.Members) != 2 {
		t.Errorf("members after the race: %+v", s.Members)
	}
}

func TestEverybodyLeavesEndsTheRace(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.race(classic())
	for _, n := range []string{"alice", "bob", "carol"} {
		wantErr(t, "Leave", r.Leave("id-"+n, held(r, "id-"+n)), nil)
	}
	if res := e.results(); len(res) != 1 || placings(res[0].Placings) != "1:alice:left 1:bob:left 1:carol:left" {
		t.Errorf("results %+v", res)
	}
	e.clock.Advance(EmptyRoomClose)
	if r.Phase() != PhaseClosed || e.rooms.Len() != 0 {
		t.Errorf("phase %v, %d rooms", r.Phase(), e.rooms.Len())
	}
}

func TestLeaveDuringCountdown(t *testing.T) {
	e := newEnv(t, 0)
	r, a := e.create("alice", classic())
	e.join(r, "bob")
	wantErr(t, "Start", r.Start("id-alice"), nil)
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	e.clock.Advance(CountdownTime)
	if r.Phase() != PhaseRacing {
		t.Fatalf("phase %v", r.Phase())
	}
	if m, _ := r.Snapshot().Member("id-bob"); m.State != RacerLeft || m.Present {
		t.Errorf("bob is %+v", m)
	}
	if s, _ := a.room(r.Code()); s.Phase != PhaseRacing {
		t.Errorf("alice sees phase %v", s.Phase)
	}
	report(t, r, "alice", 28, RacerCleared)
	if res := e.results(); len(res) != 1 || placings(res[0].Placings) != "1:alice:cleared 2:bob:left" {
		t.Errorf("results %+v", res)
	}
}

func TestTakeover(t *testing.T) {
	e := newEnv(t, 0)
	r, old := e.create("alice", classic())
	e.join(r, "bob")
	old.events()
	neu := newSink()
	_, err := r.Join(pl("alice"), neu)
	wantErr(t, "second session", err, nil)
	if _, ok := hasPost[SeatTakenOver](old); !ok {
		t.Error("the first session was not told")
	}
	// Joining again with the same session is no takeover.
	neu.events()
	if _, err := r.Join(pl("alice"), neu); err != nil {
		t.Fatal(err)
	}
	if _, ok := hasPost[SeatTakenOver](neu); ok {
		t.Error("same session told it was taken over")
	}
	old.events()
	wantErr(t, "Say", r.Say("id-bob", "hi"), nil)
	if len(old.events()) != 0 {
		t.Error("the old session still gets events")
	}
	if _, ok := hasPost[ChatLine](neu); !ok {
		t.Error("the new session gets no chat")
	}
	if s := r.Snapshot(); len(s.Members) != 2 || s.Host != "id-alice" {
		t.Errorf("after takeover: %+v", s.Members)
	}
}

func TestDropAfterRefusing(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.create("alice", classic())
	b := e.join(r, "bob")
	c := e.join(r, "carol")
	b.setRefuse(true)
	c.setRefuse(true)
	wantErr(t, "Say", r.Say("id-alice", "one"), nil)
	e.clock.Advance(2 * time.Second)
	c.setRefuse(false) // carol reads again
	e.clock.Advance(RoomDropAfter - 2*time.Second - time.Millisecond)
	if _, ok := r.Snapshot().Member("id-bob"); !ok {
		t.Fatal("bob dropped early")
	}
	e.clock.Advance(time.Millisecond)
	s := r.Snapshot()
	if _, ok := s.Member("id-bob"); ok {
		t.Error("bob, who refused for 5 s, is still in")
	}
	if _, ok := s.Member("id-carol"); !ok {
		t.Error("carol, who read again, was dropped")
	}
	if _, ok := hasPost[Missed](c); !ok {
		t.Error("carol was not told she missed events")
	}
	// Bob may come back.
	b.setRefuse(false)
	if _, err := r.Join(pl("bob"), b); err != nil {
		t.Errorf("bob back: %v", err)
	}
}

func TestDropDuringRaceKeepsSeat(t *testing.T) {
	e := newEnv(t, 0)
	r, sinks := e.race(classic())
	report(t, r, "bob", 4, RacerPlaying)
	sinks["bob"].setRefuse(true)
	wantErr(t, "Say", r.Say("id-alice", "hurry"), nil)
	e.clock.Advance(RoomDropAfter)
	m, ok := r.Snapshot().Member("id-bob")
	if !ok || m.Present || m.State != RacerLeft || m.Removed != 4 {
		t.Fatalf("bob after the drop: %+v, %v", m, ok)
	}
	sinks["bob"].setRefuse(false)
	snap, err := r.Join(pl("bob"), sinks["bob"])
	if m, _ := snap.Member("id-bob"); err != nil || m.State != RacerPlaying || m.Removed != 4 {
		t.Errorf("bob back: %+v, %v", m, err)
	}
}

func TestEmptyRoomCloses(t *testing.T) {
	e := newEnv(t, 0)
	r, a := e.create("alice", classic())
	spec := newSink()
	if _, err := r.Watch("id-zed", spec); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Leave", r.Leave("id-alice", held(r, "id-alice")), nil)
	e.clock.Advance(EmptyRoomClose / 2)
	// Coming back keeps it open.
	if _, err := r.Join(pl("alice"), a); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(EmptyRoomClose)
	if r.Phase() == PhaseClosed {
		t.Fatal("closed with alice in it")
	}
	wantErr(t, "Leave", r.Leave("id-alice", held(r, "id-alice")), nil)
	e.clock.Advance(EmptyRoomClose - time.Millisecond)
	if r.Phase() == PhaseClosed || e.rooms.Len() != 1 {
		t.Fatal("closed early")
	}
	e.clock.Advance(time.Millisecond)
	if r.Phase() != PhaseClosed || e.rooms.Len() != 0 {
		t.Fatalf("phase %v, %d rooms", r.Phase(), e.rooms.Len())
	}
	if ev, ok := hasPost[RoomClosed](spec); !ok || ev.Code != r.Code() {
		t.Errorf("the spectator was not told: %+v", ev)
	}
	if _, err := r.Join(pl("alice"), a); !errors.Is(err, ErrRoomClosed) {
		t.Errorf("Join a closed room: %v", err)
	}
	if _, err := e.rooms.Find("id-alice", r.Code()); !errors.Is(err, ErrNoRoom) {
		t.Errorf("Find a closed room: %v", err)
	}
	if e.clock.Pending() != 0 {
		t.Errorf("%d timers left", e.clock.Pending())
	}
}

func TestHostLeavesPassesHost(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.create("alice", classic())
	e.join(r, "bob")
	wantErr(t, "Leave", r.Leave("id-alice", held(r, "id-alice")), nil)
	if h := r.Host(); h != "id-bob" {
		t.Errorf("host %s, want id-bob", h)
	}
	// Alice hosts no room now, so she may open one.
	if _, _, err := e.rooms.Create(pl("alice"), newSink(), classic()); err != nil {
		t.Errorf("Create: %v", err)
	}
}

func TestRegistryLimits(t *testing.T) {
	e := newEnv(t, 2)
	r, _ := e.create("alice", classic())
	_, _, err := e.rooms.Create(pl("alice"), newSink(), classic())
	wantErr(t, "second room", err, ErrAlreadyHosting)
	e.create("bob", classic())
	_, _, err = e.rooms.Create(pl("carol"), newSink(), classic())
	wantErr(t, "third room", err, ErrTooManyRooms)
	bad := classic()
	bad.MaxPlayers = 9
	_, _, err = newEnv(t, 0).rooms.Create(pl("dave"), newSink(), bad)
	wantErr(t, "9 players", err, ErrBadRoomConfig)
	bad = classic()
	bad.TimeLimit = time.Second
	_, _, err = newEnv(t, 0).rooms.Create(pl("dave"), newSink(), bad)
	wantErr(t, "1 s", err, ErrBadRoomConfig)

	// A room of 2 is full with 2.
	cfg := classic()
	cfg.MaxPlayers = 2
	e2 := newEnv(t, 0)
	r2, _ := e2.create("alice", cfg)
	e2.join(r2, "bob")
	_, err = r2.Join(pl("carol"), newSink())
	wantErr(t, "third in a room of 2", err, ErrRoomFull)
	_ = r
}

func TestSpectators(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.create("alice", classic())
	e.join(r, "bob")
	var first *fakeSink
	for i := range MaxSpectators {
		s := newSink()
		if i == 0 {
			first = s
		}
		if _, err := r.Watch(fmt.Sprintf("viewer-%d", i), s); err != nil {
			t.Fatalf("spectator %d: %v", i, err)
		}
	}
	_, err := r.Watch("one-too-many", newSink())
	wantErr(t, "51st spectator", err, ErrTooManySpectators)
	// The same viewer again takes the view over and takes no new place.
	again := newSink()
	if _, err := r.Watch("viewer-0", again); err != nil {
		t.Fatal(err)
	}
	if _, ok := hasPost[SeatTakenOver](first); !ok {
		t.Error("first view not told")
	}
	if n := r.Snapshot().Spectators; n != MaxSpectators {
		t.Errorf("%d spectators", n)
	}
	wantErr(t, "spectator says", r.Say("viewer-0", "go bob"), ErrNotMember)
	wantErr(t, "Start", r.Start("id-alice"), nil)
	e.clock.Advance(CountdownTime)
	report(t, r, "bob", 2, RacerPlaying)
	if got, ok := again.racer(r.Code(), "id-bob"); !ok || got.Removed != 2 {
		t.Errorf("spectator sees bob as %+v", got)
	}
	report(t, r, "bob", 28, RacerCleared)
	report(t, r, "alice", 0, RacerStuck)
	if _, ok := hasPost[RaceEnded](again); !ok {
		t.Error("spectator missed the end")
	}
	wantErr(t, "Rematch", r.Rematch("id-alice", 7, engine.Unknown, true), nil)
	if n := r.Snapshot().Spectators; n != MaxSpectators {
		t.Errorf("%d spectators after the rematch", n)
	}
	wantErr(t, "Unwatch", r.Unwatch("viewer-0"), nil)
	wantErr(t, "Unwatch again", r.Unwatch("viewer-0"), ErrNotMember)
}

func TestReportChecks(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.race(classic())
	for _, p := range []Progress{
		{Removed: 29, State: RacerPlaying},
		{Removed: -1, State: RacerPlaying},
		{Removed: 27, State: RacerCleared},
		{Removed: 3, State: RacerLeft},
		{Removed: 3, Moves: -1, State: RacerPlaying},
	} {
		if err := r.Report("id-bob", held(r, "id-bob"), p); !errors.Is(err, ErrBadProgress) {
			t.Errorf("Report %+v: %v", p, err)
		}
	}
	wantErr(t, "stranger", r.Report("id-zed", held(r, "id-zed"), Progress{State: RacerPlaying}), ErrNotMember)
}

// TestLastRemovalWithUndo: an undo takes the time of the last removal back
// to when the racer first reached the count they are back to.
func TestLastRemovalWithUndo(t *testing.T) {
	e := newEnv(t, 0)
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
		report(t, r, "bob", st.removed, RacerPlaying)
		got, _ := sinks["carol"].racer(r.Code(), "id-bob")
		if got.LastRemoval != st.want {
			t.Errorf("step %d: last removal %v, want %v", i+1, got.LastRemoval, st.want)
		}
	}
}

func TestQuickMatch(t *testing.T) {
	e := newEnv(t, 0)
	// A private room and a public room of other rules are never matched.
	e.create("priv", classic())
	other := classic()
	other.Rules = engine.MustRules("double")
	other.Public = true
	e.create("dbl", other)

	_, _, err := e.rooms.QuickJoin(pl("alice"), newSink(), engine.Classic().ID())
	wantErr(t, "QuickJoin with no room", err, ErrNoRoom)
	r1, _, created, err := e.rooms.QuickMatch(pl("alice"), newSink(), classic())
	if err != nil || !created || !r1.Snapshot().Public || r1.Host() != "id-alice" {
		t.Fatalf("first quick match: %v, created %v", err, created)
	}
	r2, _, created, err := e.rooms.QuickMatch(pl("bob"), newSink(), classic())
	if err != nil || created || r2 != r1 {
		t.Fatalf("second quick match: %v, created %v, same room %v", err, created, r2 == r1)
	}
	if r, _, err := e.rooms.QuickJoin(pl("erin"), newSink(), engine.Classic().ID()); err != nil || r != r1 {
		t.Fatalf("QuickJoin: %v", err)
	}
	// A racing room is not matched either.
	wantErr(t, "Start", r1.Start("id-alice"), nil)
	r3, _, created, err := e.rooms.QuickMatch(pl("carol"), newSink(), classic())
	if err != nil || !created || r3 == r1 {
		t.Fatalf("third quick match: %v, created %v", err, created)
	}
	// The oldest waiting room comes first.
	r4, _, created, _ := e.rooms.QuickMatch(pl("dave"), newSink(), classic())
	if created || r4 != r3 {
		t.Errorf("dave not put with carol")
	}
	list := e.rooms.Public()
	if len(list) != 3 || list[0].RulesID != other.Rules.ID() {
		t.Fatalf("public rooms: %+v", list)
	}
	if b, err := json.Marshal(list[1]); err != nil || !strings.Contains(string(b), `"phase":"countdown"`) ||
		!strings.Contains(string(b), `"code":"`+r1.Code()+`"`) || !strings.Contains(string(b), `"players":3`) {
		t.Errorf("rooms --json line %s, %v", b, err)
	}
	if l := list[1]; l.Code != r1.Code() || l.Phase != PhaseCountdown || l.Players != 3 || l.Host != "alice" || l.TimeLimitS != 600 {
		t.Errorf("public room line %+v", l)
	}
	// The Lobby screen's list: the rooms that wait for players, oldest
	// first, the same lines.
	if w := e.rooms.Waiting(); len(w) != 2 || w[0] != list[0] || w[1] != list[2] {
		t.Errorf("waiting rooms %+v, want the first and third of %+v", w, list)
	}
}

func TestWrongCodesThrottled(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.create("alice", classic())
	if got, err := e.rooms.Find("id-bob", " "+r.Code()+" "); err != nil || got != r {
		t.Fatalf("Find: %v", err)
	}
	for i := range MaxWrongCodes {
		code := "XXXX"
		if i%2 == 1 {
			code = "nope"
		}
		if _, err := e.rooms.Find("id-bob", code); !errors.Is(err, ErrNoRoom) && !errors.Is(err, ErrBadCode) {
			t.Fatalf("wrong code %d: %v", i+1, err)
		}
	}
	_, err := e.rooms.Find("id-bob", r.Code())
	wantErr(t, "after 10 wrong codes", err, ErrThrottled)
	// Others are not throttled.
	if _, err := e.rooms.Find("id-carol", r.Code()); err != nil {
		t.Errorf("carol: %v", err)
	}
	e.clock.Advance(WrongCodePause)
	if _, err := e.rooms.Find("id-bob", r.Code()); err != nil {
		t.Errorf("after the pause: %v", err)
	}
	// Wrong codes spread out over more than a minute are fine.
	for range 3 * MaxWrongCodes {
		e.clock.Advance(WrongCodeWindow / (MaxWrongCodes - 2))
		if _, err := e.rooms.Find("id-dave", "XXXX"); errors.Is(err, ErrThrottled) {
			t.Fatal("throttled at 8 a minute")
		}
	}
}

func TestAdminClose(t *testing.T) {
	e := newEnv(t, 0)
	r, sinks := e.race(classic())
	wantErr(t, "Close", e.rooms.Close(r.Code(), "closed by an admin"), nil)
	if ev, ok := hasPost[RoomClosed](sinks["bob"]); !ok || ev.Reason != "closed by an admin" {
		t.Errorf("bob told %+v, %v", ev, ok)
	}
	if e.rooms.Len() != 0 || len(e.results()) != 0 {
		t.Errorf("%d rooms, %d results", e.rooms.Len(), len(e.results()))
	}
	wantErr(t, "Report", r.Report("id-bob", held(r, "id-bob"), Progress{State: RacerPlaying}), ErrNotMember)
	wantErr(t, "Close again", e.rooms.Close(r.Code(), "x"), ErrNoRoom)
	if e.clock.Pending() != 0 {
		t.Errorf("%d timers left", e.clock.Pending())
	}
}

// TestConcurrentRoom hammers one room from several goroutines, for the
// race detector.
func TestConcurrentRoom(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.create("p0", classic())
	for i := 1; i < MaxRacers; i++ {
		e.join(r, fmt.Sprintf("p%d", i))
	}
	wantErr(t, "Start", r.Start("id-p0"), nil)
	e.clock.Advance(CountdownTime)
	var wg sync.WaitGroup
	for i := range MaxRacers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("id-p%d", i)
			for n := 1; n <= 28; n++ {
				st := RacerPlaying
				if n == 28 {
					st = RacerCleared
				}
				if err := r.Report(id, held(r, id), Progress{Removed: n, Moves: n, State: st}); err != nil && !errors.Is(err, ErrNotRacing) {
					t.Error(err)
				}
				_ = r.Snapshot()
				_ = r.Say(id, "go")
			}
		}()
	}
	wg.Wait()
	if res := e.results(); len(res) != 1 || len(res[0].Placings) != MaxRacers {
		t.Errorf("results %+v", res)
	}
}

func TestSeatedAndKey(t *testing.T) {
	e := newEnv(t, 0)
	r, _ := e.race(classic())
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	if got, ok := e.rooms.Seated("id-bob"); !ok || got != r {
		t.Error("bob, who dropped out of the race, has no seat to come back to")
	}
	if _, ok := e.rooms.Seated("id-zed"); ok {
		t.Error("a stranger has a seat")
	}
	report(t, r, "alice", 28, RacerCleared)
	report(t, r, "carol", 2, RacerStuck)
	if _, ok := e.rooms.Seated("id-bob"); ok {
		t.Error("bob still seated after the race")
	}
	res := e.results()
	if k := res[0].Key("srv1"); k != fmt.Sprintf("srv1/%s/1/%d", r.Code(), t0.Add(CountdownTime).UnixMilli()) {
		t.Errorf("key %s", k)
	}
}

// BenchmarkReport is one racer's report in a full room of 8 racers and 50
// spectators: the fan-out each move costs.
func BenchmarkReport(b *testing.B) {
	clock := NewFakeClock(t0)
	rs := NewRooms(RoomsConfig{Clock: clock, Rand: &countReader{}})
	r, _, err := rs.Create(pl("p0"), newSink(), classic())
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < MaxRacers; i++ {
		if _, err := r.Join(pl(fmt.Sprint("p", i)), newSink()); err != nil {
			b.Fatal(err)
		}
	}
	for i := range MaxSpectators {
		if _, err := r.Watch(fmt.Sprint("v", i), newSink()); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Start("id-p0"); err != nil {
		b.Fatal(err)
	}
	clock.Advance(CountdownTime)
	from := held(r, "id-p1")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := r.Report("id-p1", from, Progress{Removed: i % 20, Moves: i, State: RacerPlaying}); err != nil {
			b.Fatal(err)
		}
	}
}
