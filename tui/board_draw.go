package tui

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"pyramid/engine"
)

// The drawing of a board: the frame (header, cards, message line, help
// bar) into a cell grid borrowed from the pool all sessions share, and
// the panels a finished game shows over or beside the pyramid. What is
// drawn comes from the board's state (board.go), computed once per
// change of the game.

// panelWriter is the owner of a board, which writes the lines of the
// panel drawn over the cleared pyramid once the game is won: moves and
// passes say how the game went, w is the widest a line may be.
type panelWriter interface {
	panel(dst []string, moves, passes string, w int) []string
}

// footWriter is implemented by a panelWriter with a line to show under
// the board once the game has ended (the daily's share line).
type footWriter interface {
	foot() string
}

// render draws the frame: the header (with right as its right side in
// place of the game's figures when it is not empty), the board (with
// pw's panel after a win), the message line or the open prompt p (nil
// when closed), and a help bar of bar, dropping bindings in the order of
// drop when they do not fit.
func (b *board) render(pw panelWriter, right string, p *Prompt, bar []key.Binding, drop []uint8) string {
	gr := b.draw(pw, right, p, bar, drop)
	frame := string(gr.out)
	putGrid(gr)
	return frame
}

// renderLines is render's frame a line a part (the parts joined by
// newlines are render's frame), a run of blank lines one part, written
// over kept, the parts of the frame it drew before, which it returns. A
// line that says what kept said there is kept's very string: a frame
// costs the lines it changed (a cursor key, two or three), not a copy of
// the whole board, and the session's renderer compares a kept line at
// once. kept may come from another board (the held copy of a table and
// the table): a line is kept only when its text is the same, so a stale
// one is never shown.
func (b *board) renderLines(kept []string, pw panelWriter, right string, p *Prompt, bar []key.Binding, drop []uint8) []string {
	gr := b.draw(pw, right, p, bar, drop)
	rest := gr.out
	n := 0
	for {
		i := bytes.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line = rest[:i]
		}
		// A run of blank lines is one part, a constant's newlines: k
		// blank lines joined are k-1 newlines, and the k-th joins the run
		// to the next part. The last line is a part of its own (the
		// caller may take it away: the race's help bar).
		k := 0
		for k < len(newlines) && k < len(rest) && rest[k] == '\n' {
			k++
		}
		var part string
		if k > 1 && k < len(rest) {
			part, i = newlines[:k-1], k-1
		}
		switch {
		case part != "":
			if n >= len(kept) {
				kept = append(kept, part)
			}
			kept[n] = part
		case n < len(kept) && string(line) == kept[n]:
			// Kept: the comparison does not allocate.
		case n < len(kept):
			kept[n] = string(line)
		default:
			kept = append(kept, string(line))
		}
		n++
		if i < 0 {
			break
		}
		rest = rest[i+1:]
	}
	clear(kept[n:]) // a taller frame's lines may go
	putGrid(gr)
	return kept[:n]
}

// newlines is where renderLines takes its runs of blank lines from.
const newlines = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"

