package engine

import (
	"context"
	"math/bits"
)

// The solver works on its own compact position, pos, with tables built
// once per solve from the game (ranks, cover masks, pair classes), so its
// inner loop touches no Game, allocates nothing per position and finds
// moves with bit masks. Cards are named by deal slot as in Game: pyramid
// slots 0…nPyr-1, then the stock in dealt order; a stock card's stock index
// is its slot minus nPyr.

// pos is a solver position.
type pos struct {
	pyr  uint64 // removed pyramid slots
	stk  uint64 // removed stock cards, by stock index
	free uint64 // pyramid slots whose card is there and uncovered
	// pst is the set of stock cards removed when the pass began (three
	// piles only): the pass's sequence is the stock without them, and a
	// card's pile is its index in that sequence mod 3.
	pst  uint64
	pile [3]uint64 // three piles: the pass's cards by pile
	// b is the boundary between waste and stock: the stock index of the
	// stock's top card, nStk when the stock is empty. The remaining cards
	// before it are on the waste, the others in the stock.
	b    int32
	pass int32
}

// smove is a solver move: the engine move and the deal slots it removes.
type smove struct {
	kind   MoveKind
	a, b   int8  // deal slots removed, -1 for none
	pa, pb Place // where they are taken from (unused by macro moves)
}

// move returns the engine move.
func (m smove) move() Move {
	switch m.kind {
	case Draw:
		return DrawMove
	case Redeal:
		return RedealMove
	case RemoveKing:
		return KingMove(m.pa)
	}
	return PairMove(m.pa, m.pb)
}

// advanceMove returns the solver move of a draw or a redeal.
func advanceMove(kind MoveKind) smove {
	return smove{kind: kind, a: -1, b: -1, pa: NoPlace, pb: NoPlace}
}

// overlapPair is a pair the overlap rule may allow: slot s with its
// coverer c, when other (s's other coverer) is gone and c is free.
type overlapPair struct{ s, c, other int8 }

// solver is one search: the rules, the deal's tables, the transposition
// table and the current line of play.
type solver struct {
	ctx     context.Context
	budget  int
	states  int  // positions searched
	limit   int  // positions this run may reach
	cut     bool // the run was stopped: limit, context or table
	full    bool // the table is full
	shuffle bool // try moves in the order of rng (runs after the first)
	rng     splitMix64

	nPyr, nStk int
	draw       int
	passes     int
	open       bool
	pyrPairs   bool
	overlap    bool
	goalAll    bool
	macro      bool // unlimited passes with one waste pile
	segPst     bool // segment keys hold pst (three piles, several passes)

	rank     [maxCards]int8
	cover    [maxPyramid]uint64 // the slots covering each slot
	parents  [maxPyramid]uint64 // the slots each slot covers directly
	pyrRank  [14]uint64
	stkRank  [14]uint64
	fullPyr  uint64
	fullStk  uint64
	overlaps []overlapPair
	mates    [maxPyramid]uint64 // the pyramid slots each slot can ever pair with
	classes  [7]pairClass       // 1…6: ranks c and 13-c
	classStk [7]uint64          // 1…6: the stock cards of each class

	table stateTable
	path  []smove
	// optOneWord: the shortest-line search's keys fit one word (see
	// optKey), packed without a loop.
	optOneWord bool
	// optExpanded counts the positions the shortest-line search expanded.
	optExpanded int
	freeTop     uint64    // the pyramid slots nothing covers (see setFree)
	freeRows    []freeRow // the others, by row (see setFree)
}

