package lobby

import (
	"sync"
	"testing"
	"time"
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
