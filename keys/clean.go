package keys

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// ellipsis marks a string that Clean cut short. It is one cell wide.
const ellipsis = "…"

// Clean makes an untrusted string (an SSH user name, a client version, TERM,
// a chat line) safe to print on a terminal or in a log line, and at most max
// cells wide. Control characters (C0, DEL, C1, so every escape sequence),
// format characters (bidi overrides and isolates, zero-width joiners, BOMs),
// the other default-ignorable code points but variation selectors (the
// combining grapheme joiner, fillers),
// private-use, surrogate, unassigned and separator code points and invalid
// UTF-8 are replaced by a visible escape such as `\x1b` or `\u202e`. Runs of
// combining marks are cut to two per character and a mark with nothing to
// attach to is escaped. A string cut to fit ends in "…". max < 1 yields "".
func Clean(s string, max int) string {
	if max < 1 {
		return ""
	}
	// Escaping never shrinks a character and every kept character is at
	// least one cell wide with at most maxMarks marks, so the output can be
	// cut off after this many bytes without changing the result.
	limit := (max + 1) * 4 * (maxMarks + 2)
	var b strings.Builder
	marks, base := 0, false
	for i := 0; i < len(s) && b.Len() <= limit; {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			writeByteEscape(&b, s[i])
			i += size
			base = false
			continue
		}
		i += size
		switch {
		case unsafeRune(r):
			writeRuneEscape(&b, r)
			base = false
		case unicode.Is(unicode.M, r):
			if !base {
				writeRuneEscape(&b, r)
			} else if marks < maxMarks {
				marks++
				b.WriteRune(r)
			}
		default:
			b.WriteRune(r)
			marks, base = 0, true
		}
	}
	return fitWidth(b.String(), max)
}

// unsafeRune reports the characters Clean escapes.
func unsafeRune(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) ||
		unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp) ||
		// Variation selectors stay: they choose how an emoji in a chat
		// line is drawn, and names refuse them anyway.
		isDefaultIgnorable(r) && !unicode.Is(unicode.Variation_Selector, r) ||
		!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs) // unassigned
}

const hexDigits = "0123456789abcdef"

// writeByteEscape writes b as \xNN.
func writeByteEscape(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

// writeRuneEscape writes r as \xNN (below 0x80), \uNNNN or \UNNNNNNNN.
func writeRuneEscape(b *strings.Builder, r rune) {
	switch {
	case r < 0x80:
		writeByteEscape(b, byte(r))
		return
	case r <= 0xffff:
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>shift)&0xf])
		}
	default:
		b.WriteString(`\U`)
		for shift := 28; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>shift)&0xf])
		}
	}
}

// fitWidth cuts s, which holds no control characters, to at most max cells
// by whole grapheme clusters, ending it in an ellipsis when it was cut.
func fitWidth(s string, max int) string {
	if ansi.StringWidth(s) <= max {
		return s
	}
	var b strings.Builder
	width := 0
	for rest := s; rest != ""; {
		cluster, w := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if cluster == "" || width+w > max-1 { // keep a cell for the ellipsis
			break
		}
		b.WriteString(cluster)
		width += w
		rest = rest[len(cluster):]
	}
	b.WriteString(ellipsis)
	return b.String()
}