// newSolver builds the tables for g's deal and rules.
func newSolver(ctx context.Context, g *Game, budget int) *solver {
	r := g.rules
	s := &solver{
		ctx: ctx, budget: budget, nPyr: g.nPyr, nStk: g.nAll - g.nPyr,
		draw: r.Draw, passes: r.Passes, open: r.StockOpen, pyrPairs: r.PyramidPairs,
		overlap: r.Cover == CoverOverlap, goalAll: r.Goal == GoalAll,
	}
	s.macro = s.passes == 0 && s.draw == 1
	s.segPst = s.draw == 3 && s.passes != 1
	s.fullPyr = 1<<s.nPyr - 1
	s.fullStk = 1<<s.nStk - 1
	for i := range g.nAll {
		s.rank[i] = int8(g.cards[i].Rank())
	}
	for i := range s.nPyr {
		s.pyrRank[s.rank[i]] |= 1 << i
	}
	for j := range s.nStk {
		s.stkRank[s.rank[s.nPyr+j]] |= 1 << j
	}
	for x := range s.nPyr {
		c := g.coverers[x]
		if c[0] < 0 {
			continue
		}
		s.cover[x] = 1<<c[0] | 1<<c[1]
		s.parents[c[0]] |= 1 << x
		s.parents[c[1]] |= 1 << x
		for k, cv := range c {
			if s.rank[x]+s.rank[cv] == 13 {
				s.overlaps = append(s.overlaps, overlapPair{s: int8(x), c: cv, other: c[1-k]})
			}
		}
	}
	s.buildClasses()
	s.buildFreeRows()
	for lo := 1; lo <= 6; lo++ {
		s.classStk[lo] = s.stkRank[lo] | s.stkRank[13-lo]
	}
	s.table = newStateTable((s.keyBits()+62)/63, budget)
	return s
}

// root returns the solver position of g's current state.
func (s *solver) root(g *Game) pos {
	var p pos
	for i := range s.nPyr {
		if g.removed.has(i) {
			p.pyr |= 1 << i
		}
	}
	for j := range s.nStk {
		if g.removed.has(s.nPyr + j) {
			p.stk |= 1 << j
		}
		if g.passStart.has(s.nPyr + j) {
			p.pst |= 1 << j
		}
	}
	for x := range s.nPyr {
		if p.pyr&(1<<x) == 0 && s.cover[x]&^p.pyr == 0 {
			p.free |= 1 << x
		}
	}
	p.b = int32(s.nStk)
	if t := g.stockTop(); t >= 0 {
		p.b = int32(int(g.seq[t]) - s.nPyr)
	}
	p.pass = int32(g.pass)
	if s.draw == 3 {
		s.setPiles(&p)
	}
	return p
}

// setPiles deals the pass's sequence (the stock without pst) onto the
// three piles.
func (s *solver) setPiles(p *pos) {
	p.pile = [3]uint64{}
	q := 0
	for j := range s.nStk {
		if p.pst&(1<<j) == 0 {
			p.pile[q] |= 1 << j
			q = (q + 1) % 3
		}
	}
}

// next returns the first remaining stock index at or after from, or nStk.
func (s *solver) next(stk uint64, from int) int32 {
	m := s.fullStk &^ stk &^ (1<<from - 1)
	if m == 0 {
		return int32(s.nStk)
	}
	return int32(bits.TrailingZeros64(m))
}

// won reports whether the goal is reached.
func (s *solver) won(p *pos) bool {
	return p.pyr == s.fullPyr && (!s.goalAll || p.stk == s.fullStk)
}

// wasteEmpty reports whether no remaining card lies before the boundary.
func (s *solver) wasteEmpty(p *pos) bool {
	return s.fullStk&(1<<p.b-1)&^p.stk == 0
}

// canRedeal reports whether p's stock is empty and a redeal is allowed.
func (s *solver) canRedeal(p *pos) bool {
	return int(p.b) == s.nStk && !s.wasteEmpty(p) && (s.passes == 0 || int(p.pass) < s.passes)
}

// removeCard removes the card at a deal slot from p, keeping free and the
// boundary up to date.
func (s *solver) removeCard(p *pos, slot int) {
	if slot < s.nPyr {
		bit := uint64(1) << slot
		p.pyr |= bit
		p.free &^= bit
		for q := s.parents[slot] &^ p.pyr; q != 0; q &= q - 1 {
			x := bits.TrailingZeros64(q)
			if s.cover[x]&^p.pyr == 0 {
				p.free |= 1 << x
			}
		}
		return
	}
	j := slot - s.nPyr
	p.stk |= 1 << j
	if int32(j) == p.b {
		p.b = s.next(p.stk, j+1)
	}
}

