package engine

import "context"

// WinLoss says where a game lost its win: the answer of WhereLost.
type WinLoss struct {
	// Verdict is what the game's first position was: Winnable (Lost
	// then says whether the win was lost), Unwinnable (there was no win
	// to lose), or Unknown when the budget or the context ran out before
	// the answer was known.
	Verdict Verdict
	// Lost reports that the win was lost; the fields below are set only
	// then.
	Lost bool
	// Index is the 0-based index, in the game's moves, of the move after
	// which the deal could no longer be won: the position before it could
	// be won, the one after it could not.
	Index int
	// Move is that move.
	Move Move
	// Kept is a move from the position before Move that keeps the deal
	// winnable, and Line a winning line from that position starting with
	// Kept, to watch.
	Kept Move
	Line []Move
	// States is the number of positions searched, every solve counted.
	States int
}

// WhereLost finds the first of g's moves after which g's deal could no
// longer be won, and a move that would have kept it winnable. Positions
// along a line of play are winnable up to some move and not after it
// (nothing is won back), so a binary search over g's moves finds that
// move with a few solves: the first position, the last, then halving.
// The solves together search at most budget positions (zero or less means
// DefaultBudget); when that or ctx runs out first, the Verdict is Unknown.
// When g's last position can still be won (or is won), nothing was lost.
// g is not changed.
func WhereLost(ctx context.Context, g *Game, budget int) WinLoss {
	if budget <= 0 {
		budget = DefaultBudget
	}
	moves := g.Moves()
	var out WinLoss
	// solveAt solves the position after the first k moves.
	solveAt := func(k int) Solution {
		left := budget - out.States
		if left <= 0 || ctx.Err() != nil {
			return Solution{Verdict: Unknown}
		}
		p, err := NewGame(g.rules, g.deal)
		if err != nil { // cannot happen: g was made from them
			return Solution{Verdict: Unknown}
		}
		for _, m := range moves[:k] {
			if err := p.Apply(m); err != nil { // cannot happen: g made them
				return Solution{Verdict: Unknown}
			}
		}
		sol := Solve(ctx, p, left)
		out.States += sol.States
		return sol
	}
	first := solveAt(0)
	if out.Verdict = first.Verdict; first.Verdict != Winnable {
		return out
	}
	switch last := solveAt(len(moves)); last.Verdict {
	case Winnable:
		return out
	case Unknown:
		out.Verdict = Unknown
		return out
	}
	// The position after lo moves is winnable (line: its winning line),
	// the one after hi moves is not.
	lo, hi, line := 0, len(moves), first.Moves
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		sol := solveAt(mid)
		switch sol.Verdict {
		case Winnable:
			lo, line = mid, sol.Moves
		case Unwinnable:
			hi = mid
		default:
			out.Verdict = Unknown
			return out
		}
	}
	out.Lost, out.Index, out.Move = true, lo, moves[lo]
	out.Kept, out.Line = line[0], line
	return out
}
