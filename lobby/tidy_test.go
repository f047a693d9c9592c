package lobby

import (
	"testing"
	"time"

	"pyramid/engine"
)

// tokens is the number of local session tokens the rooms keep.
func (rs *Rooms) tokens() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := 0
	rs.sessions.Range(func(_, _ any) bool { n++; return true })
	return n
}

// TestTokensForgottenWithinTidyEvery: the token of a session that left
// its last room is forgotten at once after a quiet spell, and within
// tidyEvery of the walk before otherwise: one walk for a burst of leaves,
// not one each.
func TestTokensForgottenWithinTidyEvery(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, _ := syncRooms(t, clock)
	open := func(id string) (*Room, Sink) {
		t.Helper()
		sink := newSink()
		h, _, err := rs.Create(Entrant{ID: id, Name: id}, sink, RoomConfig{Rules: engine.Classic(), Deal: 42})
		if err != nil {
			t.Fatal(err)
		}
		return h, sink
	}
	ann, annSink := open("ann")
	bob, bobSink := open("bob")
	cat, catSink := open("cat")
	clock.Advance(time.Minute) // a quiet spell
	if n := rs.tokens(); n != 3 {
		t.Fatalf("three hosts: %d tokens, want 3", n)
	}
	if err := ann.Leave("ann", annSink); err != nil {
		t.Fatal(err)
	}
	if n := rs.tokens(); n != 2 {
		t.Fatalf("ann left after a quiet spell: %d tokens, want 2 (hers forgotten at once)", n)
	}
	if err := bob.Leave("bob", bobSink); err != nil {
		t.Fatal(err)
	}
	clock.Advance(tidyEvery / 2)
	if err := cat.Leave("cat", catSink); err != nil {
		t.Fatal(err)
	}
	if n := rs.tokens(); n != 2 {
		t.Fatalf("bob and cat left within %s of ann: %d tokens, want 2 until then", tidyEvery, n)
	}
	clock.Advance(tidyEvery / 2)
	if n := rs.tokens(); n != 0 {
		t.Fatalf("%s after ann left: %d tokens, want 0", tidyEvery, n)
	}
}
