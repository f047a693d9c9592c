package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Place is where a card is taken from: a pyramid slot, a waste pile's top
// or the stock's top.
type Place uint8

// Pyramid slots are numbered 0… row by row from the top, left to right;
// the other places follow.
const (
	// Waste is the top of the single waste pile (notation "w").
	Waste Place = 100 + iota
	// Waste1 is the top of the first of three waste piles ("w1").
	Waste1
	// Waste2 is the top of the second of three waste piles ("w2").
	Waste2
	// Waste3 is the top of the third of three waste piles ("w3").
	Waste3
	// Stock is the stock's top card, where the rules make it available ("s").
	Stock
	// NoPlace marks an unused place in a move.
	NoPlace Place = 255
)

// maxRows is the most pyramid rows any rule set has.
const maxRows = 9

// Slot returns the pyramid place of row r and column c, both 1-based
// (row 1 is the top).
func Slot(r, c int) Place { return Place((r-1)*r/2 + c - 1) }

// IsPyramid reports whether p is a pyramid slot.
func (p Place) IsPyramid() bool { return p < Waste }

// IsWaste reports whether p is the top of a waste pile.
func (p Place) IsWaste() bool { return p >= Waste && p <= Waste3 }

// RowCol returns a pyramid slot's row and column, both 1-based.
func (p Place) RowCol() (r, c int) {
	i := int(p)
	r = 1
	for i >= r {
		i -= r
		r++
	}
	return r, i + 1
}

// pile returns the index (0–2) of a waste place's pile.
func (p Place) pile() int {
	if p == Waste {
		return 0
	}
	return int(p - Waste1)
}

// String is the place in notation: "7.1", "w", "w2", "s".
func (p Place) String() string {
	switch {
	case p.IsPyramid():
		r, c := p.RowCol()
		return strconv.Itoa(r) + "." + strconv.Itoa(c)
	case p == Waste:
		return "w"
	case p.IsWaste():
		return "w" + strconv.Itoa(p.pile()+1)
	case p == Stock:
		return "s"
	}
	return "?"
}

// MoveKind is what a move does.
type MoveKind uint8

// The four kinds of move.
const (
	// Draw moves the stock's top card (three with three piles) to the waste.
	Draw MoveKind = iota + 1
	// Redeal turns the waste over into a new stock, in the same order.
	Redeal
	// RemoveKing removes an available King alone.
	RemoveKing
	// RemovePair removes two available cards whose values sum to 13.
	RemovePair
)

// Move is one move. A is the King's place or the pair's first place, B the
// pair's second; the two places of a pair are kept in place order (pyramid
// slots first, then waste, then stock), so a move has one spelling.
type Move struct {
	Kind MoveKind
	A, B Place
}

// DrawMove and RedealMove are the draw and the redeal.
var (
	DrawMove   = Move{Kind: Draw, A: NoPlace, B: NoPlace}
	RedealMove = Move{Kind: Redeal, A: NoPlace, B: NoPlace}
)

// KingMove returns the move that removes the King at p.
func KingMove(p Place) Move { return Move{Kind: RemoveKing, A: p, B: NoPlace} }

// PairMove returns the move that removes the cards at a and b.
func PairMove(a, b Place) Move {
	if b < a {
		a, b = b, a
	}
	return Move{Kind: RemovePair, A: a, B: b}
}

// String is the move in notation: "d", "r", "7.1", "7.1+7.4", "6.2+w",
// "w1+s".
func (m Move) String() string {
	switch m.Kind {
	case Draw:
		return "d"
	case Redeal:
		return "r"
	case RemoveKing:
		return m.A.String()
	case RemovePair:
		return m.A.String() + "+" + m.B.String()
	}
	return "?"
}

// ErrSyntax reports move notation that cannot be read.
var ErrSyntax = errors.New("bad move notation")

// MaxMoveLen bounds one move in notation.
const MaxMoveLen = 16

// ParseMove reads a move in notation: "d" draw, "r" redeal, "X" remove a
// King, "X+Y" remove a pair, where a place is a pyramid slot "R.C" (row and
// column, 1-based, row 1 the top), "w" the waste top ("w1"–"w3" with three
// waste piles) or "s" the stock top. Case and spaces around "+" are
// ignored. Whether the places exist in a game's rules is checked when the
// move is applied.
func ParseMove(s string) (Move, error) {
	if len(s) > MaxMoveLen {
		return Move{}, fmt.Errorf("%w: %q is too long", ErrSyntax, s[:MaxMoveLen]+"…")
	}
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "d":
		return DrawMove, nil
	case "r":
		return RedealMove, nil
	case "":
		return Move{}, fmt.Errorf("%w: empty move", ErrSyntax)
	}
	a, b, pair := strings.Cut(t, "+")
	pa, err := parsePlace(strings.TrimSpace(a))
	if err != nil {
		return Move{}, fmt.Errorf("%w: %q: %v", ErrSyntax, s, err)
	}
	if !pair {
		return KingMove(pa), nil
	}
	pb, err := parsePlace(strings.TrimSpace(b))
	if err != nil {
		return Move{}, fmt.Errorf("%w: %q: %v", ErrSyntax, s, err)
	}
	if pa == pb {
		return Move{}, fmt.Errorf("%w: %q names the same card twice", ErrSyntax, s)
	}
	return PairMove(pa, pb), nil
}

func parsePlace(s string) (Place, error) {
	switch s {
	case "w":
		return Waste, nil
	case "w1", "w2", "w3":
		return Waste1 + Place(s[1]-'1'), nil
	case "s":
		return Stock, nil
	}
	rs, cs, ok := strings.Cut(s, ".")
	if !ok {
		return NoPlace, fmt.Errorf("unknown place %q: want R.C (row.column), w, w1–w3 or s", s)
	}
	r, err1 := strconv.Atoi(rs)
	c, err2 := strconv.Atoi(cs)
	if err1 != nil || err2 != nil || len(rs) > 1 || len(cs) > 1 {
		return NoPlace, fmt.Errorf("unknown place %q: want R.C, a row (1 at the top) and a column in it, e.g. 7.1", s)
	}
	if r < 1 || r > maxRows || c < 1 || c > r {
		// The rules say how many rows there are (Game.Apply): this
		// only knows that rows count from the top and a row r holds
		// r cards.
		return NoPlace, fmt.Errorf("no slot %q: rows count from 1 at the top, and row R has columns 1 to R", s)
	}
	return Slot(r, c), nil
}

// ParseMoves reads moves separated by white space or commas, stopping at the
// first bad one with an error naming it and its position (1-based). Spaces
// around "+" belong to the pair: "7.2 + 7.4" is one move.
func ParseMoves(s string) ([]Move, error) {
	fields := joinPairs(strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }))
	moves := make([]Move, 0, len(fields))
	for i, f := range fields {
		m, err := ParseMove(f)
		if err != nil {
			return moves, fmt.Errorf("move %d: %w", i+1, err)
		}
		moves = append(moves, m)
	}
	return moves, nil
}

// joinPairs joins the fields that spaces around a "+" split: "7.2", "+",
// "7.4" (or "7.2+", "7.4", or "7.2", "+7.4") become "7.2+7.4".
func joinPairs(fields []string) []string {
	out := fields[:0:0]
	for _, f := range fields {
		if n := len(out); n > 0 && (strings.HasSuffix(out[n-1], "+") || strings.HasPrefix(f, "+")) {
			out[n-1] += f
			continue
		}
		out = append(out, f)
	}
	return out
}
