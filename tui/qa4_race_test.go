package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/lobby"
)

// TestRaceWatchMinisMark: a spectator's panel marks the racer whose
// board it shows, with the mini pyramids (120 columns and more) as with
// the lines at 80 (seen at 200×60: no racer marked, tab moved no mark).
func TestRaceWatchMinisMark(t *testing.T) {
	for _, w := range []int{80, 200} {
		f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
		h := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: w, Height: 60, Unicode: true})
		for _, name := range []string{"racer0", "racer1"} {
			s := screenOf(h)
			if !strings.Contains(s, "watching "+name) {
				t.Fatalf("at %d columns: want %s's board:\n%s", w, name, s)
			}
			if got := strings.Count(s, ">racer"); got != 1 || !strings.Contains(s, ">"+name) {
				t.Errorf("at %d columns watching %s: %d racers marked, want %s alone:\n%s", w, name, got, name, s)
			}
			h.send(tea.KeyMsg{Type: tea.KeyTab})
		}
	}
}
