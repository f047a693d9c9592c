package engine

import (
	"strings"
	"testing"
)

// TestNotationErrorsFitTheRules: a place the rules do not have is named
// with the rules' own rows, never a double pyramid's nine in a 7-row game.
func TestNotationErrorsFitTheRules(t *testing.T) {
	g, err := NewGame(Classic(), NewDeal(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"8.1", "9.9", "0.1", "7.8", "10.1"} {
		err := g.ApplyNotation(s)
		if err == nil {
			t.Fatalf("%s: applied", s)
		}
		if strings.Contains(err.Error(), "9") && !strings.Contains(s, "9") {
			t.Errorf("%s: %q speaks of nine", s, err)
		}
		if strings.Contains(err.Error(), "1–9") {
			t.Errorf("%s: %q names a double pyramid's rows", s, err)
		}
	}
	if err := g.ApplyNotation("8.1"); err == nil || !strings.Contains(err.Error(), "the pyramid has 7 rows") {
		t.Errorf("8.1 in a 7-row game: %v", err)
	}
}
