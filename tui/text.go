package tui

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"

	"github.com/charmbracelet/x/ansi"
)

// cells is the width of s in terminal cells.
func cells(s string) int { return ansi.StringWidth(s) }

// cut shortens plain text s to at most w cells, ending it with tail when
// it was cut.
func cut(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if cells(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}

// clean makes a string from outside (a player name, a notice) safe to
// show: escape sequences are dropped, control, format and bidi characters
// become '?', and the result is cut to at most w cells. The keys package
// cleans names already; this is the last line of defence at the screen.
func clean(s string, w int) string {
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

// asciiReplacer maps the non-ASCII characters of shared texts to ASCII of
// the same width. The suits are among them for the messages a session
// wrote with symbols before the player chose letters ("8♣ selected").
// It holds no state and is safe for concurrent use.
var asciiReplacer = strings.NewReplacer("·", "-", "…", ".", "—", "-", "×", "x", "∞", "~",
	"←/→", "<->", "↑/↓", "^/v", "←↓↑→", "keys", "✓", "v",
	"♠", "S", "♥", "H", "♦", "D", "♣", "C")

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
	for _, line := range body {
		if out.n >= h-2 {
			break
		}
		out.add(cut(line, w, ""))
	}
	out.fill(h - 2)
	out.add(" " + pal.style(msgSt, cut(msg, w-2, e.gl.ell)))
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
