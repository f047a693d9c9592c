package engine

import (
	"math/bits"
	"slices"
	"testing"
)

// clusteredDeal is deal number seed with its stock sorted by rank in
// blocks of block cards, so that cards of one rank lie next to each other
// in the stock, where the solvers merge positions that differ only in
// which of them is gone (see canonStock).
func clusteredDeal(seed uint64, decks, block int) Deal {
	d := NewDeal(seed, decks)
	d.Cards = slices.Clone(d.Cards)
	d.Numbered = false
	st := d.Stock()
	for i := 0; i < len(st); i += block {
		slices.SortStableFunc(st[i:min(i+block, len(st))], func(a, b Card) int { return a.Rank() - b.Rank() })
	}
	return d
}

// symmetryCase builds test position i for the duplicate-card checks: any
// knobs (one case in three with three piles and several passes, where
// canonPass applies), a clustered stock, played forward.
func symmetryCase(t testing.TB, i int) *Game {
	r := solveRulesFromBits(uint8(i))
	r.Draw = 1
	if i%3 == 2 {
		r.Draw = 3
		if r.Passes == 1 {
			r.Passes = 2
		}
	}
	g, err := NewGame(r, clusteredDeal(uint64(i)*104729+11, r.Decks, 4+i%5))
	if err != nil {
		t.Fatal(err)
	}
	rng := splitMix64{s: uint64(i)}
	keep, steps := 3+i%8, 30+i%60
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
		if len(rem) > 0 && rng.below(6) != 0 {
			m = rem[rng.below(uint64(len(rem)))]
		}
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestCanonStock(t *testing.T) {
	// Stock ranks 5 5 7 5 7: removing either of the first two 5s leaves
	// the same sequence, and so does removing the 7 at 2 or at 4 when
	// the 5 at 3 is gone too.
	tests := []struct {
		name      string
		stk, want uint64
	}{
		{"nothing removed", 0, 0},
		{"first 5", 1 << 0, 1 << 1},
		{"second 5", 1 << 1, 1 << 1},
		{"5 between 7s", 1 << 3, 1 << 3},
		{"first 7 and the 5 after it", 1<<2 | 1<<3, 1<<3 | 1<<4},
		{"the 5 and the last 7", 1<<3 | 1<<4, 1<<3 | 1<<4},
		{"all", 31, 31},
	}
	s := &solver{nPyr: 1, nStk: 5, fullStk: 31, open: true}
	for j, r := range []int8{5, 5, 7, 5, 7} {
		s.rank[1+j] = r
		s.stkRank[r] |= 1 << j
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.canonStock(0, tc.stk, nil); got != tc.want {
				t.Errorf("canonStock(%05b) = %05b, want %05b", tc.stk, got, tc.want)
			}
		})
	}
}

func TestSolveSymmetryBruteForce(t *testing.T) {
	cases, limit := 500, 20_000
	if *longSolve {
		cases, limit = 5_000, 50_000
	}
	checked, wins := 0, 0
	for i := range cases {
		ok, win := checkAgainstBrute(t, symmetryCase(t, i), limit)
		if ok {
			checked++
			if win {
				wins++
			}
		}
	}
	t.Logf("checked %d of %d clustered positions against brute force, %d winnable", checked, cases, wins)
	if checked < cases/2 || wins < checked/10 || wins > checked*9/10 {
		t.Errorf("got %d checked (%d winnable) of %d: want at least half checked and a mix", checked, wins, cases)
	}
}

func TestSolveOptimalSymmetryBruteForce(t *testing.T) {
	cases, limit := 300, 20_000
	if *longSolve {
		cases, limit = 2_000, 50_000
	}
	checked, wins := 0, 0
	for i := range cases {
		ok, win := checkOptimal(t, symmetryCase(t, i), limit)
		if ok {
			checked++
			if win {
				wins++
			}
		}
	}
	t.Logf("checked %d of %d clustered positions against breadth-first search, %d winnable", checked, cases, wins)
	if checked < cases/2 || wins < checked/10 || wins > checked*9/10 {
		t.Errorf("got %d checked (%d winnable) of %d: want at least half checked and a mix", checked, wins, cases)
	}
}

