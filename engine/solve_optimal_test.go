package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// bruteShortest is the referee for SolveOptimal: a plain breadth-first
// search through Legal and Apply on copies of the game, sharing nothing
// with the solver. It returns the fewest moves that win from g (-1 when
// nothing does) and ok=false when more than limit states are reachable.
func bruteShortest(g *Game, limit int) (dist int, ok bool) {
	if g.won() {
		return 0, true
	}
	seen := map[bruteState]bool{bruteKey(g): true}
	layer := []*Game{g.stateCopy()}
	var buf [64]Move
	for d := 1; len(layer) > 0; d++ {
		var next []*Game
		for _, h := range layer {
			for _, m := range h.AppendLegal(buf[:0]) {
				c := h.stateCopy()
				if err := c.Apply(m); err != nil {
					panic(err)
				}
				if c.won() {
					return d, true
				}
				k := bruteKey(c)
				if seen[k] {
					continue
				}
				seen[k] = true
				if len(seen) > limit {
					return 0, false
				}
				next = append(next, c)
			}
		}
		layer = next
	}
	return -1, true
}

// checkOptimal compares SolveOptimal with the breadth-first referee; it
// reports whether the position was small enough to check.
func checkOptimal(t *testing.T, g *Game, limit int) (checked, win bool) {
	t.Helper()
	want, ok := bruteShortest(g, limit)
	if !ok {
		return false, false
	}
	sol := SolveOptimal(context.Background(), g, 1<<22)
	switch {
	case want < 0:
		if sol.Verdict != Unwinnable {
			t.Fatalf("%s, moves %v: got %v want unwinnable\n%s", g.rules.ID(), Notations(g.Moves()), sol.Verdict, g)
		}
	case sol.Verdict != Winnable || !sol.Optimal:
		t.Fatalf("%s, moves %v: got %v optimal=%v, want a shortest line of %d\n%s", g.rules.ID(), Notations(g.Moves()), sol.Verdict, sol.Optimal, want, g)
	case len(sol.Moves) != want:
		t.Fatalf("%s, moves %v: got a line of %d %v, want %d\n%s", g.rules.ID(), Notations(g.Moves()), len(sol.Moves), Notations(sol.Moves), want, g)
	default:
		checkWins(t, g, sol.Moves)
	}
	return true, want >= 0
}

func TestSolveOptimalBruteForce(t *testing.T) {
	cases, limit := 600, 20_000
	if *longSolve {
		cases, limit = 5_000, 50_000
	}
	checked, wins := 0, 0
	perRules := map[string]int{}
	for i := range cases {
		g := bruteCase(t, i)
		ok, win := checkOptimal(t, g, limit)
		if ok {
			checked++
			perRules[fmt.Sprint(i%256)]++
			if win {
				wins++
			}
		}
	}
	t.Logf("checked %d of %d positions against breadth-first search, %d winnable", checked, cases, wins)
	if checked < cases/2 {
		t.Errorf("got %d positions small enough to check, want at least %d", checked, cases/2)
	}
	if wins < checked/10 || wins > checked*9/10 {
		t.Errorf("got %d winnable of %d checked: want a mix", wins, checked)
	}
}

func TestSolveOptimalMSCSample(t *testing.T) {
	deals := loadMSCLengths(t)
	var sample []mscLength
	for i := 0; i < len(deals); i += 50 {
		sample = append(sample, deals[i])
	}
	checkMSCLengths(t, sample)
}

func TestSolveOptimalMSCAll(t *testing.T) {
	if !*longSolve {
		t.Skip("run with -solver.long")
	}
	checkMSCLengths(t, loadMSCLengths(t))
}

// mscLength is a published deal with its published shortest length (0:
// not winnable).
type mscLength struct {
	mscDeal
	length int
}

func loadMSCLengths(t testing.TB) []mscLength {
	t.Helper()
	deals := loadMSC(t)
	out := make([]mscLength, len(deals))
	for i, d := range deals {
		out[i] = mscLength{mscDeal: d, length: d.length}
	}
	return out
}

// checkMSCLengths solves published deals for their shortest lines and
// compares every length with the published one.
func checkMSCLengths(t *testing.T, deals []mscLength) {
	t.Helper()
	r := MustRules("open-stock")
	start := time.Now()
	for _, d := range deals {
		g, err := NewGame(r, d.deal)
		if err != nil {
			t.Fatal(err)
		}
		sol := SolveOptimal(t.Context(), g, 0)
		switch {
		case d.length == 0 && sol.Verdict != Unwinnable:
			t.Errorf("published deal %d: got %v, want unwinnable", d.n, sol.Verdict)
		case d.length == 0:
		case sol.Verdict != Winnable || !sol.Optimal:
			t.Errorf("published deal %d: got %v optimal=%v, want a shortest line", d.n, sol.Verdict, sol.Optimal)
		case len(sol.Moves) != d.length:
			t.Errorf("published deal %d: got a shortest line of %d, published %d (%d states)", d.n, len(sol.Moves), d.length, sol.States)
		default:
			checkWins(t, g, sol.Moves)
		}
	}
	t.Logf("%d published deals in %v", len(deals), time.Since(start))
}

