package arcade

import (
	"testing"
	"time"

	"pyramid/lobby"
)

// TestOffersBack: the menu offers a room back while its race runs and the
// player's game in it is not done, never once the race is over or about
// to be (nobody still plays, or the time is up).
func TestOffersBack(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	racer := func(id string, present bool, st lobby.RacerState) lobby.Racer {
		return lobby.Racer{ID: id, Present: present, Progress: lobby.Progress{State: st}}
	}
	snap := func(ph lobby.Phase, deadline time.Time, members ...lobby.Racer) lobby.Snapshot {
		return lobby.Snapshot{Code: "KMTX", Phase: ph, Deadline: deadline, Members: members}
	}
	later, earlier := now.Add(time.Minute), now.Add(-time.Second)
	tests := []struct {
		name string
		snap lobby.Snapshot
		want bool
	}{
		{"waiting room", snap(lobby.PhaseWaiting, time.Time{}, racer("me", true, lobby.RacerWaiting)), true},
		{"countdown", snap(lobby.PhaseCountdown, time.Time{}, racer("me", false, lobby.RacerWaiting), racer("bob", true, lobby.RacerWaiting)), true},
		{"left mid-race, bob plays", snap(lobby.PhaseRacing, later, racer("me", false, lobby.RacerLeft), racer("bob", true, lobby.RacerPlaying)), true},
		{"another session races", snap(lobby.PhaseRacing, later, racer("me", true, lobby.RacerPlaying)), true},
		{"left as the last one playing", snap(lobby.PhaseRacing, later, racer("me", false, lobby.RacerLeft), racer("bob", true, lobby.RacerCleared)), false},
		{"cleared, then left", snap(lobby.PhaseRacing, later, racer("me", false, lobby.RacerCleared), racer("bob", true, lobby.RacerPlaying)), false},
		{"time is up", snap(lobby.PhaseRacing, earlier, racer("me", false, lobby.RacerLeft), racer("bob", true, lobby.RacerPlaying)), false},
		{"results", snap(lobby.PhaseResults, later, racer("me", true, lobby.RacerStuck)), false},
		{"closed", snap(lobby.PhaseClosed, time.Time{}, racer("me", true, lobby.RacerWaiting)), false},
		{"no seat", snap(lobby.PhaseRacing, later, racer("bob", true, lobby.RacerPlaying)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := offersBack(tt.snap, "me", now); got != tt.want {
				t.Errorf("offersBack: got %v, want %v", got, tt.want)
			}
		})
	}
}
