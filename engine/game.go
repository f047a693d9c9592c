package engine

import (
	"errors"
	"fmt"
	"math/bits"
)

// Reasons a move is illegal. Apply wraps them with the detail of the case;
// test with errors.Is.
var (
	ErrCovered       = errors.New("card is covered")
	ErrEmpty         = errors.New("no card there")
	ErrNotAvailable  = errors.New("card is not available")
	ErrNoSuchPlace   = errors.New("no such place in these rules")
	ErrNotThirteen   = errors.New("cards do not sum to 13")
	ErrNotKing       = errors.New("only a King is removed alone")
	ErrNeedsPyramid  = errors.New("a pair needs a pyramid card in these rules")
	ErrStockEmpty    = errors.New("stock is empty")
	ErrStockNotEmpty = errors.New("stock is not empty yet")
	ErrWasteEmpty    = errors.New("waste is empty")
	ErrNoRedeal      = errors.New("no redeal left")
	ErrGameOver      = errors.New("game is over")
	ErrNoUndo        = errors.New("nothing to undo")
	ErrNoRedo        = errors.New("nothing to redo")
)

// Status is where a game stands.
type Status uint8

const (
	// Playing: the game goes on.
	Playing Status = iota
	// Won: the goal is reached.
	Won
	// Lost: no legal move is left; or, with unlimited passes, no card can
	// ever be removed however the stock is cycled. Undo still works.
	Lost
)

// String is "playing", "won" or "lost".
func (s Status) String() string { return [...]string{"playing", "won", "lost"}[s] }

// maxCards is the most cards any deal has; maxPyramid and maxStock the most
// in the pyramid and the stock.
const (
	maxCards   = 104
	maxPyramid = 45
	maxStock   = 59
)

// cardSet is a set of deal slots (0 … maxCards-1): pyramid slots first,
// then the stock in dealt order.
type cardSet [2]uint64

func (s *cardSet) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }
func (s *cardSet) add(i int)      { s[i>>6] |= 1 << (i & 63) }
func (s *cardSet) del(i int)      { s[i>>6] &^= 1 << (i & 63) }
func (s *cardSet) count() int     { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// undoRecord is what Undo needs to take one move back.
type undoRecord struct {
	move      Move
	gone      [2]int8 // deal slots the move removed, -1 for none
	ptr       uint8   // stock pointer before the move
	passStart cardSet // removed cards when the pass began (for redeals)
}

// Game is one game: rules, deal, the moves made and a redo stack. The state
// is compact (the set of removed cards, the current pass's sequence and a
// pointer into it, the pass), so a game costs a few hundred bytes plus its
// history, and copying the state is cheap. A Game is not safe for
// concurrent use.
type Game struct {
	rules Rules
	deal  Deal
	nPyr  int // pyramid cards
	nAll  int // all cards
	rows  int
	cards [maxCards]Card
	// coverers[s] are the two slots covering pyramid slot s, -1 for the
	// bottom row.
	coverers [maxPyramid][2]int8

	removed cardSet
	// passStart is the set of removed cards when the current pass began:
	// the pass's sequence is the stock in dealt order without them.
	passStart cardSet
	seq       [maxStock]uint8 // deal slots of the current pass, in order
	seqLen    uint8
	ptr       uint8 // cards of seq drawn so far (with three piles: dealt)
	pass      int   // 1-based

	history []undoRecord
	redo    []Move
}

// NewGame starts a game of a deal under rules.
func NewGame(r Rules, d Deal) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if d.Decks != r.Decks || len(d.Cards) != r.DeckSize() {
		return nil, fmt.Errorf("engine: a %d-card deal does not fit %s (%d decks, %d cards)", len(d.Cards), r.ID(), r.Decks, r.DeckSize())
	}
	g := &Game{rules: r, deal: d, nPyr: r.PyramidSize(), nAll: r.DeckSize(), rows: r.Rows()}
	copy(g.cards[:], d.Cards)
	for s := range g.nPyr {
		row, col := Place(s).RowCol()
		if row == g.rows {
			g.coverers[s] = [2]int8{-1, -1}
		} else {
			below := int8(Slot(row+1, col))
			g.coverers[s] = [2]int8{below, below + 1}
		}
	}
	g.pass = 1
	g.buildSeq()
	return g, nil
}

