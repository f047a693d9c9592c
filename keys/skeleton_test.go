package keys

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSkeleton(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"redevil", "rеdevil", true},       // Cyrillic е (U+0435)
		{"bob", "BOB", true},               // case
		{"Ünïcødé", "Ünı̈cødé", true},      // dotless ı + U+0308
		{"Ünïcødé", "U\u0308nïcødé", true}, // NFD
		{"bob", "b0b", true},               // 0 and O, folded
		{"fernando", "femando", true},      // rn and m
		{"player1", "playerl", true},       // 1 and l
		{"alice", "aIice", true},           // capital I and l: folded after the skeleton
		{"alice", "a1ice", true},           // 1 and l
		{"ALICE", "ALlCE", true},           // capital I and l, among capitals
		{"alice", "alice\u034f", true},     // a default-ignorable, as an old name may hold
		{"alice", "alice\ufe00", true},     // a variation selector
		{"alice", "alice\U000e0100", true}, // a supplementary variation selector
		{"redevil", "bluedevil", false},
		{"Zoë", "Zoe", false},
		{"ann.b", "ann_b", false},
		{"alice", "aiice", false}, // a dotted i shows its dot
	}
	for _, tt := range tests {
		if got := Skeleton(tt.a) == Skeleton(tt.b); got != tt.same {
			t.Errorf("Skeleton(%q) = %q, Skeleton(%q) = %q: same %v, want %v", tt.a, Skeleton(tt.a), tt.b, Skeleton(tt.b), got, tt.same)
		}
	}
}

// TestSkeletonSettles: names whose skeleton the case fold changes again
// (a Greek stigma becomes a sigma, then an o) or keeps changing (a
// Cherokee capital the table maps to a small letter the fold maps back)
// have one skeleton, which is its own.
func TestSkeletonSettles(t *testing.T) {
	for _, s := range []string{"\u03da", "\u13a3", "\uab73", "\u13a3\uab73", "\uab73\u13a3x", "A\u13a3I"} {
		sk := Skeleton(s)
		if again := Skeleton(sk); again != sk {
			t.Errorf("Skeleton(%+q) = %+q, whose skeleton is %+q", s, sk, again)
		}
	}
	if Skeleton("\u13a3") != Skeleton("\uab73") {
		t.Errorf("a Cherokee capital and its small letter: skeletons %+q and %+q, want one", Skeleton("\u13a3"), Skeleton("\uab73"))
	}
}

func TestLookAlike(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"alice", "aIice", true},      // the skeleton
		{"alice", "ALICE", true},      // the case fold
		{"ALICE", "\u0430lice", true}, // a Cyrillic а beside the case fold of ALICE
		{"REDEVIL", "redevil", true},
		{"rn", "m", true},
		{"O", "0", true},
		{"l", "1", true},
		{"I", "l", true},
		{"alice", "bob", false},
		{"alice", "aiice", false},
	}
	for _, tt := range tests {
		if got := LookAlike(tt.a, tt.b); got != tt.want {
			t.Errorf("LookAlike(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := LookAlike(tt.b, tt.a); got != tt.want {
			t.Errorf("LookAlike(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

// FuzzSkeleton holds Skeleton to its invariants: a skeleton is its own
// skeleton and holds no default-ignorable code point, and every name
// looks like itself.
func FuzzSkeleton(f *testing.F) {
	for _, s := range []string{"alice", "aIice", "alice\u034f", "a\ufe00", "\u0430dmin", "gu\u0435st-7QK2", "rn", "Zoe\u0308", "ß", "ǅ", "ﬁ", "İ", "ſ", "\u17b4", "\U000e0100", "\u13a3", "\u13a3\uab73", "\u03da"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 4*maxNameBytes {
			return
		}
		sk := Skeleton(s)
		if again := Skeleton(sk); again != sk {
			t.Errorf("Skeleton(Skeleton(%+q)) = %+q, want %+q", s, again, sk)
		}
		if strings.IndexFunc(sk, isDefaultIgnorable) >= 0 {
			t.Errorf("Skeleton(%+q) = %+q holds a default-ignorable", s, sk)
		}
		if !LookAlike(s, s) {
			t.Errorf("%+q does not look like itself", s)
		}
	})
}