// TestOptBoundAdmissible checks the shortest-line search's bound against
// the breadth-first referee's distance on small positions of every knob:
// never above it, and never calling a winnable position lost; on those of
// two decks and one pile, which bruteCase does not deal, the shortest
// line too.
func TestOptBoundAdmissible(t *testing.T) {
	checked, double := 0, 0
	for i := range 1600 {
		g := bruteCase(t, i)
		if i >= 1200 {
			// Two decks, one waste pile (bruteCase deals them three):
			// the closed-stock bound with eight cards of a rank.
			r := solveRulesFromBits(uint8(i) | 1)
			r.Draw = 1
			g = playedForward(t, r, uint64(i)*7919+3, 2+i%5, 60+i%60)
		}
		want, ok := bruteShortest(g, 20_000)
		if !ok || want <= 0 {
			continue
		}
		s := newSolver(t.Context(), g, 1)
		p := s.root(g)
		if s.draw == 1 {
			s.canonPos(&p)
		}
		h, alive := s.optBound(&p)
		if !alive || h > want {
			t.Fatalf("%s, moves %v: bound %d (alive %v), shortest line %d\n%s", g.rules.ID(), Notations(g.Moves()), h, alive, want, g)
		}
		checked++
		if g.rules.Decks == 2 && g.rules.Draw == 1 {
			double++
			checkOptimal(t, g, 20_000)
		}
	}
	t.Logf("checked %d winnable positions, %d of two decks and one pile", checked, double)
	if checked < 200 || double < 20 {
		t.Errorf("checked %d winnable positions, %d of two decks and one pile: want at least 200 and 20", checked, double)
	}
}

// TestOptBoundAlongDoubleLines checks the bound along shortest lines of
// double deals, whose positions are too large for the referee: at every
// step it is at most the moves left.
func TestOptBoundAlongDoubleLines(t *testing.T) {
	r := MustRules("double")
	for _, n := range []uint64{7, 29, 33, 62} {
		g, _ := NewNumbered(r, n)
		sol := SolveOptimal(t.Context(), g, 1<<20)
		if !sol.Optimal {
			t.Fatalf("double %d: no shortest line within the budget", n)
		}
		s := newSolver(t.Context(), g, 1)
		c := g.stateCopy()
		for i, m := range sol.Moves {
			p := s.root(c)
			s.canonPos(&p)
			if h, alive := s.optBound(&p); !alive || h > len(sol.Moves)-i {
				t.Fatalf("double %d, move %d: bound %d (alive %v), %d moves left", n, i, h, alive, len(sol.Moves)-i)
			}
			if err := c.Apply(m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStockKingDominates checks, against the breadth-first referee, the
// reason the shortest-line search never draws over an open stock's King
// (see optMoves): on small positions of every knob with one waste pile and
// an open stock whose top is a King, the position after removing the King
// is never farther from a win than the one after drawing it.
func TestStockKingDominates(t *testing.T) {
	cases := 300
	if *longSolve {
		cases = 3000
	}
	checked := 0
	for i := range cases {
		r := solveRulesFromBits(uint8(i) | 8) // an open stock
		r.Draw = 1
		g := playedForward(t, r, uint64(i)*7919+5, 3+i%8, 30+i%60)
		rng := splitMix64{s: uint64(i) + 11}
		for step := 0; step < 60 && !g.won(); step++ {
			moves := g.Legal()
			if len(moves) == 0 {
				break
			}
			if slices.Contains(moves, KingMove(Stock)) && slices.Contains(moves, DrawMove) {
				removed, drawn := g.stateCopy(), g.stateCopy()
				if err := errors.Join(removed.Apply(KingMove(Stock)), drawn.Apply(DrawMove)); err != nil {
					t.Fatal(err)
				}
				dr, okR := bruteShortest(removed, 10_000)
				dd, okD := bruteShortest(drawn, 10_000)
				if okR && okD {
					checked++
					if dd >= 0 && (dr < 0 || dr > dd) {
						t.Fatalf("%s, moves %v: %d moves to win after removing the stock's King, %d after drawing it\n%s", r.ID(), Notations(g.Moves()), dr, dd, g)
					}
				}
			}
			if err := g.Apply(moves[rng.below(uint64(len(moves)))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("checked %d positions with a King on top of an open stock", checked)
	if checked < cases/10 {
		t.Errorf("checked %d positions, want at least %d", checked, cases/10)
	}
}

// FuzzSolveOptimal compares the shortest lines with the breadth-first
// referee on positions built from the fuzzer's numbers, as FuzzSolve does
// the verdicts.
func FuzzSolveOptimal(f *testing.F) {
	f.Add(uint8(8), uint64(1), uint8(5), uint8(60))
	f.Add(uint8(77), uint64(42), uint8(8), uint8(30))
	f.Add(uint8(200), uint64(7), uint8(3), uint8(90))
	f.Fuzz(func(t *testing.T, knobs uint8, seed uint64, keep, steps uint8) {
		g := playedForward(t, solveRulesFromBits(knobs), seed, int(keep%12), int(steps))
		checkOptimal(t, g, 20_000)
	})
}