// draw writes the frame into a borrowed grid's text (gr.out), which the
// caller reads and then gives back with putGrid.
func (b *board) draw(pw panelWriter, right string, p *Prompt, bar []key.Binding, drop []uint8) *grid {
	l := &b.lay
	// A lost game's summary goes beside the pyramid, which stays
	// readable (what is left is what the player looks at): its grid is
	// the window's width, the board drawn where it always is.
	gw, margin := l.boardW, l.boardX
	wide := b.d.status == engine.Lost && pw != nil && b.w > l.boardW
	if wide {
		gw, margin = max(b.w, l.boardX+l.boardW), 0
	}
	gr := getGrid(gw, l.boardH)
	if wide {
		gr.ox = l.boardX
	}
	b.drawBoard(gr, pw)
	vc := b.cache
	if k := (headerKey{b.version, b.w, b.watchers, b.clock, b.shownTitle()}); k != vc.headerKey || vc.header == "" {
		var hb strings.Builder
		b.writeHeader(&hb, right)
		vc.headerKey, vc.header = k, hb.String()
	}
	buf := append(gr.out[:0], vc.header...)
	// A finished game's foot (the daily's share line) takes the first
	// blank line under the board, when there is one; a foot wider than
	// the window (a phone's) is broken at spaces when the blank lines
	// hold it, for it is copied from the screen.
	spare := b.h - chromeBottom - (l.boardY + l.boardH)
	var foot []string
	if fw, ok := pw.(footWriter); ok && b.d.status != engine.Playing && p == nil && spare > 0 {
		if s := fw.foot(); s != "" {
			foot = []string{s}
			if ws := wrapWords(s, max(10, b.w-2)); len(ws) > 1 && len(ws) <= spare {
				foot = ws
			}
			spare -= len(foot)
		}
	}
	// A message wider than the window wraps onto the blank lines left
	// under the board, as many as there are; what is left over is cut.
	var above []string
	var rest string
	if p == nil && b.msg != "" && cells(b.msg) > b.w-2 {
		if ws := wrapWords(b.msg, max(10, b.w-2)); spare > 0 && len(ws) > 1 {
			n := min(len(ws)-1, spare)
			above, rest = ws[:n], strings.Join(ws[n:], " ")
		}
	}
	bottom := b.h - chromeBottom - len(above) - len(foot)
	y := chromeTop
	for ; y < l.boardY; y++ {
		buf = append(buf, '\n')
	}
	for j := 0; j < l.boardH && y < bottom; j, y = j+1, y+1 {
		start := len(buf)
		buf = appendBlanks(buf, margin)
		at := len(buf)
		if buf = gr.line(buf, b.env.pal, j); len(buf) == at {
			buf = buf[:start] // a blank line needs no margin
		}
		buf = append(buf, '\n')
	}
	for ; y < bottom; y++ {
		buf = append(buf, '\n')
	}
	for _, s := range foot {
		buf = append(buf, ' ')
		buf = append(buf, b.env.pal.style(sDim, cut(s, b.w-2, b.env.gl.ell))...)
		buf = append(buf, '\n')
	}
	for _, s := range above {
		buf = append(buf, ' ')
		buf = append(buf, b.env.pal.style(b.msgSt, s)...)
		buf = append(buf, '\n')
	}
	switch {
	case p != nil:
		buf = append(buf, ' ')
		buf = append(buf, p.view(b.env.pal, b.w-1)...)
	case len(above) > 0:
		buf = append(buf, ' ')
		buf = append(buf, b.env.pal.style(b.msgSt, cut(rest, b.w-2, b.env.gl.ell))...)
	case b.msg != "":
		if k := (msgKey{b.msg, b.msgSt, b.w}); k != vc.msgKey || vc.msgLine == "" {
			vc.msgKey = k
			vc.msgLine = " " + b.env.pal.style(b.msgSt, cut(b.msg, b.w-2, b.env.gl.ell))
		}
		buf = append(buf, vc.msgLine...)
	}
	buf = append(buf, '\n')
	buf = append(buf, b.bar.viewDropping(b.env, bar, drop, b.w)...)
	gr.out = buf
	return gr
}

// writeHeader writes the two header lines: the rule set and deal on the
// left, the pass, the cards removed and the moves on the right (on the
// second line when the window is narrow), or right there when it is not
// empty.
func (b *board) writeHeader(sb *strings.Builder, right string) {
	if right == "" {
		if right = b.figures(false); cells(right) > b.w-2 {
			right = b.figures(true)
		}
	}
	right = cut(right, b.w-2, b.env.gl.ell)
	left := cut(b.shownTitle(), b.w-2, b.env.gl.ell)
	lw, rw := cells(left), cells(right)
	sb.WriteByte(' ')
	sb.WriteString(b.env.pal.style(sBold, left))
	if 1+lw+2+rw+1 <= b.w {
		pad(sb, b.w-1-lw-rw-1)
		sb.WriteString(right)
		sb.WriteString("\n\n")
		return
	}
	sb.WriteByte('\n')
	pad(sb, max(1, b.w-rw-1))
	sb.WriteString(right)
	sb.WriteByte('\n')
}

// figures is the header's right side: the pass, the cards removed, the
// moves, how the game ended, the clock and the spectators. The short
// form, for a window too narrow for the long one (a phone's), leaves out
// the words a player reads from the numbers ("removed", "moves") and
// puts the clock before the spectators, which a cut line loses first.
func (b *board) figures(short bool) string {
	g := b.game
	total := g.Rules().PyramidSize()
	if g.Rules().Goal == engine.GoalAll {
		total = g.Rules().DeckSize()
	}
	sep := b.env.gl.sep
	var r strings.Builder
	r.WriteString("pass ")
	r.WriteString(strconv.Itoa(g.Pass()))
	r.WriteString(b.passesOf())
	r.WriteString(sep)
	r.WriteString(strconv.Itoa(b.d.removed))
	r.WriteByte('/')
	r.WriteString(strconv.Itoa(total))
	if !short {
		r.WriteString(" removed")
	}
	r.WriteString(sep)
	r.WriteString(strconv.Itoa(g.MovesMade()))
	if short {
		r.WriteString(" mv")
	} else {
		r.WriteString(plural(g.MovesMade(), " move", " moves"))
	}
	switch b.d.status {
	case engine.Won:
		r.WriteString(sep + "won")
	case engine.Lost:
		r.WriteString(sep + "lost")
	}
	if short && b.clock != "" {
		r.WriteString(sep + b.clock)
	}
	if b.watchers > 0 {
		r.WriteString(sep + strconv.Itoa(b.watchers) + " watching")
	}
	if !short && b.clock != "" {
		r.WriteString(sep + b.clock)
	}
	return r.String()
}

