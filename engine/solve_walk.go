package engine

import "math/bits"

// The search is a depth-first search over layers. A layer is a set of
// removed cards; its positions differ only in where the stock stands (the
// boundary, the pass and, with three piles, the pass's piles), and moving
// between them takes only draws and redeals. Every removal leads to a
// bigger layer, so layers form an acyclic graph, and within a layer play
// can only walk forward along the stock. search walks a layer from the
// position it was entered at, trying every removal at every position, and
// the table remembers for each layer the earliest position it was walked
// from: every later position is lost (a win from it would be a win from
// the earlier one, which walked through it), so an entry at or after it is
// lost at once, and an earlier entry walks only up to it.
//
// Positions of a layer, in the order play reaches them:
//
//   - One waste pile, limited passes: the passes in order, in each the
//     boundary from the stock's first card to the empty stock; ordinal
//     pass·(nStk+1)+boundary.
//   - One waste pile, unlimited passes: drawing and redealing reach every
//     position from every other, so they are all one; macroSearch searches
//     the removed sets alone.
//   - Three piles: a draw deals three cards, so from the stock top with r
//     remaining cards before it play reaches the tops with r+3, r+6, … and
//     the empty stock: three chains per pass. While no stock card has gone
//     since the pass began (pst = stk) a pass starts from r = 0, so every
//     position lies on one chain, ordered by pass then boundary as with
//     one pile (with unlimited passes it is a cycle, walked once). After a
//     stock card goes, the rest of the pass is a segment keyed by the
//     pass's piles and the chain, ordered by boundary; its end redeals into
//     the layer's first kind of positions.
//
// A King that kingSafe lets go at once is the only move searched at its
// position, and it ends the walk: every later position is reached through
// it, and it is lost when the King's removal is. The bound on buried cards
// ends a walk too, since later positions only bury more. Removals of two
// pyramid cards are tried at the first position of a walk only (see
// removals). A state on the current path is never met again (removals only
// add cards, walks only go forward, the one cycle is walked once), so the
// table entry made on entering a layer holds as soon as the walk ends; a
// walk cut short by the budget takes its entry back (release), so that a
// later run (see Solve) never trusts a claim nobody proved.

// noStop is the stop of a layer walked from nowhere yet.
const noStop = 256

// search searches from p, a position just entered by a removal (or the
// root), and reports whether the goal can be reached; on a win s.path
// holds the moves from the root. It returns false with s.cut set when the
// budget or the context stops it.
func (s *solver) search(p pos) bool {
	if s.won(&p) {
		return true
	}
	base := len(s.path)
	if s.layer(&p) {
		return true
	}
	s.path = s.path[:base]
	return false
}

