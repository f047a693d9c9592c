package tui

import (
	"math/rand/v2"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestNarrow checks every rune narrow accepts against the library's
// measure: one cell, alone and after another.
func TestNarrow(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		if !narrow(r) {
			continue
		}
		if w := ansi.StringWidth(string(r)); w != 1 {
			t.Errorf("narrow(%U) but ansi.StringWidth is %d", r, w)
		}
		if w := ansi.StringWidth("a" + string(r) + "♠"); w != 3 {
			t.Errorf("%U joins a neighbour: ansi.StringWidth(a%c♠) is %d", r, r, w)
		}
	}
}

// TestCellsCut checks the fast measure and cut against ansi.StringWidth
// and ansi.Truncate on the texts the screens draw and on random strings
// of narrow and other runes.
func TestCellsCut(t *testing.T) {
	texts := []string{
		"", "a", "Pyramid Solitaire", "1 deck · 3 passes · stock closed", "┌─────┐", "│8♣   │",
		"guest — add an SSH key", "↑/↓ choose", "∞ passes × 2", "é", "e\u0301", "日本", "\x1b[1mbold\x1b[m",
		"tab\there", "♠\ufe0f", "👍", "a\u200bb", "soft\u00adhyphen",
	}
	alphabet := []rune("aZ 9·—…←↑┌─│▒♠♥♦♣✓∞×é\u0301日\x1b\t\ufe0f")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		rs := make([]rune, rng.IntN(12))
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(rs))
	}
	for _, s := range texts {
		if got, want := cells(s), ansi.StringWidth(s); got != want {
			t.Errorf("cells(%q) = %d, want %d", s, got, want)
		}
		for w := -1; w <= 14; w++ {
			for _, tail := range []string{"", "…", "."} {
				want := ansi.Truncate(s, w, tail)
				if w <= 0 {
					want = ""
				}
				if got := cut(s, w, tail); got != want {
					t.Errorf("cut(%q, %d, %q) = %q, want %q", s, w, tail, got, want)
				}
			}
		}
	}
}

func TestASCIIFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"dån", "dan"},
		{"Zoë Ångström", "Zoe Angstrom"},
		{"\x1b[1mdån\x1b[m", "\x1b[1mdan\x1b[m"},
		{"李四", "????"},  // two cells each
		{"a😀b", "a??b"}, // an emoji takes two cells
		{"ﬁx", "?x"},    // a ligature is no letter with marks
	}
	for _, tt := range tests {
		got := asciiFold(tt.in)
		if got != tt.want {
			t.Errorf("asciiFold(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if cells(got) != cells(tt.in) {
			t.Errorf("asciiFold(%q) takes %d cells, want %d", tt.in, cells(got), cells(tt.in))
		}
	}
}
