package tui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"pyramid/engine"
)

// View draws the table: header, board, message line and help bar, exactly
// as many lines as the window is high. A cursor move changes only the lines
// of the two cards involved, so the line renderer sends little.
func (t Table) View() string { return t.view() }

// view is View without copying the table.
func (t *Table) view() string {
	keys := t.barKeys()
	return t.render("", keys[:], tableBarDrop[:])
}

// barKeys is the table's help bar: the key map's short help with w
// (watch the solver's line) among it, enabled when it applies.
func (t *Table) barKeys() [barItems]key.Binding {
	k := &t.Keys
	watch := watchKeys
	watch.SetEnabled(t.canWatch() && !t.fetching)
	return [barItems]key.Binding{
		barMove: k.Move, barSelect: k.Select, barDraw: k.Draw, barUndo: k.Undo, barRedo: k.Redo,
		barHint: k.Hint, barPrompt: k.Prompt, barWatch: watch, barHelp: k.Help, barNew: k.New, barBack: k.Back,
	}
}

// render draws the table with a help bar of bars (dropping them in the
// order of drop when they do not fit) and, when right is not empty, right
// as the right side of the header in place of the game's figures: the
// watch screen draws its board so.
func (t *Table) render(right string, bar []key.Binding, drop []uint8) string {
	l := &t.lay
	gr := getGrid(l.boardW, l.boardH)
	t.drawBoard(gr)
	vc := t.cache
	if k := (headerKey{t.version, t.w}); k != vc.headerKey || vc.header == "" {
		var hb strings.Builder
		t.writeHeader(&hb, right)
		vc.headerKey, vc.header = k, hb.String()
	}
	buf := append(gr.out[:0], vc.header...)
	y := chromeTop
	for ; y < l.boardY; y++ {
		buf = append(buf, '\n')
	}
	for j := 0; j < l.boardH && y < t.h-chromeBottom; j, y = j+1, y+1 {
		start := len(buf)
		buf = appendBlanks(buf, l.boardX)
		margin := len(buf)
		if buf = gr.line(buf, t.env.pal, j); len(buf) == margin {
			buf = buf[:start] // a blank line needs no margin
		}
		buf = append(buf, '\n')
	}
	for ; y < t.h-chromeBottom; y++ {
		buf = append(buf, '\n')
	}
	switch {
	case t.promptOpen:
		buf = append(buf, ' ')
		buf = append(buf, t.prompt.view(t.env.pal, t.w-1)...)
	case t.msg != "":
		if k := (msgKey{t.msg, t.msgSt, t.w}); k != vc.msgKey || vc.msgLine == "" {
			vc.msgKey = k
			vc.msgLine = " " + t.env.pal.style(t.msgSt, cut(t.msg, t.w-2, t.env.gl.ell))
		}
		buf = append(buf, vc.msgLine...)
	}
	buf = append(buf, '\n')
	buf = append(buf, t.bar.viewDropping(t.env, bar, drop, t.w)...)
	frame := string(buf)
	gr.out = buf
	putGrid(gr)
	return frame
}

// writeHeader writes the two header lines: the rule set and deal on the
// left, the pass, the cards removed and the moves on the right (on the
// second line when the window is narrow), or right there when it is not
// empty.
func (t *Table) writeHeader(b *strings.Builder, right string) {
	if right == "" {
		right = t.figures()
	}
	left := cut(t.title, t.w-2, t.env.gl.ell)
	lw, rw := cells(left), cells(right)
	b.WriteByte(' ')
	b.WriteString(t.env.pal.style(sBold, left))
	if 1+lw+2+rw+1 <= t.w {
		pad(b, t.w-1-lw-rw-1)
		b.WriteString(right)
		b.WriteString("\n\n")
		return
	}
	b.WriteByte('\n')
	pad(b, max(1, t.w-rw-1))
	b.WriteString(right)
	b.WriteByte('\n')
}

