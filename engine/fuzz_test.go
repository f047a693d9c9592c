package engine

import (
	"slices"
	"testing"
)

// gameState is the comparable part of a game's state.
type gameState struct {
	removed, passStart cardSet
	seq                [maxStock]uint8
	seqLen, ptr        uint8
	pass               int
}

func stateOf(g *Game) gameState {
	return gameState{g.removed, g.passStart, g.seq, g.seqLen, g.ptr, g.pass}
}

// rulesFromBits builds any combination of knobs from a number.
func rulesFromBits(b uint16) Rules {
	return Rules{
		Decks:        1 + int(b&1),
		Passes:       int(b>>1) % 4,
		StockOpen:    b&8 != 0,
		PyramidPairs: b&16 != 0,
		Cover:        Cover(b >> 5 & 1),
		Draw:         1 + 2*int(b>>6&1),
		Goal:         Goal(b >> 7 & 1),
	}
}

// checkCards checks that every card of the deck is in exactly one place:
// the pyramid, the stock, a waste pile or the removed cards.
func checkCards(t *testing.T, g *Game) {
	t.Helper()
	var seen [52]int
	var places int
	for s := range g.nPyr {
		if c, ok := g.PyramidCard(Place(s)); ok {
			seen[c]++
			places++
		}
	}
	for i := range int(g.seqLen) {
		if s := int(g.seq[i]); !g.removed.has(s) {
			seen[g.cards[s]]++
			places++
		}
	}
	for s := range g.nAll {
		if g.removed.has(s) {
			seen[g.cards[s]]++
		}
	}
	for c, n := range seen {
		if n != g.rules.Decks {
			t.Fatalf("card %s is in %d places, want %d\n%s", Card(c), n, g.rules.Decks, g)
		}
	}
	waste := 0
	for i := range g.Piles() {
		waste += g.WasteCount(i)
	}
	if places+g.RemovedAll() != g.nAll || g.StockCount()+waste+g.RemovedAll()-g.Removed() != g.nAll-g.nPyr {
		t.Fatalf("counts: pyramid+piles %d, removed %d, stock %d, waste %d; deal has %d\n%s", places, g.RemovedAll(), g.StockCount(), waste, g.nAll, g)
	}
}

// FuzzPlay plays random legal moves, undoes and redoes under random rules,
// checking after every step that cards are conserved, undo restores the
// exact state, replaying the record gives the live state, illegal moves
// change nothing and the status agrees with the legal moves.
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint16(0), []byte{0, 1, 2, 3, 5, 6, 0, 0, 7})
	f.Add(uint64(42), uint16(1), []byte{8, 16, 24, 5, 5, 6, 6, 0, 0, 0, 0})
	f.Add(uint64(7), uint16(0x7f), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 7, 15, 23})
	f.Add(uint64(3), uint16(0x48), []byte{2, 10, 18, 26, 34, 42, 50, 58})
	f.Fuzz(func(t *testing.T, seed uint64, rbits uint16, ops []byte) {
		r := rulesFromBits(rbits)
		g, err := NewNumbered(r, seed)
		if err != nil {
			t.Fatal(err)
		}
		var buf []Move
		for _, op := range ops {
			buf = g.AppendLegal(buf[:0])
			before := stateOf(g)
			switch op % 8 {
			case 5:
				if err := g.Undo(); err != nil && g.CanUndo() {
					t.Fatalf("undo: %v", err)
				}
			case 6:
				if err := g.Redo(); err != nil && g.CanRedo() {
					t.Fatalf("redo: %v", err)
				}
			case 7: // a move from the op's bits, legal or not
				m := Move{Kind: MoveKind(op>>3%4 + 1), A: Place(op >> 1 % 50), B: Place(op % 45)}
				if m.Kind < RemoveKing {
					m.A, m.B = NoPlace, NoPlace
				}
				err := g.Apply(m)
				if err != nil && stateOf(g) != before {
					t.Fatalf("illegal %s (%v) changed the state", m, err)
				}
				if err == nil && !slices.Contains(buf, g.canonicalMove(m)) {
					t.Fatalf("Apply accepted %s, which Legal() lacks: %v", m, buf)
				}
			default:
				if len(buf) == 0 {
					continue
				}
				m := buf[int(op/8)%len(buf)]
				if err := g.Apply(m); err != nil {
					t.Fatalf("legal move %s refused: %v\n%s", m, err, g)
				}
				after := stateOf(g)
				if err := g.Undo(); err != nil || stateOf(g) != before {
					t.Fatalf("undo of %s did not restore the state (%v)", m, err)
				}
				if err := g.Redo(); err != nil || stateOf(g) != after {
					t.Fatalf("redo of %s did not give the same state (%v)", m, err)
				}
			}
			checkCards(t, g)
			if len(g.Legal()) == 0 && g.Status() == Playing {
				t.Fatalf("no legal move but status playing\n%s", g)
			}
		}
		rec := g.Record()
		back, err := Replay(rec)
		if err != nil {
			t.Fatalf("replay of %+v: %v", rec, err)
		}
		if stateOf(back) != stateOf(g) || !slices.Equal(back.Moves(), g.Moves()) || !slices.Equal(back.RedoMoves(), g.RedoMoves()) {
			t.Fatalf("replay differs from the live game:\nlive:\n%s\nreplay:\n%s", g, back)
		}
	})
}

// FuzzParseMove: move notation never panics and round-trips.
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"d", "r", "7.1", "7.1+7.4", "6.2+w", "w1+s", "W2", " 9.9 + 1.1 ", "10.1", "w+w", "+", "7.", ".1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMove(s)
		if err != nil {
			return
		}
		back, err := ParseMove(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseMove(%q) = %s, which parses back to %v (%v)", s, m, back, err)
		}
	})
}

// FuzzParseRules: rule specs never panic, and a parsed set's ID parses
// back to the same rules.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{"classic", "double,decks=1", "passes=unlimited,goal=all", "daily,cover=overlap", "x=y", ",", "classic,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRules(s)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("ParseRules(%q) gave invalid rules: %v", s, err)
		}
		back, err := ParseRules(r.ID())
		if err != nil || back != r {
			t.Fatalf("ID %q of %q parses back to %+v (%v), want %+v", r.ID(), s, back, err, r)
		}
	})
}

// FuzzParseDeal: deal text never panics, and a parsed deal prints as text
// that parses back to the same cards.
func FuzzParseDeal(f *testing.F) {
	f.Add(NewDeal(1, 1).Text())
	f.Add(NewDeal(2, 2).Line())
	f.Add(baseDeal)
	f.Add("# only a comment")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDeal(s)
		if err != nil {
			return
		}
		back, err := ParseDeal(d.Text())
		if err != nil || back.Line() != d.Line() || back.Decks != d.Decks {
			t.Fatalf("deal %q prints as text that parses to %v (%v)", d.Line(), back.Line(), err)
		}
		if _, err := NewGame(Rules{Decks: d.Decks, Passes: 3, Draw: 1}, d); err != nil {
			t.Fatalf("a parsed deal does not start a game: %v", err)
		}
	})
}
