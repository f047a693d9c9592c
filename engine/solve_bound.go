package engine

import "math/bits"

// pairClass holds the cards of two ranks that sum to 13 (Ace and Queen, 2
// and Jack, …) for the matching bound of classOK.
type pairClass struct {
	lo, hi []int8 // deal slots of the low-rank and high-rank cards
	// loPyr[i], loStk[i]: card lo[i] as a bit of pos.pyr or of pos.stk
	// (the other is 0); likewise for hi.
	loPyr, loStk, hiPyr, hiStk [8]uint64
	adj                        [8]uint8 // adj[i]: the high cards low card i can ever pair with
	adjT                       [8]uint8 // adjT[j]: the low cards high card j can ever pair with
	needLo                     uint8    // low cards that must be removed to win
	needHi                     uint8    // high cards that must be removed to win
}

// buildClasses fills the pair classes. Two pyramid cards can never be
// available together when one lies in the other's cone (the cards it
// covers, directly or not): no card of the cone can go before the covering
// card, except that the overlap rule lets a card pair with a card it
// covers directly, never with one further up. Two pile cards can never
// pair when pairs need a pyramid card, nor with a closed stock and one
// waste pile, where only one pile card is ever available.
func (s *solver) buildClasses() {
	var cone [maxPyramid]uint64
	for x := range s.nPyr { // rows above come first
		cone[x] = s.parents[x]
		for p := s.parents[x]; p != 0; p &= p - 1 {
			cone[x] |= cone[bits.TrailingZeros64(p)]
		}
	}
	above := func(a, b int) bool { // is b in a's cone, out of reach of a pair?
		c := cone[a]
		if s.overlap {
			c &^= s.parents[a]
		}
		return c&(1<<b) != 0
	}
	never := func(x, y int) bool {
		xp, yp := x < s.nPyr, y < s.nPyr
		switch {
		case xp && yp:
			return above(x, y) || above(y, x)
		case !xp && !yp:
			return s.pyrPairs || (!s.open && s.draw == 1)
		}
		return false
	}
	for lo := 1; lo <= 6; lo++ {
		c := &s.classes[lo]
		for slot := range s.nPyr + s.nStk {
			switch int(s.rank[slot]) {
			case lo:
				c.lo = append(c.lo, int8(slot))
			case 13 - lo:
				c.hi = append(c.hi, int8(slot))
			}
		}
		for i, x := range c.lo {
			c.loPyr[i], c.loStk[i] = s.cardBits(int(x))
			if s.goalAll || int(x) < s.nPyr {
				c.needLo |= 1 << i
			}
			for j, y := range c.hi {
				if !never(int(x), int(y)) {
					c.adj[i] |= 1 << j
					c.adjT[j] |= 1 << i
					if int(x) < s.nPyr && int(y) < s.nPyr {
						s.mates[x] |= 1 << y
						s.mates[y] |= 1 << x
					}
				}
			}
		}
		for j, y := range c.hi {
			c.hiPyr[j], c.hiStk[j] = s.cardBits(int(y))
			if s.goalAll || int(y) < s.nPyr {
				c.needHi |= 1 << j
			}
		}
	}
}

// cardBits returns a card's bit in pos.pyr or in pos.stk (the other is 0).
func (s *solver) cardBits(slot int) (pyr, stk uint64) {
	if slot < s.nPyr {
		return 1 << slot, 0
	}
	return 0, 1 << (slot - s.nPyr)
}

