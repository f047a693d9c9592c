package tui

import "unicode/utf8"

// cell is one character cell of the board.
type cell struct {
	r rune
	s styleID
}

// grid is the board as cells, drawn in board coordinates and turned into
// lines by a palette. Every glyph drawn into it is one cell wide. A session
// keeps one grid and reuses it for every frame; it covers the board only,
// not the window, so its size is bounded whatever the window size.
type grid struct {
	w, h  int
	cells []cell
	// Lines that change rarely are kept between frames with the state
	// they were drawn from: measuring text is the dearest part of a frame.
	headerKey headerKey
	header    string
	msgKey    msgKey
	msgLine   string
	// out is the frame's buffer, reused from frame to frame.
	out []byte
	// prev holds the cells of the last frame and lines their text, so a
	// line whose cells did not change is not written again.
	prev  []cell
	lines [][]byte
}

// headerKey is what the header lines depend on.
type headerKey struct {
	version, w int
}

// msgKey is what the message line depends on.
type msgKey struct {
	msg string
	st  styleID
	w   int
}

// reset clears the grid to w×h blanks.
func (g *grid) reset(w, h int) {
	if w != g.w || h != g.h {
		g.prev, g.lines = nil, nil
	}
	g.w, g.h = w, h
	if cap(g.cells) < w*h {
		g.cells = make([]cell, w*h)
	}
	g.cells = g.cells[:w*h]
	for i := range g.cells {
		g.cells[i] = cell{' ', sPlain}
	}
}

// set puts r in style s at (x, y); cells outside the grid are ignored.
func (g *grid) set(x, y int, r rune, s styleID) {
	if x < 0 || y < 0 || x >= g.w || y >= g.h {
		return
	}
	g.cells[y*g.w+x] = cell{r, s}
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
		for i := x; i < x+w; i++ {
			g.set(i, j, r, st)
		}
	}
}

// appendLine appends line y of the grid to buf, with its styles, trailing
// blanks dropped: an escape sequence only where the style changes, and
// blanks kept in the current style when neither shows on a blank.
func (g *grid) appendLine(buf []byte, p *palette, y int) []byte {
	row := g.cells[y*g.w : (y+1)*g.w]
	end := len(row)
	for end > 0 && row[end-1].r == ' ' && !p.onSpace[row[end-1].s] {
		end--
	}
	cur := sPlain
	for _, c := range row[:end] {
		if c.s != cur && !(c.r == ' ' && !p.onSpace[c.s] && !p.onSpace[cur]) {
			buf = p.appendStyle(buf, cur, c.s)
			cur = c.s
		}
		if c.r < utf8.RuneSelf {
			buf = append(buf, byte(c.r))
		} else {
			buf = utf8.AppendRune(buf, c.r)
		}
	}
	return p.appendStyle(buf, cur, sPlain)
}

// line returns line y's text with its styles, reusing the last frame's
// text when the line's cells did not change.
func (g *grid) line(p *palette, y int) []byte {
	if len(g.lines) != g.h || len(g.prev) != len(g.cells) {
		g.lines = make([][]byte, g.h)
		g.prev = make([]cell, len(g.cells))
		for i := range g.prev {
			g.prev[i].r = -1 // matches no cell
		}
	}
	row, prev := g.cells[y*g.w:(y+1)*g.w], g.prev[y*g.w:(y+1)*g.w]
	same := true
	for i := range row {
		if row[i] != prev[i] {
			same = false
			break
		}
	}
	if !same {
		copy(prev, row)
		g.lines[y] = g.appendLine(g.lines[y][:0], p, y)
	}
	return g.lines[y]
}
