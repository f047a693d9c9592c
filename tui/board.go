package tui

import (
	"fmt"
	"strconv"

	"pyramid/engine"
	"pyramid/lobby"
)

// maxSlots is the most pyramid slots of any rule set.
const maxSlots = 45

// target is a place the cursor can stop at, with its board position and
// level (pyramid row, or rows+1 for the piles) for 2-D navigation.
type target struct {
	p     engine.Place
	x     int
	level int
}

// derived is what a board shows of its game, computed once after every
// change of the game rather than in every frame.
type derived struct {
	status     engine.Status
	present    [maxSlots]bool
	target     [maxSlots]bool
	stockN     int
	stockTop   engine.Card
	stockHas   bool
	waste      [3]engine.Card
	wasteHas   [3]bool
	canDraw    bool
	canRedeal  bool
	canRemove  bool
	removed    int
	targets    []target
	legalMoves []engine.Move
}

// board is a game on the screen: an engine.Game with its layout, the
// marks drawn over it (the cursor, the selected card, a hint's cards)
// and what it derives from the game after every change (board.go), and
// the drawing of the whole frame: header, cards, message line, help bar
// (board_draw.go). It saves nothing and asks no solver: the table (the
// player's own game, a racer's too), the watch screen (the solver's
// line) and the spectate screen draw through it, each with its own keys
// and end-of-game panel.
type board struct {
	chrome
	cache *viewCache
	bar   *helpBar

	game  *engine.Game
	title string
	// titleHidden is the title without the deal's number, shown instead
	// of title while the number may not be shown (shownTitle); empty for
	// a deal that is the player's own (chosen).
	titleHidden string
	// raceOver: the board is a racer's, whose deal is hidden until the
	// race (not the racer's game) is over; the race screen sets it then.
	// Any other board's deal is shown once its game is over.
	raceTable, raceOver bool
	lay                 layout

	// The marks. A board without a cursor or a selection (the watch
	// screen's) keeps them at engine.NoPlace.
	cursor engine.Place
	sel    engine.Place
	hint   engine.Move

	d       derived
	version int // counts changes of the game
	// watchers is how many spectators watch the game (presence.go): the
	// header says so when there are any.
	watchers int
	// clock is the time played, shown after the figures; empty shows
	// none (the watch screen's board).
	clock string
}

// shownTitle is the header's title: with the deal's number only when
// lobby.DealShown says it may be shown.
func (b *board) shownTitle() string {
	over := b.d.status != engine.Playing
	if b.raceTable {
		over = b.raceOver
	}
	if b.titleHidden == "" || lobby.DealShown(false, over) {
		return b.title
	}
	return b.titleHidden
}

// hideDeal hides the deal's number from the title while lobby.DealShown
// says so: the deal was the server's (not chosen). titleHidden is the
// title to show meanwhile.
func (b *board) hideDeal(chosen bool, titleHidden string) {
	b.titleHidden = ""
	if !chosen && b.game.Deal().Numbered {
		b.titleHidden = titleHidden
	}
}

// newBoard lays game out for a w×h window. The cursor starts on the
// leftmost available card of the lowest row.
func newBoard(e *env, g *engine.Game, title string, w, h int) board {
	b := board{
		chrome: chrome{env: e, w: w, h: h},
		cache:  &viewCache{},
		bar:    newHelpBar(),
		game:   g,
		title:  title,
		sel:    engine.NoPlace,
	}
	b.lay = newLayout(w, h, g.Rows(), g.Piles(), e.gl.unicode)
	b.refresh()
	b.cursor = b.firstTarget()
	return b
}

// layOut lays the board out for a window size.
func (b *board) layOut(w, h int) {
	b.w, b.h = w, h
	b.lay = newLayout(w, h, b.game.Rows(), b.game.Piles(), b.env.gl.unicode)
	b.refreshTargets()
}

// needs is the smallest window the board fits.
func (b *board) needs() (w, h int) { return tableNeeds(b.game.Rows(), b.game.Piles()) }

// sayf sets the message line, formatted as fmt.Sprintf does.
func (b *board) sayf(st styleID, format string, args ...any) {
	if len(args) == 0 {
		b.msg = format
	} else {
		b.msg = fmt.Sprintf(format, args...)
	}
	b.msgSt = st
}

// move steps the cursor to the nearest target in a direction.
func (b *board) move(dx, dl int) {
	cx, cl := b.placeXL(b.cursor)
	best, bestScore := -1, 0
	for i, tg := range b.d.targets {
		if tg.p == b.cursor {
			continue
		}
		ddx, ddl := tg.x-cx, tg.level-cl
		var score int
		switch {
		case dx != 0 && tg.p.IsPyramid() != b.cursor.IsPyramid():
			continue // left and right stay in the pyramid or in the piles
		case dx < 0 && ddx < 0:
			score = abs(ddl)*1000 - ddx
		case dx > 0 && ddx > 0:
			score = abs(ddl)*1000 + ddx
		case dl < 0 && ddl < 0:
			score = -ddl*1000 + abs(ddx)
		case dl > 0 && ddl > 0:
			score = ddl*1000 + abs(ddx)
		default:
			continue
		}
		if best < 0 || score < bestScore {
			best, bestScore = i, score
		}
	}
	if best >= 0 {
		b.cursor = b.d.targets[best].p
	}
}

