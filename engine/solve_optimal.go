package engine

import (
	"context"
	"math/bits"
)

// The shortest line is found by A* over the solver's positions, every move
// (draw, redeal, removal) costing one step. Positions are stored once, as
// packed keys with their best known distance from the root and a parent
// link; the open list is a bucket queue by f = g + h, last in first out
// within a bucket so that deep positions are tried first. The bound h
// (optBound) never exceeds the true distance to a win, so the first win
// taken from the queue, or a win found at distance f while no position is
// queued below f, is a shortest one. Positions are reopened when a
// shorter way to them turns up, which keeps that true whatever the bound's
// consistency. The ordinary solve runs first: it proves most lost deals
// at once, and its winning line caps every distance worth searching.

// DefaultOptimalBudget is the optimal search's budget when a caller passes
// zero or less: the most positions it stores, at most about 40 bytes each
// with one deck and one pile (a record of 16 bytes and its share of the
// index; 8 more with two decks or three piles), so about 320 MB at most.
// The ordinary solve that runs first then has DefaultBudget.
const DefaultOptimalBudget = 8_000_000

// SolveOptimal is Solve that also proves its winning line shortest: when
// the position is winnable and the search ends within budget positions
// (zero or less means DefaultOptimalBudget), the Solution has Optimal set
// and Moves is a winning line of the fewest moves, draws, redeals and
// removals each counting one. When the shortest-line search runs out of
// budget or ctx is done first, the verdict and line of Solve are returned
// with Optimal false. The ordinary solve that runs first searches at most
// budget positions too (DefaultBudget when budget is zero or less). States
// counts the positions of both searches. g is not changed.
func SolveOptimal(ctx context.Context, g *Game, budget int) Solution {
	first := budget // the ordinary solve's: Solve's default for none
	if budget <= 0 {
		budget = DefaultOptimalBudget
	}
	sol := Solve(ctx, g, first)
	if sol.Verdict != Winnable {
		return sol
	}
	if len(sol.Moves) == 0 {
		sol.Optimal = true
		return sol
	}
	s := newSolver(ctx, g, 1)
	moves, states, ok := s.shortest(s.root(g), len(sol.Moves), budget)
	sol.States += states
	if !ok {
		return sol
	}
	sol.Optimal = true
	if moves != nil {
		sol.Moves = moves
	}
	return sol
}

// optNode is one stored position of the shortest-line search, packed in
// one word after its key (see optSearch.recs).
type optNode uint64

// The fields of an optNode.
const (
	nodeParent = 0  // bits 0–31: the index of the position it was reached from, + 1 (0 at the root)
	nodeG      = 32 // bits 32–47: moves from the root
	nodeH      = 48 // bits 48–59: optBound, or deadEnd
	// nodeClosed: expanded at distance g.
	nodeClosed = 1 << 60
	// nodeDrawn: the parent's move was a draw or a redeal. Those change
	// nothing in the pyramid, so a pair of two pyramid cards after one
	// could as well come before it: the same position at the same
	// distance, through the parent; it is not searched again.
	nodeDrawn = 1 << 61
)

func (n optNode) parent() int32 { return int32(uint32(n>>nodeParent)) - 1 }
func (n optNode) g() int        { return int(uint16(n >> nodeG)) }
func (n optNode) h() int        { return int(n >> nodeH & deadEnd) }

// makeNode packs a node's fields.
func makeNode(parent int32, g, h int, drawn bool) optNode {
	n := optNode(uint32(parent+1))<<nodeParent | optNode(g)<<nodeG | optNode(h)<<nodeH
	if drawn {
		n |= nodeDrawn
	}
	return n
}

// deadEnd is the bound of a stored position that can never be won.
const deadEnd = 1<<12 - 1

// maxOptG is the longest line the search stores: distances are 16 bits.
const maxOptG = 1<<16 - 1

// optSearch is the state of one shortest-line search. Positions are
// stored in the order they are found, each as its key's words and an
// optNode; the hash table holds, for each stored position, its index + 1
// (the low 32 bits) and the high 32 bits of its key's hash, which also
// give its slot at every size up to 2³² slots, so that a probe seldom
// reads a record that is not the one looked for and growing the table
// reads no record at all.
type optSearch struct {
	s      *solver
	words  int // words a key
	stride int // words a record: the key, then the optNode
	// recs holds the records in index order, recPage records a page:
	// pages are never copied or dropped as the search grows.
	recs   [][]uint64
	n      int // records stored
	slots  []uint64
	mask   uint64
	shift  uint      // 64 - log2(slots)
	bucket [][]int32 // open list by f
	// memo keeps the optCounts of recently met removed sets (goal the
	// pyramid: they depend on the removed pyramid cards alone), direct
	// mapped by a hash of the set: positions that differ only in their
	// stock share them.
	memo []countMemo
	// mem is the memory of an earlier search this one takes from and
	// gives back to (solve_optimal_memory.go); nil: none.
	mem *optMemory
}

// countMemo is an entry of optSearch.memo: the removed pyramid set with
// countMark set (0: empty), and its counts.
type countMemo struct {
	pyr uint64
	c   optCounts
}

