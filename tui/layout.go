package tui

import "pyramid/engine"

// geometry is the size of the cards and how rows overlap.
type geometry struct {
	// cardW and cardH are a card's width and height in cells.
	cardW, cardH int
	// colStep is the distance between two cards of a row; each row is
	// offset by half of it.
	colStep int
	// rowStep is the distance between two rows: rows overlap when it is
	// less than cardH.
	rowStep int
	// boxed draws cards as boxes; otherwise a card is one line, "[ 9♠]".
	boxed bool
}

// The card geometries, from the smallest. The narrow one packs one-line
// cards of four cells ("[9♠]", the rank in one cell) without a gap, for
// windows of 40 columns (a phone); the compact one fits both pyramids in
// 80×24; larger windows get boxed cards whose rows overlap like real
// cards, each showing only its top edge and rank under the next row.
func geoNarrow() geometry  { return geometry{cardW: 4, cardH: 1, colStep: 4, rowStep: 1} }
func geoCompact() geometry { return geometry{cardW: 5, cardH: 1, colStep: 6, rowStep: 1} }
func geoBox() geometry     { return geometry{cardW: 5, cardH: 3, colStep: 6, rowStep: 2, boxed: true} }
func geoLarge() geometry   { return geometry{cardW: 7, cardH: 4, colStep: 8, rowStep: 2, boxed: true} }

// Chrome around the board: two header lines above, the message line and
// the help bar below.
const (
	chromeTop    = 2
	chromeBottom = 2
	// minTableWidth is the narrowest window the table and the menu
	// accept (phones in portrait); the table needs its board's width
	// too, which the narrow layout keeps within it for both pyramids.
	// The header, the message line and the help bar shorten, wrap or
	// give way.
	minTableWidth = 40
	// minScreenWidth is the narrowest window the other screens accept.
	minScreenWidth = 60
	// panelMinWidth is the width the end-of-game panel needs, and
	// narrowPanelMinWidth the width it makes do with on a narrow board
	// (its lines broken onto more lines).
	panelMinWidth       = 44
	narrowPanelMinWidth = minTableWidth - 2
)

// layout places every part of the table on the screen for one window size
// and rule set. It is computed when either changes, never per frame.
type layout struct {
	geo       geometry
	rows      int
	piles     int
	w, h      int
	boardW    int
	boardH    int
	boardX    int // screen column of the board's left edge
	boardY    int // screen line of the board's top edge
	pyrX      int // board column of the bottom row's first card
	pileY     int // board line of the piles' top edge
	stockLbl  int // board column of the "stock" label
	stockX    int
	countX    int
	wasteLbl  int
	wasteX    [3]int
	labelLine int // board line of the pile labels
}

// newLayout chooses the largest geometry that fits the window: boxed
// cards when it is tall enough, one-line cards otherwise, narrow ones
// when the compact board is wider than the window (the caller checks the
// minimum size).
func newLayout(w, h, rows, piles int, unicode bool) layout {
	for _, geo := range [...]geometry{geoLarge(), geoBox()} {
		if !unicode {
			break
		}
		l := layoutFor(geo, w, h, rows, piles)
		if l.boardW <= w-2 && l.boardH+chromeTop+chromeBottom+1 <= h {
			return l
		}
	}
	if l := layoutFor(geoCompact(), w, h, rows, piles); l.boardW <= w-2 {
		return l
	}
	return layoutFor(geoNarrow(), w, h, rows, piles)
}

// tableNeeds is the smallest window the table of a rule set fits: its
// narrow board's.
func tableNeeds(rows, piles int) (w, h int) {
	l := layoutFor(geoNarrow(), 0, 0, rows, piles)
	return max(minTableWidth, l.boardW+2), l.boardH + chromeTop + chromeBottom + 1
}

// narrow reports whether the geometry is the narrow one: its cards show
// their two-cell faces (glyphs.narrow), and its end-of-game panels make
// do with the window's width.
func (g geometry) narrow() bool { return g.cardW < geoCompact().cardW }

