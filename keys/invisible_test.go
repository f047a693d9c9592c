package keys

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// TestInvisibleRefused: every code point that renders as nothing on a
// terminal, placed where it could hide (after a letter, where a
// combining mark would be accepted), makes the name refused, and the
// refusal names it.
func TestInvisibleRefused(t *testing.T) {
	tests := []struct {
		name string
		r    rune
		want error
	}{
		{"combining grapheme joiner", 0x034F, ErrNameInvisible},
		{"variation selector 1", 0xFE00, ErrNameInvisible},
		{"variation selector 2", 0xFE01, ErrNameInvisible},
		{"variation selector 16", 0xFE0F, ErrNameInvisible},
		{"mongolian free variation selector 1", 0x180B, ErrNameInvisible},
		{"mongolian free variation selector 4", 0x180F, ErrNameInvisible},
		{"khmer vowel inherent aq", 0x17B4, ErrNameInvisible},
		{"khmer vowel inherent aa", 0x17B5, ErrNameInvisible},
		{"variation selector 17", 0xE0100, ErrNameInvisible},
		{"variation selector 256", 0xE01EF, ErrNameInvisible},
		{"hangul choseong filler", 0x115F, ErrNameInvisible},
		{"hangul jungseong filler", 0x1160, ErrNameInvisible},
		{"unassigned default-ignorable", 0xE0FFF, ErrNameInvisible},
		{"soft hyphen", 0x00AD, ErrNameFormat},
		{"arabic letter mark", 0x061C, ErrNameFormat},
		{"mongolian vowel separator", 0x180E, ErrNameFormat},
		{"word joiner", 0x2060, ErrNameFormat},
		{"invisible times", 0x2062, ErrNameFormat},
		{"tag latin small a", 0xE0061, ErrNameFormat},
		{"musical symbol begin beam", 0x1D173, ErrNameFormat},
		{"shorthand format letter overlap", 0x1BCA0, ErrNameFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, in := range []string{"alice" + string(tt.r), "al" + string(tt.r) + "ice"} {
				_, err := NormalizeName(in)
				if !errors.Is(err, tt.want) {
					t.Fatalf("NormalizeName(%+q) = %v, want %v", in, err, tt.want)
				}
				var ne *NameError
				if !errors.As(err, &ne) || ne.Rune != tt.r {
					t.Fatalf("NormalizeName(%+q) = %v, want the error to name U+%04X", in, err, tt.r)
				}
				if want := fmt.Sprintf("U+%04X", tt.r); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
			if got, ok := NameFromUser("alice" + string(tt.r)); !ok || got != "alice" {
				t.Errorf("NameFromUser(alice+U+%04X) = %q, %v, want alice, true", tt.r, got, ok)
			}
		})
	}
}

// TestDefaultIgnorable holds isDefaultIgnorable to the ranges of
// Default_Ignorable_Code_Point listed in Unicode's
// DerivedCoreProperties.txt (version 15.0, the one Go's tables follow),
// the code points just outside each range, and the exceptions the
// derivation removes.
func TestDefaultIgnorable(t *testing.T) {
	ranges := [][2]rune{
		{0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C},
		{0x115F, 0x1160}, {0x17B4, 0x17B5}, {0x180B, 0x180D},
		{0x180E, 0x180E}, {0x180F, 0x180F}, {0x200B, 0x200F},
		{0x202A, 0x202E}, {0x2060, 0x2064}, {0x2065, 0x2065},
		{0x2066, 0x206F}, {0x3164, 0x3164}, {0xFE00, 0xFE0F},
		{0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8},
		{0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE0000},
		{0xE0001, 0xE0001}, {0xE0002, 0xE001F}, {0xE0020, 0xE007F},
		{0xE0080, 0xE00FF}, {0xE0100, 0xE01EF}, {0xE01F0, 0xE0FFF},
	}
	for _, rg := range ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			if !isDefaultIgnorable(r) {
				t.Errorf("isDefaultIgnorable(U+%04X) = false, want true", r)
			}
		}
	}
	for _, r := range []rune{
		'a', ' ', 0x00AC, 0x00AE, 0x034E, 0x0350, 0x17B3, 0x17B6, 0x2010, 0xFDFF, 0xFE10, 0xE1000,
		0x0600, 0x06DD, 0x110BD, // prepended concatenation marks: format, but visible
		0xFFF9, 0xFFFB, // interlinear annotation
		0x13430, 0x1343F, // Egyptian hieroglyph format controls
		0x1680, 0x3000, // white space
	} {
		if isDefaultIgnorable(r) {
			t.Errorf("isDefaultIgnorable(U+%04X) = true, want false", r)
		}
	}
	// The derivation covers every variation selector.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Variation_Selector, r) && !isDefaultIgnorable(r) {
			t.Errorf("variation selector U+%04X is not default-ignorable", r)
		}
	}
}