// classOK is the matching bound for the class of ranks lo and 13-lo. In a
// win every card that must go (each pyramid card, or every card for the
// goal "all") leaves in a pair with a card of the partner rank that it can
// ever be paired with, and each card leaves once: the pairs of a win form
// a matching of the class's compatibility graph covering every card that
// must go. By the Mendelsohn–Dulmage theorem such a matching exists exactly
// when one covers the low cards that must go and one covers the high cards
// that must go, which Kuhn's augmenting paths decide on these graphs of at
// most 8+8 cards. A dead card (every partner gone or buried under it) is
// the simplest failure. Stock cards in buried (see buried) can never be
// taken again: they are no one's partner, and the bound fails when one of
// them must go.
func (s *solver) classOK(p *pos, lo int, buried uint64) bool {
	c := &s.classes[lo]
	gone := p.stk | buried
	var remLo, remHi, avLo, avHi uint8
	for i := range c.lo {
		if p.pyr&c.loPyr[i]|p.stk&c.loStk[i] == 0 {
			remLo |= 1 << i
			if gone&c.loStk[i] == 0 {
				avLo |= 1 << i
			}
		}
	}
	for j := range c.hi {
		if p.pyr&c.hiPyr[j]|p.stk&c.hiStk[j] == 0 {
			remHi |= 1 << j
			if gone&c.hiStk[j] == 0 {
				avHi |= 1 << j
			}
		}
	}
	needLo, needHi := remLo&c.needLo, remHi&c.needHi
	if needLo&^avLo != 0 || needHi&^avHi != 0 {
		return false
	}
	return saturates(needLo, &c.adj, avHi) && saturates(needHi, &c.adjT, avLo)
}

// boundOK applies the matching bound to every class.
func (s *solver) boundOK(p *pos, buried uint64) bool {
	for lo := 1; lo <= 6; lo++ {
		if !s.classOK(p, lo, buried) {
			return false
		}
	}
	return true
}

// buried returns, in the last pass, the waste cards that can never be
// taken again: those under a card that can never leave its pile. Without
// a redeal a pile only shrinks from its top, so a card that pairs with
// nothing left in play (no partner in the pyramid and none among the pile
// cards it can ever meet) stays for good, and so does every card under it
// on its pile. More draws only bury more.
func (s *solver) buried(p *pos) uint64 {
	if s.passes == 0 || int(p.pass) < s.passes {
		return 0
	}
	waste := s.fullStk & (1<<p.b - 1) &^ p.stk
	// The pile cards a waste card may still pair with: none when pairs
	// need a pyramid card; with one pile only the stock top, so a card
	// still to come, and only when the stock is open; with three piles any.
	var partners uint64
	switch {
	case s.pyrPairs:
	case s.draw == 3:
		partners = s.fullStk &^ p.stk
	case s.open:
		partners = s.fullStk &^ p.stk &^ (1<<p.b - 1)
	}
	var dead uint64
	for r := 1; r <= 12; r++ {
		if s.pyrRank[13-r]&^p.pyr == 0 && s.stkRank[13-r]&partners == 0 {
			dead |= s.stkRank[r]
		}
	}
	dead &= waste
	if dead == 0 {
		return 0
	}
	if s.draw == 1 {
		return waste & (1<<(63-bits.LeadingZeros64(dead)) - 1)
	}
	var out uint64
	for q := range 3 {
		if d := dead & p.pile[q]; d != 0 {
			out |= waste & p.pile[q] & (1<<(63-bits.LeadingZeros64(d)) - 1)
		}
	}
	return out
}

// saturates reports whether a matching of the bipartite graph adj (left
// vertex i to the right vertices in adj[i], restricted to avail) covers
// every left vertex in need.
func saturates(need uint8, adj *[8]uint8, avail uint8) bool {
	var match [8]int8 // right vertex → matched left vertex + 1
	for n := need; n != 0; n &= n - 1 {
		if adj[bits.TrailingZeros8(n)]&avail == 0 {
			return false
		}
	}
	for n := need; n != 0; n &= n - 1 {
		var seen uint8
		if !augment(bits.TrailingZeros8(n), adj, avail, &match, &seen) {
			return false
		}
	}
	return true
}

// augment looks for an augmenting path from left vertex i.
func augment(i int, adj *[8]uint8, avail uint8, match *[8]int8, seen *uint8) bool {
	for c := adj[i] & avail; c != 0; c &= c - 1 {
		j := bits.TrailingZeros8(c)
		if *seen&(1<<j) != 0 {
			continue
		}
		*seen |= 1 << j
		if match[j] == 0 || augment(int(match[j]-1), adj, avail, match, seen) {
			match[j] = int8(i + 1)
			return true
		}
	}
	return false
}
