package tui

import (
	"strings"
	"testing"

	"pyramid/lobby"
)

// TestMenuBackToRaceOver: the menu offers Back to race while the player
// has a seat in a race that runs; chosen after the race ended (the end
// came after the menu showed), it does not join the room again: the menu
// drops the line and says the race is over.
func TestMenuBackToRaceOver(t *testing.T) {
	tests := []struct {
		name     string
		seatedAt string // the seat when Back to race is chosen
		wantRace bool
	}{
		{"the race still runs", "KMTX", true},
		{"the race ended since", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
			f.seated = "KMTX"
			h.keys("q", "q")
			if s := screenOf(h); h.m.cur != screenMenu || !strings.Contains(s, "> Back to race KMTX") {
				t.Fatalf("after leaving the race: want the menu offering it back:\n%s", s)
			}
			f.mu.Lock()
			f.seated = tt.seatedAt
			f.mu.Unlock()
			h.keys("enter")
			s := screenOf(h)
			if got := h.m.cur == screenRace; got != tt.wantRace {
				t.Fatalf("Back to race: on the race screen %v, want %v:\n%s", got, tt.wantRace, s)
			}
			if tt.wantRace {
				return
			}
			if strings.Contains(s, "Back to race") || !strings.Contains(s, "the race in room KMTX is over") {
				t.Errorf("want the line gone and the menu saying the race is over:\n%s", s)
			}
		})
	}
}