// drawBoard draws the pyramid, the piles and, after a win, the panel.
func (b *board) drawBoard(gr *grid, pw panelWriter) {
	l := &b.lay
	d := &b.d
	n := b.game.Rules().PyramidSize()
	for s := range n {
		if !d.present[s] {
			continue
		}
		p := engine.Place(s)
		x, y := l.slotPos(p)
		c, _ := b.game.PyramidCard(p)
		rows := l.geo.cardH
		if b.covered(p) {
			rows = l.geo.rowStep
		}
		b.drawCard(gr, x, y, c, true, p, d.target[s], rows)
	}
	pal := sDim
	gr.text(l.stockLbl, l.labelLine, "stock", pal)
	gr.text(l.countX, l.labelLine, strconv.Itoa(d.stockN), pal)
	gr.text(l.wasteLbl, l.labelLine, "waste", pal)
	switch {
	case b.game.Rules().StockOpen && d.stockHas:
		b.drawCard(gr, l.stockX, l.pileY, d.stockTop, true, engine.Stock, b.isTarget(engine.Stock), l.geo.cardH)
	case d.stockN > 0:
		b.drawCard(gr, l.stockX, l.pileY, 0, false, engine.Stock, true, l.geo.cardH)
	default:
		b.drawEmpty(gr, l.stockX, l.pileY, engine.Stock)
	}
	for i := range b.game.Piles() {
		p := b.game.WastePlace(i)
		x, y := l.placePos(p)
		if d.wasteHas[i] {
			b.drawCard(gr, x, y, d.waste[i], true, p, true, l.geo.cardH)
		} else {
			b.drawEmpty(gr, x, y, p)
		}
	}
	if d.status == engine.Won || d.status == engine.Lost && pw != nil {
		b.drawWinPanel(gr, pw)
	}
}

// look is how the card at p is drawn: its style (the black variant) and
// the marks beside its face. Every state has a cue that needs no colour:
// the marks.
func (b *board) look(p engine.Place, avail bool) (styleID, [2]rune) {
	gl := b.env.gl
	cur := p == b.cursor && b.d.status != engine.Won
	sel := p == b.sel
	hint := b.hint.Kind != 0 && (b.hint.A == p || b.hint.B == p ||
		(p == engine.Stock && (b.hint.Kind == engine.Draw || b.hint.Kind == engine.Redeal)))
	switch {
	case sel && cur:
		return sSelCurBlack, gl.markSelCur
	case cur:
		return sCurBlack, gl.markCur
	case sel:
		return sSelBlack, gl.markSel
	case hint:
		return sHintBlack, gl.markHint
	case avail:
		return sAvBlack, gl.markAv
	}
	return sCovBlack, gl.markCov
}

