package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"golang.org/x/text/unicode/norm"

	"github.com/charmbracelet/x/ansi"
)

// cells is the width of s in terminal cells.
func cells(s string) int {
	if n := narrowRunes(s); n >= 0 {
		return n
	}
	return ansi.StringWidth(s)
}

// cut shortens plain text s to at most w cells, ending it with tail when
// it was cut.
func cut(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	n := narrowRunes(s)
	if n < 0 {
		if cells(s) <= w {
			return s
		}
		return ansi.Truncate(s, w, tail)
	}
	if n <= w {
		return s
	}
	// As ansi.Truncate: as many runes as leave room for the tail.
	keep := w - cells(tail)
	if keep < 0 {
		return ""
	}
	for i := range s {
		if keep == 0 {
			return s[:i] + tail
		}
		keep--
	}
	return s + tail
}

// narrowRunes returns the number of runes of s when each is one cell wide
// and a grapheme cluster of its own, as nearly all the text the screens
// draw is (ASCII, Latin-1, the dashes and the ellipsis, arrows, box
// drawing, the suits), or -1 when s has any other rune, an escape
// sequence or a control character: measuring such text a rune at a time
// is several times faster than by grapheme clusters, and measuring is
// most of the work of drawing a menu.
func narrowRunes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !narrow(r) {
			return -1
		}
		i += size - 1
		n++
	}
	return n
}

// narrow reports whether r is one cell wide and never joins a neighbour
// into one grapheme cluster (no combining mark, joiner, variation
// selector or emoji presentation is among these). TestNarrow checks
// every one against ansi.StringWidth.
func narrow(r rune) bool {
	switch {
	case r >= 0x20 && r < 0x7f:
		return true
	case r < 0xa0:
		return false
	case r <= 0xff:
		return r != 0xad // the soft hyphen is invisible
	}
	return r >= 0x2010 && r <= 0x2027 || // dashes, quotes, bullet, ellipsis
		r >= 0x2190 && r <= 0x21ff || // arrows
		r == 0x221e || r == 0x00d7 || // ∞ ×
		r >= 0x2500 && r <= 0x259f || // box drawing, blocks
		r >= 0x2660 && r <= 0x2667 || // the suits
		r == 0x2713 // ✓
}

// clean makes a string from outside (a player name, a notice) safe to
// show: escape sequences are dropped, control, format and bidi characters
// become '?', and the result is cut to at most w cells. The keys package
// cleans names already; this is the last line of defence at the screen.
func clean(s string, w int) string {
	if printableASCII(s) {
		return cut(s, w, "…") // nothing to strip or replace: no copy
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r == unicode.ReplacementChar, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return cut(b.String(), w, "…")
}

// printableASCII reports whether s is printable ASCII only (no escape,
// no control character), which clean leaves as it is.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// asciiReplacer maps the non-ASCII characters of shared texts to ASCII of
// the same width. The suits are among them for the messages a session
// wrote with symbols before the player chose letters ("8♣ selected").
// It holds no state and is safe for concurrent use.
var asciiReplacer = strings.NewReplacer("·", "-", "…", ".", "—", "-", "×", "x", "∞", "~",
	"←/→", "<->", "↑/↓", "^/v", "←↓↑→", "keys", "✓", "v",
	"♠", "S", "♥", "H", "♦", "D", "♣", "C")

// asciiFold spells what is left of a view in ASCII, for a terminal that
// shows nothing else, cell for cell: a letter with accents is the letter
// without them (dån: dan), anything else non-ASCII a '?' per cell it
// takes. Escape sequences pass, so styles stay.
func asciiFold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s // no copy
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		if base := foldRune(r); base != 0 {
			b.WriteRune(base)
			continue
		}
		b.WriteString(strings.Repeat("?", max(1, cells(string(r)))))
	}
	return b.String()
}

// foldRune is the ASCII letter a rune is with its marks taken off, or 0.
func foldRune(r rune) rune {
	d := norm.NFD.String(string(r))
	if d == "" || d[0] >= 0x80 {
		return 0
	}
	for _, m := range d[1:] {
		if !unicode.Is(unicode.Mn, m) {
			return 0
		}
	}
	return rune(d[0])
}

