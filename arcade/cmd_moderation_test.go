package arcade

import (
	"testing"
	"time"
)

func TestParseBanDuration(t *testing.T) {
	tests := []struct {
		in       string
		want     time.Duration
		duration bool
		err      bool
	}{
		{"1h", time.Hour, true, false},
		{"90m", 90 * time.Minute, true, false},
		{"7d", 7 * 24 * time.Hour, true, false},
		{"2w", 14 * 24 * time.Hour, true, false},
		{"cheating", 0, false, false},
		{"d", 0, false, false},
		{"0s", 0, true, true},
		{"-1h", 0, true, true},
		{"0d", 0, true, true},
		{"99999d", 0, true, true},
		{"999999999999999999999d", 0, true, true},
		{"100000h", 0, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, duration, err := parseBanDuration(tt.in)
			if got != tt.want || duration != tt.duration || (err != nil) != tt.err {
				t.Errorf("parseBanDuration(%q) = %v, %v, %v; want %v, %v, error %v", tt.in, got, duration, err, tt.want, tt.duration, tt.err)
			}
		})
	}
}
