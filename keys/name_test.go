package keys

import (
	"errors"
	"strings"
	"testing"
)

// validate is NormalizeName's verdict alone.
func validate(s string) error {
	_, err := NormalizeName(s)
	return err
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error // nil: valid
	}{
		{"ascii", "alice", nil},
		{"digits and punctuation", "bob_42.x-y", nil},
		{"sixteen cells", "abcdefghijklmnop", nil},
		{"latin accents", "Zoë", nil},
		{"decomposed accent", "Zoe\u0308", nil},
		{"greek", "Αλέξης", nil},
		{"cyrillic", "Дмитрий", nil},
		{"vietnamese two marks", "Nguyê\u0303n", nil},
		{"single digit", "7", nil},
		{"empty", "", ErrNameEmpty},
		{"seventeen cells", "abcdefghijklmnopq", ErrNameTooLong},
		{"ten thousand characters", strings.Repeat("a", 10000), ErrNameTooLong},
		{"thousand combining marks", "a" + strings.Repeat("\u0301", 1000), ErrNameMarks},
		{"three marks", "a\u0301\u0302\u0303", ErrNameMarks},
		{"clear screen", "\x1b[2Jbob", ErrNameEscape},
		{"osc 52 clipboard", "\x1b]52;c;ZWNobyBoaQ==\x07", ErrNameEscape},
		{"osc 8 link", "\x1b]8;;http://x\x1b\\bob\x1b]8;;\x1b\\", ErrNameEscape},
		{"bel", "bob\x07", ErrNameControl},
		{"c1 csi", "bob\u009b2J", ErrNameEscape},
		{"c1 nel", "bob\u0085", ErrNameControl},
		{"del", "bob\x7f", ErrNameControl},
		{"newline", "bob\nalice", ErrNameControl},
		{"rtl override", "bob\u202Egnp.exe", ErrNameFormat},
		{"rtl isolate", "\u2067bob", ErrNameFormat},
		{"zero width joiner", "bo\u200db", ErrNameFormat},
		{"zero width space", "bo\u200bb", ErrNameFormat},
		{"bom", "\ufeffbob", ErrNameFormat},
		{"hangul filler", "\u3164", ErrNameInvisible},
		{"halfwidth hangul filler", "a\uffa0b", ErrNameInvisible},
		{"private use", "bob\ue000", ErrNamePrivateUse},
		{"line separator", "bob\u2028", ErrNameSeparator},
		{"paragraph separator", "bob\u2029", ErrNameSeparator},
		{"invalid utf8", "bob\xff", ErrNameEncoding},
		{"replacement character", "bob\ufffd", ErrNameEncoding},
		{"standalone mark", "\u0301bob", ErrNameCombining},
		{"mark after dash", "bob-\u0301", ErrNameCombining},
		{"space", "bob smith", ErrNameChar},
		{"at sign", "bob@home", ErrNameChar},
		{"emoji", "bob🎉", ErrNameChar},
		{"wide letter", "山田", ErrNameWide},
		{"fullwidth letter", "ｂｏｂ", ErrNameWide},
		{"only punctuation", "._-", ErrNameNoAlnum},
		{"a dot at the end", "ann.", ErrNameEdge},
		{"a dash in front", "-ann", ErrNameEdge},
		{"an underscore at the end", "ann_", ErrNameEdge},
		{"reserved", "Admin", ErrNameReserved},
		{"reserved root", "root", ErrNameReserved},
		{"a guest's name", "Guest-7QK2", ErrNameReserved},
		{"reserved, a cyrillic a", "\u0430dmin", ErrNameReserved},
		{"reserved, a cyrillic s", "\u0455ystem", ErrNameReserved},
		{"reserved, a capital cyrillic s", "\u0405erver", ErrNameReserved},
		{"reserved, a cyrillic i", "pyram\u0456d", ErrNameReserved},
		{"reserved, capitals", "ADMIN", ErrNameReserved},
		{"reserved, a small l for a capital I", "ADMlN", ErrNameReserved},
		{"reserved, a one for an i", "adm1n", ErrNameReserved},
		{"reserved, rn for m", "adrnin", ErrNameReserved},
		{"reserved, a zero for an o", "r0ot", ErrNameReserved},
		{"a guest's name, a cyrillic e", "gu\u0435st-7QK2", ErrNameReserved},
		{"a guest's name, a capital I for the l", "GUEST-7QK2", ErrNameReserved},
		{"not reserved", "administer", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validate(tt.in)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("validate(%q) = %v, want %v", tt.in, err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "invalid name: ") {
				t.Errorf("error %q does not say what is invalid", err)
			}
		})
	}
}

func TestNameErrorNamesTheCharacter(t *testing.T) {
	err := validate("ab\u202Ec")
	want := "invalid name: name contains an invisible formatting or bidi control character: U+202E at character 3"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestNormalizeNameNFC(t *testing.T) {
	got, err := NormalizeName("Zoe\u0308")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Zo\u00eb"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNameFromUser(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"alice", "alice", true},
		{"Alice Smith", "Alice_Smith", true},
		{"\x1b[2Jbob", "bob", true},
		{"bob.", "bob", true},
		{"_bob_\x01", "bob", true},
		{"a_very_long_user_-name", "a_very_long_user", true},
		{"\x1b]52;c;ZWNobw==\x07eve", "eve", true},
		{"bob\u202Egnp", "bobgnp", true},
		{"mallory\u009b31m", "mallory31m", true},
		{"a_very_long_user_name_indeed", "a_very_long_user", true},
		{"zoe\u0308", "zoë", true},
		{"bob@example.com", "bobexample.com", true},
		{"山田taro", "taro", true},
		{"root", "", false},
		{"", "", false},
		{"\x1b[2J", "", false},
		{"🎉🎉", "", false},
		{"...", "", false},
		{strings.Repeat("x", 100000), strings.Repeat("x", 16), true},
		{"a" + strings.Repeat("\u0301", 1000), "á\u0301\u0301", true},
	}
	for _, tt := range tests {
		got, ok := NameFromUser(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("NameFromUser(%q) = %q, %v, want %q, %v", Clean(tt.in, 40), got, ok, tt.want, tt.wantOK)
		}
		if ok {
			if err := validate(got); err != nil {
				t.Errorf("NameFromUser(%q) = %q, which is invalid: %v", Clean(tt.in, 40), got, err)
			}
		}
	}
}

func TestNameRefusal(t *testing.T) {
	tests := []struct{ in, want string }{
		{"redevil", ""},
		{"", "Name is empty."},
		{"\u202eevil", "Character 1 (U+202E) cannot be in a name: an invisible formatting or bidi control character."},
		{"\x1b[31mred", "Character 1 (U+001B) cannot be in a name: a terminal escape sequence."},
		{"abcdefghijklmnopqr", "A name is at most 16 characters wide; this one is 18."},
	}
	for _, tt := range tests {
		if got := NameRefusal(tt.in); got != tt.want {
			t.Errorf("NameRefusal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
