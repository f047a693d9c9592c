package tui

import (
	"strings"
	"testing"
	"time"

	"pyramid/lobby"

	tea "github.com/charmbracelet/bubbletea"
)

func TestRaceShareLine(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseResults)
	snap.Results = []lobby.Placing{
		{Place: 1, ID: "p1", Name: "racer1", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 83 * time.Second},
		{Place: 2, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 1, Time: 75 * time.Second},
		{Place: 2, ID: "p2", Name: "racer2\x1b[2J", State: lobby.RacerLeft, Removed: 20, Moves: 38, Time: 75 * time.Second},
	}
	title := clean(snap.RulesTitle, 40)
	for _, tc := range []struct{ you, want string }{
		{"p1", "Pyramid race · " + title + " · 1st of 3 · cleared · 1:23.0 · 40 moves"},
		{"p0", "Pyramid race · " + title + " · 2nd of 3 · 20/28 · 1:15.0 · 1 move"},
		{"spectator", ""},
	} {
		if got := raceShareLine(snap, tc.you, " · "); got != tc.want {
			t.Errorf("raceShareLine(%s) = %q, want %q", tc.you, got, tc.want)
		}
	}
	// A chosen deal's race says it is unrated.
	unrated := snap
	unrated.Rated = false
	if got, want := raceShareLine(unrated, "p1", " · "), "Pyramid race · "+title+" · 1st of 3 · cleared · 1:23.0 · 40 moves · unrated"; got != want {
		t.Errorf("raceShareLine of an unrated race = %q, want %q", got, want)
	}

	// The results screen shows it, at 80×24 with eight racers.
	snap = raceRoom(8, lobby.PhaseResults)
	for i, m := range snap.Members {
		snap.Results = append(snap.Results, lobby.Placing{Place: i + 1, ID: m.ID, Name: m.Name, State: lobby.RacerStuck, Removed: 10 - i, Moves: 20})
	}
	h, _ := raceHarness(t, snap, 80, 24)
	s := screenOf(h)
	if line := lineWith(s, "Share: "); !strings.Contains(line, "Pyramid race · ") || !strings.Contains(line, "1st of 8 · 10/28") {
		t.Errorf("the results screen's share line: %q in\n%s", line, s)
	}
	if strings.ContainsRune(s, '\x1b') {
		t.Error("a raw escape on the results screen")
	}

	// A long rules title gives way at 80 columns: the place, the result,
	// the time and the moves are all there; at 160 the line is whole.
	snap.RulesTitle = "Custom: 3 waste piles, 3 passes, open stock, overlap"
	h, _ = raceHarness(t, snap, 80, 24)
	s = screenOf(h)
	if line := lineWith(s, "Pyramid race · "); !strings.HasSuffix(strings.TrimSpace(line), "1st of 8 · 10/28 · 0:00.0 · 20 moves") {
		t.Errorf("a long title at 80 columns: the share line %q lost its facts in\n%s", line, s)
	}
	h, _ = raceHarness(t, snap, 160, 40)
	line := raceShareLine(snap, snap.Members[0].ID, " · ")
	if s = screenOf(h); !strings.Contains(s, "Share (c copies): "+line) {
		t.Errorf("at 160 columns the share line is not whole:\n%s", s)
	}
	// c copies the whole line (OSC 52), the room's code in the waiting
	// room.
	cmd := h.m.race().resultsKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")})
	if cmd == nil {
		t.Fatal("c copies nothing on the results")
	}
	if got, want := cmd().(clipboardMsg).text, line; got != want {
		t.Errorf("c copies %q, want %q", got, want)
	}
	w, _ := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	w.keys("c")
	w.wantScreen("room code copied")
}
