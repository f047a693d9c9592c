package engine

import (
	"fmt"
	"strings"
)

// Record is a game in a form to store and send: the rule set's ID, the deal
// (its number, or its text when it came from text), the moves made and the
// redo stack, all in notation. Replay rebuilds the identical game.
type Record struct {
	// Rules is the rule set's canonical ID.
	Rules string `json:"rules"`
	// Deal is the deal number; it is ignored when DealText is set. In
	// JSON it is a string: daily deals are above 2^53, past which
	// JavaScript and jq round numbers to another deal.
	Deal uint64 `json:"deal,string"`
	// DealText is the deal in deal text, for deals that have no number.
	DealText string `json:"deal_text,omitempty"`
	// Moves are the moves made, in order.
	Moves []string `json:"moves"`
	// Redo is the redo stack, the next move to redo first.
	Redo []string `json:"redo,omitempty"`
}

// Record returns the game's record.
func (g *Game) Record() Record {
	r := Record{Rules: g.rules.ID(), Moves: Notations(g.Moves()), Redo: Notations(g.RedoMoves())}
	if g.deal.Numbered {
		r.Deal = g.deal.Number
	} else {
		r.DealText = g.deal.Line()
	}
	return r
}

// Notations spells moves in notation.
func Notations(ms []Move) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// Replay rebuilds a game from its record: the deal, every move applied in
// order, then the redo stack restored by applying and undoing it. A record
// whose moves are illegal is refused with the move and its position.
func Replay(rec Record) (*Game, error) {
	r, err := ParseRules(rec.Rules)
	if err != nil {
		return nil, err
	}
	deal := NewDeal(rec.Deal, r.Decks)
	if rec.DealText != "" {
		if deal, err = ParseDeal(rec.DealText); err != nil {
			return nil, err
		}
	}
	g, err := NewGame(r, deal)
	if err != nil {
		return nil, err
	}
	if err := g.applyAll(rec.Moves, "move"); err != nil {
		return nil, err
	}
	if err := g.applyAll(rec.Redo, "redo move"); err != nil {
		return nil, err
	}
	for range rec.Redo {
		if err := g.Undo(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// applyAll applies moves in notation, naming the first bad one.
func (g *Game) applyAll(moves []string, what string) error {
	for i, s := range moves {
		if err := g.ApplyNotation(s); err != nil {
			return fmt.Errorf("%s %d (%s): %w", what, i+1, s, err)
		}
	}
	return nil
}

// String draws the board as text: a header, the pyramid with free cards in
// brackets and removed ones as "..", the stock and the waste.
func (g *Game) String() string {
	var b strings.Builder
	deal := "deal from text"
	if g.deal.Numbered {
		deal = fmt.Sprintf("deal %d", g.deal.Number)
	}
	passes := "∞"
	if g.rules.Passes > 0 {
		passes = fmt.Sprint(g.rules.Passes)
	}
	// Removed cards are counted as the goal counts them, as the table
	// does: the pyramid's, or every card under goal=all.
	removed, of := g.Removed(), g.nPyr
	if g.rules.Goal == GoalAll {
		removed, of = g.RemovedAll(), g.rules.DeckSize()
	}
	moves := "moves"
	if len(g.history) == 1 {
		moves = "move"
	}
	fmt.Fprintf(&b, "%s · %s · pass %d/%s · %d/%d removed · %d %s · %s\n",
		g.rules.Title(), deal, g.pass, passes, removed, of, len(g.history), moves, g.Status())
	for r := 1; r <= g.rows; r++ {
		b.WriteString(strings.Repeat("  ", g.rows-r))
		for c := 1; c <= r; c++ {
			s := Slot(r, c)
			card, present := g.PyramidCard(s)
			switch {
			case !present:
				b.WriteString(" .. ")
			case g.slotFree(int(s)):
				b.WriteString("[" + card.String() + "]")
			default:
				b.WriteString(" " + card.String() + " ")
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "stock %d", g.StockCount())
	if top, ok := g.StockTop(); ok && g.rules.StockOpen {
		fmt.Fprintf(&b, " [%s]", top)
	}
	for i := range g.rules.Draw {
		fmt.Fprintf(&b, " · %s %d", g.WastePlace(i), g.WasteCount(i))
		if top, ok := g.WasteTop(i); ok {
			fmt.Fprintf(&b, " [%s]", top)
		}
	}
	b.WriteByte('\n')
	return b.String()
}
