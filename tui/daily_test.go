package tui

import (
	"encoding/base64"
	"strings"
	"testing"

	"pyramid/engine"

	tea "github.com/charmbracelet/bubbletea"
)

// The daily deal's end screens: its share line and help bar.

// TestDailyShareLineFits80: the share line of an assisted daily ended
// "… 45 moves · assis…" at 80 columns, cut where a player copies it
// from; when "share: " does not leave room for it, the line shows alone.
func TestDailyShareLineFits80(t *testing.T) {
	store := &recordingGames{res: SaveResult{Status: StatusWon}}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	h.keys("H") // a hint: assisted
	endGame(t, h, "daily", 3, engine.Won)
	want := h.m.table().shareLine()
	if !strings.HasSuffix(want, "· assisted") {
		t.Fatalf("share line %q, want it assisted", want)
	}
	h.wantScreen(" " + want + "\n")
	h.resize(120, 40)
	h.wantScreen("share (c copies): " + want)
	// c copies it to the clipboard (OSC 52), the line in base64.
	cmd := h.m.table().updateKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")})
	if cmd == nil {
		t.Fatal("c copies nothing")
	}
	seq := cmd().(clipboardMsg).TerminalSequence()
	if got := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(want)) + "\a"; seq != got {
		t.Fatalf("c writes %q, want %q", seq, got)
	}
}

// TestDailyWonHelpBar: after a win of the daily the help bar's enter
// replays the day's deal, as the end panel says ("enter or n: replay
// (practice)"), not "new deal" (seen over SSH: the panel and the bar
// disagreed).
func TestDailyWonHelpBar(t *testing.T) {
	store := &recordingGames{res: SaveResult{Status: StatusWon}}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	endGame(t, h, "daily", 3, engine.Won)
	h.wantScreen("enter or n: replay (practice)", "enter replay")
	h.wantNotScreen("new deal")
}