// figures is the header's right side: the pass, the cards removed, the
// moves and how the game ended.
func (t *Table) figures() string {
	g := t.game
	total := g.Rules().PyramidSize()
	if g.Rules().Goal == engine.GoalAll {
		total = g.Rules().DeckSize()
	}
	var r strings.Builder
	r.WriteString("pass ")
	r.WriteString(strconv.Itoa(g.Pass()))
	r.WriteString(t.passesOf())
	r.WriteString(t.env.gl.sep)
	r.WriteString(strconv.Itoa(t.d.removed))
	r.WriteByte('/')
	r.WriteString(strconv.Itoa(total))
	r.WriteString(" removed")
	r.WriteString(t.env.gl.sep)
	r.WriteString(strconv.Itoa(g.MovesMade()))
	r.WriteString(plural(g.MovesMade(), " move", " moves"))
	switch t.d.status {
	case engine.Won:
		r.WriteString(t.env.gl.sep + "won")
	case engine.Lost:
		r.WriteString(t.env.gl.sep + "lost")
	}
	return r.String()
}

// drawBoard draws the pyramid, the piles and, after a win, the panel.
func (t *Table) drawBoard(gr *grid) {
	l := &t.lay
	d := &t.d
	n := t.game.Rules().PyramidSize()
	for s := range n {
		if !d.present[s] {
			continue
		}
		p := engine.Place(s)
		x, y := l.slotPos(p)
		c, _ := t.game.PyramidCard(p)
		rows := l.geo.cardH
		if t.covered(p) {
			rows = l.geo.rowStep
		}
		t.drawCard(gr, x, y, c, true, p, d.target[s], rows)
	}
	pal := sDim
	gr.text(l.stockLbl, l.labelLine, "stock", pal)
	gr.text(l.countX, l.labelLine, strconv.Itoa(d.stockN), pal)
	gr.text(l.wasteLbl, l.labelLine, "waste", pal)
	switch {
	case t.game.Rules().StockOpen && d.stockHas:
		t.drawCard(gr, l.stockX, l.pileY, d.stockTop, true, engine.Stock, t.isTarget(engine.Stock), l.geo.cardH)
	case d.stockN > 0:
		t.drawCard(gr, l.stockX, l.pileY, 0, false, engine.Stock, true, l.geo.cardH)
	default:
		t.drawEmpty(gr, l.stockX, l.pileY, engine.Stock)
	}
	for i := range t.game.Piles() {
		p := t.game.WastePlace(i)
		x, y := l.placePos(p)
		if d.wasteHas[i] {
			t.drawCard(gr, x, y, d.waste[i], true, p, true, l.geo.cardH)
		} else {
			t.drawEmpty(gr, x, y, p)
		}
	}
	if d.status == engine.Won {
		t.drawWinPanel(gr)
	}
}

