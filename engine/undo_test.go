package engine

import "testing"

// TestUndoPeeks: undo takes back a draw or a redeal only by peeking at the
// stock; races and the daily refuse exactly those.
func TestUndoPeeks(t *testing.T) {
	g, err := NewNumbered(Classic(), 42)
	if err != nil {
		t.Fatal(err)
	}
	if g.UndoPeeks() {
		t.Fatal("no move yet: UndoPeeks")
	}
	if err := g.Apply(Move{Kind: Draw}); err != nil {
		t.Fatal(err)
	}
	if !g.UndoPeeks() {
		t.Error("after a draw: want UndoPeeks")
	}
	for g.Status() == Playing {
		var next Move
		found := false
		for _, m := range g.Legal() {
			if m.Kind == RemovePair || m.Kind == RemoveKing {
				next, found = m, true
				break
			}
		}
		if !found {
			next = g.Legal()[0]
		}
		if err := g.Apply(next); err != nil {
			t.Fatal(err)
		}
		want := next.Kind == Draw || next.Kind == Redeal
		if got := g.UndoPeeks(); got != want {
			t.Fatalf("after %v: UndoPeeks %v, want %v", next, got, want)
		}
		if next.Kind == Redeal {
			return // a redeal seen: every kind checked
		}
	}
}
