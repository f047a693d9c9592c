package engine

import (
	"context"
	"slices"
	"testing"
)

// drawOnly plays only draws and redeals from the start of deal n under r,
// until nothing but a removal is left: the win, if any, is lost on the way.
func drawOnly(t *testing.T, r Rules, n uint64) *Game {
	t.Helper()
	g, err := NewNumbered(r, n)
	if err != nil {
		t.Fatal(err)
	}
	for range 500 {
		switch {
		case g.Check(DrawMove) == nil:
			_ = g.Apply(DrawMove)
		case g.Check(RedealMove) == nil:
			_ = g.Apply(RedealMove)
		default:
			return g
		}
	}
	t.Fatal("drawing did not end")
	return nil
}

// randomLoss plays random legal moves from the start of deal n under r
// until the game ends, and returns the game when it ended lost.
func randomLoss(t *testing.T, r Rules, n uint64) (*Game, bool) {
	t.Helper()
	g, err := NewNumbered(r, n)
	if err != nil {
		t.Fatal(err)
	}
	rng := splitMix64{s: n}
	for g.Status() == Playing {
		ms := g.Legal()
		if err := g.Apply(ms[rng.below(uint64(len(ms)))]); err != nil {
			t.Fatal(err)
		}
	}
	return g, g.Status() == Lost
}

// prefix replays the first k moves of g on a new game.
func prefix(t *testing.T, g *Game, k int) *Game {
	t.Helper()
	p, err := NewGame(g.Rules(), g.Deal())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range g.Moves()[:k] {
		if err := p.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// checkLoss checks WhereLost's answer on g independently with Solve: the
// position before the move is winnable, the one after is not, the kept
// move keeps it winnable and the line wins.
func checkLoss(t *testing.T, g *Game, w WinLoss) {
	t.Helper()
	if !w.Lost {
		t.Fatalf("got no loss, want one: %+v", w)
	}
	moves := g.Moves()
	if w.Index < 0 || w.Index >= len(moves) || moves[w.Index] != w.Move {
		t.Fatalf("got move %d %s, not a move of the game %v", w.Index, w.Move, Notations(moves))
	}
	before := prefix(t, g, w.Index)
	if v := StillWinnable(t.Context(), before, 0); v != Winnable {
		t.Errorf("before move %d: got %v want winnable", w.Index, v)
	}
	after := prefix(t, g, w.Index+1)
	if v := StillWinnable(t.Context(), after, 0); v != Unwinnable {
		t.Errorf("after move %d (%s): got %v want unwinnable", w.Index, w.Move, v)
	}
	if w.Kept == w.Move || len(w.Line) == 0 || w.Line[0] != w.Kept {
		t.Errorf("kept %s with line %v, want a line starting with a move other than %s", w.Kept, Notations(w.Line), w.Move)
	}
	kept := before.Clone()
	if err := kept.Apply(w.Kept); err != nil {
		t.Fatalf("kept move %s: %v", w.Kept, err)
	}
	if v := StillWinnable(t.Context(), kept, 0); v != Winnable {
		t.Errorf("after the kept move %s: got %v want winnable", w.Kept, v)
	}
	checkWins(t, before, w.Line)
}

func TestWhereLost(t *testing.T) {
	tests := []struct {
		name    string
		game    func(t *testing.T) *Game
		verdict Verdict
		lost    bool
	}{
		{"classic deal 2, only drawing", func(t *testing.T) *Game { return drawOnly(t, Classic(), 2) }, Winnable, true},
		{"easy, only drawing", func(t *testing.T) *Game { return drawOnly(t, MustRules("easy"), firstWinnable(t, "easy")) }, Winnable, true},
		{"draw-three, only drawing", func(t *testing.T) *Game {
			return drawOnly(t, MustRules("draw-three"), firstWinnable(t, "draw-three"))
		}, Winnable, true},
		{"classic deal 4, unwinnable from the start", func(t *testing.T) *Game { return drawOnly(t, Classic(), 4) }, Unwinnable, false},
		{"a won game", wonGame, Winnable, false},
		{"a fresh game", func(t *testing.T) *Game { g, _ := NewNumbered(Classic(), 2); return g }, Winnable, false},
		{"still winnable after a draw", func(t *testing.T) *Game {
			g, _ := NewNumbered(Classic(), 2)
			_ = g.Apply(DrawMove)
			if StillWinnable(t.Context(), g, 0) != Winnable {
				t.Skip("deal 2 is lost by one draw")
			}
			return g
		}, Winnable, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.game(t)
			moves := g.Moves()
			w := WhereLost(t.Context(), g, 0)
			if w.Verdict != tt.verdict || w.Lost != tt.lost {
				t.Fatalf("got %v lost=%v, want %v lost=%v", w.Verdict, w.Lost, tt.verdict, tt.lost)
			}
			if !slices.Equal(g.Moves(), moves) {
				t.Errorf("WhereLost changed the game")
			}
			if w.States <= 0 && tt.lost {
				t.Errorf("got %d states, want the solves counted", w.States)
			}
			if tt.lost {
				checkLoss(t, g, w)
			}
		})
	}
}

// TestWhereLostRandom checks the answer on lost random games of winnable
// deals under several rule sets.
func TestWhereLostRandom(t *testing.T) {
	found := 0
	for _, spec := range []string{"classic", "open-stock", "relaxed", "draw-three", "double,passes=unlimited", "one-pass", "open-stock,cover=overlap,goal=all"} {
		r := MustRules(spec)
		for n := uint64(0); n < 40; n++ {
			if Solve(t.Context(), mustGame(t, r, n), 0).Verdict != Winnable {
				continue
			}
			g, lost := randomLoss(t, r, n)
			if !lost {
				continue
			}
			w := WhereLost(t.Context(), g, 0)
			if w.Verdict != Winnable {
				t.Fatalf("%s deal %d: got %v, want winnable", spec, n, w.Verdict)
			}
			checkLoss(t, g, w)
			found++
		}
	}
	if found < 20 {
		t.Errorf("got %d lost games to check, want at least 20", found)
	}
}

// firstWinnable is the first deal number winnable under spec.
func firstWinnable(t *testing.T, spec string) uint64 {
	t.Helper()
	n, _, err := NextWinnable(t.Context(), MustRules(spec), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustGame(t *testing.T, r Rules, n uint64) *Game {
	t.Helper()
	g, err := NewNumbered(r, n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestWhereLostUnknown(t *testing.T) {
	g := drawOnly(t, Classic(), 2)
	if w := WhereLost(t.Context(), g, 10); w.Verdict != Unknown || w.Lost || w.States > 10 {
		t.Errorf("budget 10: got %+v, want unknown within 10 states", w)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if w := WhereLost(ctx, g, 0); w.Verdict != Unknown || w.Lost {
		t.Errorf("cancelled: got %+v, want unknown", w)
	}
	// Double deal 1 is hard: its moves cannot all be judged on a small
	// budget.
	d := drawOnly(t, MustRules("double"), 1)
	if w := WhereLost(t.Context(), d, 5000); w.Verdict != Unknown {
		t.Errorf("double deal 1 on 5000 states: got %v, want unknown", w.Verdict)
	}
}
