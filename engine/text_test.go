package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseMovesSpacedPairs: spaces around "+" belong to the pair.
func TestParseMovesSpacedPairs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"7.2 + 7.4 d", "7.2+7.4 d"},
		{"7.2+ 7.4", "7.2+7.4"},
		{"7.2 +7.4, 6.1+w", "7.2+7.4 6.1+w"},
		{"d r 7.1", "d r 7.1"},
	}
	for _, tt := range tests {
		ms, err := ParseMoves(tt.in)
		if got := strings.Join(Notations(ms), " "); err != nil || got != tt.want {
			t.Errorf("ParseMoves(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseMoves("7.2 +"); err == nil {
		t.Error(`ParseMoves("7.2 +") read a move`)
	}
}

// TestBoardHeader: the board's header counts moves in words and removed
// cards as the goal counts them.
func TestBoardHeader(t *testing.T) {
	g, err := NewNumbered(MustRules("classic,goal=all"), 19)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Apply(DrawMove); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(g.String(), "\n")
	if !strings.Contains(header, "0/52 removed") || !strings.Contains(header, "· 1 move ·") {
		t.Errorf("header %q: want 0/52 removed and 1 move", header)
	}
}

// TestRecordJSONDealString: a record's deal number travels in JSON as a
// string, exact above 2^53, and reads back.
func TestRecordJSONDealString(t *testing.T) {
	rec := Record{Rules: "daily", Deal: 4738675024595041984, Moves: []string{"d"}}
	b, err := json.Marshal(rec)
	if err != nil || !strings.Contains(string(b), `"deal":"4738675024595041984"`) {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil || back.Deal != rec.Deal {
		t.Fatalf("Unmarshal = %+v, %v", back, err)
	}
}
