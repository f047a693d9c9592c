package tui

import (
	"math/rand/v2"
	"slices"
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

func TestWrapCut(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		first, w int
		want     []string
	}{
		{"fits", "gl hf", 10, 10, []string{"gl hf"}},
		{"words", "one two three four", 8, 8, []string{"one two", "three", "four"}},
		{"a short first line", "one two three", 4, 9, []string{"one", "two three"}},
		{"blanks are one", "a   b\tc", 10, 10, []string{"a b c"}},
		{"a long word is cut", "xxxxxxxxxxxx", 5, 5, []string{"xxxxx", "xxxxx", "xx"}},
		{"a long word goes on from the line", "ab xxxxxxxxx", 6, 6, []string{"ab xxx", "xxxxxx"}},
		{"wide runes", "李四李四李", 4, 4, []string{"李四", "李四", "李"}},
		{"the first too narrow for a word", "hello", 3, 8, []string{"", "hello"}},
		{"empty", "", 5, 5, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapCut(tt.in, tt.first, tt.w)
			if !slices.Equal(got, tt.want) {
				t.Errorf("wrapCut(%q, %d, %d) = %q, want %q", tt.in, tt.first, tt.w, got, tt.want)
			}
			for i, l := range got {
				w := tt.w
				if i == 0 {
					w = tt.first
				}
				if cells(l) > w && !(i == 0 && l == "") {
					t.Errorf("line %d %q is %d cells wide", i, l, cells(l))
				}
			}
		})
	}
}