// NewNumbered starts a game of deal number n under rules.
func NewNumbered(r Rules, n uint64) (*Game, error) { return NewGame(r, NewDeal(n, r.Decks)) }

// buildSeq computes the current pass's sequence from passStart.
func (g *Game) buildSeq() {
	n := 0
	for s := g.nPyr; s < g.nAll; s++ {
		if !g.passStart.has(s) {
			g.seq[n] = uint8(s)
			n++
		}
	}
	g.seqLen = uint8(n)
}

// Rules is the game's rule set.
func (g *Game) Rules() Rules { return g.rules }

// Deal is the game's deal.
func (g *Game) Deal() Deal { return g.deal }

// Rows is the number of pyramid rows.
func (g *Game) Rows() int { return g.rows }

// Pass is the current pass through the stock, from 1.
func (g *Game) Pass() int { return g.pass }

// Passes is the number of passes allowed, 0 for unlimited.
func (g *Game) Passes() int { return g.rules.Passes }

// Removed is the number of pyramid cards removed.
func (g *Game) Removed() int {
	n := 0
	for s := range g.nPyr {
		if g.removed.has(s) {
			n++
		}
	}
	return n
}

// RemovedAll is the number of cards removed, pyramid and piles.
func (g *Game) RemovedAll() int { return g.removed.count() }

// MovesMade is the number of moves made (undone moves do not count).
func (g *Game) MovesMade() int { return len(g.history) }

// Moves returns the moves made, in order.
func (g *Game) Moves() []Move {
	ms := make([]Move, len(g.history))
	for i, h := range g.history {
		ms[i] = h.move
	}
	return ms
}

// RedoMoves returns the redo stack, the next move to redo first.
func (g *Game) RedoMoves() []Move {
	ms := make([]Move, len(g.redo))
	for i := range g.redo {
		ms[i] = g.redo[len(g.redo)-1-i]
	}
	return ms
}

// CanUndo reports whether a move can be undone.
func (g *Game) CanUndo() bool { return len(g.history) > 0 }

// UndoPeeks reports whether undoing the last move would take back a draw
// or a redeal: the player would have seen the stock's next card and could
// choose again knowing it. Races and the daily allow undo only of
// removals.
func (g *Game) UndoPeeks() bool {
	n := len(g.history)
	return n > 0 && (g.history[n-1].move.Kind == Draw || g.history[n-1].move.Kind == Redeal)
}

// CanRedo reports whether an undone move can be redone.
func (g *Game) CanRedo() bool { return len(g.redo) > 0 }

// PyramidCard returns the card at a pyramid slot and whether it is still
// there.
func (g *Game) PyramidCard(p Place) (Card, bool) {
	if !p.IsPyramid() || int(p) >= g.nPyr {
		return 0, false
	}
	return g.cards[p], !g.removed.has(int(p))
}

// Coverers returns the pyramid slots covering p (none for the bottom row).
func (g *Game) Coverers(p Place) []Place {
	if !p.IsPyramid() || int(p) >= g.nPyr || g.coverers[p][0] < 0 {
		return nil
	}
	return []Place{Place(g.coverers[p][0]), Place(g.coverers[p][1])}
}

// slotFree reports whether pyramid slot s holds a card both of whose
// coverers are gone.
func (g *Game) slotFree(s int) bool {
	if g.removed.has(s) {
		return false
	}
	c := g.coverers[s]
	return c[0] < 0 || (g.removed.has(int(c[0])) && g.removed.has(int(c[1])))
}

// stockTop returns the seq index of the stock's top card, or -1 when the
// stock is empty. Cards ahead of the pointer are gone only when an open
// stock's top was removed.
func (g *Game) stockTop() int {
	for i := int(g.ptr); i < int(g.seqLen); i++ {
		if !g.removed.has(int(g.seq[i])) {
			return i
		}
	}
	return -1
}