// layer walks p's layer from p.
func (s *solver) layer(p *pos) bool {
	var canon [maxStock + 1]uint8
	if s.draw == 3 && p.pst != p.stk {
		chain := bits.OnesCount64(s.fullStk&^p.stk&(1<<p.b-1)) % 3
		k := s.segmentKey(p, chain)
		if s.segPst {
			c := *p
			c.pst, c.stk = s.canonPass(p.pst, p.stk, &canon)
			k = s.segmentKey(&c, chain)
		} else {
			identity(&canon)
		}
		stop, prev, ok := s.enter(&k, canon[p.b])
		if !ok {
			return false
		}
		defer s.release(k, prev)
		for first := true; int(canon[p.b]) < stop; first = false {
			if win, forced := s.position(p, first); win || forced || s.cut {
				return win
			}
			if int(p.b) == s.nStk {
				break
			}
			s.advance(p, advanceMove(Draw))
		}
		if stop != noStop || !s.canRedeal(p) {
			return false // what follows was searched before, or nothing does
		}
		s.advance(p, advanceMove(Redeal))
	}
	// The layer's key and ordinals are those of its canonical stock (see
	// canonStock, canonPass).
	var k stateKey
	switch {
	case s.draw == 1:
		k = s.canonLayerKey(p, &canon)
	case s.segPst: // three piles, pst = stk
		c := *p
		c.pst, c.stk = s.canonPass(p.pst, p.stk, &canon)
		k = s.layerKey(&c)
	default:
		k = s.layerKey(p)
		identity(&canon)
	}
	if s.passes == 0 { // three piles: the stock cycles
		_, prev, ok := s.enter(&k, 0)
		if !ok {
			return false
		}
		defer s.release(k, prev)
		start := p.b
		for first := true; ; first = false {
			if win, forced := s.position(p, first); win || forced || s.cut {
				return win
			}
			switch {
			case int(p.b) < s.nStk:
				s.advance(p, advanceMove(Draw))
			case s.canRedeal(p):
				s.advance(p, advanceMove(Redeal))
			default:
				return false
			}
			if p.b == start {
				return false
			}
		}
	}
	stop, prev, ok := s.enter(&k, s.ordinal(p, &canon))
	if !ok {
		return false
	}
	defer s.release(k, prev)
	for first := true; int(s.ordinal(p, &canon)) < stop; first = false {
		if win, forced := s.position(p, first); win || forced || s.cut {
			return win
		}
		switch {
		case int(p.b) < s.nStk:
			s.advance(p, advanceMove(Draw))
		case s.canRedeal(p):
			s.advance(p, advanceMove(Redeal))
		default:
			return false
		}
	}
	return false
}

// ordinal orders the positions of a layer by pass, then boundary, the
// boundary as canon maps it (see canonLayerKey).
func (s *solver) ordinal(p *pos, canon *[maxStock + 1]uint8) uint8 {
	return uint8(int(p.pass)*(s.nStk+1) + int(canon[p.b]))
}

// canonStock maps a set of removed stock cards to the canonical one of
// its class: with one waste pile, play depends on the stock only through
// the ranks of its remaining cards in order (suits never matter), so two
// removed sets that leave the same sequence of ranks, with the boundary
// at the same place in it, are the same position. Where pile cards pair
// only with pyramid cards (pairs need one, or the stock is closed), a
// card whose partner rank is gone from the pyramid (dead, a King never)
// can never leave, whatever its rank: dead cards count as one rank, and
// which ranks are dead depends only on the pyramid, the same for the
// whole class. The canonical set leaves the sequence at the earliest
// stock indices that spell it (each card at the first index after the
// previous one that holds its rank, or any dead card for a dead one),
// which lies at or before each remaining card's own. canon, when not nil,
// receives for each remaining stock index its canonical index, and nStk
// for nStk.
func (s *solver) canonStock(pyr, stk uint64, canon *[maxStock + 1]uint8) uint64 {
	rest := s.fullStk &^ stk
	var dead uint64 // the stock cards whose rank is dead
	if s.pyrPairs || !s.open {
		for r := 1; r <= 12; r++ {
			if s.pyrRank[13-r]&^pyr == 0 {
				dead |= s.stkRank[r]
			}
		}
	}
	var out uint64
	from := uint64(0) // the indices still free to use: from on
	for r := rest; r != 0; r &= r - 1 {
		j := bits.TrailingZeros64(r)
		like := s.stkRank[s.rank[s.nPyr+j]]
		if dead&(1<<j) != 0 {
			like = dead
		}
		e := bits.TrailingZeros64(like &^ (1<<from - 1))
		out |= 1 << e
		from = uint64(e + 1)
		if canon != nil {
			canon[j] = uint8(e)
		}
	}
	if canon != nil {
		canon[s.nStk] = uint8(s.nStk)
	}
	return s.fullStk &^ out
}

