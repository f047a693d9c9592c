package main

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/arcade"
	"pyramid/engine"
	"pyramid/server/sshtest"
)

// TestE2EChosenDealIsPractice: a deal number the player typed (ssh -t
// HOST classic N) plus the solver's line pasted wins, counts as played
// and won, but the end screen says "practice: chosen deal", and it sets
// no record and is on no top list.
func TestE2EChosenDealIsPractice(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		deal, line := hintGame(t, "classic", engine.Won)
		term := ts.openAs(t, "ann", key, "classic "+itoa(deal))
		g := newGame(t, "classic", deal)
		screen := waitPosition(t, term, g)
		if !strings.Contains(screen, "Classic · deal "+itoa(deal)) {
			t.Errorf("a chosen deal's header does not show its number (it is the player's own):\n%s", screen)
		}
		typeKeys(t, term, ":"+strings.Join(line, " ")+sshtest.KeyEnter)
		screen = term.WaitFor(t, "practice: chosen deal", wait)
		if strings.Contains(screen, "record:") || strings.Contains(screen, "a new record") {
			t.Errorf("a chosen deal's win speaks of a record:\n%s", screen)
		}
		waitStatus(t, ts.user(key), "classic", deal, "won")
		var top []map[string]any
		runJSON(t, ts.user(key), "top classic --json", &top)
		if len(top) != 0 {
			t.Errorf("top classic --json after a chosen deal's win: %v, want nobody", top)
		}
		var stats []statsJSON
		runJSON(t, ts.user(key), "stats --json", &stats)
		for _, s := range stats {
			if s.Rules == "classic" && (s.Played != 1 || s.Won != 1 || s.BestTimeMS != 0 || s.FewestMoves != 0) {
				t.Errorf("classic stats %+v, want 1 played and won, no best time, no fewest moves", s)
			}
		}
	})
}

// TestE2EDailyPastedOffTheBoard: the daily's deal (from the server's
// secret: only its admin can compute it) won by a line pasted through ":"
// is the player's result, assisted: the screen says "moves faster than
// play" and the player is not on the day's board.
func TestE2EDailyPastedOffTheBoard(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		var secretHex string
		sshtest.Eventually(t, wait, func() bool {
			return ts.db(t).QueryRow(`SELECT value FROM secrets WHERE name = 'daily'`).Scan(&secretHex) == nil
		}, "the daily secret in the database")
		secret, err := hex.DecodeString(secretHex)
		if err != nil {
			t.Fatal(err)
		}
		daily := engine.MustRules("daily")
		deal, err := engine.DailyDeal(context.Background(), daily, secret, time.Now(), arcade.DailyBudget)
		if err != nil {
			t.Fatal(err)
		}
		g, err := engine.NewNumbered(daily, deal)
		if err != nil {
			t.Fatal(err)
		}
		sol := engine.Solve(t.Context(), g, 0)
		if sol.Verdict != engine.Winnable {
			t.Fatalf("the daily deal %d: the solver says %v", deal, sol.Verdict)
		}
		line := make([]string, len(sol.Moves))
		for i, m := range sol.Moves {
			line[i] = m.String()
		}
		term := ts.openAs(t, "ann", key, "daily")
		screen := waitPosition(t, term, g)
		if strings.Contains(screen, itoa(deal)) {
			t.Errorf("the daily's screen shows its deal number %d:\n%s", deal, screen)
		}
		typeKeys(t, term, ":"+strings.Join(line, " ")+sshtest.KeyEnter)
		screen = term.WaitFor(t, "moves faster than play", wait)
		if strings.Contains(screen, "daily board") {
			t.Errorf("a pasted daily's end screen puts the player on the board:\n%s", screen)
		}
		var board []map[string]any
		runJSON(t, ts.user(key), "top daily --json", &board)
		if len(board) != 0 {
			t.Errorf("top daily --json after a pasted daily: %v, want nobody on the board", board)
		}
	})
}

// itoa is a deal number in decimal.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