// pileTop returns the seq index of a waste pile's top card, or -1. With
// three piles, the i-th card of a pass lies on pile i mod 3.
func (g *Game) pileTop(pile int) int {
	step := 1
	i := int(g.ptr) - 1
	if g.rules.Draw == 3 {
		step = 3
		for i >= 0 && i%3 != pile {
			i--
		}
	}
	for ; i >= 0; i -= step {
		if !g.removed.has(int(g.seq[i])) {
			return i
		}
	}
	return -1
}

// wasteEmpty reports whether every waste pile is empty.
func (g *Game) wasteEmpty() bool {
	for i := int(g.ptr) - 1; i >= 0; i-- {
		if !g.removed.has(int(g.seq[i])) {
			return false
		}
	}
	return true
}

// StockCount is the number of cards left in the stock.
func (g *Game) StockCount() int {
	n := 0
	for i := int(g.ptr); i < int(g.seqLen); i++ {
		if !g.removed.has(int(g.seq[i])) {
			n++
		}
	}
	return n
}

// StockTop returns the stock's top card and whether there is one. Whether
// a player may see or use it depends on Rules.StockOpen.
func (g *Game) StockTop() (Card, bool) {
	if i := g.stockTop(); i >= 0 {
		return g.cards[g.seq[i]], true
	}
	return 0, false
}

// Piles is the number of waste piles: 1 or 3.
func (g *Game) Piles() int { return g.rules.Draw }

// WastePlace is the place of waste pile i (0-based) in these rules.
func (g *Game) WastePlace(i int) Place {
	if g.rules.Draw == 1 {
		return Waste
	}
	return Waste1 + Place(i)
}

// WasteTop returns the top card of waste pile i (0-based) and whether the
// pile has one.
func (g *Game) WasteTop(i int) (Card, bool) {
	if i < 0 || i >= g.rules.Draw {
		return 0, false
	}
	if t := g.pileTop(i); t >= 0 {
		return g.cards[g.seq[t]], true
	}
	return 0, false
}

// WasteCount is the number of cards on waste pile i (0-based).
func (g *Game) WasteCount(i int) int {
	n := 0
	for j := 0; j < int(g.ptr); j++ {
		if (g.rules.Draw == 1 || j%3 == i) && !g.removed.has(int(g.seq[j])) {
			n++
		}
	}
	return n
}

// resolve maps a place to the deal slot of the card there, checking that
// the card exists and is available. partner is the other place of a pair
// (NoPlace for a King): under the overlap rule a pyramid card may pair with
// the single card still covering it.
func (g *Game) resolve(p, partner Place) (int, error) {
	switch {
	case p.IsPyramid():
		s := int(p)
		if s >= g.nPyr {
			return -1, fmt.Errorf("%w: %s (the pyramid has %d rows)", ErrNoSuchPlace, p, g.rows)
		}
		if g.removed.has(s) {
			return -1, fmt.Errorf("%w: %s was removed", ErrEmpty, p)
		}
		if g.slotFree(s) {
			return s, nil
		}
		c := g.coverers[s]
		left, right := !g.removed.has(int(c[0])), !g.removed.has(int(c[1]))
		if g.rules.Cover == CoverOverlap && left != right {
			single := c[0]
			if right {
				single = c[1]
			}
			if partner == Place(single) && g.slotFree(int(single)) {
				return s, nil
			}
		}
		switch {
		case left && right:
			return -1, fmt.Errorf("%w: %s lies under %s and %s", ErrCovered, p, Place(c[0]), Place(c[1]))
		case left:
			return -1, fmt.Errorf("%w: %s lies under %s", ErrCovered, p, Place(c[0]))
		default:
			return -1, fmt.Errorf("%w: %s lies under %s", ErrCovered, p, Place(c[1]))
		}
	case p.IsWaste():
		if (p == Waste) != (g.rules.Draw == 1) {
			if g.rules.Draw == 1 && p == Waste1 {
				p = Waste // w1 is the only pile of a one-pile game
			} else if g.rules.Draw == 1 {
				return -1, fmt.Errorf("%w: %s (one waste pile: say w)", ErrNoSuchPlace, p)
			} else {
				return -1, fmt.Errorf("%w: w (three waste piles: say w1, w2 or w3)", ErrNoSuchPlace)
			}
		}
		t := g.pileTop(p.pile())
		if t < 0 {
			return -1, fmt.Errorf("%w: waste pile %s is empty", ErrEmpty, p)
		}
		return int(g.seq[t]), nil
	case p == Stock:
		if !g.rules.StockOpen {
			return -1, fmt.Errorf("%w: the stock is face down in these rules (draw with d)", ErrNotAvailable)
		}
		t := g.stockTop()
		if t < 0 {
			return -1, fmt.Errorf("%w: the stock is empty", ErrEmpty)
		}
		return int(g.seq[t]), nil
	}
	return -1, fmt.Errorf("%w: %s", ErrNoSuchPlace, p)
}