// countMark marks a used countMemo (pyramid sets have at most 45 bits).
const countMark = 1 << 63

// memoSize is the entries of optSearch.memo.
const memoSize = 1 << 12

// counts fills c with p's optCounts, from the memo when it has them.
func (o *optSearch) counts(p *pos, c *optCounts) {
	s := o.s
	if s.goalAll {
		s.countRemovals(p, c)
		return
	}
	if o.memo == nil {
		o.memo = o.newMemo()
	}
	e := &o.memo[(p.pyr*0x9e3779b97f4a7c15)>>(64-12)]
	if e.pyr == p.pyr|countMark {
		*c = e.c
		return
	}
	s.countRemovals(p, c)
	e.pyr, e.c = p.pyr|countMark, *c
}

// recPage is the records a page of optSearch.recs holds.
const recPage = 1 << 12

// rec returns record i's words.
func (o *optSearch) rec(i int32) []uint64 {
	at := int(i%recPage) * o.stride
	return o.recs[i/recPage][at : at+o.stride]
}

// node returns the node of record i.
func (o *optSearch) node(i int32) optNode {
	return optNode(o.rec(i)[o.words])
}

// setNode replaces the node of record i.
func (o *optSearch) setNode(i int32, n optNode) {
	o.rec(i)[o.words] = uint64(n)
}

// shortest searches for a winning line from root shorter than upper moves.
// It returns that line, or nil when none is shorter (so a line of upper
// moves is shortest), with the positions stored; ok is false when budget
// positions or ctx stopped it first.
func (s *solver) shortest(root pos, upper, budget int) (_ []Move, states int, ok bool) {
	if upper > maxOptG {
		return nil, 0, false
	}
	words := (s.optKeyBits() + 63) / 64
	s.optOneWord = words == 1 && s.draw == 1
	o := &optSearch{s: s, words: words, stride: words + 1}
	o.takeMemory()
	defer o.release()
	o.alloc(1 << 12)
	if s.draw == 1 {
		s.canonPos(&root)
	}
	h, alive := s.optBound(&root)
	if !alive || h >= upper {
		return nil, 1, true
	}
	k := s.optKey(&root)
	hash, _, _ := o.find(&k)
	o.add(&k, hash, makeNode(-1, 0, h, false))
	o.push(h, 0)
	var buf [64]smove
	deadAlike := s.pyrPairs || !s.open // canonStock counts dead cards alike
	// f is the least f queued: every bucket below it is empty.
	for f, expanded := h, 0; f < upper; {
		if f >= len(o.bucket) || len(o.bucket[f]) == 0 {
			f++
			continue
		}
		b := o.bucket[f]
		i := b[len(b)-1]
		o.bucket[f] = b[:len(b)-1]
		n := o.node(i)
		if n&nodeClosed != 0 || n.g()+n.h() != f {
			continue // a stale entry: expanded already, or reached shorter since
		}
		o.setNode(i, n|nodeClosed)
		s.optExpanded++
		if expanded++; expanded&4095 == 0 && s.ctx.Err() != nil {
			return nil, o.n, false
		}
		p := s.optPos(o.key(i))
		g0 := n.g()
		counted := false // counts holds p's (see optCounts)
		var counts optCounts
		for _, m := range s.optMoves(&p, n&nodeDrawn == 0, buf[:0]) {
			c := p
			drawn := m.kind == Draw || m.kind == Redeal
			gc := g0 + 1
			if drawn {
				steps, alive := s.advanceRun(&c, m, nil)
				if !alive {
					continue
				}
				gc = g0 + steps
			} else if !s.apply(&c, &m) {
				continue
			}
			// p is canonical: so is a position with its stock (and, where
			// dead cards count, its pyramid), such as a draw's.
			switch {
			case s.draw != 1:
			case deadAlike && (c.stk != p.stk || c.pyr != p.pyr):
				s.canonPos(&c)
			case c.stk != p.stk:
				s.canonPosFrom(&c, bits.TrailingZeros64(c.stk^p.stk))
			}
			key := s.optKey(&c)
			hash, j, found := o.find(&key)
			var hc int
			if found {
				nj := o.node(j)
				if nj.g() <= gc || nj.h() == deadEnd {
					continue
				}
				hc = nj.h()
				o.setNode(j, makeNode(i, gc, hc, drawn))
			} else {
				if o.n >= budget {
					return nil, o.n, false
				}
				alive := true
				switch {
				case s.won(&c):
				case drawn:
					if !counted {
						o.counts(&p, &counts)
						counted = true
					}
					hc, alive = s.optBoundWith(&c, &counts)
					alive = alive && s.optAlive(&c)
				default:
					var cc optCounts
					o.counts(&c, &cc)
					hc, alive = s.optBoundWith(&c, &cc)
					alive = alive && s.optAlive(&c)
				}
				if !alive {
					o.add(&key, hash, makeNode(i, gc, deadEnd, false))
					continue
				}
				j = o.add(&key, hash, makeNode(i, gc, hc, drawn))
			}
			fc := gc + hc
			if fc >= upper {
				continue
			}
			if hc == 0 && fc <= f && s.won(&c) {
				// Every line is at least f long: nothing queued lies below.
				return o.line(j), o.n, true
			}
			o.push(fc, j)
			f = min(f, fc) // where the bound is not consistent
		}
	}
	return nil, o.n, true
}