// drawCard draws a card face up or down at board position (x, y), its top
// rows only when cards below hide the rest.
func (b *board) drawCard(gr *grid, x, y int, c engine.Card, faceUp bool, p engine.Place, avail bool, rows int) {
	geo := b.lay.geo
	base, marks := b.look(p, avail)
	face := b.env.gl.faces[c]
	st := cardStyle(base, c)
	if !faceUp {
		switch base {
		case sCurBlack, sSelCurBlack:
			st = sCurBack
		case sHintBlack:
			st = sHintBack
		default:
			st = sBack
		}
		b := b.env.gl.back
		face = [3]rune{b, b, b}
	}
	if geo.narrow() {
		short := b.env.gl.narrow[c]
		if !faceUp {
			short = [2]rune{face[0], face[0]}
		}
		gr.set(x, y, marks[0], st)
		gr.set(x+1, y, short[0], st)
		gr.set(x+2, y, short[1], st)
		gr.set(x+3, y, marks[1], st)
		return
	}
	if !geo.boxed {
		gr.set(x, y, marks[0], st)
		gr.set(x+1, y, face[0], st)
		gr.set(x+2, y, face[1], st)
		gr.set(x+3, y, face[2], st)
		gr.set(x+4, y, marks[1], st)
		return
	}
	// A boxed card keeps its frame whatever its state: the cursor, the
	// selection and the hint show on its rank line only (marks in place
	// of the side lines, and the state's colours), so that moving the
	// cursor changes one line per card and the line renderer sends little.
	frame := sPlain
	if base == sCovBlack {
		frame = sCovBlack
	}
	b.drawBox(gr, x, y, rows, b.env.gl.box, frame, sPlain)
	if rows < 2 {
		return
	}
	iw := geo.cardW - 2
	lit := base != sAvBlack && base != sCovBlack
	switch {
	case !faceUp:
		gr.fill(x+1, y+1, iw, min(rows, geo.cardH-1)-1, face[0], sBack)
		gr.fill(x+1, y+1, iw, 1, face[0], st)
	case lit:
		gr.fill(x+1, y+1, iw, 1, ' ', st)
	}
	if lit {
		gr.set(x, y+1, marks[0], st)
		gr.set(x+geo.cardW-1, y+1, marks[1], st)
	}
	if !faceUp {
		return
	}
	if geo.cardW == 5 {
		gr.set(x+1, y+1, face[0], st)
		gr.set(x+2, y+1, face[1], st)
		gr.set(x+3, y+1, face[2], st)
		return
	}
	// A large card shows its rank and suit top left and, when nothing
	// hides it, bottom right, as printed cards do.
	lead := face[:]
	if face[0] == ' ' {
		lead = face[1:]
	}
	for i, r := range lead {
		gr.set(x+1+i, y+1, r, st)
	}
	if rows > 2 && geo.cardH > 3 {
		st2 := cardStyle(sAvBlack, c)
		if base == sCovBlack {
			st2 = cardStyle(sCovBlack, c)
		}
		for i, r := range lead {
			gr.set(x+1+iw-len(lead)+i, y+2, r, st2)
		}
	}
}

// drawBox draws the frame of a boxed card (its first rows rows) and
// blanks its inside.
func (b *board) drawBox(gr *grid, x, y, rows int, box [6]rune, frame, inner styleID) {
	w, h := b.lay.geo.cardW, b.lay.geo.cardH
	for j := 0; j < rows && j < h; j++ {
		switch j {
		case 0, h - 1:
			l, r := box[0], box[1]
			if j == h-1 {
				l, r = box[2], box[3]
			}
			gr.set(x, y+j, l, frame)
			gr.hline(x+1, y+j, w-2, box[4], frame)
			gr.set(x+w-1, y+j, r, frame)
		default:
			gr.set(x, y+j, box[5], frame)
			gr.hline(x+1, y+j, w-2, ' ', inner)
			gr.set(x+w-1, y+j, box[5], frame)
		}
	}
}

// drawEmpty draws an empty pile, marked when the cursor is on it.
func (b *board) drawEmpty(gr *grid, x, y int, p engine.Place) {
	geo := b.lay.geo
	base, marks := b.look(p, true)
	lit := base == sCurBlack || base == sHintBlack
	st := sDim
	if lit {
		st = base
	} else {
		marks = b.env.gl.markAv
	}
	// The empty stock shows whether the waste can turn over once more.
	redeal := p == engine.Stock && b.d.canRedeal
	if !geo.boxed {
		gr.set(x, y, marks[0], st)
		gr.set(x+geo.cardW-1, y, marks[1], st)
		if redeal {
			gr.set(x+geo.cardW/2, y, b.env.gl.redeal, st)
		}
		return
	}
	b.drawBox(gr, x, y, geo.cardH, b.env.gl.box, sDim, sPlain)
	if lit {
		gr.fill(x, y+1, geo.cardW, 1, ' ', st)
		gr.set(x, y+1, marks[0], st)
		gr.set(x+geo.cardW-1, y+1, marks[1], st)
	}
	if redeal {
		gr.set(x+geo.cardW/2, y+1, b.env.gl.redeal, st)
	}
}