// apply makes m on p. It returns false when the result breaks the matching
// bound, so that the move need not be searched.
func (s *solver) apply(p *pos, m *smove) bool {
	switch m.kind {
	case Draw:
		if s.draw == 1 {
			p.b = s.next(p.stk, int(p.b)+1)
			return true
		}
		// Every card of the pass's sequence after the stock top is still
		// there (only the stock top can go from the stock), so the draw
		// deals the next three remaining cards and the fourth is the top.
		rest := s.fullStk &^ p.stk &^ (1<<p.b - 1)
		rest &= rest - 1
		rest &= rest - 1
		rest &= rest - 1
		p.b = int32(s.nStk)
		if rest != 0 {
			p.b = int32(bits.TrailingZeros64(rest))
		}
		return true
	case Redeal:
		p.pass++
		p.pst = p.stk
		p.b = s.next(p.stk, 0)
		if s.draw == 3 {
			s.setPiles(p)
		}
		return true
	case RemoveKing:
		s.removeCard(p, int(m.a))
		return true
	}
	s.removeCard(p, int(m.a))
	s.removeCard(p, int(m.b))
	lo := int(s.rank[m.a])
	return s.classOK(p, min(lo, 13-lo), 0)
}

// maxAvail is the most pile cards available at once: three pile tops and
// the stock top.
const maxAvail = 4

// removals appends the removals worth searching at p. When a King can be
// removed at once without losing a win (kingSafe), that removal is the
// only one and forced is true: nothing else, drawing included, needs
// searching from p. Removals of pyramid cards alone are listed only when
// first is set, at the first position of a walk: from a later position
// they lead to the same layer at a later position, which the walk from
// the first has covered.
func (s *solver) removals(p *pos, first bool, out []smove) (_ []smove, forced bool) {
	var pc [maxAvail]int8 // deal slots of the available pile cards
	var pp [maxAvail]Place
	n := 0
	below := uint64(1)<<p.b - 1
	if s.draw == 1 {
		if m := s.fullStk & below &^ p.stk; m != 0 {
			pc[n], pp[n] = int8(s.nPyr+63-bits.LeadingZeros64(m)), Waste
			n++
		}
	} else {
		for q := range 3 {
			if m := p.pile[q] & below &^ p.stk; m != 0 {
				pc[n], pp[n] = int8(s.nPyr+63-bits.LeadingZeros64(m)), Waste1+Place(q)
				n++
			}
		}
	}
	nWaste := n
	if s.open && int(p.b) < s.nStk {
		pc[n], pp[n] = int8(s.nPyr+int(p.b)), Stock
		n++
	}

	if k := p.free & s.pyrRank[13]; k != 0 {
		x := bits.TrailingZeros64(k)
		return append(out, smove{kind: RemoveKing, a: int8(x), b: -1, pa: Place(x), pb: NoPlace}), true
	}
	for i := range n {
		if s.rank[pc[i]] == 13 && s.kingSafe(p, i < nWaste) {
			return append(out, smove{kind: RemoveKing, a: pc[i], b: -1, pa: pp[i], pb: NoPlace}), true
		}
	}

	if first {
		out = s.pyramidPairs(p, out)
	}
	// A pile card with a pyramid card. With one waste pile the stock top
	// need not pair with the pyramid: drawing it first and pairing it from
	// the waste leads to the same position, which the walk reaches next.
	withPyr := n
	if s.draw == 1 {
		withPyr = nWaste
	}
	for i := range withPyr {
		for q := p.free & s.pyrRank[13-s.rank[pc[i]]]; q != 0; q &= q - 1 {
			y := bits.TrailingZeros64(q)
			out = append(out, smove{kind: RemovePair, a: int8(y), b: pc[i], pa: Place(y), pb: pp[i]})
		}
	}
	// Two pile cards, and the pile Kings that are not safe to remove at once.
	for i := range n {
		r := s.rank[pc[i]]
		if r == 13 {
			out = append(out, smove{kind: RemoveKing, a: pc[i], b: -1, pa: pp[i], pb: NoPlace})
			continue
		}
		if s.pyrPairs {
			continue
		}
		for j := i + 1; j < n; j++ {
			if r+s.rank[pc[j]] == 13 {
				out = append(out, smove{kind: RemovePair, a: pc[i], b: pc[j], pa: pp[i], pb: pp[j]})
			}
		}
	}
	return out, false
}