// canonPosFrom is canonPos where no dead cards count alike, for a p whose
// remaining stock cards below index lo are where canonStock puts them
// (each at its own index), as they are after a removal at lo from a
// canonical position: canonStock places each card by the ones before it
// alone, so only the cards from lo on can move.
func (s *solver) canonPosFrom(p *pos, lo int) {
	rest := s.fullStk &^ p.stk
	out := rest & (1<<lo - 1)
	from := 0
	if out != 0 {
		from = 64 - bits.LeadingZeros64(out)
	}
	b := p.b
	for r := rest &^ out; r != 0; r &= r - 1 {
		j := bits.TrailingZeros64(r)
		e := bits.TrailingZeros64(s.stkRank[s.rank[s.nPyr+j]] &^ (1<<from - 1))
		out |= 1 << e
		from = e + 1
		if int32(j) == b {
			p.b = int32(e)
		}
	}
	p.stk = s.fullStk &^ out
}

// push queues node i at f.
func (o *optSearch) push(f int, i int32) {
	for len(o.bucket) <= f {
		o.bucket = append(o.bucket, nil)
	}
	o.bucket[f] = append(o.bucket[f], i)
}

func (o *optSearch) alloc(capacity int) {
	o.slots = o.newSlots(capacity)
	o.mask = uint64(capacity - 1)
	o.shift = uint(64 - bits.TrailingZeros(uint(capacity)))
}

// key returns record i's key words.
func (o *optSearch) key(i int32) []uint64 {
	return o.rec(i)[:o.words]
}

// find looks a key up. It returns the key's hash and, when the key is
// stored, its record's index and true.
func (o *optSearch) find(k *stateKey) (hash uint64, _ int32, _ bool) {
	hash = hashKey(k, o.words)
	tag := hash &^ (1<<32 - 1)
	w := o.words
	for i := hash >> o.shift; ; i = (i + 1) & o.mask {
		v := o.slots[i]
		if v == 0 {
			return hash, 0, false
		}
		if v&^(1<<32-1) != tag {
			continue
		}
		j := int32(uint32(v)) - 1
		r := o.rec(j)
		if r[0] == k[0] && (w < 2 || r[1] == k[1]) && (w < 3 || r[2] == k[2]) {
			return hash, j, true
		}
	}
}

// add stores a new record of key k (not stored, with the hash find gave)
// and node n, and returns its index.
func (o *optSearch) add(k *stateKey, hash uint64, n optNode) int32 {
	i := int32(o.n)
	if o.n%recPage == 0 {
		o.recs = append(o.recs, o.newPage())
	}
	r := o.rec(i)
	copy(r, k[:o.words])
	r[o.words] = uint64(n)
	o.n++
	at := hash >> o.shift
	for o.slots[at] != 0 {
		at = (at + 1) & o.mask
	}
	o.slots[at] = hash&^(1<<32-1) | uint64(i+1)
	if o.n*10 > len(o.slots)*7 { // at most 70 % full
		o.rehash()
	}
	return i
}

// rehash makes the hash table twice as large. A slot's hash bits give its
// place: no record is read.
func (o *optSearch) rehash() {
	old := o.slots
	o.alloc(len(old) * 2)
	for _, v := range old {
		if v == 0 {
			continue
		}
		at := v >> o.shift
		for o.slots[at] != 0 {
			at = (at + 1) & o.mask
		}
		o.slots[at] = v
	}
	if o.mem != nil {
		o.mem.putSlots(old)
	}
}

// line returns the moves from the root to node i: for each step it finds
// the move from the parent's position that leads to the child's.
func (o *optSearch) line(i int32) []Move {
	var chain []int32
	for j := i; j >= 0; j = o.node(j).parent() {
		chain = append(chain, j)
	}
	s := o.s
	out := make([]Move, 0, len(chain)-1)
	var buf [64]smove
	for c := len(chain) - 1; c > 0; c-- {
		p := s.optPos(o.key(chain[c]))
		want := o.key(chain[c-1])
		for _, m := range s.optMoves(&p, true, buf[:0]) {
			q := p
			if m.kind == Draw || m.kind == Redeal {
				s.advanceRun(&q, m, nil)
			} else {
				s.apply(&q, &m)
			}
			if s.draw == 1 {
				s.canonPos(&q)
			}
			k := s.optKey(&q)
			if k[0] == want[0] && (o.words < 2 || k[1] == want[1]) && (o.words < 3 || k[2] == want[2]) {
				if m.kind == Draw || m.kind == Redeal {
					q = p
					_, out = s.advanceRunMoves(&q, m, out)
				} else {
					out = append(out, m.move())
				}
				break
			}
		}
	}
	return out
}

