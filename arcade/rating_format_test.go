package arcade

import (
	"encoding/json"
	"testing"
)

// TestRatingFigures checks that a rating a hair below zero prints as 0.0
// and 0 (seen in `stats` and `top race` as "-0.0" after a 2nd place of 2
// and a 2nd of 3), and that other ratings keep their sign and rounding.
func TestRatingFigures(t *testing.T) {
	tests := []struct {
		in         float64
		text, json string
	}{
		{-0.0004, "0.0", "0"},
		{-0.04, "0.0", "-0.04"},
		{-0.004, "0.0", "0"},
		{-0.05, "-0.1", "-0.05"},
		{0, "0.0", "0"},
		{3.249, "3.2", "3.25"},
		{-2.76, "-2.8", "-2.76"},
	}
	for _, tt := range tests {
		if got := ratingText(tt.in); got != tt.text {
			t.Errorf("ratingText(%v) = %q, want %q", tt.in, got, tt.text)
		}
		b, err := json.Marshal(round2(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.json {
			t.Errorf("round2(%v) marshals as %s, want %s", tt.in, b, tt.json)
		}
	}
}
