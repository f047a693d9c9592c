package tui

import (
	"strings"
	"unicode"

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