// advanceRun makes the advance m (a draw or a redeal) on p and, with one
// waste pile, the advances after it as long as they reach positions where
// no removal takes a pile card: there the only move worth searching is the
// next advance, since a pair of two pyramid cards could as well have come
// before the first (see optNode.drawn). It returns the moves made and
// false when the run ends where nothing can be done.
func (s *solver) advanceRun(p *pos, m smove, _ []Move) (steps int, alive bool) {
	steps, _, alive = s.run(p, m, nil, false)
	return steps, alive
}

// advanceRunMoves is advanceRun that appends the moves it makes to out.
func (s *solver) advanceRunMoves(p *pos, m smove, out []Move) (int, []Move) {
	steps, out, _ := s.run(p, m, out, true)
	return steps, out
}

func (s *solver) run(p *pos, m smove, out []Move, record bool) (int, []Move, bool) {
	for steps := 1; ; steps++ {
		s.apply(p, &m)
		if record {
			out = append(out, m.move())
		}
		if s.draw != 1 || s.fresh(p) || steps > 2*(s.nStk+2) {
			return steps, out, steps <= 2*(s.nStk+2)
		}
		switch {
		case int(p.b) < s.nStk:
			m = advanceMove(Draw)
		case s.canRedeal(p):
			m = advanceMove(Redeal)
		default:
			return steps, out, false
		}
	}
}

// fresh reports whether a removal at p takes a pile card (one waste pile):
// the waste top or the open stock's top is a King or pairs with a free
// pyramid card or with the other.
func (s *solver) fresh(p *pos) bool {
	top := -1
	if m := s.fullStk & (1<<p.b - 1) &^ p.stk; m != 0 {
		top = s.nPyr + 63 - bits.LeadingZeros64(m)
	}
	st := -1
	if s.open && int(p.b) < s.nStk {
		st = s.nPyr + int(p.b)
	}
	for _, c := range [2]int{top, st} {
		if c < 0 {
			continue
		}
		r := s.rank[c]
		if r == 13 || p.free&s.pyrRank[13-r] != 0 {
			return true
		}
	}
	return top >= 0 && st >= 0 && !s.pyrPairs && s.rank[top]+s.rank[st] == 13
}

// optKeyBits is the width of the shortest-line search's keys: the removed
// cards, the boundary, the pass (when passes are limited) and, with three
// piles, the pass's removed set that fixes the piles.
func (s *solver) optKeyBits() int {
	n := s.nPyr + s.nStk + 6
	if s.passes != 0 {
		n += 2
	}
	if s.draw == 3 {
		n += s.nStk
	}
	return n
}

// optKey packs a position, 64 bits a word.
func (s *solver) optKey(p *pos) stateKey {
	if s.optOneWord {
		k := p.pyr | p.stk<<s.nPyr | uint64(p.b)<<(s.nPyr+s.nStk)
		if s.passes != 0 {
			k |= uint64(p.pass) << (s.nPyr + s.nStk + 6)
		}
		return stateKey{k}
	}
	var k stateKey
	off := 0
	put := func(v uint64, width int) {
		for width > 0 {
			i, b := off/64, off%64
			n := min(width, 64-b)
			k[i] |= (v & (1<<n - 1)) << b
			if n < 64 {
				v >>= n
			} else {
				v = 0
			}
			width -= n
			off += n
		}
	}
	put(p.pyr, s.nPyr)
	put(p.stk, s.nStk)
	put(uint64(p.b), 6)
	if s.passes != 0 {
		put(uint64(p.pass), 2)
	}
	if s.draw == 3 {
		put(p.pst, s.nStk)
	}
	return k
}

// optPos unpacks a key made by optKey.
func (s *solver) optPos(k []uint64) pos {
	if s.optOneWord {
		w := k[0]
		p := pos{pyr: w & s.fullPyr, stk: w >> s.nPyr & s.fullStk, b: int32(w >> (s.nPyr + s.nStk) & 63)}
		if s.passes != 0 {
			p.pass = int32(w >> (s.nPyr + s.nStk + 6) & 3)
		}
		s.setFree(&p)
		return p
	}
	off := 0
	get := func(width int) uint64 {
		var v uint64
		shift := 0
		for width > 0 {
			i, b := off/64, off%64
			n := min(width, 64-b)
			v |= (k[i] >> b & (1<<n - 1)) << shift
			shift += n
			width -= n
			off += n
		}
		return v
	}
	var p pos
	p.pyr = get(s.nPyr)
	p.stk = get(s.nStk)
	p.b = int32(get(6))
	if s.passes != 0 {
		p.pass = int32(get(2))
	}
	if s.draw == 3 {
		p.pst = get(s.nStk)
		s.setPiles(&p)
	}
	s.setFree(&p)
	return p
}

// setFree computes p.free from p.pyr: a slot is free when it is there and
// both slots covering it are gone, which the rows' shifts (see freeRows)
// test for a whole row at once.
func (s *solver) setFree(p *pos) {
	there := s.fullPyr &^ p.pyr
	free := there & s.freeTop
	for _, r := range s.freeRows {
		free |= there & r.mask & (p.pyr >> r.d) & (p.pyr >> (r.d + 1))
	}
	p.free = free
}

