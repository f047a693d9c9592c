package lobby

import "testing"

// TestPhasePresence: the countdown is still the waiting room for
// presence, a closed room its results.
func TestPhasePresence(t *testing.T) {
	tests := []struct {
		p    Phase
		want RacePhase
	}{
		{PhaseWaiting, RaceWaiting}, {PhaseCountdown, RaceWaiting}, {PhaseRacing, RaceRunning},
		{PhaseResults, RaceResults}, {PhaseClosed, RaceResults},
	}
	for _, tt := range tests {
		if got := tt.p.Presence(); got != tt.want {
			t.Errorf("%v.Presence() = %q, want %q", tt.p, got, tt.want)
		}
	}
}
