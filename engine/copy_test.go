package engine

import (
	"slices"
	"testing"
)

// CopyTo gives an independent copy, in the memory of the game it is given:
// the copy equals the original (position, history, redo), later moves
// and undos of either leave the other alone, and a nil or self target
// behaves.
func TestCopyTo(t *testing.T) {
	g := newTestGame(t, "classic", blockedDeal, "d d d")
	if err := g.Undo(); err != nil {
		t.Fatal(err) // one move to redo
	}
	old := newTestGame(t, "classic", blockedDeal, "d d d d d d d d d")
	history := old.history
	c := g.CopyTo(old)
	if c != old {
		t.Fatal("CopyTo did not return the game it was given")
	}
	if &c.history[0] != &history[0] {
		t.Error("CopyTo did not reuse the target's history")
	}
	if c.String() != g.String() || !slices.Equal(c.Moves(), g.Moves()) || !slices.Equal(c.redo, g.redo) || c.StockCount() != g.StockCount() {
		t.Fatalf("copy differs:\n%s\nfrom\n%s", c, g)
	}
	before := g.String()
	drawAll(t, c)
	if g.String() != before || g.MovesMade() != 2 {
		t.Errorf("moves on the copy changed the original:\n%s", g)
	}
	copied, moves := c.String(), c.MovesMade()
	if err := g.Undo(); err != nil {
		t.Fatal(err)
	}
	if c.String() != copied || c.MovesMade() != moves {
		t.Errorf("an undo on the original changed the copy")
	}
	if got := g.CopyTo(nil); got == g || got.String() != g.String() {
		t.Error("CopyTo(nil) is not a fresh clone")
	}
	if got := g.CopyTo(g); got != g || g.MovesMade() != 1 {
		t.Error("CopyTo(itself) changed the game")
	}
}
