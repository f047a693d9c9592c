package lobby

import (
	"sync"
	"testing"
	"time"

	"pyramid/arena"
)

// gateLog is a syncLog whose Do of an arena pairing with a player of
// held waits until release is closed, as a slow bus's round trip would.
type gateLog struct {
	*syncLog
	held    string
	release chan struct{}
}

func (l gateLog) Do(op RoomOp) error {
	if op.Kind == OpArenaPair {
		for _, id := range op.Players {
			if id == l.held {
				<-l.release
			}
		}
	}
	return l.syncLog.Do(op)
}

// pairedIn returns the room of the sink's last ArenaPaired, or "".
func pairedIn(s *fakeSink) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	code := ""
	for _, ev := range s.posts {
		if p, ok := ev.(ArenaPaired); ok {
			code = p.Code
		}
	}
	return code
}

// waitPaired waits until the sink was told of its pairing, and returns
// its room.
func waitPaired(t *testing.T, s *fakeSink, who string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if code := pairedIn(s); code != "" {
			return code
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%s never paired", who)
	return ""
}

// testArena is the arena of this file's tests, running from t0.
var testArena = ArenaInfo{ID: 1, Name: "pairing", RulesID: "classic", Start: t0.Add(-time.Minute), End: t0.Add(time.Hour), GameTime: 4 * time.Minute}

// TestArenaPairsWhileAPairingIsLogged: while the race of one group is
// still being logged, players who became free since are paired on their
// own time, not after it.
func TestArenaPairsWhileAPairingIsLogged(t *testing.T) {
	clock := NewFakeClock(t0)
	l := &syncLog{inst: "a", clock: clock, once: map[string]bool{}}
	gate := gateLog{syncLog: l, held: "ann", release: make(chan struct{})}
	rs, err := NewRooms(RoomsConfig{Instance: "a", Clock: clock, Logf: t.Logf}, gate)
	if err != nil {
		t.Fatal(err)
	}
	l.rs = rs
	rs.SetHolder(true)
	sinks := map[string]*fakeSink{}
	join := func(id string) {
		t.Helper()
		sinks[id] = newSink()
		if _, err := rs.JoinArena(testArena, Entrant{ID: id, Name: id}, sinks[id], ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	join("ann")
	join("bob")
	clock.Advance(arena.GatherTime)
	deadline := time.Now().Add(10 * time.Second)
	for !rs.Pairing() {
		if time.Now().After(deadline) {
			t.Fatal("ann and bob's pairing never started")
		}
		time.Sleep(time.Millisecond)
	}
	join("cat")
	join("dan")
	clock.Advance(arena.GatherTime)
	cat, dan := waitPaired(t, sinks["cat"], "cat"), waitPaired(t, sinks["dan"], "dan")
	if cat != dan {
		t.Fatalf("cat in %s, dan in %s", cat, dan)
	}
	if code := pairedIn(sinks["ann"]); code != "" {
		t.Fatalf("ann paired into %s while her race was held", code)
	}
	close(gate.release)
	if ann, bob := waitPaired(t, sinks["ann"], "ann"), waitPaired(t, sinks["bob"], "bob"); ann != bob || ann == cat {
		t.Fatalf("ann in %s, bob in %s, cat in %s", ann, bob, cat)
	}
	deadline = time.Now().Add(10 * time.Second)
	for rs.Pairing() {
		if time.Now().After(deadline) {
			t.Fatal("still pairing")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestArenaSeatTakenWithoutAnOp: the session of a paired racer that
// opens its race's screen (Join) finds its seat taken for it, and logs
// nothing; another session of the player takes the seat over with an op.
func TestArenaSeatTakenWithoutAnOp(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	ann, bob := newSink(), newSink()
	for id, s := range map[string]*fakeSink{"ann": ann, "bob": bob} {
		if _, err := rs.JoinArena(testArena, Entrant{ID: id, Name: id}, s, ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(arena.GatherTime)
	code := waitPaired(t, ann, "ann")
	deadline := time.Now().Add(10 * time.Second)
	for rs.Pairing() {
		if time.Now().After(deadline) {
			t.Fatal("still pairing")
		}
		time.Sleep(time.Millisecond)
	}
	l.mu.Lock()
	before := l.seq
	l.mu.Unlock()
	snap, err := rs.Join(rs.handle(code), Entrant{ID: "ann", Name: "ann"}, ann)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := snap.Member("ann"); !ok || !m.Present || snap.Phase != PhaseCountdown {
		t.Fatalf("ann's seat: %+v, phase %v", m, snap.Phase)
	}
	l.mu.Lock()
	after := l.seq
	l.mu.Unlock()
	if after != before {
		t.Fatalf("the seated racer's join logged %d ops, want none", after-before)
	}
	other := newSink()
	if _, err := rs.Join(rs.handle(code), Entrant{ID: "ann", Name: "ann"}, other); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	after = l.seq
	l.mu.Unlock()
	if after == before {
		t.Fatal("another session of ann took her seat without an op")
	}
	ann.mu.Lock()
	defer ann.mu.Unlock()
	taken := false
	for _, ev := range ann.posts {
		_, ok := ev.(SeatTakenOver)
		taken = taken || ok
	}
	if !taken {
		t.Error("ann's first session was not told its seat was taken over")
	}
}

// TestArenaViewsMadeOnceAreFresh: views asked at once while the rooms'
// lock is held after a change all show the change (the first makes the
// snapshot, the others wait for it, not for the lock).
func TestArenaViewsMadeOnceAreFresh(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	ids := []string{"ann", "bob", "cat"}
	for _, id := range ids {
		if _, err := rs.JoinArena(testArena, Entrant{ID: id, Name: id}, newSink(), ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := rs.ArenaView(1, "ann", DefaultArenaTop); v.You.Points != 0 {
		t.Fatalf("ann before: %+v", v.You)
	}
	l.apply.Lock() // the log's reader, folding the score
	rs.mu.Lock()
	rs.arenas[1].players["ann"].line = arena.Line{Points: 5, Games: 1}
	rs.arenas[1].order = nil
	rs.arenaChanged(rs.arenas[1])
	var wg sync.WaitGroup
	got := make([]ArenaView, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = rs.ArenaView(1, ids[i%len(ids)], DefaultArenaTop)
		}()
	}
	vs := rs.viewsOf(1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		vs.mu.Lock()
		making := vs.making != nil
		vs.mu.Unlock()
		if making {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no view is making the snapshot")
		}
		time.Sleep(time.Millisecond)
	}
	rs.mu.Unlock()
	l.apply.Unlock()
	wg.Wait()
	for i, v := range got {
		if len(v.Top) != 3 || v.Top[0].ID != "ann" || v.Top[0].Points != 5 {
			t.Fatalf("view %d: top %+v, want ann first with 5 points", i, v.Top)
		}
	}
}

// TestArenaEndsOnceItsRacesAreStored: an arena past its end whose last
// race is over does not end while the holder still stores that race
// (its scores are logged first), and ends once it stored it.
func TestArenaEndsOnceItsRacesAreStored(t *testing.T) {
	clock := NewFakeClock(t0)
	l := &syncLog{inst: "a", clock: clock, once: map[string]bool{}}
	storing, release := make(chan struct{}), make(chan struct{})
	rs, err := NewRooms(RoomsConfig{Instance: "a", Clock: clock, Logf: t.Logf, OnRaceEnd: func(RaceResult) ([]RatingChange, error) {
		close(storing)
		<-release
		return nil, nil
	}}, l)
	if err != nil {
		t.Fatal(err)
	}
	l.rs = rs
	rs.SetHolder(true)
	info := testArena
	info.End = t0.Add(5 * time.Minute)
	ann, bob := newSink(), newSink()
	for id, s := range map[string]*fakeSink{"ann": ann, "bob": bob} {
		if _, err := rs.JoinArena(info, Entrant{ID: id, Name: id}, s, ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(arena.GatherTime)
	code := waitPaired(t, ann, "ann")
	deadline := time.Now().Add(10 * time.Second)
	for rs.Pairing() {
		if time.Now().After(deadline) {
			t.Fatal("still pairing")
		}
		time.Sleep(time.Millisecond)
	}
	clock.Advance(5 * time.Minute) // past the arena's end: the race is cut at it
	if err := l.log(RoomOp{Kind: OpEnd, Code: code, Round: 1, At: clock.Now(), Results: []Placing{{ID: "ann", Place: 1}, {ID: "bob", Place: 2}}}); err != nil {
		t.Fatal(err)
	}
	<-storing
	rs.Duties()
	if v, _ := rs.ArenaView(1, "ann", DefaultArenaTop); v.Over {
		t.Fatal("the arena ended while its last race was being stored")
	}
	close(release)
	deadline = time.Now().Add(10 * time.Second)
	for {
		rs.Duties()
		if v, _ := rs.ArenaView(1, "ann", DefaultArenaTop); v.Over {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the arena never ended once its race was stored")
		}
		time.Sleep(time.Millisecond)
	}
}
