package lobby

import (
	"encoding/json"
	"testing"
)

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

// TestWirePhase: a racer's phase crosses to the other servers of a
// cluster with the rest of what they do.
func TestWirePhase(t *testing.T) {
	w := wireEntry{Key: "a", ID: "a", Name: "ann", What: Racing, Rules: "classic", Deal: 3, Room: "KMTX", Phase: RaceResults}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back wireEntry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if p := back.presence("i2"); p.Phase != RaceResults || p.Room != "KMTX" {
		t.Fatalf("across the wire %s: %+v, want room KMTX at its results", b, p.Doing)
	}
}
