package arcade

import (
	"encoding/json"
	"testing"
)

// TestRatingFigures checks that a figure a hair below zero marshals as 0
// (seen in `stats` and `top race` as "-0.0" after a 2nd place of 2 and a
// 2nd of 3), that other figures keep their sign and rounding, and that
// the display rating prints as a whole number with "?" while
// provisional.
func TestRatingFigures(t *testing.T) {
	tests := []struct {
		in   float64
		json string
	}{
		{-0.0004, "0"},
		{-0.04, "-0.04"},
		{-0.004, "0"},
		{-0.05, "-0.05"},
		{0, "0"},
		{3.249, "3.25"},
		{-2.76, "-2.76"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(round2(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.json {
			t.Errorf("round2(%v) marshals as %s, want %s", tt.in, b, tt.json)
		}
	}
	for _, tt := range []struct {
		in          float64
		provisional bool
		want        string
	}{
		{1527.4, false, "1527"}, {1527.5, true, "1528?"}, {1499.6, false, "1500"},
	} {
		if got := displayText(tt.in, tt.provisional); got != tt.want {
			t.Errorf("displayText(%v, %v) = %q, want %q", tt.in, tt.provisional, got, tt.want)
		}
	}
}
