package main

import (
	"strings"
	"unicode/utf8"
)

// screen follows the text a session's terminal shows, as far as the race
// mode needs to read it: characters placed by cursor moves (home and
// absolute moves, the relative ones, CR, LF) and erases (line, below,
// whole screen); styles and modes are dropped. The arcade's renderer
// rewrites only the cells that changed, so a read alone no longer holds
// whole lines: the race mode reads the rows a read touched.
type screen struct {
	w, h    int
	cells   [][]rune // h rows of w cells; 0 is the right half of a wide character
	x, y    int
	touched []bool
	partial []byte // a sequence or character cut by the end of a read
}

// newScreen returns a blank screen of w × h cells.
func newScreen(w, h int) *screen {
	s := &screen{w: max(w, 1), h: max(h, 1)}
	s.cells = make([][]rune, s.h)
	for i := range s.cells {
		s.cells[i] = []rune(strings.Repeat(" ", s.w))
	}
	s.touched = make([]bool, s.h)
	return s
}

// write applies out and returns the text of the rows it touched, top to
// bottom, one line each (trailing blanks cut).
func (s *screen) write(out []byte) string {
	if len(s.partial) > 0 {
		out = append(s.partial, out...)
		s.partial = nil
	}
	for i := 0; i < len(out); {
		n := s.step(out[i:])
		if n == 0 { // cut by the end of the read
			s.partial = append([]byte(nil), out[i:]...)
			break
		}
		i += n
	}
	var b strings.Builder
	for y, t := range s.touched {
		if !t {
			continue
		}
		s.touched[y] = false
		row := s.cells[y]
		end := len(row)
		for end > 0 && row[end-1] == ' ' {
			end--
		}
		for _, r := range row[:end] {
			if r != 0 {
				b.WriteRune(r)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// step applies the control, sequence or character at the start of p and
// returns its size, or 0 if p ends before it does.
func (s *screen) step(p []byte) int {
	switch c := p[0]; {
	case c == 0x1b:
		return s.escape(p)
	case c == '\r':
		s.x = 0
	case c == '\n':
		s.lineFeed()
	case c == '\b':
		s.x = max(0, s.x-1)
	case c < 0x20 || c == 0x7f:
		// other controls move nothing the race mode reads
	default:
		r, n := utf8.DecodeRune(p)
		if r == utf8.RuneError && n == 1 && !utf8.FullRune(p) {
			return 0
		}
		s.put(r)
		return n
	}
	return 1
}

// escape applies the escape sequence at the start of p (CSI sequences;
// OSC and the others are skipped) and returns its size, or 0 if cut.
func (s *screen) escape(p []byte) int {
	if len(p) < 2 {
		return 0
	}
	switch p[1] {
	case '[':
	case ']', 'P', '_', '^': // string sequences, up to BEL or ST
		for i := 2; i < len(p); i++ {
			if p[i] == 0x07 {
				return i + 1
			}
			if p[i] == 0x1b && i+1 < len(p) && p[i+1] == '\\' {
				return i + 2
			}
		}
		return 0
	default:
		return 2
	}
	i := 2
	for i < len(p) && p[i] >= 0x20 && p[i] <= 0x3f {
		i++
	}
	if i == len(p) {
		return 0
	}
	if p[i] < 0x40 || p[i] > 0x7e {
		return i // not a sequence after all: skip its start
	}
	params, final := string(p[2:i]), p[i]
	if strings.HasPrefix(params, "?") { // DEC private modes
		return i + 1
	}
	arg := func(k, def int) int {
		fields := strings.Split(params, ";")
		if k >= len(fields) || fields[k] == "" {
			return def
		}
		v := 0
		for _, d := range fields[k] {
			if d < '0' || d > '9' {
				return def
			}
			v = v*10 + int(d-'0')
		}
		return v
	}
	switch final {
	case 'H', 'f':
		s.y, s.x = min(max(arg(0, 1), 1), s.h)-1, min(max(arg(1, 1), 1), s.w)-1
	case 'A':
		s.y = max(0, s.y-max(arg(0, 1), 1))
	case 'B':
		s.y = min(s.h-1, s.y+max(arg(0, 1), 1))
	case 'C':
		s.x = min(s.w-1, s.x+max(arg(0, 1), 1))
	case 'D':
		s.x = max(0, s.x-max(arg(0, 1), 1))
	case 'G':
		s.x = min(max(arg(0, 1), 1), s.w) - 1
	case 'K':
		switch arg(0, 0) {
		case 0:
			s.erase(s.y, min(s.x, s.w), s.w)
		case 1:
			s.erase(s.y, 0, min(s.x+1, s.w))
		default:
			s.erase(s.y, 0, s.w)
		}
	case 'J':
		from, to := s.y+1, s.h
		switch arg(0, 0) {
		case 0:
			s.erase(s.y, min(s.x, s.w), s.w)
		case 1:
			from, to = 0, s.y
			s.erase(s.y, 0, min(s.x+1, s.w))
		default:
			from = 0
		}
		for y := from; y < to; y++ {
			s.erase(y, 0, s.w)
		}
	}
	return i + 1
}

// erase blanks cells [from, to) of row y.
func (s *screen) erase(y, from, to int) {
	for x := from; x < to; x++ {
		s.cells[y][x] = ' '
	}
	s.touched[y] = true
}

// lineFeed moves down a row, scrolling at the bottom.
func (s *screen) lineFeed() {
	if s.y < s.h-1 {
		s.y++
		return
	}
	first := s.cells[0]
	copy(s.cells, s.cells[1:])
	for x := range first {
		first[x] = ' '
	}
	s.cells[s.h-1] = first
	for y := range s.touched {
		s.touched[y] = true
	}
}

// put writes r at the cursor, wrapping at the right margin.
func (s *screen) put(r rune) {
	w := runeCells(r)
	if w == 0 {
		return // a combining mark: nothing to read
	}
	if s.x+w > s.w {
		s.x = 0
		s.lineFeed()
	}
	s.cells[s.y][s.x] = r
	if w == 2 && s.x+1 < s.w {
		s.cells[s.y][s.x+1] = 0
	}
	s.x += w
	s.touched[s.y] = true
}

// runeCells is r's width: 2 for East Asian wide and emoji blocks, 0 for
// combining marks and joiners, else 1 (enough for the arcade's screens).
func runeCells(r rune) int {
	switch {
	case r >= 0x300 && r <= 0x36f, r == 0x200d, r >= 0xfe00 && r <= 0xfe0f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1faff:
		return 2
	}
	return 1
}