// pyramidPairs appends the pairs of two pyramid cards at p.
func (s *solver) pyramidPairs(p *pos, out []smove) []smove {
	for f := p.free; f != 0; f &= f - 1 {
		x := bits.TrailingZeros64(f)
		for q := p.free & s.pyrRank[13-s.rank[x]] &^ (1<<(x+1) - 1); q != 0; q &= q - 1 {
			y := bits.TrailingZeros64(q)
			out = append(out, smove{kind: RemovePair, a: int8(x), b: int8(y), pa: Place(x), pb: Place(y)})
		}
	}
	if s.overlap {
		for _, o := range s.overlaps {
			if p.pyr&(1<<o.s) == 0 && p.free&(1<<o.c) != 0 && p.pyr&(1<<o.other) != 0 {
				out = append(out, smove{kind: RemovePair, a: o.s, b: o.c, pa: Place(o.s), pb: Place(o.c)})
			}
		}
	}
	return out
}

// kingSafe reports whether an available pile King (the top of a waste pile
// when waste, else the stock top) can be removed at once without losing a
// win; a free pyramid King always can. A King pairs with nothing, so
// removing it loses no option as long as it changes nothing else: every
// line of play from the position with the King works without it, its
// draws and redeals included (a draw that would have turned the King over
// is skipped, a redeal that would have turned over only the King is a
// redeal saved). That holds with one waste pile. With three piles, a
// removed stock King changes which cards the later draws deal together,
// and any removed pile card changes the piles of every later pass, so
// there a waste King goes at once only in the last pass, and a stock King
// never.
func (s *solver) kingSafe(p *pos, waste bool) bool {
	if s.draw == 1 {
		return true
	}
	return waste && s.passes != 0 && int(p.pass) >= s.passes
}

// Table keys. A layer key is the set of removed cards; with three piles a
// segment key adds a flag, the pass's removed set pst (when the rules have
// more than one pass), the pass (when passes are limited) and a chain (see
// layer).
func (s *solver) keyBits() int {
	n := s.nPyr + s.nStk
	if s.draw == 3 {
		n += 1 + 2
		if s.segPst {
			n += s.nStk
		}
		if s.passes != 0 {
			n += 2
		}
	}
	return n
}

// keyWriter packs bit fields into a stateKey, 63 bits a word.
type keyWriter struct {
	k   stateKey
	off int
}

func (w *keyWriter) put(v uint64, width int) {
	for width > 0 {
		i, b := w.off/63, w.off%63
		n := min(width, 63-b)
		w.k[i] |= (v & (1<<n - 1)) << b
		v >>= n
		width -= n
		w.off += n
	}
}

// layerKey is the key of p's removed set.
func (s *solver) layerKey(p *pos) stateKey {
	if s.nPyr+s.nStk <= 63 { // one deck: one word
		return stateKey{p.pyr | p.stk<<s.nPyr}
	}
	var w keyWriter
	w.put(p.pyr, s.nPyr)
	w.put(p.stk, s.nStk)
	return w.k
}

// segmentKey is the key of p's pass segment and chain (three piles).
func (s *solver) segmentKey(p *pos, chain int) stateKey {
	var w keyWriter
	w.put(p.pyr, s.nPyr)
	w.put(p.stk, s.nStk)
	w.put(1, 1)
	w.put(uint64(chain), 2)
	if s.segPst {
		w.put(p.pst, s.nStk)
	}
	if s.passes != 0 {
		w.put(uint64(p.pass), 2)
	}
	return w.k
}
