package lobby

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"pyramid/budget"
)

func TestParseCode(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"KDXWYC", "KDXWYC", nil},
		{"kdxwyc", "KDXWYC", nil},
		{"  kDxWyC\n", "KDXWYC", nil},
		{"kdx-wyc", "KDXWYC", nil},
		{"KDX WYC", "KDXWYC", nil},
		{"k-d-x w-y-c", "KDXWYC", nil},
		{"KDXWY", "", ErrBadCode},
		{"KDXWYCC", "", ErrBadCode},
		{"KDXW", "", ErrBadCode}, // the four letters of old codes
		{"KDXWY0", "", ErrBadCode},
		{"KDXWYO", "", ErrBadCode}, // O is not in the alphabet
		{"KDX_WY", "", ErrBadCode},
		{"ABCDEF", "", ErrBadCode},
		{"", "", ErrBadCode},
		{"------", "", ErrBadCode},
		{"KDXWYé", "", ErrBadCode},
		{strings.Repeat(" ", 100) + "KDXWYC", "", ErrBadCode},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCode(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("ParseCode(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}

func TestCodeAlphabet(t *testing.T) {
	for _, c := range "AEIOUBLQSZ0123456789" {
		if strings.ContainsRune(CodeAlphabet, c) {
			t.Errorf("alphabet has look-alike or vowel %q", c)
		}
	}
	if len(CodeAlphabet) != 16 {
		t.Errorf("alphabet has %d letters", len(CodeAlphabet))
	}
}

func TestNewCodeSkipsTaken(t *testing.T) {
	// Bytes 0 give CCCCCC, then bytes 17 (low bits 1) give DDDDDD.
	rnd := bytes.NewReader(append(bytes.Repeat([]byte{0}, CodeLen), bytes.Repeat([]byte{17}, CodeLen)...))
	got, err := newCode(rnd, func(c string) bool { return c == "CCCCCC" })
	if got != "DDDDDD" || err != nil {
		t.Errorf("got %q, %v; want DDDDDD", got, err)
	}
	if _, err := newCode(bytes.NewReader(nil), func(string) bool { return false }); err == nil {
		t.Error("empty source: no error")
	}
	if _, err := ParseCode(got); err != nil {
		t.Errorf("a new code does not parse: %v", err)
	}
}

// TestCodeSpace: a room code cannot be guessed at the wrong-code budget:
// at least six letters, so that a stranger who tries codes at the
// default budget's rate from one address, with as many rooms open as a
// server takes (DefaultMaxRooms, all of them private), finds fewer than
// one a week.
func TestCodeSpace(t *testing.T) {
	if CodeLen < 6 {
		t.Fatalf("CodeLen = %d, want at least 6", CodeLen)
	}
	space := 1.0
	for range CodeLen {
		space *= float64(len(CodeAlphabet))
	}
	l := budget.WrongCode.Default()
	perYear := float64(l.N) * float64(365*24*time.Hour/l.Per)
	if hits := perYear * DefaultMaxRooms / space; hits >= 52 {
		t.Errorf("a guesser at the limit finds %.1f rooms a year, want fewer than one a week", hits)
	}
}

// TestBadCodeSaysTheLetters: `race ZZZZ` said "a room code is 4 letters,
// like CDFG" to a player who had typed four letters; the refusal names
// the letters codes are made of.
func TestBadCodeSaysTheLetters(t *testing.T) {
	for _, s := range []string{"ZZZZZZ", "AEIOUY", "CDF", "CDFGHJK"} {
		_, err := ParseCode(s)
		if err == nil || !strings.Contains(err.Error(), CodeAlphabet) || !strings.HasPrefix(err.Error(), "a room code is 6 letters of ") {
			t.Errorf("ParseCode(%q): %v, want a refusal naming the letters %s", s, err, CodeAlphabet)
		}
	}
}

// FuzzParseCode: whatever a player types, ParseCode returns a code of
// CodeLen letters of CodeAlphabet or ErrBadCode; a code it returns reads
// back as itself, typed in lower case and in groups too.
func FuzzParseCode(f *testing.F) {
	for _, s := range []string{"KDXWYC", "kdx-wyc", " K D X W Y C ", "KDXW", "ÄÖÜ", "kdx\twyc", strings.Repeat("-", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, err := ParseCode(s)
		if err != nil {
			if !errors.Is(err, ErrBadCode) || code != "" {
				t.Fatalf("ParseCode(%q) = %q, %v; want \"\" and ErrBadCode", s, code, err)
			}
			return
		}
		if len(code) != CodeLen || strings.Trim(code, CodeAlphabet) != "" {
			t.Fatalf("ParseCode(%q) = %q: not %d letters of %s", s, code, CodeLen, CodeAlphabet)
		}
		typed := strings.ToLower(code[:3]) + "-" + code[3:]
		if again, err := ParseCode(typed); err != nil || again != code {
			t.Fatalf("ParseCode(%q) = %q, %v; want %q", typed, again, err, code)
		}
	})
}