// canonPass is canonStock for three piles (without dead cards), where a
// position's piles depend on the pass's sequence: the stock without pst,
// the cards removed when the pass began, in which the cards removed since
// (stk without pst) keep their places. Two positions whose sequences
// agree in the ranks of the remaining cards and in where the removed ones
// lie, the boundary at the same place, are the same position. The
// canonical sequence lies at the earliest indices that spell it, a
// removed card at the first index after the previous card's, whatever
// its rank. It returns the canonical pst and stk; canon receives each
// remaining index's canonical one, and nStk for nStk.
func (s *solver) canonPass(pst, stk uint64, canon *[maxStock + 1]uint8) (cpst, cstk uint64) {
	var seq, holes uint64
	from := uint64(0)
	for r := s.fullStk &^ pst; r != 0; r &= r - 1 {
		j := bits.TrailingZeros64(r)
		like := s.stkRank[s.rank[s.nPyr+j]]
		hole := stk&(1<<j) != 0
		if hole {
			like = s.fullStk
		}
		e := bits.TrailingZeros64(like &^ (1<<from - 1))
		seq |= 1 << e
		if hole {
			holes |= 1 << e
		}
		from = uint64(e + 1)
		canon[j] = uint8(e)
	}
	canon[s.nStk] = uint8(s.nStk)
	cpst = s.fullStk &^ seq
	return cpst, cpst | holes
}

// identity makes canon map every index to itself.
func identity(canon *[maxStock + 1]uint8) {
	for j := range canon {
		canon[j] = uint8(j)
	}
}

// canonPos replaces p's stock by its canonical one (see canonStock), the
// boundary with it: a position that plays exactly as p (one waste pile).
func (s *solver) canonPos(p *pos) {
	var canon [maxStock + 1]uint8
	p.stk = s.canonStock(p.pyr, p.stk, &canon)
	p.b = int32(canon[p.b])
}

// canonLayerKey is the layer key of p with its canonical stock (see
// canonStock), filling canon.
func (s *solver) canonLayerKey(p *pos, canon *[maxStock + 1]uint8) stateKey {
	c := *p
	c.stk = s.canonStock(p.pyr, p.stk, canon)
	return s.layerKey(&c)
}

// unwalked is the table value of a layer no finished walk has covered.
const unwalked = 255

// enter records in the table that a layer (or segment) is walked from the
// position of ordinal v. It returns the ordinal at which to stop, where an
// earlier walk began (noStop if none), the value to restore if this walk
// is cut short (see release), and false when the walk is not needed (an
// earlier walk began at or before v) or the table is full.
func (s *solver) enter(k *stateKey, v uint8) (stop int, prev uint8, ok bool) {
	old, found, full := s.table.lower(k, v)
	switch {
	case full:
		s.cut, s.full = true, true
		return 0, 0, false
	case !found || old == unwalked:
		return noStop, unwalked, true
	case old <= v:
		return 0, 0, false
	}
	return int(old), old, true
}

// release undoes enter when the walk was cut short: its claim that every
// later position is lost was never established, and a later run of the
// search (see Solve) must not rely on it.
func (s *solver) release(k stateKey, prev uint8) {
	if s.cut {
		s.table.set(&k, prev)
	}
}

// advance makes a draw or a redeal on p and adds it to the line.
func (s *solver) advance(p *pos, m smove) {
	s.apply(p, &m)
	s.path = append(s.path, m)
}

// tick counts a searched position and reports whether the search may go
// on: it stops when the run's share of the budget is spent or the context
// is done (checked every 4096 positions).
func (s *solver) tick() bool {
	if s.states >= s.limit || (s.states&4095 == 4095 && s.ctx.Err() != nil) {
		s.cut = true
		return false
	}
	s.states++
	return true
}

