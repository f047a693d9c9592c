package web

import (
	"fmt"

	"pyramid/engine"
)

// cardView is one card of a board as a page draws it: its face as the
// terminal writes it (rank, then the suit's symbol), its colour and its
// state.
type cardView struct {
	Face string
	Red  bool
	// Gone: removed, an empty slot; Covered: still under other cards;
	// otherwise it is available.
	Gone, Covered bool
}

// boardView is a game of a race that runs drawn in HTML: the pyramid row
// by row, and the stock and the waste as counts. It holds no card of
// the stock or the waste, nor the deal's number: every racer of the race
// plays the same deal, and the page is public, so a waste's faces would
// show the racers behind the order of the stock ahead of them. The
// pyramid is every racer's own, face up from the start.
type boardView struct {
	Title   string
	Rows    [][]cardView
	Stock   int
	Waste   int // the cards in the waste piles, all piles together
	Header  string
	Status  string
	Removed int
	Total   int
}

// newBoardView replays rec and draws its position, the stock and the
// waste face down.
func newBoardView(rec engine.Record) (*boardView, error) {
	g, err := engine.Replay(rec)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	rules := g.Rules()
	b := &boardView{Title: rules.Title(), Stock: g.StockCount(), Removed: g.Removed(), Total: rules.PyramidSize()}
	for r := 1; r <= g.Rows(); r++ {
		row := make([]cardView, 0, r)
		for c := 1; c <= r; c++ {
			p := engine.Slot(r, c)
			card, there := g.PyramidCard(p)
			if !there {
				row = append(row, cardView{Gone: true})
				continue
			}
			cv := face(card)
			cv.Covered = !g.Available(p)
			row = append(row, cv)
		}
		b.Rows = append(b.Rows, row)
	}
	for i := range g.Piles() {
		b.Waste += g.WasteCount(i)
	}
	passes := "∞"
	if g.Passes() > 0 {
		passes = fmt.Sprint(g.Passes())
	}
	moves := "moves"
	if g.MovesMade() == 1 {
		moves = "move"
	}
	b.Header = fmt.Sprintf("pass %d/%s · %d/%d removed · %d %s", g.Pass(), passes, b.Removed, b.Total, g.MovesMade(), moves)
	switch g.Status() {
	case engine.Won:
		b.Status = "won"
	case engine.Lost:
		b.Status = "lost"
	}
	return b, nil
}

// face is a card's face as the terminal draws it: " 9♠" without its
// padding, "10♥".
func face(c engine.Card) cardView {
	return cardView{Face: c.RankString() + c.Suit().Symbol(), Red: c.Suit().Red()}
}
