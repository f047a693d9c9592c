package engine

// Hint returns the heuristic's best move and whether there is one: a King
// first (one in the pyramid before one on a pile), then the pair that frees
// the most pyramid cards (ties: more pyramid cards removed, then the lower
// row), otherwise a draw, otherwise a redeal. It shows a legal action, not a
// guaranteed solution; SolveHint knows better when it has the time.
func (g *Game) Hint() (Move, bool) {
	var buf [64]Move
	moves := g.AppendLegal(buf[:0])
	best, bestScore := Move{}, -1
	for _, m := range moves {
		score := 0
		switch m.Kind {
		case Draw:
			score = 1
		case Redeal:
			score = 0
		default:
			score = g.removalScore(m)
		}
		if score > bestScore {
			best, bestScore = m, score
		}
	}
	return best, bestScore >= 0
}

// removalScore ranks a King or pair removal for Hint; every removal
// outranks drawing (1) and redealing (0).
func (g *Game) removalScore(m Move) int {
	before := g.freeCount()
	gone, err := g.check(m)
	if err != nil {
		return -1
	}
	rec := g.do(m, gone)
	freed := g.freeCount() - before
	g.undo(&rec)
	pyramid := 0
	deepest := 0
	for _, p := range [2]Place{m.A, m.B} {
		if p.IsPyramid() {
			pyramid++
			r, _ := p.RowCol()
			deepest = max(deepest, maxRows-r) // prefer the higher (earlier blocked) card
		}
	}
	score := 10 + freed*100 + pyramid*10 + deepest
	if m.Kind == RemoveKing {
		score += 10000 + pyramid*1000
	}
	return score
}

// freeCount counts the free pyramid cards, counting removed ones too so
// that a removal never lowers it.
func (g *Game) freeCount() int {
	n := 0
	for s := range g.nPyr {
		if g.removed.has(s) || g.slotFree(s) {
			n++
		}
	}
	return n
}
