package tui

import (
	"strings"
	"testing"

	"pyramid/engine"
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
	h.wantScreen("share: " + want)
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
