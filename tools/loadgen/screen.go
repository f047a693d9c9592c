package main

import (
	"strings"
	"unicode/utf8"
)

// screen is a racer's terminal as far as the race mode needs it: the
// text of each row, kept up to date from the output. The arcade's
// renderer writes only the cells that changed (a cursor move to the first
// of them, then the new text), so an opponent's move may arrive as one
// digit: only a copy of the screen says which racer's line it is. It
// knows the sequences that renderer writes (cursor moves, erasing,
// carriage return and line feed) and skips every other escape sequence;
// each rune takes one cell (the arcade's glyphs and the run's names do).
type screen struct {
	w, h     int
	cells    [][]rune
	row, col int
	dirty    []bool // rows written since the last take
	pending  []byte // an escape sequence or a rune cut by the end of a read
}

func newScreen(w, h int) *screen {
	s := &screen{w: max(w, 1), h: max(h, 1)}
	s.cells = make([][]rune, s.h)
	s.dirty = make([]bool, s.h)
	for i := range s.cells {
		s.cells[i] = make([]rune, s.w)
		s.clearRow(i, 0, s.w)
		s.dirty[i] = false
	}
	return s
}

func (s *screen) clearRow(r, from, to int) {
	row := s.cells[r]
	for c := max(from, 0); c < min(to, s.w); c++ {
		row[c] = ' '
	}
	s.dirty[r] = true
}

// write applies a read of output to the screen.
func (s *screen) write(b []byte) {
	if len(s.pending) > 0 {
		b = append(s.pending, b...)
		s.pending = nil
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			n, ok := s.escape(b[i:])
			if !ok {
				if len(b)-i < 256 {
					s.pending = append([]byte(nil), b[i:]...)
				}
				return
			}
			i += n
		case c == '\r':
			s.col = 0
			i++
		case c == '\n':
			s.row = min(s.row+1, s.h-1)
			i++
		case c == '\b':
			s.col = max(s.col-1, 0)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		default:
			if !utf8.FullRune(b[i:]) {
				s.pending = append([]byte(nil), b[i:]...)
				return
			}
			r, size := utf8.DecodeRune(b[i:])
			i += size
			if s.col >= s.w {
				s.col, s.row = 0, min(s.row+1, s.h-1)
			}
			s.cells[s.row][s.col] = r
			s.dirty[s.row] = true
			s.col++
		}
	}
}

// escape applies the escape sequence at the start of b and returns its
// length; ok is false when b ends before the sequence does.
func (s *screen) escape(b []byte) (n int, ok bool) {
	if len(b) < 2 {
		return 0, false
	}
	switch b[1] {
	case '[':
		j := 2
		for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
			j++
		}
		if j == len(b) {
			return 0, false
		}
		s.csi(b[2:j], b[j])
		return j + 1, true
	case ']', 'P', '_', '^': // a string, to BEL or ST
		for j := 2; j < len(b); j++ {
			if b[j] == 0x07 {
				return j + 1, true
			}
			if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
				return j + 2, true
			}
		}
		return 0, false
	}
	return 2, true
}

// csi applies a control sequence: params are its parameter bytes, final
// its last byte.
func (s *screen) csi(params []byte, final byte) {
	if len(params) > 0 && (params[0] == '?' || params[0] == '>' || params[0] == '<' || params[0] == '=') {
		return // private modes
	}
	arg := func(k, def int) int {
		n, field := 0, 0
		seen := false
		for _, c := range params {
			if c == ';' {
				if field == k {
					break
				}
				field++
				n, seen = 0, false
				continue
			}
			if field == k && c >= '0' && c <= '9' {
				n, seen = n*10+int(c-'0'), true
			}
		}
		if field < k || !seen || n == 0 {
			return def
		}
		return n
	}
	switch final {
	case 'H', 'f':
		s.row, s.col = min(arg(0, 1), s.h)-1, min(arg(1, 1), s.w)-1
	case 'A':
		s.row = max(s.row-arg(0, 1), 0)
	case 'B':
		s.row = min(s.row+arg(0, 1), s.h-1)
	case 'C':
		s.col = min(s.col+arg(0, 1), s.w-1)
	case 'D':
		s.col = max(s.col-arg(0, 1), 0)
	case 'G':
		s.col = min(arg(0, 1), s.w) - 1
	case 'd':
		s.row = min(arg(0, 1), s.h) - 1
	case 'K':
		switch arg(0, 0) {
		case 0:
			s.clearRow(s.row, s.col, s.w)
		case 1:
			s.clearRow(s.row, 0, s.col+1)
		case 2:
			s.clearRow(s.row, 0, s.w)
		}
	case 'J':
		switch arg(0, 0) {
		case 0:
			s.clearRow(s.row, s.col, s.w)
			for r := s.row + 1; r < s.h; r++ {
				s.clearRow(r, 0, s.w)
			}
		case 1:
			for r := 0; r < s.row; r++ {
				s.clearRow(r, 0, s.w)
			}
			s.clearRow(s.row, 0, s.col+1)
		case 2, 3:
			for r := range s.h {
				s.clearRow(r, 0, s.w)
			}
		}
	}
}

// takeDirty appends the text of each row written since the last call
// that holds sub, and forgets which rows were written.
func (s *screen) takeDirty(dst []string, sub string) []string {
	for r, d := range s.dirty {
		if !d {
			continue
		}
		s.dirty[r] = false
		if line := string(s.cells[r]); strings.Contains(line, sub) {
			dst = append(dst, line)
		}
	}
	return dst
}

// text is the whole screen, a line a row.
func (s *screen) text() string {
	var b []byte
	for r := range s.cells {
		if r > 0 {
			b = append(b, '\n')
		}
		b = append(b, string(s.cells[r])...)
	}
	return string(b)
}

// takeWritten appends the index of each row written since the last take
// and forgets which rows were written.
func (s *screen) takeWritten(dst []int) []int {
	for r, d := range s.dirty {
		if d {
			s.dirty[r] = false
			dst = append(dst, r)
		}
	}
	return dst
}

// line is row r's text.
func (s *screen) line(r int) string { return string(s.cells[r]) }
