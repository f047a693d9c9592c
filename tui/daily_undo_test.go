package tui

import (
	"testing"

	"pyramid/engine"
)

// removalOf is a pair or King the game can remove now, or false.
func removalOf(g *engine.Game) (engine.Move, bool) {
	for _, m := range g.Legal() {
		if m.Kind == engine.RemovePair || m.Kind == engine.RemoveKing {
			return m, true
		}
	}
	return engine.Move{}, false
}

// TestDailyUndo: one undo of a draw took the player off today's board
// (any undo made the game assisted). In the daily undo now takes back a
// removal as in a race, which stays no assistance (the save counts no
// undo: the player stays on the board), and refuses to take back a draw,
// saying why; a game of the player's own still counts every undo.
func TestDailyUndo(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	g := h.game()
	for {
		if _, ok := removalOf(g); ok {
			break
		}
		h.keys("d")
		g = h.game()
	}
	m, _ := removalOf(g)
	before := g.MovesMade()
	h.typeText(":" + m.String())
	h.keys("enter")
	if got := h.game().MovesMade(); got != before+1 {
		t.Fatalf("the removal %s was not made: %d moves, want %d", m, got, before+1)
	}
	h.keys("u")
	if got := h.game().MovesMade(); got != before {
		t.Fatalf("undo of a removal in the daily: %d moves, want %d", got, before)
	}
	last := store.saves[len(store.saves)-1]
	if last.Undos != 0 || last.Hints != 0 || len(last.Record.Moves) != before {
		t.Errorf("after undoing a removal the daily is saved with %d undos, %d hints, %d moves; want none, none, %d (on the board)",
			last.Undos, last.Hints, len(last.Record.Moves), before)
	}
	h.keys("d")
	drawn := h.game().MovesMade()
	h.keys("u")
	h.wantScreen("undo takes back removals in the daily, never a draw or a redeal")
	if got := h.game().MovesMade(); got != drawn {
		t.Errorf("undo of a draw in the daily: %d moves, want the draw kept (%d)", got, drawn)
	}
	if last := store.saves[len(store.saves)-1]; last.Undos != 0 {
		t.Errorf("after a refused undo of a draw the daily is saved with %d undos, want 0", last.Undos)
	}

	// A game of the player's own: undo has no limit, and counts.
	own := &fakeGames{}
	h = newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: own})
	h.keys("d", "u")
	if got := h.game().MovesMade(); got != 0 {
		t.Fatalf("undo of a draw in a game of one's own: %d moves, want 0", got)
	}
	if last := own.saves[len(own.saves)-1]; last.Undos != 1 {
		t.Errorf("a game of one's own saved with %d undos after one, want 1", last.Undos)
	}
}
