package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Verdict is what the solver knows about a position.
type Verdict uint8

const (
	// Unknown: the budget or the context ran out before the search ended.
	Unknown Verdict = iota
	// Winnable: a winning line exists (Solution.Moves holds one).
	Winnable
	// Unwinnable: no line of play wins; the search covered them all.
	Unwinnable
)

// String is "unknown", "winnable" or "unwinnable".
func (v Verdict) String() string {
	switch v {
	case Winnable:
		return "winnable"
	case Unwinnable:
		return "unwinnable"
	}
	return "unknown"
}

// DefaultBudget is the solver budget used when a caller passes zero or
// less: the most positions one solve searches, a few seconds of work. It
// decides all 1,500 published deals of the tests and every one-deck deal
// met so far (the hardest needed 16 million). The table keeps at most one entry per position searched (in
// practice about one per ten), each taking at most 36 bytes with one deck
// and one waste pile and at most 100 with the widest keys (two decks,
// three piles), growth included, so memory is bounded by the budget: a
// server that runs many solves at once passes a budget sized to its memory
// and time instead.
const DefaultBudget = 32_000_000

// Solution is the result of a solve.
type Solution struct {
	// Verdict is what the search found.
	Verdict Verdict
	// Moves wins the game when applied in order from the position solved;
	// empty unless Winnable (and when the position is already won).
	Moves []Move
	// States is the number of positions searched.
	States int
	// Optimal reports that Moves is a shortest winning line: no line of
	// fewer moves (draws, redeals and removals each count one) wins. Only
	// SolveOptimal sets it.
	Optimal bool
}

// Solve searches every line of play from g's current position and reports
// whether the goal can still be reached, with a winning line when it can.
// It is exact under every rule set: Winnable comes with moves that win
// when replayed, Unwinnable is a proof that nothing does, and Unknown means
// the search stopped first, because it searched budget positions (zero or
// less means DefaultBudget) or because ctx was done. Memory grows with the
// positions searched and is bounded by the budget. g is not changed. Solve
// reads no clock: to time it, time the call.
func Solve(ctx context.Context, g *Game, budget int) Solution {
	return solve(ctx, g, budget, firstRun)
}

// solve is Solve with the first run's share of the budget as a parameter,
// so that tests can make every search restart many times.
func solve(ctx context.Context, g *Game, budget, first int) Solution {
	return solveWith(ctx, g, budget, first, true)
}

// solveWith is solve; relax turns on the relaxations tried when the first
// run does not end (a solve with fewer passes made by them has it off).
func solveWith(ctx context.Context, g *Game, budget, first int, relax bool) Solution {
	if budget <= 0 {
		budget = DefaultBudget
	}
	if g.won() {
		return Solution{Verdict: Winnable, Moves: []Move{}}
	}
	s := newSolver(ctx, g, budget)
	p := s.root(g)
	if !s.boundOK(&p, s.buried(&p)) {
		return Solution{Verdict: Unwinnable}
	}
	// The search runs several times with a growing share of the budget,
	// each run trying moves in another order: one order can sink a long
	// time into a hopeless line that another avoids. Every run is exact
	// when it ends uncut, and the table keeps what finished runs proved,
	// so a run repeats little of the work of those before it.
	nextTry := 0 // when to try fewer passes again
	for run := 0; ; run++ {
		s.limit = min(budget, s.states+first<<min(run, 40))
		s.cut, s.path = false, s.path[:0]
		s.shuffle, s.rng = run > 0, splitMix64{s: uint64(run)}
		var ok bool
		if s.macro {
			ok = s.macroSearch(p)
		} else {
			ok = s.search(p)
		}
		sol := Solution{States: s.states}
		switch {
		case ok && s.macro:
			sol.Verdict, sol.Moves = Winnable, s.realize(p, s.path)
		case ok:
			sol.Verdict, sol.Moves = Winnable, make([]Move, len(s.path))
			for i, m := range s.path {
				sol.Moves[i] = m.move()
			}
		case !s.cut:
			sol.Verdict = Unwinnable
		case s.full || s.states >= budget || ctx.Err() != nil:
			sol.Verdict = Unknown
		case run == 0 && !s.macro && relax:
			// The first run did not end: try the free-stock relaxation
			// (see freeLost) before searching on.
			lost, ok := s.freeLost(p, (budget-s.states)/4)
			if lost && ok {
				sol.Verdict, sol.States = Unwinnable, s.states
				break
			}
			fallthrough
		case relax && !s.macro && s.states >= nextTry:
			// Now and then, fewer passes (see fewerPasses) for a share
			// of what the search has spent so far, so that they cost at
			// most about as much again as the search.
			moves := s.fewerPasses(ctx, g, min(s.states, (budget-s.states)/2), first, nextTry > 0)
			nextTry = 2 * s.states
			if moves != nil {
				sol.Verdict, sol.Moves, sol.States = Winnable, moves, s.states
				break
			}
			continue
		default:
			continue
		}
		return sol
	}
}