// drawPage draws a screen of the account: the title, a dim line under it
// (none when sub is empty), the body lines, then the message line and the
// help bar, exactly h lines, every line cut to the width.
func drawPage(e *env, w, h int, title, sub string, body []string, msg string, msgSt styleID, bar *helpBar, keys []key.Binding) string {
	var b strings.Builder
	b.Grow(w * h)
	pal := e.pal
	out := lines{b: &b}
	out.add(" " + pal.style(sTitle, cut(title, w-2, e.gl.ell)))
	if sub != "" {
		out.add(" " + pal.style(sDim, cut(sub, w-2, e.gl.ell)))
	}
	// A message wider than the window takes the blank lines the body
	// leaves above it, as many as it needs and there are.
	msgs := []string{msg}
	if cells(msg) > w-2 {
		msgs = wrapWords(msg, max(10, w-2))
		spare := h - 2 - out.n - len(body)
		if n := len(msgs) - 1 - max(spare, 0); n > 0 {
			msgs = append(msgs[:len(msgs)-n-1], strings.Join(msgs[len(msgs)-n-1:], " "))
		}
	}
	for _, line := range body {
		if out.n >= h-1-len(msgs) {
			break
		}
		out.add(cut(line, w, ""))
	}
	out.fill(h - 1 - len(msgs))
	for _, m := range msgs {
		out.add(" " + pal.style(msgSt, cut(m, w-2, e.gl.ell)))
	}
	b.WriteByte('\n')
	b.WriteString(bar.view(e, keys, w))
	return b.String()
}

// flow fills at most n lines of width w with pieces of text joined by
// sep, starting a new line where the next piece does not fit; the last
// line is cut.
func flow(pieces []string, sep string, w, n int) []string {
	var out []string
	line := ""
	for _, p := range pieces {
		switch {
		case line == "":
			line = p
		case cells(line)+cells(sep)+cells(p) <= w:
			line += sep + p
		case len(out) < n-1:
			out = append(out, cut(line, w, "…"))
			line = p
		default:
			line += sep + p
		}
	}
	if line != "" {
		out = append(out, cut(line, w, "…"))
	}
	return out
}

// wrapWords breaks text at spaces into lines of at most w cells; a word
// longer than w stays whole on its own line, for the caller to cut.
func wrapWords(text string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && cells(line)+1+cells(word) > w {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(out, line)
}

// wrapIndented returns lines with every line of plain text wider than w
// cells broken at spaces onto more lines, each after the line's own
// indent (its leading blanks): a page's sentences read whole in a narrow
// window. A line that fits, or has styles, is as it was (drawPage cuts
// it).
func wrapIndented(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		if cells(l) <= w || strings.Contains(l, "\x1b") {
			out = append(out, l)
			continue
		}
		text := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(text)]
		for _, part := range wrapWords(text, max(10, w-len(indent))) {
			out = append(out, indent+part)
		}
	}
	return out
}

// wrapCut breaks plain text at spaces into lines of at most w cells, the
// first of them first cells at most: whole words where they fit on a
// line, and a word longer than a line cut where the line ends and carried
// on the next. Runs of blanks are one.
func wrapCut(text string, first, w int) []string {
	w, first = max(w, 1), max(first, 1)
	var out []string
	var line strings.Builder
	lineW, width := 0, first
	next := func() {
		out = append(out, line.String())
		line.Reset()
		lineW, width = 0, w
	}
	for _, word := range strings.Fields(text) {
		ww := cells(word)
		switch {
		case lineW > 0 && lineW+1+ww <= width:
			line.WriteByte(' ')
			line.WriteString(word)
			lineW += 1 + ww
			continue
		case lineW == 0 && ww <= width:
			line.WriteString(word)
			lineW = ww
			continue
		case ww <= w:
			// Whole on a line of its own.
			next()
			line.WriteString(word)
			lineW = ww
			continue
		}
		// Longer than a line: cut, from where this line is.
		if lineW > 0 && lineW+2 <= width {
			line.WriteByte(' ')
			lineW++
		} else if lineW > 0 {
			next()
		}
		for _, r := range word {
			rw := cells(string(r))
			if lineW+rw > width && lineW > 0 {
				next()
			}
			line.WriteRune(r)
			lineW += rw
		}
	}
	return append(out, line.String())
}

// padRight pads plain text with spaces to w cells.
func padRight(s string, w int) string {
	if n := w - cells(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// padLeft pads plain text with spaces on the left to w cells.
func padLeft(s string, w int) string {
	if n := w - cells(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}
