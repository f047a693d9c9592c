package engine

import (
	"strings"
	"testing"
)

// baseDeal is a hand-made single deal whose bottom row and stock hold the
// situations the rule tests need:
//
//	row 7: KS 6C 7C AD QD 5H JH   a free King, 6+7, A+Q; 5H covers 2D with JH
//	row 6: KD 9C 4C TC 3C 2D      a covered King (6.1), 2D pairs JH by overlap
//	stock: 8S KC AS QS 9D …       8S pairs 5H, a King on the waste, A+Q in the piles
const baseDeal = `
            2C
          AH  AC
        TH  QH  QC
      6H  7H  8C  9H
    JC  2H  3H  4H  5C
  KD  9C  4C  TC  3C  2D
KS  6C  7C  AD  QD  5H  JH
8S KC AS QS 9D 2S 3S 4S 5S 6S 7S 9S
TS JS 8H KH 3D 4D 5D 6D 7D 8D TD JD`

// pairedStockDeal has a stock of twelve pairs, each two cards in a row
// summing to 13, ending in 6H 7H; 6C is free in the pyramid.
const pairedStockDeal = `
            KC
          KD  QC
        QD  JC  JD
      TC  TD  9C  9D
    8C  8D  7C  7D  5C
  5D  4C  4D  3C  3D  2C
6C  2D  AC  AD  KS  KH  6D
AS QS 2S JS 3S TS 4S 9S 5S 8S 6S 7S
AH QH 2H JH 3H TH 4H 9H 5H 8H 6H 7H`

// blockedDeal can never remove a card: the bottom row is Aces and Twos,
// every Queen, Jack and King lies covered above it, and no two stock cards
// can meet.
const blockedDeal = `
            KC
          KD  KH
        KS  QC  QD
      QH  QS  JC  JD
    JH  JS  3C  3D  3H
  3S  4C  4D  4H  4S  5C
AC  AD  AH  AS  2C  2D  2H
2S 5D 5H 5S 6C 6D 6H 6S 7C 7D 7H 7S
8C 8D 8H 8S 9C 9D 9H 9S TC TD TH TS`

// newTestGame starts a game of deal text under a rule spec and applies
// setup moves, failing the test on any error.
func newTestGame(t testing.TB, spec, deal, setup string) *Game {
	t.Helper()
	d, err := ParseDeal(deal)
	if err != nil {
		t.Fatalf("ParseDeal: %v", err)
	}
	g, err := NewGame(MustRules(spec), d)
	if err != nil {
		t.Fatalf("NewGame(%s): %v", spec, err)
	}
	for _, s := range strings.Fields(setup) {
		if err := g.ApplyNotation(s); err != nil {
			t.Fatalf("setup move %s: %v\n%s", s, err, g)
		}
	}
	return g
}

// drawAll draws until the stock is empty.
func drawAll(t testing.TB, g *Game) {
	t.Helper()
	for g.StockCount() > 0 {
		if err := g.Apply(DrawMove); err != nil {
			t.Fatalf("draw: %v", err)
		}
	}
}
