package lobby

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParseCode(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"KDXW", "KDXW", nil},
		{"kdxw", "KDXW", nil},
		{"  kDxW\n", "KDXW", nil},
		{"KDX", "", ErrBadCode},
		{"KDXWY", "", ErrBadCode},
		{"KDX0", "", ErrBadCode},
		{"KDXO", "", ErrBadCode}, // O is not in the alphabet
		{"ABCD", "", ErrBadCode},
		{"", "", ErrBadCode},
		{"KDXé", "", ErrBadCode},
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
	// Bytes 0,0,0,0 give CCCC, then 1,1,1,1 give DDDD.
	rnd := bytes.NewReader([]byte{0, 0, 0, 0, 1, 1, 1, 1})
	got, err := newCode(rnd, func(c string) bool { return c == "CCCC" })
	if got != "DDDD" || err != nil {
		t.Errorf("got %q, %v; want DDDD", got, err)
	}
	if _, err := newCode(bytes.NewReader(nil), func(string) bool { return false }); err == nil {
		t.Error("empty source: no error")
	}
	if _, err := ParseCode(got); err != nil {
		t.Errorf("a new code does not parse: %v", err)
	}
}

// TestBadCodeSaysTheLetters: `race ZZZZ` said "a room code is 4 letters,
// like CDFG" to a player who had typed four letters; the refusal names
// the letters codes are made of.
func TestBadCodeSaysTheLetters(t *testing.T) {
	for _, s := range []string{"ZZZZ", "AEIO", "CDF", "CDFGH"} {
		_, err := ParseCode(s)
		if err == nil || !strings.Contains(err.Error(), CodeAlphabet) || !strings.HasPrefix(err.Error(), "a room code is 4 letters of ") {
			t.Errorf("ParseCode(%q): %v, want a refusal naming the letters %s", s, err, CodeAlphabet)
		}
	}
}