// moveShape is a solver move as play sees it: the places and the ranks.
type moveShape struct {
	kind   MoveKind
	pa, pb Place
	ra, rb int8
}

func (s *solver) shapes(p *pos) []moveShape {
	var buf [64]smove
	var out []moveShape
	for _, m := range s.optMoves(p, true, buf[:0]) {
		sh := moveShape{kind: m.kind, pa: m.pa, pb: m.pb}
		if m.a >= 0 {
			sh.ra = s.rank[m.a]
		}
		if m.b >= 0 {
			sh.rb = s.rank[m.b]
		}
		out = append(out, sh)
	}
	slices.SortFunc(out, func(x, y moveShape) int {
		if x.kind != y.kind {
			return int(x.kind) - int(y.kind)
		}
		if x.pa != y.pa {
			return int(x.pa) - int(y.pa)
		}
		return int(x.pb) - int(y.pb)
	})
	return out
}

// canonOf returns p's canonical position and its canonical key words.
func (s *solver) canonOf(p pos) pos {
	c := p
	if s.draw == 1 {
		s.canonPos(&c)
		c.pst = 0 // not part of a position with one pile
		return c
	}
	var canon [maxStock + 1]uint8
	c.pst, c.stk = s.canonPass(p.pst, p.stk, &canon)
	c.b = int32(canon[p.b])
	s.setPiles(&c)
	return c
}

// TestCanonEquivalent plays random moves, by place, from positions and
// from their canonical positions together: at every step both must offer
// the same moves (places and ranks) and have the same canonical position.
func TestCanonEquivalent(t *testing.T) {
	for i := range 3000 {
		g := symmetryCase(t, i)
		if g.rules.Draw == 3 && g.rules.Passes == 1 {
			continue
		}
		s := newSolver(t.Context(), g, 1)
		p := s.root(g)
		c := s.canonOf(p)
		rng := splitMix64{s: uint64(i) + 99}
		var buf [64]smove
		for step := range 80 {
			sp, sc := s.shapes(&p), s.shapes(&c)
			if !slices.Equal(sp, sc) {
				t.Fatalf("case %d (%s) step %d: moves %v, canonical %v", i, g.rules.ID(), step, sp, sc)
			}
			if s.won(&p) != s.won(&c) || s.canonOf(p) != s.canonOf(c) {
				t.Fatalf("case %d (%s) step %d: positions differ: %+v and %+v", i, g.rules.ID(), step, s.canonOf(p), s.canonOf(c))
			}
			if len(sp) == 0 {
				break
			}
			want := sp[rng.below(uint64(len(sp)))]
			for _, q := range []*pos{&p, &c} {
				for _, m := range s.optMoves(q, true, buf[:0]) {
					if m.kind == want.kind && m.pa == want.pa && m.pb == want.pb {
						s.apply(q, &m)
						break
					}
				}
			}
		}
	}
}

// TestCanonPosFrom checks canonPosFrom against canonPos: random play from
// canonical positions of the rule sets where no dead cards count alike,
// every removal of a stock card from a canonical position.
func TestCanonPosFrom(t *testing.T) {
	checked := 0
	for i := range 3000 {
		g := symmetryCase(t, i)
		r := g.rules
		if r.Draw != 1 || r.PyramidPairs || !r.StockOpen {
			continue
		}
		s := newSolver(t.Context(), g, 1)
		p := s.root(g)
		s.canonPos(&p)
		rng := splitMix64{s: uint64(i) + 7}
		var buf [64]smove
		for range 80 {
			ms := s.optMoves(&p, true, buf[:0])
			if len(ms) == 0 {
				break
			}
			for _, m := range ms {
				c := p
				s.apply(&c, &m)
				if c.stk == p.stk {
					continue
				}
				want, got := c, c
				s.canonPos(&want)
				s.canonPosFrom(&got, bits.TrailingZeros64(c.stk^p.stk))
				if got != want {
					t.Fatalf("case %d (%s): after %v from %+v: got %+v, want %+v", i, r.ID(), m.move(), p, got, want)
				}
				checked++
			}
			m := ms[rng.below(uint64(len(ms)))]
			s.apply(&p, &m)
			s.canonPos(&p)
		}
	}
	if checked < 1000 {
		t.Errorf("checked %d removals, want at least 1000", checked)
	}
}
