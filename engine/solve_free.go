package engine

import "math/bits"

// The free-stock relaxation: the same pyramid, with every remaining pile
// card available at all times. Every line of play under any stock rule
// (one or three piles, any passes, open or closed) is a line of the
// relaxation, which only drops the stock's order, so when the relaxation
// cannot be won neither can the game. It decides most lost deals at once
// whatever the stock rules, since most are lost for want of partners in
// the right places of the pyramid; the stock's order matters only for the
// rest. Pile cards of one rank are alike in the relaxation (each can pair
// with any available card of the partner rank, and the matching bound
// treats them alike), so a removal always takes the first remaining pile
// card of its rank.

// freeLost reports whether the relaxation from p cannot be won; ok is
// false when it searched more than limit positions or the context ended
// first, and then nothing is known. The table is its own; the positions
// it searches count in s.states.
func (s *solver) freeLost(p pos, limit int) (lost, ok bool) {
	f := freeSearch{s: s, limit: limit, table: newStateTable((s.nPyr+s.nStk+62)/63, limit)}
	win := f.search(p)
	s.states += f.states
	if f.cut {
		return false, false
	}
	return !win, true
}

// freeSearch is one search of the relaxation.
type freeSearch struct {
	s      *solver
	limit  int
	states int
	cut    bool
	table  stateTable // removed sets proved lost
}

// search reports whether the relaxation from p can be won.
func (f *freeSearch) search(p pos) bool {
	s := f.s
	if p.pyr == s.fullPyr {
		return s.freeRestOK(&p)
	}
	k := s.layerKey(&p)
	_, found, full := f.table.lower(&k, 0)
	switch {
	case found:
		return false
	case full || f.states >= f.limit || (f.states&4095 == 4095 && s.ctx.Err() != nil):
		f.cut = true
		return false
	}
	f.states++
	var buf [64]smove
	ms := s.freeMoves(&p, buf[:0])
	for i := range ms {
		c := p
		if !s.apply(&c, &ms[i]) {
			continue
		}
		if f.search(c) {
			return true
		}
		if f.cut {
			return false
		}
	}
	return false
}

// freeRestOK reports whether, the pyramid being cleared, the pile cards
// left can go too when the goal asks for it: Kings alone, the others in
// pairs of two pile cards where the rules allow them.
func (s *solver) freeRestOK(p *pos) bool {
	if !s.goalAll {
		return true
	}
	rem := s.fullStk &^ p.stk
	for lo := 1; lo <= 6; lo++ {
		a, b := bits.OnesCount64(rem&s.stkRank[lo]), bits.OnesCount64(rem&s.stkRank[13-lo])
		if a != b || (s.pyrPairs && a > 0) {
			return false
		}
	}
	return true
}

// freeMoves appends the relaxation's removals at p: a free pyramid King
// alone when there is one (removing it loses nothing), else the pairs of
// two pyramid cards and each free pyramid card with the first remaining
// pile card of the partner rank.
func (s *solver) freeMoves(p *pos, out []smove) []smove {
	if k := p.free & s.pyrRank[13]; k != 0 {
		x := bits.TrailingZeros64(k)
		return append(out, smove{kind: RemoveKing, a: int8(x), b: -1})
	}
	out = s.pyramidPairs(p, out)
	rem := s.fullStk &^ p.stk
	for f := p.free; f != 0; f &= f - 1 {
		x := bits.TrailingZeros64(f)
		if q := s.stkRank[13-s.rank[x]] & rem; q != 0 {
			out = append(out, smove{kind: RemovePair, a: int8(x), b: int8(s.nPyr + bits.TrailingZeros64(q))})
		}
	}
	return out
}