// check validates m in the current state and returns the deal slots it
// removes (-1 for none).
func (g *Game) check(m Move) ([2]int8, error) {
	none := [2]int8{-1, -1}
	if g.won() {
		return none, fmt.Errorf("%w: the deal is won", ErrGameOver)
	}
	switch m.Kind {
	case Draw:
		if g.stockTop() < 0 {
			return none, fmt.Errorf("%w: nothing to draw (redeal with r when a pass is left)", ErrStockEmpty)
		}
		return none, nil
	case Redeal:
		switch {
		case g.stockTop() >= 0:
			return none, fmt.Errorf("%w: %d cards left to draw", ErrStockNotEmpty, g.StockCount())
		case g.wasteEmpty():
			return none, fmt.Errorf("%w: nothing to turn over", ErrWasteEmpty)
		case g.rules.Passes != 0 && g.pass >= g.rules.Passes:
			return none, fmt.Errorf("%w: pass %d of %d is the last", ErrNoRedeal, g.pass, g.rules.Passes)
		}
		return none, nil
	case RemoveKing:
		s, err := g.resolve(m.A, NoPlace)
		if err != nil {
			return none, err
		}
		if g.cards[s].Rank() != 13 {
			return none, fmt.Errorf("%w: %s is %s", ErrNotKing, m.A, g.cards[s])
		}
		return [2]int8{int8(s), -1}, nil
	case RemovePair:
		if m.A == m.B {
			return none, fmt.Errorf("%w: %s names one card twice", ErrSyntax, m)
		}
		a, err := g.resolve(m.A, m.B)
		if err != nil {
			return none, err
		}
		b, err := g.resolve(m.B, m.A)
		if err != nil {
			return none, err
		}
		if ra, rb := g.cards[a].Rank(), g.cards[b].Rank(); ra+rb != 13 {
			return none, fmt.Errorf("%w: %s + %s = %d", ErrNotThirteen, g.cards[a], g.cards[b], ra+rb)
		}
		if g.rules.PyramidPairs && !m.A.IsPyramid() && !m.B.IsPyramid() {
			return none, fmt.Errorf("%w: %s and %s both come from the piles", ErrNeedsPyramid, m.A, m.B)
		}
		return [2]int8{int8(a), int8(b)}, nil
	}
	return none, fmt.Errorf("%w: unknown move kind %d", ErrSyntax, m.Kind)
}

// do applies a checked move and returns its undo record.
func (g *Game) do(m Move, gone [2]int8) undoRecord {
	rec := undoRecord{move: m, gone: gone, ptr: g.ptr}
	switch m.Kind {
	case Draw:
		t := g.stockTop()
		g.ptr = uint8(min(t+g.rules.Draw, int(g.seqLen)))
	case Redeal:
		rec.passStart = g.passStart
		g.passStart = g.removed
		g.buildSeq()
		g.ptr = 0
		g.pass++
	default:
		for _, s := range gone {
			if s >= 0 {
				g.removed.add(int(s))
			}
		}
	}
	return rec
}

// undo takes back the move of rec.
func (g *Game) undo(rec *undoRecord) {
	switch rec.move.Kind {
	case Redeal:
		g.passStart = rec.passStart
		g.buildSeq()
		g.pass--
	default:
		for _, s := range rec.gone {
			if s >= 0 {
				g.removed.del(int(s))
			}
		}
	}
	g.ptr = rec.ptr
}

// Check reports whether m is legal now, with the reason when it is not.
func (g *Game) Check(m Move) error {
	_, err := g.check(m)
	return err
}