// fewerPasses tries to win g's position with fewer passes than its rules
// allow (one pass, then two, …; with unlimited passes up to three): a line
// that wins with fewer passes wins with more, and the smaller searches
// often find one long before the whole search would. Each may search each
// positions; they count in s.states. With last only the most passes below
// the rules' are tried. Under the overlap rule the strict one is tried too,
// with every pass: it only takes pairs away, so a line that wins under it
// wins under overlap. It returns the line found, or nil.
func (s *solver) fewerPasses(ctx context.Context, g *Game, each, first int, last bool) []Move {
	if s.overlap && each >= first && ctx.Err() == nil {
		c := g.stateCopy()
		c.rules.Cover = CoverStrict
		sol := solveWith(ctx, c, each, first, false)
		s.states += sol.States
		if sol.Verdict == Winnable {
			return sol.Moves
		}
	}
	most := s.passes - 1
	if s.passes == 0 {
		most = 3
	}
	from := max(g.pass, 1)
	if last {
		from = max(from, most)
	}
	for k := from; k <= most; k++ {
		if each < first || ctx.Err() != nil {
			return nil
		}
		c := g.stateCopy()
		c.rules.Passes = k
		sol := solveWith(ctx, c, each, first, false)
		s.states += sol.States
		if sol.Verdict == Winnable {
			return sol.Moves
		}
	}
	return nil
}

// firstRun is the share of the budget of the search's first run; each
// later run may search twice as many positions as the one before.
const firstRun = 1 << 16

// SolveDeal solves a deal from its start under rules: whether it was
// winnable, and a winning line to watch.
func SolveDeal(ctx context.Context, r Rules, d Deal, budget int) (Solution, error) {
	g, err := NewGame(r, d)
	if err != nil {
		return Solution{}, err
	}
	return Solve(ctx, g, budget), nil
}

// StillWinnable reports whether g's position can still be won: Winnable,
// Unwinnable, or Unknown when budget positions (or ctx) did not suffice.
func StillWinnable(ctx context.Context, g *Game, budget int) Verdict {
	return Solve(ctx, g, budget).Verdict
}

// SolverHint is the answer of SolveHint.
type SolverHint struct {
	// Move is the move to show. OK is false when there is none: the game
	// is won, or no move is legal.
	Move Move
	OK   bool
	// Verdict says what Move is. Winnable: Move keeps the position
	// winnable (it is the first move of a winning line). Unwinnable: the
	// deal can no longer be won and Move is the heuristic Hint. Unknown:
	// the budget ran out first and Move is the heuristic Hint.
	Verdict Verdict
	// States is the number of positions searched.
	States int
	// Optimal reports that Moves is a shortest winning line: no line of
	// fewer moves (draws, redeals and removals each count one) wins. Only
	// SolveOptimal sets it.
	Optimal bool
}

// SolveHint is the solver-backed hint: a move that keeps the position
// winnable or, when none does or the budget runs out, the heuristic Hint
// with that fact.
func SolveHint(ctx context.Context, g *Game, budget int) SolverHint {
	sol := Solve(ctx, g, budget)
	h := SolverHint{Verdict: sol.Verdict, States: sol.States}
	if sol.Verdict == Winnable {
		if len(sol.Moves) > 0 {
			h.Move, h.OK = sol.Moves[0], true
		}
		return h
	}
	h.Move, h.OK = g.Hint()
	return h
}

// ErrNoWinnableDeal reports that NextWinnable searched its whole range
// without proving a deal winnable.
var ErrNoWinnableDeal = errors.New("no deal proved winnable")

// MaxDealScan is the most deal numbers NextWinnable tries.
const MaxDealScan = 100_000

// NextWinnable returns the first deal number n ≥ from (at most MaxDealScan
// numbers on) whose deal under r the solver proves winnable within budget
// positions, with its solution. It is deterministic: the same rules, start
// and budget always give the same deal, since the search never depends on
// time. It fails when ctx is done, r is invalid, or no deal in the range
// is proved winnable.
func NextWinnable(ctx context.Context, r Rules, from uint64, budget int) (uint64, Solution, error) {
	if err := r.Validate(); err != nil {
		return 0, Solution{}, err
	}
	n := from
	for range MaxDealScan {
		if err := ctx.Err(); err != nil {
			return 0, Solution{}, err
		}
		sol, err := SolveDeal(ctx, r, NewDeal(n, r.Decks), budget)
		if err != nil {
			return 0, Solution{}, err
		}
		if sol.Verdict == Winnable {
			return n, sol, nil
		}
		if err := ctx.Err(); err != nil { // the solve was cut short
			return 0, Solution{}, err
		}
		n++
		if n == 0 {
			break // wrapped around: nothing from here to the end
		}
	}
	return 0, Solution{}, fmt.Errorf("%w from deal %d under %s", ErrNoWinnableDeal, from, r.ID())
}

// DailyDeal is the daily deal's number for date's UTC day under r and a
// server's secret: the first deal at or after DailyNumber(secret, date)
// that the solver proves winnable, so the daily deal can always be won.
func DailyDeal(ctx context.Context, r Rules, secret []byte, date time.Time, budget int) (uint64, error) {
	n, _, err := NextWinnable(ctx, r, DailyNumber(secret, date), budget)
	return n, err
}
