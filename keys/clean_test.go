package keys

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"plain", "OpenSSH_9.2p1 Debian-2", 64, "OpenSSH_9.2p1 Debian-2"},
		{"clear screen", "\x1b[2Jhi", 64, `\x1b[2Jhi`},
		{"osc 52", "\x1b]52;c;aGk=\x07", 64, `\x1b]52;c;aGk=\x07`},
		{"osc 8", "\x1b]8;;http://x\x1b\\", 64, `\x1b]8;;http://x\x1b\`},
		{"c1 csi", "a\u009b2J", 64, `a\u009b2J`},
		{"rtl override", "abc\u202Efdp.exe", 64, `abc\u202efdp.exe`},
		{"zwj", "a\u200db", 64, `a\u200db`},
		{"newline and tab", "a\nb\tc", 64, `a\x0ab\x09c`},
		{"invalid utf8", "a\xffb", 64, `a\xffb`},
		{"private use", "\U000F0000", 64, `\U000f0000`},
		{"line separator", "a\u2028b", 64, `a\u2028b`},
		{"unassigned", "a\u0378b", 64, `a\u0378b`},
		{"leading mark", "\u0301a", 64, `\u0301a`},
		{"zalgo", "a" + strings.Repeat("\u0301", 1000), 64, "a\u0301\u0301"},
		{"cut", "abcdefghij", 5, "abcd…"},
		{"cut wide", "山田太郎", 5, "山田…"},
		{"fits exactly", "abcde", 5, "abcde"},
		{"cut escape", "\x1b[2J", 3, `\x…`},
		{"long", strings.Repeat("x", 10000), 8, "xxxxxxx…"},
		{"zero width", "abc", 0, ""},
		{"one cell", "abc", 1, "…"},
		{"emoji kept", "gg 🎉", 10, "gg 🎉"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in, tt.max); got != tt.want {
				t.Errorf("Clean(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

// checkClean asserts what Clean promises for any input.
func checkClean(t *testing.T, in string, max int) {
	t.Helper()
	out := Clean(in, max)
	if !utf8.ValidString(out) {
		t.Fatalf("Clean(%q, %d) = %q: invalid UTF-8", in, max, out)
	}
	for _, r := range out {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp) {
			t.Fatalf("Clean(%q, %d) = %q: contains U+%04X", in, max, out, r)
		}
	}
	if w := ansi.StringWidth(out); w > max && max >= 0 {
		t.Fatalf("Clean(%q, %d) = %q: %d cells wide", in, max, out, w)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"", "alice", "\x1b[2J", "\x1b]52;c;aGk=\x07", "\u009b31m", "a\u202Eb",
		"a" + strings.Repeat("\u0301", 50), "山田🎉\u200d👩", "\xff\xfe", "\u0d4e\x01a",
		"🇦🇧🇨", "e\u0301\u0301\u0301x",
	} {
		f.Add(s, 16)
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, in string, max int) {
		max %= 100
		checkClean(t, in, max)
	})
}

func FuzzValidateName(f *testing.F) {
	for _, s := range []string{
		"alice", "Zoë", "\x1b[2J", "bob\u202E", "a\u0301", "山田", "._-", "root",
		strings.Repeat("a", 300), "a" + strings.Repeat("\u0301", 20),
		"alice\u034f", "alice\ufe00", "alice\u180b", "alice\u17b4", "alice\U000e0100", "\u0430dmin",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := NormalizeName(in)
		if err != nil {
			if n != "" {
				t.Fatalf("NormalizeName(%q) = %q with error %v", in, n, err)
			}
			return
		}
		if w := ansi.StringWidth(n); w < 1 || w > MaxNameWidth {
			t.Fatalf("NormalizeName(%q) = %q: %d cells", in, n, w)
		}
		if i := strings.IndexFunc(n, isDefaultIgnorable); i >= 0 {
			t.Fatalf("NormalizeName(%q) = %q: a default-ignorable at byte %d", in, n, i)
		}
		// A valid name prints as itself: Clean has nothing to escape.
		if c := Clean(n, MaxNameWidth); c != n {
			t.Fatalf("Clean(NormalizeName(%q)) = %q, want %q", in, c, n)
		}
		if n2, err := NormalizeName(n); err != nil || n2 != n {
			t.Fatalf("NormalizeName is not idempotent on %q: %q, %v", n, n2, err)
		}
		if u, ok := NameFromUser(n); !ok || u != n {
			t.Fatalf("NameFromUser(%q) = %q, %v, want the name itself", n, u, ok)
		}
	})
}

func FuzzNameFromUser(f *testing.F) {
	for _, s := range []string{"alice", "\x1b[2Jbob", "Alice Smith", "山田taro", "a\u0301\u0301\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, ok := NameFromUser(in)
		if !ok {
			return
		}
		if err := validate(n); err != nil {
			t.Fatalf("NameFromUser(%q) = %q, invalid: %v", in, n, err)
		}
	})
}