// Apply makes a move. An illegal move changes nothing and returns an error
// wrapping one of the Err… reasons. A legal move clears the redo stack.
func (g *Game) Apply(m Move) error {
	m = g.canonicalMove(m)
	gone, err := g.check(m)
	if err != nil {
		return err
	}
	g.history = append(g.history, g.do(m, gone))
	g.redo = g.redo[:0]
	return nil
}

// canonicalMove spells a move as Legal does: unused places cleared, a
// pair's places in order, w1 as w in a one-pile game.
func (g *Game) canonicalMove(m Move) Move {
	switch m.Kind {
	case RemoveKing:
		return KingMove(g.canonical(m.A))
	case RemovePair:
		return PairMove(g.canonical(m.A), g.canonical(m.B))
	case Draw:
		return DrawMove
	case Redeal:
		return RedealMove
	}
	return m
}

// canonical spells a place as Legal does: w1 is w in a one-pile game.
func (g *Game) canonical(p Place) Place {
	if p == Waste1 && g.rules.Draw == 1 {
		return Waste
	}
	return p
}

// ApplyNotation parses a move in notation and applies it.
func (g *Game) ApplyNotation(s string) error {
	m, err := ParseMove(s)
	if err != nil {
		return err
	}
	return g.Apply(m)
}

// Undo takes back the last move and puts it on the redo stack.
func (g *Game) Undo() error {
	n := len(g.history)
	if n == 0 {
		return ErrNoUndo
	}
	rec := &g.history[n-1]
	g.undo(rec)
	g.redo = append(g.redo, rec.move)
	g.history = g.history[:n-1]
	return nil
}

// Redo makes the last undone move again.
func (g *Game) Redo() error {
	n := len(g.redo)
	if n == 0 {
		return ErrNoRedo
	}
	m := g.redo[n-1]
	gone, err := g.check(m)
	if err != nil {
		return fmt.Errorf("engine: redo %s: %w", m, err) // cannot happen: undo restored the state
	}
	g.history = append(g.history, g.do(m, gone))
	g.redo = g.redo[:n-1]
	return nil
}

// won reports whether the goal is reached.
func (g *Game) won() bool {
	if g.rules.Goal == GoalAll {
		return g.removed.count() == g.nAll
	}
	for s := range g.nPyr {
		if !g.removed.has(s) {
			return false
		}
	}
	return true
}

// Status is where the game stands: playing, won or lost.
func (g *Game) Status() Status {
	switch {
	case g.won():
		return Won
	case !g.anyRemovalAhead():
		return Lost
	}
	return Playing
}

// anyRemovalAhead reports whether a card can still be removed, now or after
// drawing and redealing. With limited passes every move counts, so it is
// whether any move is legal; with unlimited passes a game whose stock can
// only be cycled for ever is lost.
func (g *Game) anyRemovalAhead() bool {
	var buf [64]Move
	if g.rules.Passes != 0 {
		return len(g.AppendLegal(buf[:0])) > 0
	}
	// Cycling without removals returns to the same state after at most two
	// passes (one to finish the current pass, one whole pass), so a
	// bounded walk on a copy decides it.
	c := g.stateCopy()
	for range 2 * (int(c.seqLen) + 2) {
		moves := c.AppendLegal(buf[:0])
		next := Move{}
		for _, m := range moves {
			switch m.Kind {
			case RemoveKing, RemovePair:
				return true
			case Draw:
				next = m
			case Redeal:
				if next.Kind == 0 {
					next = m
				}
			}
		}
		if next.Kind == 0 {
			return false
		}
		gone, _ := c.check(next)
		c.do(next, gone)
	}
	return false
}

// stateCopy returns a copy of the game without its history, for look-ahead.
func (g *Game) stateCopy() *Game {
	c := *g
	c.history, c.redo = nil, nil
	return &c
}

// Clone returns an independent copy of the game, history and redo stack
// included.
func (g *Game) Clone() *Game { return g.CopyTo(nil) }

// CopyTo makes dst a copy of g that later changes of either leave alone,
// reusing dst's memory (its history and redo lists), and returns it; with
// a nil dst it is Clone.
func (g *Game) CopyTo(dst *Game) *Game {
	if dst == nil {
		dst = new(Game)
	}
	h, r := dst.history[:0], dst.redo[:0]
	*dst = *g
	dst.history = append(h, g.history...)
	dst.redo = append(r, g.redo...)
	return dst
}