// position tries the removals at p (see removals for first). forced
// reports that no later position of the walk needs searching: a King was
// removed at once, or p is lost by the bound on buried cards, which later
// positions of the walk only make worse.
func (s *solver) position(p *pos, first bool) (win, forced bool) {
	if !s.tick() {
		return false, false
	}
	if s.passes == 0 || int(p.pass) < s.passes {
		// Not the last pass: no card is buried for good.
	} else if b := s.buried(p); b != 0 {
		for lo := 1; lo <= 6; lo++ {
			if b&s.classStk[lo] != 0 && !s.classOK(p, lo, b) {
				return false, true
			}
		}
	}
	var buf [64]smove
	ms, forced := s.removals(p, first, buf[:0])
	s.reorder(ms)
	for i := range ms {
		c := *p
		if !s.apply(&c, &ms[i]) {
			continue
		}
		s.path = append(s.path, ms[i])
		if s.search(c) {
			return true, forced
		}
		s.path = s.path[:len(s.path)-1]
		if s.cut {
			break
		}
	}
	return false, forced
}

// reorder orders moves in the runs after the first (see Solve), so that
// each run tries them in another order: by the pyramid cards a move takes
// and frees, the most first, with a random share in every score large
// enough to change the order often (see byFreed).
func (s *solver) reorder(ms []smove) {
	if !s.shuffle || len(ms) < 2 {
		return
	}
	var score [64]int
	for i, m := range ms {
		score[i] = s.freedScore(&m) + int(s.rng.below(orderNoise))
	}
	for i := 1; i < len(ms); i++ { // insertion sort: a few moves
		for j := i; j > 0 && score[j] > score[j-1]; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
			score[j], score[j-1] = score[j-1], score[j]
		}
	}
}

// orderNoise is the range of the random share of a move's score: about
// five times what taking one pyramid card is worth, so that the order is
// mostly random among moves of like worth and leans toward those that
// open the pyramid. On the hard double deals it finds wins in a few runs
// that uniformly random orders needed many for.
const orderNoise = 40

// freedScore is what a move is worth for the order: 4 for each pyramid
// card it takes and 8 for each card such a card covers (which its removal
// may free).
func (s *solver) freedScore(m *smove) int {
	sc := 0
	for _, c := range [2]int8{m.a, m.b} {
		if c >= 0 && int(c) < s.nPyr {
			sc += 4 + 8*bits.OnesCount64(s.parents[c])
		}
	}
	return sc
}

// macroMoves appends the removals worth searching from p in a game with
// unlimited passes and one waste pile, where every remaining stock card can
// be brought to the waste top, and, when the stock is open, two cards next
// to each other in the remaining stock can be the waste top and the stock
// top together. Kings go at once, as in removals. With a closed stock a
// pyramid card pairs with the first remaining stock card of the partner
// rank only.
func (s *solver) macroMoves(p *pos, out []smove) []smove {
	if k := p.free & s.pyrRank[13]; k != 0 {
		return append(out, smove{kind: RemoveKing, a: int8(bits.TrailingZeros64(k)), b: -1})
	}
	if k := s.stkRank[13] &^ p.stk; k != 0 {
		return append(out, smove{kind: RemoveKing, a: int8(s.nPyr + bits.TrailingZeros64(k)), b: -1})
	}
	for f := p.free; f != 0; f &= f - 1 {
		x := bits.TrailingZeros64(f)
		for q := p.free & s.pyrRank[13-s.rank[x]] &^ (1<<(x+1) - 1); q != 0; q &= q - 1 {
			out = append(out, smove{kind: RemovePair, a: int8(x), b: int8(bits.TrailingZeros64(q))})
		}
	}
	if s.overlap {
		for _, o := range s.overlaps {
			if p.pyr&(1<<o.s) == 0 && p.free&(1<<o.c) != 0 && p.pyr&(1<<o.other) != 0 {
				out = append(out, smove{kind: RemovePair, a: o.s, b: o.c})
			}
		}
	}
	for f := p.free; f != 0; f &= f - 1 {
		x := bits.TrailingZeros64(f)
		for q := s.stkRank[13-s.rank[x]] &^ p.stk; q != 0; q &= q - 1 {
			out = append(out, smove{kind: RemovePair, a: int8(x), b: int8(s.nPyr + bits.TrailingZeros64(q))})
			if !s.open {
				// A closed stock's cards of one rank are alike: any can be
				// brought to the waste top and none pairs with another
				// pile card, so which of them goes changes nothing.
				break
			}
		}
	}
	if s.open && !s.pyrPairs {
		rest := s.fullStk &^ p.stk
		for rest != 0 {
			j := bits.TrailingZeros64(rest)
			rest &= rest - 1
			if rest == 0 {
				break
			}
			k := bits.TrailingZeros64(rest)
			if s.rank[s.nPyr+j]+s.rank[s.nPyr+k] == 13 {
				out = append(out, smove{kind: RemovePair, a: int8(s.nPyr + j), b: int8(s.nPyr + k)})
			}
		}
	}
	return out
}

