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
// zero or less: the most positions it stores, about 32 bytes each with one
// deck (a few more with two decks or three piles), so about 260 MB at most.
// The ordinary solve that runs first has DefaultBudget.
const DefaultOptimalBudget = 8_000_000

// SolveOptimal is Solve that also proves its winning line shortest: when
// the position is winnable and the search ends within budget positions
// (zero or less means DefaultOptimalBudget), the Solution has Optimal set
// and Moves is a winning line of the fewest moves, draws, redeals and
// removals each counting one. When the shortest-line search runs out of
// budget or ctx is done first, the verdict and line of Solve are returned
// with Optimal false. States counts the positions of both searches. g is
// not changed.
func SolveOptimal(ctx context.Context, g *Game, budget int) Solution {
	if budget <= 0 {
		budget = DefaultOptimalBudget
	}
	sol := Solve(ctx, g, DefaultBudget)
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

// optNode is one stored position of the shortest-line search.
type optNode struct {
	parent int32  // index of the position it was reached from, -1 at the root
	g      uint16 // moves from the root
	h      uint16 // optBound
	closed bool   // expanded at distance g
}

// optSearch is the state of one shortest-line search.
type optSearch struct {
	s      *solver
	words  int
	keys   []uint64 // words per node
	nodes  []optNode
	slots  []int32 // hash table: node index + 1, 0 for empty
	mask   uint64
	shift  uint
	bucket [][]int32 // open list by f
}

// shortest searches for a winning line from root shorter than upper moves.
// It returns that line, or nil when none is shorter (so a line of upper
// moves is shortest), with the positions stored; ok is false when budget
// positions or ctx stopped it first.
func (s *solver) shortest(root pos, upper, budget int) (_ []Move, states int, ok bool) {
	o := &optSearch{s: s, words: (s.optKeyBits() + 63) / 64}
	o.alloc(1 << 12)
	h, alive := s.optBound(&root)
	if !alive || h >= upper {
		return nil, 1, true
	}
	o.add(s.optKey(&root), -1, 0, uint16(h))
	o.push(h, 0)
	var buf [64]smove
	// f is the least f queued: every bucket below it is empty.
	for f, expanded := h, 0; f < upper; {
		if f >= len(o.bucket) || len(o.bucket[f]) == 0 {
			f++
			continue
		}
		b := o.bucket[f]
		i := b[len(b)-1]
		o.bucket[f] = b[:len(b)-1]
		n := &o.nodes[i]
		if n.closed || int(n.g)+int(n.h) != f {
			continue // a stale entry: expanded already, or reached shorter since
		}
		n.closed = true
		if expanded++; expanded&4095 == 0 && s.ctx.Err() != nil {
			return nil, len(o.nodes), false
		}
		p := s.optPos(o.key(i))
		gc := int(n.g) + 1
		for _, m := range s.optMoves(&p, buf[:0]) {
			c := p
			if !s.apply(&c, &m) || !s.optAlive(&c) {
				continue
			}
			won := s.won(&c)
			hc := 0
			if !won {
				var alive bool
				if hc, alive = s.optBound(&c); !alive {
					continue
				}
			}
			fc := gc + hc
			if fc >= upper {
				continue
			}
			key := s.optKey(&c)
			j, found := o.find(&key)
			switch {
			case !found:
				if len(o.nodes) >= budget {
					return nil, len(o.nodes), false
				}
				j = o.add(key, i, uint16(gc), uint16(hc))
			case int(o.nodes[j].g) <= gc:
				continue
			default:
				nj := &o.nodes[j]
				nj.g, nj.parent, nj.closed = uint16(gc), i, false
			}
			if won && fc <= f {
				// Every line is at least f long: nothing queued lies below.
				return o.line(j), len(o.nodes), true
			}
			o.push(fc, j)
			f = min(f, fc) // where the bound is not consistent
		}
	}
	return nil, len(o.nodes), true
}

// push queues node i at f.
func (o *optSearch) push(f int, i int32) {
	for len(o.bucket) <= f {
		o.bucket = append(o.bucket, nil)
	}
	o.bucket[f] = append(o.bucket[f], i)
}

func (o *optSearch) alloc(capacity int) {
	o.slots = make([]int32, capacity)
	o.mask = uint64(capacity - 1)
	o.shift = uint(64 - bits.TrailingZeros(uint(capacity)))
}

// key returns node i's key words.
func (o *optSearch) key(i int32) []uint64 {
	return o.keys[int(i)*o.words : int(i)*o.words+o.words]
}

// find looks a key up: the node index and whether it is stored.
func (o *optSearch) find(k *stateKey) (int32, bool) {
	w := o.words
	for i := hashKey(k, w) >> o.shift; ; i = (i + 1) & o.mask {
		v := o.slots[i]
		if v == 0 {
			return 0, false
		}
		got := o.key(v - 1)
		if got[0] == k[0] && (w < 2 || got[1] == k[1]) && (w < 3 || got[2] == k[2]) {
			return v - 1, true
		}
	}
}

// add stores a new node and returns its index.
func (o *optSearch) add(k stateKey, parent int32, g, h uint16) int32 {
	i := int32(len(o.nodes))
	o.nodes = append(o.nodes, optNode{parent: parent, g: g, h: h})
	o.keys = append(o.keys, k[:o.words]...)
	if len(o.nodes)*2 > len(o.slots) {
		o.alloc(len(o.slots) * 2)
		for j := range o.nodes {
			o.insert(int32(j))
		}
		return i
	}
	o.insert(i)
	return i
}

// insert puts node i in the hash table.
func (o *optSearch) insert(i int32) {
	var k stateKey
	copy(k[:], o.key(i))
	h := hashKey(&k, o.words) >> o.shift
	for o.slots[h] != 0 {
		h = (h + 1) & o.mask
	}
	o.slots[h] = i + 1
}

// line returns the moves from the root to node i: for each step it finds
// the move from the parent's position that leads to the child's.
func (o *optSearch) line(i int32) []Move {
	var chain []int32
	for j := i; j >= 0; j = o.nodes[j].parent {
		chain = append(chain, j)
	}
	s := o.s
	out := make([]Move, 0, len(chain)-1)
	var buf [64]smove
	for c := len(chain) - 1; c > 0; c-- {
		p := s.optPos(o.key(chain[c]))
		want := o.key(chain[c-1])
		for _, m := range s.optMoves(&p, buf[:0]) {
			q := p
			s.apply(&q, &m)
			k := s.optKey(&q)
			if k[0] == want[0] && (o.words < 2 || k[1] == want[1]) && (o.words < 3 || k[2] == want[2]) {
				out = append(out, m.move())
				break
			}
		}
	}
	return out
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
	for x := range s.nPyr {
		if p.pyr&(1<<x) == 0 && s.cover[x]&^p.pyr == 0 {
			p.free |= 1 << x
		}
	}
	return p
}

// optMoves appends every legal move at p, as Game.AppendLegal lists them,
// except that a free pyramid King is the only move when there is one:
// every winning line removes it, and removing it first loses nothing and
// lengthens nothing.
func (s *solver) optMoves(p *pos, out []smove) []smove {
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
	out = s.pyramidPairs(p, out)
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
		out = append(out, advanceMove(Draw))
	case s.canRedeal(p):
		out = append(out, advanceMove(Redeal))
	}
	return out
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
// low and one high card of one class (ranks c and 13-c) or one King, so at
// least kings + Σ max(low, high) removals take the cards that must go.
// Advances: a pyramid card with no partner left in the pyramid that it can
// ever meet must pair with a pile card; when every such partner is still
// in the stock, the stock must advance to the nearest of them, by draws
// and redeals, and with an open stock also by removals of the stock top,
// each of which takes at most one pyramid card; see the comment inside for
// how the two counts combine.
func (s *solver) optBound(p *pos) (int, bool) {
	needPyr := s.fullPyr &^ p.pyr
	var needStk uint64
	rem := s.fullStk &^ p.stk
	if s.goalAll {
		needStk = rem
	}
	kings := bits.OnesCount64(needPyr&s.pyrRank[13]) + bits.OnesCount64(needStk&s.stkRank[13])
	n, m := 0, 0 // cards of the classes that must go, most pairs among them
	for lo := 1; lo <= 6; lo++ {
		a := bits.OnesCount64(needPyr&s.pyrRank[lo]) + bits.OnesCount64(needStk&s.stkRank[lo])
		b := bits.OnesCount64(needPyr&s.pyrRank[13-lo]) + bits.OnesCount64(needStk&s.stkRank[13-lo])
		n += a + b
		m += min(a, b)
	}
	adv, alive := s.advBound(p, needPyr, needStk)
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
	// (t ≤ m), the other n-2t pyramid cards go one a removal; the stock
	// advances by draws, redeals and removals of the stock top, and those
	// removals are among the n-2t. So the moves are at least
	// kings + t + max(n-2t, adv) for some t in [0, m]: take the least.
	best := -1
	for _, t := range [...]int{0, m, (n - adv) / 2, (n - adv + 1) / 2} {
		t = max(0, min(m, t))
		if v := t + max(n-2*t, adv); best < 0 || v < best {
			best = v
		}
	}
	return kings + best, true
}

// advBound is a lower bound on the advances of the stock (draws, redeals
// and, with an open stock, removals of the stock top) before a win from p,
// and false when a card that must go can never be taken: the nearest stock
// partner of a pyramid card left without pyramid partners, or the last card
// of the stock when stock cards must go too.
func (s *solver) advBound(p *pos, needPyr, needStk uint64) (int, bool) {
	rem := s.fullStk &^ p.stk
	ahead := rem &^ (1<<p.b - 1)
	waste := rem &^ ahead
	// cost is the advances before stock card j (in ahead) can be taken.
	cost := func(j int) int {
		c := bits.OnesCount64(ahead & (1<<j - 1))
		if !s.open {
			c++ // it must be drawn
		}
		if s.draw == 3 {
			c = (c + 2) / 3
		}
		return c
	}
	adv := 0
	if needStk&ahead != 0 {
		adv = cost(63 - bits.LeadingZeros64(ahead))
	}
	for f := needPyr &^ s.pyrRank[13]; f != 0; f &= f - 1 {
		x := bits.TrailingZeros64(f)
		if s.mates[x]&needPyr != 0 {
			continue
		}
		partners := s.stkRank[13-s.rank[x]] & rem
		switch {
		case partners == 0:
			return 0, false
		case partners&waste != 0:
			continue
		}
		adv = max(adv, cost(bits.TrailingZeros64(partners)))
	}
	return adv, true
}