// layoutFor places the table in geometry geo.
func layoutFor(geo geometry, w, h, rows, piles int) layout {
	l := layout{geo: geo, rows: rows, piles: piles, w: w, h: h}
	pyrW := rows*geo.colStep - (geo.colStep - geo.cardW)
	pyrH := (rows-1)*geo.rowStep + geo.cardH
	// The pile row: "stock " card " 23" (four blanks) "waste " cards.
	pileW := 6 + geo.cardW + 3 + 4 + 6 + piles*geo.cardW + (piles - 1)
	panelW := panelMinWidth
	if geo.narrow() {
		panelW = narrowPanelMinWidth
	}
	l.boardW = max(pyrW, pileW, panelW)
	l.boardH = pyrH + 1 + geo.cardH
	l.pyrX = (l.boardW - pyrW) / 2
	l.pileY = pyrH + 1
	l.labelLine = l.pileY + geo.cardH/2
	if geo.cardH == 4 {
		l.labelLine = l.pileY + 1
	}
	x := (l.boardW - pileW) / 2
	l.stockLbl = x
	l.stockX = x + 6
	l.countX = l.stockX + geo.cardW + 1
	l.wasteLbl = l.countX + 2 + 4
	for i := range piles {
		l.wasteX[i] = l.wasteLbl + 6 + i*(geo.cardW+1)
	}
	l.boardX = max(0, (w-l.boardW)/2)
	l.boardY = chromeTop + max(0, (h-chromeTop-chromeBottom-l.boardH)/2)
	return l
}

// slotPos is the board position of pyramid slot p's top-left corner.
func (l *layout) slotPos(p engine.Place) (x, y int) {
	r, c := p.RowCol()
	return l.pyrX + (l.rows-r)*l.geo.colStep/2 + (c-1)*l.geo.colStep, (r - 1) * l.geo.rowStep
}

// placePos is the board position of any place's card.
func (l *layout) placePos(p engine.Place) (x, y int) {
	switch {
	case p.IsPyramid():
		return l.slotPos(p)
	case p == engine.Stock:
		return l.stockX, l.pileY
	case p == engine.Waste:
		return l.wasteX[0], l.pileY
	case p.IsWaste():
		return l.wasteX[p-engine.Waste1], l.pileY
	}
	return 0, 0
}

// pilePlaces is the places of the pile row, left to right.
func (l *layout) pilePlaces() []engine.Place {
	if l.piles == 3 {
		return []engine.Place{engine.Stock, engine.Waste1, engine.Waste2, engine.Waste3}
	}
	return []engine.Place{engine.Stock, engine.Waste}
}

// hit returns the place whose card is drawn at screen cell (x, y). present
// and covered describe the pyramid: a removed card is not drawn, a covered
// card only shows its top rows. Lower rows are drawn over upper ones, so
// they are tried first.
func (l *layout) hit(x, y int, present func(engine.Place) bool, covered func(engine.Place) bool) (engine.Place, bool) {
	bx, by := x-l.boardX, y-l.boardY
	if bx < 0 || by < 0 || bx >= l.boardW || by >= l.boardH {
		return engine.NoPlace, false
	}
	for _, p := range l.pilePlaces() {
		px, py := l.placePos(p)
		if inRect(bx, by, px, py, l.geo.cardW, l.geo.cardH) {
			return p, true
		}
	}
	if bx >= l.stockLbl && bx < l.stockX && by == l.labelLine {
		return engine.Stock, true // the "stock" label draws too
	}
	n := l.rows * (l.rows + 1) / 2
	for s := n - 1; s >= 0; s-- {
		p := engine.Place(s)
		if !present(p) {
			continue
		}
		px, py := l.slotPos(p)
		h := l.geo.cardH
		if covered(p) {
			h = l.geo.rowStep
		}
		if inRect(bx, by, px, py, l.geo.cardW, h) {
			return p, true
		}
	}
	return engine.NoPlace, false
}

// inRect reports whether (x, y) lies in the rectangle at (rx, ry) of size
// w×h.
func inRect(x, y, rx, ry, w, h int) bool {
	return x >= rx && x < rx+w && y >= ry && y < ry+h
}
