package lobby

import (
	"strings"
	"testing"
)

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
