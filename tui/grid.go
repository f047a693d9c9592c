package tui

import (
	"encoding/binary"
	"slices"
	"sync"
	"unicode/utf8"
)

// cell is one character cell of the board. The zero cell is a blank in
// the plain style, so that clearing a grid is a memory clear; set stores
// a blank as rune 0.
type cell struct {
	r rune
	s styleID
}

// grid is the board as cells, drawn in board coordinates and turned into
// lines by a palette. Every glyph drawn into it is one cell wide. A grid
// and the frame's text are scratch for one View: they are borrowed from
// gridPool and given back when the frame is written, so a session keeps
// no board between frames (idle sessions are the most, and each would
// otherwise hold some 20 KB of cells and lines).
type grid struct {
	w, h  int
	cells []cell
	// ox is added to every column drawn: a board drawn into a grid wider
	// than itself (the lost table's, whose summary sits beside the
	// pyramid) keeps its own coordinates.
	ox int
	// spans are the columns of each line that were drawn on: the cells
	// outside a line's span are blanks, which appendLine need not look at.
	spans []span
	// out is the text of the frame being written, at says where each
	// board line is in it, and pal is the palette it is written in.
	out []byte
	at  []lineAt
	pal *palette

	// The last frame drawn in this grid, whichever session drew it: its
	// cells, its text and where its board lines are in it, its size and
	// palette. A line's text depends on its cells and the palette alone,
	// so a line whose cells are the same is copied from there rather
	// than written again (a redraw of an unchanged board, the lines a
	// cursor move leaves alone). A frame and the last one trade buffers,
	// so keeping it costs no copy.
	last         []cell
	lastOut      []byte
	lastAt       []lineAt
	lastPal      *palette
	lastW, lastH int
}

// lineAt is where a board line's text is in a frame's text; end < 0 for
// a line the frame did not write.
type lineAt struct{ start, end int }

// gridPool holds the grids of the frames being drawn, shared by every
// session. A grid keeps its last frame, whichever session drew it, only
// to copy the lines that come out the same; every View resets the cells
// it draws.
var gridPool = sync.Pool{New: func() any { return new(grid) }}

// maxPooledFrame is the largest frame buffer given back to gridPool; a
// huge window's frame is left to the collector rather than kept.
const maxPooledFrame = 64 << 10

// getGrid borrows a grid cleared to w×h blanks.
func getGrid(w, h int) *grid {
	g := gridPool.Get().(*grid)
	g.reset(w, h)
	return g
}

// putGrid gives a grid back once its frame, out, is written: the frame
// becomes the grid's last one.
func putGrid(g *grid) {
	g.cells, g.last = g.last, g.cells
	g.out, g.lastOut = g.lastOut[:0], g.out
	g.at, g.lastAt = g.lastAt, g.at
	g.lastPal, g.lastW, g.lastH = g.pal, g.w, g.h
	if cap(g.lastOut) > maxPooledFrame {
		g.lastOut, g.lastPal = nil, nil
	}
	gridPool.Put(g)
}

// viewCache keeps the lines of the table that change rarely, with the
// state they were drawn from: measuring text is the dearest part of a
// frame. It is shared by the copies of a table and checked against what
// is drawn, so a stale line is never shown.
type viewCache struct {
	headerKey headerKey
	header    string
	msgKey    msgKey
	msgLine   string
}

// span is a range [lo, hi) of columns; empty when hi <= lo.
type span struct{ lo, hi int32 }

// headerKey is what the header lines depend on.
type headerKey struct {
	version, w int
	watchers   int // spectators (board.watchers)
	clock      string
	// title is the title shown (board.shownTitle), which an arena race
	// changes with the player's points.
	title string
}

// msgKey is what the message line depends on.
type msgKey struct {
	msg string
	st  styleID
	w   int
}

// reset clears the grid to w×h blanks.
func (g *grid) reset(w, h int) {
	g.w, g.h, g.ox = w, h, 0
	if cap(g.cells) < w*h {
		g.cells = make([]cell, w*h)
	}
	g.cells = g.cells[:w*h]
	clear(g.cells)
	if cap(g.spans) < h {
		g.spans = make([]span, h)
	}
	g.spans = g.spans[:h]
	for i := range g.spans {
		g.spans[i] = span{lo: int32(w)}
	}
	g.at = slices.Grow(g.at[:0], h)[:h]
	for i := range g.at {
		g.at[i] = lineAt{end: -1}
	}
}