// look is how the card at p is drawn: its style (the black variant) and
// the marks beside its face. Every state has a cue that needs no colour:
// the marks.
func (t *Table) look(p engine.Place, avail bool) (styleID, [2]rune) {
	gl := t.env.gl
	cur := p == t.cursor && t.d.status != engine.Won && !t.watching
	sel := p == t.sel && !t.watching
	hint := t.hint.Kind != 0 && (t.hint.A == p || t.hint.B == p ||
		(p == engine.Stock && (t.hint.Kind == engine.Draw || t.hint.Kind == engine.Redeal)))
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
func (t *Table) drawCard(gr *grid, x, y int, c engine.Card, faceUp bool, p engine.Place, avail bool, rows int) {
	geo := t.lay.geo
	base, marks := t.look(p, avail)
	face := t.env.gl.faces[c]
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
		b := t.env.gl.back
		face = [3]rune{b, b, b}
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
	t.drawBox(gr, x, y, rows, t.env.gl.box, frame, sPlain)
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
func (t *Table) drawBox(gr *grid, x, y, rows int, box [6]rune, frame, inner styleID) {
	w, h := t.lay.geo.cardW, t.lay.geo.cardH
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
func (t *Table) drawEmpty(gr *grid, x, y int, p engine.Place) {
	geo := t.lay.geo
	base, marks := t.look(p, true)
	lit := base == sCurBlack || base == sHintBlack
	st := sDim
	if lit {
		st = base
	} else {
		marks = t.env.gl.markAv
	}
	if !geo.boxed {
		gr.set(x, y, marks[0], st)
		gr.set(x+4, y, marks[1], st)
		return
	}
	t.drawBox(gr, x, y, geo.cardH, t.env.gl.box, sDim, sPlain)
	if lit {
		gr.fill(x, y+1, geo.cardW, 1, ' ', st)
		gr.set(x, y+1, marks[0], st)
		gr.set(x+geo.cardW-1, y+1, marks[1], st)
	}
}

// drawWinPanel draws the end-of-game panel over the empty pyramid: time,
// moves, passes used, the solver's answer about the deal, and how to go
// on. On the watch screen it says the solver's line won.
func (t *Table) drawWinPanel(gr *grid) {
	l := &t.lay
	g := t.game
	gl := t.env.gl
	passes := strconv.Itoa(g.Pass()) + plural(g.Pass(), " pass", " passes")
	if g.Passes() > 0 {
		passes = strconv.Itoa(g.Pass()) + " of " + strconv.Itoa(g.Passes()) + plural(g.Passes(), " pass", " passes")
	}
	moves := strconv.Itoa(g.MovesMade()) + plural(g.MovesMade(), " move", " moves")
	var buf [10]string
	lines := buf[:0]
	if t.watching {
		title := "The solver cleared the pyramid"
		if g.Rules().Goal == engine.GoalAll {
			title = "The solver removed every card"
		}
		prev := "h"
		if gl.unicode {
			prev = "←"
		}
		lines = append(lines, title, "", moves+gl.sep+passes, "", prev+": step back"+gl.sep+"q: back")
	} else {
		title := "You cleared the pyramid!"
		if g.Rules().Goal == engine.GoalAll {
			title = "You removed every card!"
		}
		tm := gl.ell
		if t.wonKnown {
			tm = clock(t.wonIn)
		}
		lines = append(lines, title, "", "time "+tm+gl.sep+moves+gl.sep+passes)
		if s := t.answer.sentence(gl); s != "" {
			lines = append(lines, "")
			lines = appendWrapped(lines, s, l.boardW-4)
		}
		lines = append(lines, "", "enter or n: new deal"+gl.sep+"q: menu")
	}
	pyrH := l.pileY - 1
	if len(lines)+2 > pyrH {
		// A short board (one line per card) keeps the panel over the
		// pyramid by leaving out the blank lines.
		lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" })
	}
	w := 0
	for _, s := range lines {
		w = max(w, cells(s))
	}
	w += 4
	h := len(lines) + 2
	x := (l.boardW - w) / 2
	y := max(0, (pyrH-h)/2)
	gr.fill(x, y, w, h, ' ', sPlain)
	box := gl.panel
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

// appendWrapped appends s to lines, broken after its colon when it is
// wider than w cells, and cut when a part still is.
func appendWrapped(lines []string, s string, w int) []string {
	if cells(s) > w {
		if a, b, ok := strings.Cut(s, ": "); ok {
			return append(lines, cut(a+":", w, ""), cut(b, w, ""))
		}
	}
	return append(lines, cut(s, w, ""))
}

// clock formats a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 0 {
		s = 0
	}
	two := func(n int) string {
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	}
	if s >= 3600 {
		return strconv.Itoa(s/3600) + ":" + two(s/60%60) + ":" + two(s%60)
	}
	return strconv.Itoa(s/60) + ":" + two(s%60)
}

// blanks is a run of spaces for padding.
const blanks = "                                                                "

// pad writes n spaces.
func pad(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(blanks))
		b.WriteString(blanks[:k])
		n -= k
	}
}

// appendBlanks appends n spaces.
func appendBlanks(buf []byte, n int) []byte {
	for n > 0 {
		k := min(n, len(blanks))
		buf = append(buf, blanks[:k]...)
		n -= k
	}
	return buf
}
