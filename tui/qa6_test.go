package tui

import (
	"testing"

	"pyramid/lobby"
)

// TestRacePresencePhase: a racer in a race's waiting room, or at its
// results, was "racing in room X" for the Lobby and who; the race screen
// now tells the room's phase, and the Lobby says it.
func TestRacePresencePhase(t *testing.T) {
	fl := newFakeLobby()
	snap := raceRoom(3, lobby.PhaseWaiting)
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Lobby: fl, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	steps := []struct {
		phase lobby.Phase
		want  lobby.RacePhase
	}{
		{lobby.PhaseWaiting, lobby.RaceWaiting},
		{lobby.PhaseCountdown, lobby.RaceWaiting},
		{lobby.PhaseRacing, lobby.RaceRunning},
		{lobby.PhaseResults, lobby.RaceResults},
	}
	for i, st := range steps {
		if i > 0 {
			next := raceRoom(3, st.phase)
			next.Seq = uint64(i + 1)
			h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
		}
		if d := fl.last(); d.What != lobby.Racing || d.Room != "KMTX" || d.Phase != st.want {
			t.Fatalf("in phase %v the lobby is told %+v, want racing in KMTX, phase %q", st.phase, d, st.want)
		}
	}
}

// TestDescribeRacePhase: the Lobby's line of a racer says where the room
// stands.
func TestDescribeRacePhase(t *testing.T) {
	gl := newGlyphs(true)
	tests := []struct {
		phase lobby.RacePhase
		want  string
	}{
		{lobby.RaceWaiting, "waiting in room KMTX · Classic · deal 3 · 0/28 removed"},
		{lobby.RaceRunning, "racing in room KMTX · Classic · deal 3 · 0/28 removed"},
		{"", "racing in room KMTX · Classic · deal 3 · 0/28 removed"},
		{lobby.RaceResults, "at the results of room KMTX · Classic · deal 3 · 0/28 removed"},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			d := lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 3, Room: "KMTX", Phase: tt.phase}
			if got := describeDoing(d, gl); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