// set puts r in style s at (x, y); cells outside the grid are ignored.
func (g *grid) set(x, y int, r rune, s styleID) {
	x += g.ox
	if uint(x) >= uint(g.w) || uint(y) >= uint(g.h) {
		return
	}
	if r == ' ' {
		r = 0
	}
	g.cells[y*g.w+x] = cell{r, s}
	sp := &g.spans[y]
	sp.lo, sp.hi = min(sp.lo, int32(x)), max(sp.hi, int32(x+1))
}

// hline sets n cells from (x, y) rightwards to r in style s, clipped to
// the grid.
func (g *grid) hline(x, y, n int, r rune, s styleID) {
	if uint(y) >= uint(g.h) {
		return
	}
	x += g.ox
	lo, hi := max(x, 0), min(x+n, g.w)
	if lo >= hi {
		return
	}
	if r == ' ' {
		r = 0
	}
	row := g.cells[y*g.w+lo : y*g.w+hi]
	for i := range row {
		row[i] = cell{r, s}
	}
	sp := &g.spans[y]
	sp.lo, sp.hi = min(sp.lo, int32(lo)), max(sp.hi, int32(hi))
}

// text writes s from (x, y) in style st, one cell per rune, and returns
// the column after it. Callers pass only text of one-cell runes.
func (g *grid) text(x, y int, s string, st styleID) int {
	for _, r := range s {
		g.set(x, y, r, st)
		x++
	}
	return x
}

// fill sets the w×h rectangle at (x, y) to r in style st.
func (g *grid) fill(x, y, w, h int, r rune, st styleID) {
	for j := y; j < y+h; j++ {
		g.hline(x, j, w, r, st)
	}
}

// line appends line y of the grid to buf in palette p, as appendLine
// does, copying the last frame's text of the line when its cells were
// the same. buf is the frame's text: the grid notes where the line is in
// it, for the next frame.
func (g *grid) line(buf []byte, p *palette, y int) []byte {
	g.pal = p
	start := len(buf)
	row := g.cells[y*g.w : (y+1)*g.w]
	if p == g.lastPal && g.w == g.lastW && g.h == g.lastH && g.lastAt[y].end >= 0 &&
		slices.Equal(row, g.last[y*g.w:(y+1)*g.w]) {
		buf = append(buf, g.lastOut[g.lastAt[y].start:g.lastAt[y].end]...)
	} else {
		buf = g.appendLine(buf, p, y)
	}
	g.at[y] = lineAt{start, len(buf)}
	return buf
}

// appendLine appends line y of the grid to buf, with its styles, trailing
// blanks dropped: an escape sequence only where the style changes, and
// blanks kept in the current style when neither shows on a blank. Every
// frame writes every line, so the loop is written for speed: it looks at
// the line's span only, and encodes UTF-8 itself into room made for four
// bytes a cell (the board's runes are ASCII or box drawing; the library's
// encoder is a call per rune).
func (g *grid) appendLine(buf []byte, p *palette, y int) []byte {
	row := g.cells[y*g.w : (y+1)*g.w]
	lo, end := int(g.spans[y].lo), int(g.spans[y].hi)
	for end > lo && row[end-1].r == 0 && !p.onSpace[row[end-1].s] {
		end--
	}
	if end <= lo {
		return buf // nothing but blanks
	}
	// The blanks before the span are plain: no style changes there.
	buf = appendBlanks(buf, lo)
	cur := sPlain
	n := len(buf)
	b := slices.Grow(buf, 4*(end-lo))[:n+4*(end-lo)]
	for i, c := range row[lo:end] {
		if c.s != cur && (c.r != 0 || p.onSpace[c.s] || p.onSpace[cur]) {
			b = p.appendStyle(b[:n], cur, c.s)
			cur = c.s
			n = len(b)
			left := 4 * (end - lo - i)
			b = slices.Grow(b, left)[:n+left]
		}
		// Four bytes are free at b[n:]: one store writes the rune.
		switch r := uint32(c.r); {
		case r == 0:
			b[n] = ' '
			n++
		case r < 0x80:
			b[n] = byte(r)
			n++
		case r < 0x800:
			binary.LittleEndian.PutUint32(b[n:n+4], 0x80c0|r>>6|(r&0x3f)<<8)
			n += 2
		case r < 0xd800 || r >= 0xe000 && r < 0x10000:
			binary.LittleEndian.PutUint32(b[n:n+4], 0x8080e0|r>>12|(r>>6&0x3f)<<8|(r&0x3f)<<16)
			n += 3
		default:
			n = len(utf8.AppendRune(b[:n], c.r))
		}
	}
	return p.appendStyle(b[:n], cur, sPlain)
}
