package tui

import (
	"testing"

	"pyramid/engine"
)

// The daily's rules, said before they matter.

// TestDailyRulesBeforeTheFirstMove: one undo of a draw took a player off
// today's board without a word before (the help said "Undo and redo have
// no limit"). The daily's table now says what takes a player off the
// board before the first move, and its help says the daily's rules.
func TestDailyRulesBeforeTheFirstMove(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}, Width: 80, Height: 24,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	h.wantScreen("A hint takes you off today's board · undo takes back removals only")
	golden(t, "daily_rules_80x24", h.screen())
	h.keys("?")
	h.wantScreen("The daily: your first finished game of the day's deal is your result on",
		"its board, unless it used a hint. Undo takes back removals only, never a")
	h.wantNotScreen("Undo and redo have no limit")
	h.keys("esc", "d")
	h.wantNotScreen("A hint takes you off today's board")

	// A game of the player's own says nothing of the kind.
	h = newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}, Width: 80, Height: 24})
	h.wantNotScreen("today's board")
}

// TestDailyAssistedAbandonSaysOffTheBoard: the abandon question of an
// assisted daily said "This will be your result on today's board",
// which it never is; it now says what abandoning it does.
func TestDailyAssistedAbandonSaysOffTheBoard(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}, Width: 80, Height: 24,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	h.keys("H", "d", "n")
	h.wantScreen("abandon it?", "It used a hint or an undo, so it will not be on today's board")
	h.wantNotScreen("This will be your result on today's board.")

	store := storeWith(SavedGame{Record: engine.Record{Rules: "daily", Deal: 9, Moves: []string{"d"}}, Daily: "2026-02-28", Hints: 1})
	h = newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store})
	h.wantScreen("It used a hint or an undo, so it will not be on the board of 2026-02-28")
}