// placeXL is a place's navigation position: the column of its card's
// centre and its level.
func (b *board) placeXL(p engine.Place) (x, level int) {
	x, _ = b.lay.placePos(p)
	x += b.lay.geo.cardW / 2
	if p.IsPyramid() {
		r, _ := p.RowCol()
		return x, r
	}
	return x, b.lay.rows + 1
}

// covered reports whether both cards covering pyramid slot p are there.
func (b *board) covered(p engine.Place) bool {
	r, c := p.RowCol()
	if r == b.game.Rows() {
		return false
	}
	return b.d.present[engine.Slot(r+1, c)] && b.d.present[engine.Slot(r+1, c+1)]
}

// describe says what a move does, with its cards and its notation.
func (b *board) describe(m engine.Move) string {
	switch m.Kind {
	case engine.Draw:
		return "draw"
	case engine.Redeal:
		return "turn the waste over"
	case engine.RemoveKing:
		c, _ := b.cardAt(m.A)
		return "remove " + b.env.gl.cardName(c) + " (" + m.String() + ")"
	case engine.RemovePair:
		first, _ := b.cardAt(m.A)
		second, _ := b.cardAt(m.B)
		return "pair " + b.env.gl.cardName(first) + " + " + b.env.gl.cardName(second) + " (" + m.String() + ")"
	}
	return ""
}

// refresh recomputes the derived state from the game.
func (b *board) refresh() {
	g := b.game
	d := &b.d
	d.status = g.Status()
	n := g.Rules().PyramidSize()
	d.removed = g.Removed()
	if g.Rules().Goal == engine.GoalAll {
		d.removed = g.RemovedAll()
	}
	for s := range n {
		p := engine.Place(s)
		_, d.present[s] = g.PyramidCard(p)
		// The engine's cover rules decide where the cursor may stop: at
		// a free card or, under the overlap rule, at a card that pairs
		// with the one card still covering it.
		d.target[s] = d.present[s] && g.Selectable(p)
	}
	d.stockN = g.StockCount()
	d.stockTop, d.stockHas = g.StockTop()
	for i := range g.Piles() {
		d.waste[i], d.wasteHas[i] = g.WasteTop(i)
	}
	d.legalMoves = g.AppendLegal(d.legalMoves[:0])
	d.canDraw, d.canRedeal, d.canRemove = false, false, false
	for _, m := range d.legalMoves {
		switch m.Kind {
		case engine.Draw:
			d.canDraw = true
		case engine.Redeal:
			d.canRedeal = true
		default:
			d.canRemove = true
		}
	}
	b.refreshTargets()
}

// refreshTargets lists the places the cursor may stop at, with their
// positions in the current layout.
func (b *board) refreshTargets() {
	d := &b.d
	d.targets = d.targets[:0]
	n := b.game.Rules().PyramidSize()
	for s := range n {
		if d.target[s] {
			x, l := b.placeXL(engine.Place(s))
			d.targets = append(d.targets, target{p: engine.Place(s), x: x, level: l})
		}
	}
	for _, p := range b.lay.pilePlaces() {
		if p != engine.Stock {
			if _, ok := b.game.WasteTop(pileIndex(p)); !ok {
				continue
			}
		}
		x, l := b.placeXL(p)
		d.targets = append(d.targets, target{p: p, x: x, level: l})
	}
}

// isTarget reports whether the cursor may stop at p.
func (b *board) isTarget(p engine.Place) bool {
	for _, tg := range b.d.targets {
		if tg.p == p {
			return true
		}
	}
	return false
}

// firstTarget is where the cursor starts: the leftmost card of the lowest
// row that has one.
func (b *board) firstTarget() engine.Place {
	best := -1
	for i, tg := range b.d.targets {
		if !tg.p.IsPyramid() {
			continue
		}
		if best < 0 || tg.level > b.d.targets[best].level ||
			(tg.level == b.d.targets[best].level && tg.x < b.d.targets[best].x) {
			best = i
		}
	}
	if best < 0 {
		return engine.Stock
	}
	return b.d.targets[best].p
}

// fixCursor moves the cursor to the nearest target when its card went.
func (b *board) fixCursor() {
	if b.isTarget(b.cursor) {
		return
	}
	cx, cl := b.placeXL(b.cursor)
	best, bestScore := engine.Stock, -1
	for _, tg := range b.d.targets {
		score := abs(tg.x-cx) + 4*abs(tg.level-cl)
		if tg.level < cl {
			score -= 2 // a card freed above is the likely next play
		}
		if b.cursor.IsPyramid() && !tg.p.IsPyramid() {
			score += 100 // a card of the pyramid goes: stay in the pyramid
		}
		if bestScore < 0 || score < bestScore {
			best, bestScore = tg.p, score
		}
	}
	b.cursor = best
}

// cardAt returns the card shown at a place.
func (b *board) cardAt(p engine.Place) (engine.Card, bool) {
	switch {
	case p.IsPyramid():
		return b.game.PyramidCard(p)
	case p == engine.Stock:
		if !b.game.Rules().StockOpen {
			return 0, false
		}
		return b.d.stockTop, b.d.stockHas
	case p.IsWaste():
		i := pileIndex(p)
		return b.d.waste[i], b.d.wasteHas[i]
	}
	return 0, false
}

// passesOf is "/3", or "/∞" for unlimited passes.
func (b *board) passesOf() string {
	if n := b.game.Passes(); n > 0 {
		return "/" + strconv.Itoa(n)
	}
	return "/" + b.env.gl.inf
}
