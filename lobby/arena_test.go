package lobby

import (
	"sync"
	"testing"
	"time"

	"pyramid/arena"
)

// countSink counts the ArenaChanged notices coalesced into it.
type countSink struct {
	mu      sync.Mutex
	changed int
}

func (s *countSink) Post(Event) bool { return true }

func (s *countSink) Coalesce(_ string, ev Event) {
	if _, ok := ev.(ArenaChanged); ok {
		s.mu.Lock()
		s.changed++
		s.mu.Unlock()
	}
}

func (s *countSink) told() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// TestArenaChangesTold: the first change of an arena is told at once;
// the changes that follow within ArenaTellEvery are told together, once,
// at its end; after a quiet spell a change is told at once again.
func TestArenaChangesTold(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, _ := syncRooms(t, clock)
	info := ArenaInfo{ID: 1, Name: "told", RulesID: "classic", Start: t0.Add(-time.Minute), End: t0.Add(time.Hour), GameTime: 4 * time.Minute}
	ann, bob, cat := &countSink{}, &countSink{}, &countSink{}
	join := func(id string, sink Sink) {
		t.Helper()
		if _, err := rs.JoinArena(info, Entrant{ID: id, Name: id}, sink, ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	join("ann", ann)
	if ann.told() != 1 {
		t.Fatalf("ann's join: told %d, want 1 (at once)", ann.told())
	}
	clock.Advance(100 * time.Millisecond)
	join("bob", bob)
	clock.Advance(100 * time.Millisecond)
	join("cat", cat)
	if ann.told() != 1 || bob.told() != 0 {
		t.Fatalf("two joins within %s: ann told %d, bob %d; want 1 and 0 until its end", ArenaTellEvery, ann.told(), bob.told())
	}
	clock.Advance(ArenaTellEvery)
	if ann.told() != 2 || bob.told() != 1 || cat.told() != 1 {
		t.Fatalf("at the spell's end: told ann %d, bob %d, cat %d; want 2, 1, 1", ann.told(), bob.told(), cat.told())
	}
	clock.Advance(time.Second)
	if err := rs.PauseArena(1, "bob", true); err != nil {
		t.Fatal(err)
	}
	if ann.told() != 3 || bob.told() != 2 {
		t.Fatalf("a pause after a quiet spell: told ann %d, bob %d; want 3 and 2 (at once)", ann.told(), bob.told())
	}
	if v, ok := rs.ArenaView(1, "bob", DefaultArenaTop); !ok || v.You.State != ArenaPaused || v.Players != 3 {
		t.Errorf("bob's view: %+v", v)
	}
}

// TestArenaRacersToldOfTheirOwnLine: a player racing in the arena hears
// of its changes only when their own line changed (the points in their
// race's header); the others hear of every change.
func TestArenaRacersToldOfTheirOwnLine(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	rs.SetHolder(false) // nobody paired: the states are the test's
	info := ArenaInfo{ID: 1, Name: "told", RulesID: "classic", Start: t0.Add(-time.Minute), End: t0.Add(time.Hour), GameTime: 4 * time.Minute}
	ann, bob := &countSink{}, &countSink{}
	for id, sink := range map[string]Sink{"ann": ann, "bob": bob} {
		if _, err := rs.JoinArena(info, Entrant{ID: id, Name: id}, sink, ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(ArenaTellEvery)
	rs.mu.Lock()
	rs.arenas[1].players["ann"].state = ArenaPlaying // in a race
	rs.mu.Unlock()
	annFrom, bobFrom := ann.told(), bob.told()
	change := func(what string, op RoomOp) {
		t.Helper()
		clock.Advance(time.Second)
		if err := l.log(op); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	change("cat joins", RoomOp{Kind: OpArenaJoin, Sid: "b/1", Inst: "b", Who: &Entrant{ID: "cat", Name: "cat"}, Arena: &info, At: clock.Now()})
	if ann.told() != annFrom || bob.told() != bobFrom+1 {
		t.Fatalf("cat's join: ann (racing) told %d more, bob %d more; want 0 and 1", ann.told()-annFrom, bob.told()-bobFrom)
	}
	change("ann scores", RoomOp{Kind: OpArenaScore, Arena: &ArenaInfo{ID: 1}, Lines: []ArenaStanding{{ID: "ann", Line: arena.Line{Points: 3, Games: 1}, Reached: clock.Now()}}})
	if ann.told() != annFrom+1 || bob.told() != bobFrom+2 {
		t.Fatalf("ann's points: ann told %d more, bob %d more; want 1 and 2", ann.told()-annFrom, bob.told()-bobFrom)
	}
	change("bob pauses", RoomOp{Kind: OpArenaPause, Arena: &ArenaInfo{ID: 1}, Target: "bob", Pause: true, At: clock.Now()})
	if ann.told() != annFrom+1 {
		t.Fatalf("bob's pause: ann (racing, her points told) told %d more, want 1", ann.told()-annFrom)
	}
	rs.mu.Lock()
	rs.arenas[1].players["ann"].state = ArenaFree // her race ended
	rs.mu.Unlock()
	change("bob resumes", RoomOp{Kind: OpArenaPause, Arena: &ArenaInfo{ID: 1}, Target: "bob", At: clock.Now()})
	if ann.told() != annFrom+2 {
		t.Fatalf("bob's return after ann's race: ann told %d more, want 2", ann.told()-annFrom)
	}
}