// Legal returns every legal move.
func (g *Game) Legal() []Move { return g.AppendLegal(nil) }

// AppendLegal appends every legal move to dst and returns it: removals of
// Kings and pairs in place order, then the draw, then the redeal. It does
// not allocate when dst has room.
func (g *Game) AppendLegal(dst []Move) []Move {
	if g.won() {
		return dst
	}
	// Available places and their cards: free pyramid slots, pile tops,
	// the open stock's top.
	var places [maxPyramid + 4]Place
	var ranks [maxPyramid + 4]int8
	n := 0
	for s := range g.nPyr {
		if g.slotFree(s) {
			places[n], ranks[n] = Place(s), int8(g.cards[s].Rank())
			n++
		}
	}
	nPyr := n
	for i := range g.rules.Draw {
		if t := g.pileTop(i); t >= 0 {
			places[n], ranks[n] = g.WastePlace(i), int8(g.cards[g.seq[t]].Rank())
			n++
		}
	}
	if g.rules.StockOpen {
		if t := g.stockTop(); t >= 0 {
			places[n], ranks[n] = Stock, int8(g.cards[g.seq[t]].Rank())
			n++
		}
	}
	for i := range n {
		if ranks[i] == 13 {
			dst = append(dst, KingMove(places[i]))
		}
		for j := i + 1; j < n; j++ {
			if ranks[i]+ranks[j] == 13 && (j < nPyr || i < nPyr || !g.rules.PyramidPairs) {
				dst = append(dst, Move{Kind: RemovePair, A: places[i], B: places[j]})
			}
		}
	}
	if g.rules.Cover == CoverOverlap {
		dst = g.appendOverlapPairs(dst)
	}
	if g.stockTop() >= 0 {
		dst = append(dst, DrawMove)
	} else if !g.wasteEmpty() && (g.rules.Passes == 0 || g.pass < g.rules.Passes) {
		dst = append(dst, RedealMove)
	}
	return dst
}

// appendOverlapPairs appends the pairs the overlap rule adds: a card with
// the single card still covering it, when that card is free.
func (g *Game) appendOverlapPairs(dst []Move) []Move {
	for s := range g.nPyr {
		c := g.coverers[s]
		if c[0] < 0 || g.removed.has(s) {
			continue
		}
		left, right := !g.removed.has(int(c[0])), !g.removed.has(int(c[1]))
		if left == right {
			continue
		}
		single := int(c[0])
		if right {
			single = int(c[1])
		}
		if g.slotFree(single) && g.cards[s].Rank()+g.cards[single].Rank() == 13 {
			dst = append(dst, Move{Kind: RemovePair, A: Place(s), B: Place(single)})
		}
	}
	return dst
}

// Available reports whether the card at p may be taken now: a free pyramid
// card, a pile top, or the stock top when the stock is open.
func (g *Game) Available(p Place) bool {
	_, err := g.resolve(p, NoPlace)
	return err == nil
}

// Selectable reports whether a player may pick the card at p as the first
// card of a move now: an available card (see Available), or, under the
// overlap cover rule, a pyramid card half covered by a single free card
// that it makes 13 with (the two may be removed together).
func (g *Game) Selectable(p Place) bool {
	if !p.IsPyramid() {
		return g.Available(p)
	}
	// The pyramid's cases are decided here, without building the errors
	// resolve explains a refusal with: screens ask about every slot
	// after every move.
	s := int(p)
	if s >= g.nPyr || g.removed.has(s) {
		return false
	}
	if g.slotFree(s) {
		return true
	}
	c := g.coverers[s]
	if g.rules.Cover != CoverOverlap || c[0] < 0 {
		return false
	}
	left, right := !g.removed.has(int(c[0])), !g.removed.has(int(c[1]))
	if left == right {
		return false
	}
	single := int(c[0])
	if right {
		single = int(c[1])
	}
	return g.slotFree(single) && g.cards[s].Rank()+g.cards[single].Rank() == 13
}