// drawWinPanel draws the end-of-game panel over the pyramid (empty after
// a win), or beside what is left of it after a loss when there is room,
// with the lines pw writes.
func (b *board) drawWinPanel(gr *grid, pw panelWriter) {
	l := &b.lay
	g := b.game
	passes := strconv.Itoa(g.Pass()) + plural(g.Pass(), " pass", " passes")
	if g.Passes() > 0 {
		passes = strconv.Itoa(g.Pass()) + " of " + strconv.Itoa(g.Passes()) + plural(g.Passes(), " pass", " passes")
	}
	moves := strconv.Itoa(g.MovesMade()) + plural(g.MovesMade(), " move", " moves")
	var buf [12]string
	if b.d.status == engine.Lost {
		if lines, x, ok := b.besidePyramid(gr, pw, buf[:0], moves, passes); ok {
			b.drawPanel(gr, lines, x, 0)
			return
		}
		if l.geo.narrow() {
			// A phone's window has no room beside the pyramid, and a
			// panel over it would hide what the player looks at: the
			// header says lost, the message line what comes next.
			return
		}
	}
	lines := pw.panel(buf[:0], moves, passes, l.boardW-4)
	pyrH := l.pileY - 1
	if len(lines)+2 > pyrH {
		// A short board (one line per card) keeps the panel over the
		// pyramid by leaving out the blank lines.
		lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" })
	}
	w, h := panelSize(lines)
	b.drawPanel(gr, lines, (l.boardW-w)/2, max(0, (pyrH-h)/2))
}

// besidePyramid finds room for the lost summary in a top corner of the
// grid that no card or pile touches (a blank column between), trying
// narrower summaries until one fits; it returns the lines and the
// panel's column in board coordinates.
func (b *board) besidePyramid(gr *grid, pw panelWriter, dst []string, moves, passes string) ([]string, int, bool) {
	lo, hi := -gr.ox+1, gr.w-gr.ox-1 // the grid's columns, a margin kept
	// The widths tried, narrower ones broken onto more lines.
	for _, lw := range [...]int{40, 30, 26, 22} {
		lines := pw.panel(dst[:0], moves, passes, lw)
		for range 2 {
			w, h := panelSize(lines)
			for _, x := range [2]int{lo, hi - w} {
				if x >= lo && x+w <= hi && b.free(x-1, 0, w+2, h) {
					return lines, x, true
				}
			}
			lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" })
		}
	}
	// Last, the summary's title alone ("No moves left") in a top corner,
	// where a whole pyramid's rows are narrow: the header and the message
	// line say the rest, and a box over the cards left would hide what
	// the player looks at.
	if lines := pw.panel(dst[:0], moves, passes, 22); len(lines) > 0 {
		lines = lines[:1]
		w, h := panelSize(lines)
		for _, x := range [2]int{lo, hi - w} {
			if x >= lo && x+w <= hi && b.free(x-1, 0, w+2, h) {
				return lines, x, true
			}
		}
	}
	return nil, 0, false
}

// free reports whether no pyramid card left on the board and nothing of
// the pile row lies in the w×h rectangle at (x, y).
func (b *board) free(x, y, w, h int) bool {
	l := &b.lay
	geo := l.geo
	overlaps := func(rx, ry, rw, rh int) bool {
		return x < rx+rw && rx < x+w && y < ry+rh && ry < y+h
	}
	if overlaps(l.stockLbl, l.pileY, l.wasteX[l.piles-1]+geo.cardW-l.stockLbl, l.boardH-l.pileY) {
		return false
	}
	for s := range b.game.Rules().PyramidSize() {
		if !b.d.present[s] {
			continue
		}
		sx, sy := l.slotPos(engine.Place(s))
		if overlaps(sx, sy, geo.cardW, geo.cardH) {
			return false
		}
	}
	return true
}

// panelSize is the size of the panel framing lines.
func panelSize(lines []string) (w, h int) {
	for _, s := range lines {
		w = max(w, cells(s))
	}
	return w + 4, len(lines) + 2
}

// drawPanel draws the framed panel of lines with its top-left corner at
// board position (x, y), its first line as the title.
func (b *board) drawPanel(gr *grid, lines []string, x, y int) {
	w, h := panelSize(lines)
	gr.fill(x, y, w, h, ' ', sPlain)
	box := b.env.gl.panel
	gr.set(x, y, box[0], sTitle)
	gr.set(x+w-1, y, box[1], sTitle)
	gr.set(x, y+h-1, box[2], sTitle)
	gr.set(x+w-1, y+h-1, box[3], sTitle)
	for i := 1; i < w-1; i++ {
		gr.set(x+i, y, box[4], sTitle)
		gr.set(x+i, y+h-1, box[4], sTitle)
	}
	for j := 1; j < h-1; j++ {
		gr.set(x, y+j, box[5], sTitle)
		gr.set(x+w-1, y+j, box[5], sTitle)
	}
	for j, s := range lines {
		st := sPlain
		if j == 0 {
			st = sTitle
		}
		gr.text(x+(w-cells(s))/2, y+1+j, s, st)
	}
}
