package tui

import (
	"strings"
	"unicode/utf8"
)

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
}

// reset clears the grid to w×h blanks.
func (g *grid) reset(w, h int) {
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

// appendLine writes line y of the grid to b, with its styles, trailing
// blanks dropped.
func (g *grid) appendLine(b *strings.Builder, p *palette, y int) {
	row := g.cells[y*g.w : (y+1)*g.w]
	end := len(row)
	for end > 0 && row[end-1].r == ' ' && !p.onSpace[row[end-1].s] {
		end--
	}
	w := styleWriter{p: p, b: b}
	var buf [utf8.UTFMax]byte
	for _, c := range row[:end] {
		if c.s != w.cur && !(c.r == ' ' && !p.onSpace[c.s] && !p.onSpace[w.cur]) {
			w.set(c.s)
		}
		if c.r < utf8.RuneSelf {
			b.WriteByte(byte(c.r))
		} else {
			n := utf8.EncodeRune(buf[:], c.r)
			b.Write(buf[:n])
		}
	}
	w.end()
}
