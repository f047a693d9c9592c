package engine

import (
	"context"
	"testing"
)

// The brute force below is the referee for the solver: it shares nothing
// with it but the Game. It enumerates every state reachable from a game
// through Legal, Apply and Undo, tells states apart by the Game's own
// fields, and marks as winnable every state from which a won state can be
// reached, by a backward sweep over the reversed edges. That is exact
// whatever cycles the graph has.

// bruteState is a game's state as the brute force tells states apart.
type bruteState struct {
	removed, passStart cardSet
	ptr                uint8
	pass               int
}

func bruteKey(g *Game) bruteState {
	k := bruteState{removed: g.removed, passStart: g.passStart, ptr: g.ptr, pass: g.pass}
	if g.rules.Passes == 0 {
		k.pass = 0 // unlimited: the pass number changes nothing
	}
	return k
}

// bruteWinnable reports whether g's position can be won, and ok=false when
// more than limit states are reachable. g is left as it was.
func bruteWinnable(g *Game, limit int) (win bool, states int, ok bool) {
	index := map[bruteState]int32{}
	var won []bool
	var preds [][]int32
	var buf [64]Move
	var visit func() int32
	visit = func() int32 {
		k := bruteKey(g)
		if i, seen := index[k]; seen {
			return i
		}
		i := int32(len(won))
		index[k] = i
		won = append(won, g.won())
		preds = append(preds, nil)
		if len(won) > limit {
			return i
		}
		moves := append([]Move(nil), g.AppendLegal(buf[:0])...)
		for _, m := range moves {
			if err := g.Apply(m); err != nil {
				panic(err)
			}
			j := visit()
			if err := g.Undo(); err != nil {
				panic(err)
			}
			preds[j] = append(preds[j], i)
		}
		return i
	}
	visit()
	if len(won) > limit {
		return false, len(won), false
	}
	reach := make([]bool, len(won))
	var queue []int32
	for i, w := range won {
		if w {
			reach[i] = true
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, j := range preds[i] {
			if !reach[j] {
				reach[j] = true
				queue = append(queue, j)
			}
		}
	}
	return reach[0], len(won), true
}

// solveRulesFromBits maps 8 bits onto every combination of knobs.
func solveRulesFromBits(b uint8) Rules {
	return Rules{
		Decks:        1 + int(b&1),
		Passes:       int(b>>1) % 4,
		StockOpen:    b&8 != 0,
		PyramidPairs: b&16 != 0,
		Cover:        Cover(b >> 5 & 1),
		Draw:         1 + 2*int(b>>6&1),
		Goal:         Goal(b >> 7 & 1),
	}
}

// playedForward deals deal number seed under r and plays random moves,
// removals mostly, until at most keep pyramid cards are left or steps
// moves are made or none is legal.
func playedForward(t testing.TB, r Rules, seed uint64, keep, steps int) *Game {
	g, err := NewNumbered(r, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := splitMix64{s: seed ^ 0x5eed}
	for range steps {
		if g.nPyr-g.Removed() <= keep {
			break
		}
		moves := g.Legal()
		if len(moves) == 0 {
			break
		}
		var rem []Move
		for _, m := range moves {
			if m.Kind == RemoveKing || m.Kind == RemovePair {
				rem = append(rem, m)
			}
		}
		m := moves[rng.below(uint64(len(moves)))]
		if len(rem) > 0 && rng.below(8) != 0 {
			m = rem[rng.below(uint64(len(rem)))]
		}
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// checkAgainstBrute solves g and compares with the brute force; it
// reports whether the position was small enough to check.
func checkAgainstBrute(t *testing.T, g *Game, limit int) (checked, win bool) {
	t.Helper()
	want, n, ok := bruteWinnable(g, limit)
	if !ok {
		return false, false
	}
	sol := Solve(context.Background(), g, 1<<22)
	// A tiny first run makes the search restart many times, reusing the
	// table across runs.
	restarted := solve(context.Background(), g, 1<<22, 8)
	wantV := Unwinnable
	if want {
		wantV = Winnable
	}
	if sol.Verdict != wantV {
		t.Fatalf("%s, moves %v:\ngot %v want %v (brute force: %d states)\n%s", g.rules.ID(), Notations(g.Moves()), sol.Verdict, wantV, n, g)
	}
	if restarted.Verdict != wantV {
		t.Fatalf("%s, moves %v: with restarts got %v want %v (brute force: %d states)\n%s", g.rules.ID(), Notations(g.Moves()), restarted.Verdict, wantV, n, g)
	}
	if sol.Verdict == Winnable {
		checkWins(t, g, sol.Moves)
		checkWins(t, g, restarted.Moves)
	}
	return true, want
}

// checkWins replays moves on a copy of g and checks that they win.
func checkWins(t testing.TB, g *Game, moves []Move) {
	t.Helper()
	c := g.Clone()
	for i, m := range moves {
		if err := c.Apply(m); err != nil {
			t.Fatalf("%s: solution move %d (%s) of %v: %v\n%s", g.rules.ID(), i+1, m, Notations(moves), err, c)
		}
	}
	if c.Status() != Won {
		t.Fatalf("%s: solution %v ends %s, not won\n%s", g.rules.ID(), Notations(moves), c.Status(), c)
	}
}

// bruteCase builds test position i: every combination of knobs in turn,
// a deal played forward at random, so that the brute force can enumerate
// every state. Every other case has three piles and several passes, the
// rules with the subtlest pass structure.
func bruteCase(t testing.TB, i int) *Game {
	r := solveRulesFromBits(uint8(i))
	if i%2 == 1 {
		r.Draw = 3
		if r.Passes == 1 {
			r.Passes = 2
		}
	}
	return playedForward(t, r, uint64(i)*7919+3, 4+i%9, 40+i%50)
}

func TestSolveBruteForce(t *testing.T) {
	cases, limit := 600, 5_000
	if *longSolve {
		cases, limit = 5_000, 50_000
	}
	checked, wins := 0, 0
	for i := range cases {
		ok, win := checkAgainstBrute(t, bruteCase(t, i), limit)
		if ok {
			checked++
			if win {
				wins++
			}
		}
	}
	t.Logf("checked %d of %d positions against brute force, %d winnable", checked, cases, wins)
	if checked < cases/2 {
		t.Errorf("got %d positions small enough to check, want at least %d", checked, cases/2)
	}
	if wins < checked/10 || wins > checked*9/10 {
		t.Errorf("got %d winnable of %d checked: want a mix", wins, checked)
	}
}

// FuzzSolve compares the solver with the brute force on positions built
// from the fuzzer's numbers.
func FuzzSolve(f *testing.F) {
	f.Add(uint8(0), uint64(1), uint8(5), uint8(60))
	f.Add(uint8(77), uint64(42), uint8(8), uint8(30))
	f.Add(uint8(200), uint64(7), uint8(3), uint8(90))
	f.Fuzz(func(t *testing.T, knobs uint8, seed uint64, keep, steps uint8) {
		g := playedForward(t, solveRulesFromBits(knobs), seed, int(keep%12), int(steps))
		checkAgainstBrute(t, g, 20_000)
	})
}