// freeRow is a set of pyramid slots x covered by slots x+d and x+d+1.
type freeRow struct {
	mask uint64
	d    uint
}

// buildFreeRows fills freeTop (the slots nothing covers) and freeRows.
// Pyramid slots are numbered row by row from the top, so a slot of row r
// (from 0) is covered by the slots r+1 and r+2 further on.
func (s *solver) buildFreeRows() {
	for x := range s.nPyr {
		c := s.cover[x]
		if c == 0 {
			s.freeTop |= 1 << x
			continue
		}
		d := uint(bits.TrailingZeros64(c) - x)
		if c != 3<<(uint(x)+d) {
			panic("engine: a pyramid slot is not covered by the two slots after it")
		}
		i := 0
		for i < len(s.freeRows) && s.freeRows[i].d != d {
			i++
		}
		if i == len(s.freeRows) {
			s.freeRows = append(s.freeRows, freeRow{d: d})
		}
		s.freeRows[i].mask |= 1 << x
	}
}

// optMoves appends every legal move at p, as Game.AppendLegal lists them,
// except that a free pyramid King is the only move when there is one:
// every winning line removes it, and removing it first loses nothing and
// lengthens nothing. Pairs of two pyramid cards are left out unless
// pyrPairs is set. With one waste pile and an open stock whose top is a
// King, the draw is left out: removing the King costs the same move and
// leaves a position at least as good, the same but for a King less on the
// waste (a line from the draw's position, without its moves of that King,
// wins from the removal's: with the King out of the way every other card
// is on top whenever it was, and the stock runs out no later).
func (s *solver) optMoves(p *pos, pyrPairs bool, out []smove) []smove {
	if k := p.free & s.pyrRank[13]; k != 0 {
		x := bits.TrailingZeros64(k)
		return append(out, smove{kind: RemoveKing, a: int8(x), b: -1, pa: Place(x), pb: NoPlace})
	}
	var pc [maxAvail]int8
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
	if s.open && int(p.b) < s.nStk {
		pc[n], pp[n] = int8(s.nPyr+int(p.b)), Stock
		n++
	}
	if pyrPairs {
		out = s.pyramidPairs(p, out)
	}
	for i := range n {
		r := s.rank[pc[i]]
		if r == 13 {
			out = append(out, smove{kind: RemoveKing, a: pc[i], b: -1, pa: pp[i], pb: NoPlace})
			continue
		}
		for q := p.free & s.pyrRank[13-r]; q != 0; q &= q - 1 {
			y := bits.TrailingZeros64(q)
			out = append(out, smove{kind: RemovePair, a: int8(y), b: pc[i], pa: Place(y), pb: pp[i]})
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
	switch {
	case int(p.b) < s.nStk:
		if s.open && s.draw == 1 && s.rank[s.nPyr+int(p.b)] == 13 {
			break // see above
		}
		out = append(out, advanceMove(Draw))
	case s.canRedeal(p):
		out = append(out, advanceMove(Redeal))
	}
	return out
}

// undiggable returns, with a closed stock and one waste pile, the waste
// cards that cannot be taken in this pass (pyr: the removed pyramid
// slots). Only the waste top is available and no two pile cards pair, so
// before a waste card is taken every card above it leaves, a King alone
// and any other with a pyramid card of the partner rank, a distinct one
// each: when the cards of some rank above a card outnumber the pyramid
// cards left of its partner rank (none left: a dead card), the card is
// out of reach until a redeal, and so is every card under it.
func (s *solver) undiggable(pyr, waste uint64) uint64 {
	var left [13]int8 // partners left in the pyramid of each rank 1…12
	for r := 1; r <= 12; r++ {
		left[r] = int8(bits.OnesCount64(s.pyrRank[13-r] &^ pyr))
	}
	for w := waste; w != 0; {
		top := 63 - bits.LeadingZeros64(w)
		w &^= 1 << top
		r := s.rank[s.nPyr+top]
		if r == 13 {
			continue
		}
		if left[r]--; left[r] < 0 {
			return w
		}
	}
	return 0
}

// optAlive applies the bound on buried cards of the last pass (see
// buried): false when p can no longer be won.
func (s *solver) optAlive(p *pos) bool {
	b := s.buried(p)
	if b == 0 {
		return true
	}
	for lo := 1; lo <= 6; lo++ {
		if b&s.classStk[lo] != 0 && !s.classOK(p, lo, b) {
			return false
		}
	}
	return true
}

// optBound is a lower bound on the moves that win from p (p not won), and
// false when p can never be won. Removals: every removal takes at most one
// low and one high card of one class (ranks c and 13-c) or one King, and
// two pyramid cards only when they can ever meet, so at least
// kings + n - m removals take the n other cards that must go, where m is
// the most pairs among them (with goal "pyramid", a maximum matching of
// the pyramid cards that can ever meet). Advances: see advBound; the
// comment inside says how the two counts combine.
func (s *solver) optBound(p *pos) (int, bool) {
	var c optCounts
	s.countRemovals(p, &c)
	return s.optBoundWith(p, &c)
}

// optCounts is what optBound counts of the cards that must go: it depends
// on the removed cards alone, not on where the stock stands, so that a
// draw's position shares its parent's.
type optCounts struct {
	kings, n, m int16   // Kings, cards of the classes, most pairs among them
	matched     [7]int8 // most pairs of pyramid cards in each class
	// loN, hiN: the low and high pyramid cards that must go, by class
	// (goal the pyramid).
	loN, hiN [7]int8
}

// countRemovals fills c for p.
func (s *solver) countRemovals(p *pos, c *optCounts) {
	needPyr := s.fullPyr &^ p.pyr
	var needStk uint64
	if s.goalAll {
		needStk = s.fullStk &^ p.stk
	}
	*c = optCounts{kings: int16(bits.OnesCount64(needPyr&s.pyrRank[13]) + bits.OnesCount64(needStk&s.stkRank[13]))}
	for lo := 1; lo <= 6; lo++ {
		a := bits.OnesCount64(needPyr&s.pyrRank[lo]) + bits.OnesCount64(needStk&s.stkRank[lo])
		b := bits.OnesCount64(needPyr&s.pyrRank[13-lo]) + bits.OnesCount64(needStk&s.stkRank[13-lo])
		c.n += int16(a + b)
		if s.goalAll {
			c.m += int16(min(a, b))
			continue
		}
		m := s.pyrMatching(needPyr&s.pyrRank[lo], needPyr&s.pyrRank[13-lo])
		c.matched[lo] = int8(m)
		c.loN[lo], c.hiN[lo] = int8(a), int8(b)
		c.m += int16(m)
	}
}

// optBoundWith is optBound with the counts of p's removed cards.
func (s *solver) optBoundWith(p *pos, c *optCounts) (int, bool) {
	needPyr := s.fullPyr &^ p.pyr
	var needStk uint64
	if s.goalAll {
		needStk = s.fullStk &^ p.stk
	}
	kings, n, m := int(c.kings), int(c.n), int(c.m)
	adv, work, bounded, alive := s.advBound(p, needPyr, needStk, c)
	if !alive {
		return 0, false
	}
	switch {
	case !s.open:
		// Removals never move the stock: the counts add up.
		return kings + n - m + adv, true
	case s.goalAll:
		// A removal of the stock top may take two cards that must go.
		return max(kings+n-m, adv), true
	}
	// Open stock, goal the pyramid. With t pairs of two pyramid cards
	// (t ≤ m), the other q = n-2t pyramid cards go one a removal. The adv
	// moves of work (see advBound) are draws, redeals or removals of pile
	// cards; those that take a pyramid card are among the q and, when the
	// work takes cards of a known set, at most c1 (below): the cards of
	// the set that can pair with a pyramid card that must go; the others
	// are moves of their own. So the moves are at least
	// kings + t + q + max(0, adv - min(q, c1)) for some t in [0, m].
	c1 := n
	if adv > 0 && bounded {
		c1 = 0
		for lo := 1; lo <= 6; lo++ {
			c1 += min(int(c.loN[lo]), bits.OnesCount64(work&s.stkRank[13-lo]))
			c1 += min(int(c.hiN[lo]), bits.OnesCount64(work&s.stkRank[lo]))
		}
	}
	best := n
	for t := 0; t <= m; t++ {
		q := n - 2*t
		best = min(best, t+q+max(0, adv-min(q, c1)))
	}
	return kings + best, true
}

// pyrMatching is the size of a maximum matching between the low pyramid
// cards lo and the high ones hi of a class, pairs being cards that can
// ever meet (Kuhn's augmenting paths).
func (s *solver) pyrMatching(lo, hi uint64) int {
	if lo == 0 || hi == 0 {
		return 0
	}
	if lo&(lo-1) == 0 { // one low card: matched when it has a mate
		if s.mates[bits.TrailingZeros64(lo)]&hi != 0 {
			return 1
		}
		return 0
	}
	if hi&(hi-1) == 0 {
		if s.mates[bits.TrailingZeros64(hi)]&lo != 0 {
			return 1
		}
		return 0
	}
	var m pyrMatch
	for f := lo; f != 0 && m.n < len(m.left); f &= f - 1 {
		x := bits.TrailingZeros64(f)
		m.left[m.n], m.adj[m.n] = int8(x), s.mates[x]&hi
		m.n++
	}
	size := 0
	for i := range m.n {
		var seen uint64
		if m.augment(i, &seen) {
			size++
		}
	}
	return size
}

// pyrMatch is the state of pyrMatching.
type pyrMatch struct {
	n     int
	left  [8]int8   // the low cards' slots
	adj   [8]uint64 // the high cards each can pair with
	match [64]int8  // high slot → matched low index + 1
}

func (m *pyrMatch) augment(i int, seen *uint64) bool {
	for c := m.adj[i] &^ *seen; c != 0; c &= c - 1 {
		y := bits.TrailingZeros64(c)
		if *seen&(1<<y) != 0 {
			continue
		}
		*seen |= 1 << y
		if m.match[y] == 0 || m.augment(int(m.match[y]-1), seen) {
			m.match[y] = int8(i + 1)
			return true
		}
	}
	return false
}

// advBound is a lower bound on the work before a win from p: moves that
// are draws, redeals or removals of pile cards (with one pile, each takes
// one card off the stock or one off the waste). It also returns the pile
// cards of that work when it is the taking of a known set of them
// (bounded), and false when the cards that must go can never all be
// taken. In a class (ranks c and 13-c) whose lo low and hi high pyramid
// cards that must go include matched[c] pairs of cards that can ever meet
// at most, at least lo - matched[c] low cards pair with distinct high pile
// cards (and likewise for the high cards), so the work is at least that of
// reaching the dearest of the cheapest that many of them. Reaching a card in the stock
// takes the cards before it off the stock (and a draw of the card itself
// when the stock is closed; with three piles a draw takes three). With an
// open stock and one pile, reaching a waste card takes the cards above it
// off the waste, or the stock to its end, a redeal and the cards before it
// off the new stock, half of that at least since a pair of the stock top
// and the waste top counts twice; else a waste card counts as reached.
// When stock cards must go too, the stock must reach its last card.
func (s *solver) advBound(p *pos, needPyr, needStk uint64, counts *optCounts) (adv int, work uint64, bounded, alive bool) {
	matched := &counts.matched
	a := advState{s: s, matched: matched}
	a.rem = s.fullStk &^ p.stk
	a.ahead = a.rem &^ (1<<p.b - 1)
	a.waste = a.rem &^ a.ahead
	a.nAhead = bits.OnesCount64(a.ahead)
	a.redeal = s.passes == 0 || int(p.pass) < s.passes
	a.pyr = p.pyr
	a.bounded = true
	if needStk&a.ahead != 0 {
		a.adv, a.work, a.bounded = a.cost(63 - bits.LeadingZeros64(a.ahead))
	}
	if s.goalAll {
		// matched is not computed: count every card as possibly paired.
		return a.adv, a.work, a.bounded, true
	}
	a.loN, a.hiN = &counts.loN, &counts.hiN
	if !s.open && s.draw == 1 {
		adv, alive := a.closedNeeds()
		return max(a.adv, adv), 0, true, alive
	}
	for lo := 1; lo <= 6; lo++ {
		if !a.need(s.stkRank[13-lo]&a.rem, int(a.loN[lo])-int(matched[lo])) ||
			!a.need(s.stkRank[lo]&a.rem, int(a.hiN[lo])-int(matched[lo])) {
			return 0, 0, false, false
		}
	}
	return a.adv, a.work, a.bounded, true
}

// advState is the state of advBound: the position's stock and the work
// found so far.
type advState struct {
	s                 *solver
	rem, ahead, waste uint64   // remaining stock cards; those in the stock, on the waste
	pyr               uint64   // the removed pyramid cards
	matched           *[7]int8 // see optCounts
	loN, hiN          *[7]int8 // see optCounts
	// blocked (closed stock, one pile, once blockedSet): the waste cards
	// that cannot be dug out in this pass (see undiggable).
	blocked    uint64
	blockedSet bool
	nAhead     int    // cards in the stock
	redeal     bool   // a redeal is still allowed
	adv        int    // the work so far
	work       uint64 // its cards, when bounded
	bounded    bool
}

// cost is the work before stock card j can be taken, the cards of that
// work and whether it is the taking of them (see advBound); -1 when the
// card can never be taken.
func (a *advState) cost(j int) (int, uint64, bool) {
	s := a.s
	bit := uint64(1) << j
	if a.waste&bit == 0 {
		before := a.ahead & (bit - 1)
		c := bits.OnesCount64(before)
		if !s.open {
			c++ // it must be drawn
		}
		if s.draw == 3 {
			c = (c + 2) / 3
		}
		return c, before, true
	}
	if s.draw != 1 {
		return 0, 0, true
	}
	above := a.waste &^ (bit<<1 - 1)
	if !s.open {
		dig, route := a.closedCost(j)
		if dig < 0 || (route >= 0 && route < dig) {
			return route, 0, true
		}
		return dig, 0, true
	}
	c := bits.OnesCount64(above)
	if a.redeal {
		if r := (a.nAhead + 2 + bits.OnesCount64(a.rem&(bit-1))) / 2; r < c {
			return r, 0, false
		}
	}
	return c, above, true
}

// closedCost is the cost of waste card j with a closed stock and one
// pile, two ways: dig, the moves other than draws and redeals that taking
// it in this pass adds to optBound's removals, and route, the draws and
// the redeal before taking it after the next redeal; -1 for a way that
// cannot be.
func (a *advState) closedCost(j int) (dig, route int) {
	s := a.s
	bit := uint64(1) << j
	above := a.waste &^ (bit<<1 - 1)
	// A waste card is taken after the cards above it leave, each with a
	// pyramid card (counted among the removals) or as a King (a move of
	// its own), which cannot be when they outnumber their partners (see
	// undiggable); or after the stock's end, a redeal and the draws of
	// the cards under it and of itself.
	if !a.blockedSet {
		a.blocked, a.blockedSet = s.undiggable(a.pyr, a.waste), true
	}
	dig, route = -1, -1
	if a.blocked&bit == 0 {
		// Those that leave with pyramid cards take one each, which then
		// pair with no other pyramid card: in a class whose pyramid has
		// lo low and hi high cards, and the cards above ul low and uh
		// high ones, at most min(lo-uh, hi-ul) pairs of two pyramid cards
		// are left, so the removals exceed the n - m of optBound by what
		// matched loses.
		dig = bits.OnesCount64(above & s.stkRank[13])
		if !s.goalAll {
			for lo := 1; lo <= 6; lo++ {
				mc := int(a.matched[lo])
				if mc == 0 {
					continue
				}
				ul := bits.OnesCount64(above & s.stkRank[lo])
				uh := bits.OnesCount64(above & s.stkRank[13-lo])
				dig += mc - max(0, min(mc, int(a.loN[lo])-uh, int(a.hiN[lo])-ul))
			}
		}
	}
	if a.redeal {
		route = a.nAhead + 2 + bits.OnesCount64(a.rem&(bit-1))
	}
	return dig, route
}

// closedNeeds is the work of advBound with a closed stock, one pile and
// goal the pyramid, where the two parts of a waste card's cost (see
// closedCost) are moves of different kinds and add up: the draws and
// redeals are at least the dearest draw part of the cards taken and the
// other moves at least the dearest dig part, so for the dig part D of the
// win's dearest dug card, the work is at least D plus, over the needs,
// the dearest of the cheapest draw parts when every card whose dig part
// is at most D costs no draw. It returns the least of that over the dig
// parts met, and false when some need can never be met.
func (a *advState) closedNeeds() (int, bool) {
	s := a.s
	type card struct{ dig, draw int8 } // -1: that way cannot be
	var cards [12][8]card
	var nc, ks [12]int
	nn := 0
	var digs [97]bool // the dig parts met (at most nPyr/2 + the Kings)
	digs[0] = true
	for lo := 1; lo <= 6; lo++ {
		for side := range 2 {
			set, k := s.stkRank[13-lo]&a.rem, int(a.loN[lo])-int(a.matched[lo])
			if side == 1 {
				set, k = s.stkRank[lo]&a.rem, int(a.hiN[lo])-int(a.matched[lo])
			}
			if k <= 0 {
				continue
			}
			if bits.OnesCount64(set) < k {
				return 0, false
			}
			n := 0
			for f := set; f != 0 && n < 8; f &= f - 1 {
				j := bits.TrailingZeros64(f)
				var c card
				if a.waste&(1<<j) == 0 {
					c = card{dig: -1, draw: int8(bits.OnesCount64(a.ahead&(1<<j-1)) + 1)}
				} else {
					d, r := a.closedCost(j)
					if d < 0 && r < 0 {
						continue // it can never be taken
					}
					c = card{dig: int8(d), draw: int8(r)}
					if d >= 0 {
						digs[d] = true
					}
				}
				cards[nn][n] = c
				n++
			}
			if n < k {
				return 0, false
			}
			nc[nn], ks[nn] = n, k
			nn++
		}
	}
	best := -1
	for d := range digs {
		if !digs[d] || (best >= 0 && d >= best) {
			continue
		}
		work, ok := d, true
		for i := range nn {
			var vs [8]int
			n := 0
			for _, c := range cards[i][:nc[i]] {
				v := int(c.draw)
				if c.dig >= 0 && int(c.dig) <= d {
					v = 0
				}
				if v < 0 {
					continue
				}
				j := n
				for ; j > 0 && vs[j-1] > v; j-- {
					vs[j] = vs[j-1]
				}
				vs[j] = v
				n++
			}
			if n < ks[i] {
				ok = false
				break
			}
			work = max(work, d+vs[ks[i]-1])
		}
		if ok && (best < 0 || work < best) {
			best = work
		}
	}
	return best, best >= 0
}

// need records that k cards of the stock cards set must be taken, and
// reports false when there are not k that can be.
func (a *advState) need(set uint64, k int) bool {
	if k <= 0 {
		return true
	}
	if bits.OnesCount64(set) < k {
		return false
	}
	var cs [8]int
	var ws [8]uint64
	var bs [8]bool
	n := 0
	for f := set; f != 0 && n < len(cs); f &= f - 1 {
		c, w, b := a.cost(bits.TrailingZeros64(f))
		if c < 0 {
			continue // it can never be taken
		}
		i := n
		for ; i > 0 && cs[i-1] > c; i-- { // insertion sort
			cs[i], ws[i], bs[i] = cs[i-1], ws[i-1], bs[i-1]
		}
		cs[i], ws[i], bs[i] = c, w, b
		n++
	}
	if n < k {
		return false
	}
	if c := cs[k-1]; c > a.adv {
		// The cards taken include one of those costing at least c, but
		// not necessarily this one: the work is any of their sets, so
		// take their union.
		a.adv, a.work, a.bounded = c, 0, true
		for i := range n {
			if cs[i] >= c {
				a.work |= ws[i]
				a.bounded = a.bounded && bs[i]
			}
		}
	}
	return true
}