// macroSearch searches p's removed set (unlimited passes, one waste pile)
// and reports whether the goal can be reached; s.path holds the removals.
func (s *solver) macroSearch(p pos) bool {
	if s.won(&p) {
		return true
	}
	c := p
	c.stk = s.canonStock(p.pyr, p.stk, nil)
	k := s.layerKey(&c)
	_, prev, ok := s.enter(&k, 0)
	if !ok {
		return false
	}
	defer s.release(k, prev)
	if !s.tick() {
		return false
	}
	var buf [64]smove
	ms := s.macroMoves(&p, buf[:0])
	s.reorder(ms)
	for i := range ms {
		c := p
		if !s.apply(&c, &ms[i]) {
			continue
		}
		s.path = append(s.path, ms[i])
		if s.macroSearch(c) {
			return true
		}
		s.path = s.path[:len(s.path)-1]
		if s.cut {
			break
		}
	}
	return false
}

// realize turns macro removals into moves from p: before each removal of a
// stock card it draws (and redeals) until the card is the waste top, or the
// stock top when that is nearer and the stock is open.
func (s *solver) realize(p pos, path []smove) []Move {
	out := []Move{}
	for _, m := range path {
		a, b := int(m.a), int(m.b)
		pa, pb := Place(a), NoPlace
		if b >= 0 {
			pb = Place(b)
		}
		switch {
		case a >= s.nPyr && b >= s.nPyr: // neighbours in the remaining stock, a first
			out = s.navigate(&p, int32(b-s.nPyr), out)
			pa, pb = Waste, Stock
		case a >= s.nPyr || b >= s.nPyr:
			if a < s.nPyr {
				pa, pb = pb, pa
				a, b = b, a // a is the stock card
			}
			j := int32(a - s.nPyr)
			target, place := s.next(p.stk, int(j)+1), Waste
			if s.open && s.steps(&p, j) < s.steps(&p, target) {
				target, place = j, Stock
			}
			out = s.navigate(&p, target, out)
			pa = place
		}
		if m.kind == RemoveKing {
			out = append(out, KingMove(pa))
		} else {
			out = append(out, PairMove(pa, pb))
		}
		s.removeCard(&p, a)
		if b >= 0 {
			s.removeCard(&p, b)
		}
	}
	return out
}

// steps counts the draws and redeals that bring p's boundary to target (a
// remaining stock index, or nStk for the empty stock).
func (s *solver) steps(p *pos, target int32) int {
	rest := s.fullStk &^ p.stk
	between := func(from, to int32) int { // remaining cards in [from, to)
		return bits.OnesCount64(rest & (1<<to - 1) &^ (1<<from - 1))
	}
	if target >= p.b {
		return between(p.b, target)
	}
	return between(p.b, int32(s.nStk)) + 1 + between(0, target)
}

// navigate appends the draws and redeals that bring p's boundary to
// target, making them on p.
func (s *solver) navigate(p *pos, target int32, out []Move) []Move {
	for p.b != target {
		if int(p.b) < s.nStk {
			out = append(out, DrawMove)
			p.b = s.next(p.stk, int(p.b)+1)
		} else {
			out = append(out, RedealMove)
			p.pass++
			p.b = s.next(p.stk, 0)
		}
	}
	return out
}
