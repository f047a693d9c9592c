package main

// End-to-end test of racing the ghost over real SSH: a player wins a
// game, replay --json shows when each move was made, and `race ghost ID`
// races that game at its recorded pace; the race's game is practice.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// replayJSON is the part of replay --json this test reads.
type replayJSON struct {
	ID     int64    `json:"id"`
	Moves  []string `json:"moves"`
	MoveMS []int64  `json:"move_ms"`
}

func TestE2EGhost(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		deal, line := hintGame(t, "classic", engine.Won)
		key := sshtest.NewKey(t)
		u := ts.user(key)
		runOK(t, u, "name alice")

		// A won game, then its move times.
		term := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic " + strconv.FormatUint(deal, 10)})
		waitPosition(t, term, newGame(t, "classic", deal))
		playLine(t, term, newGame(t, "classic", deal), line, true)
		won := waitStatus(t, u, "classic", deal, "won")
		var rep replayJSON
		runJSON(t, u, "replay --json "+strconv.FormatInt(won.ID, 10), &rep)
		if len(rep.MoveMS) != len(rep.Moves) || len(rep.Moves) != len(line) {
			t.Fatalf("replay --json: %d moves, %d move times; want %d of each", len(rep.Moves), len(rep.MoveMS), len(line))
		}
		for i := 1; i < len(rep.MoveMS); i++ {
			if rep.MoveMS[i] < rep.MoveMS[i-1] || rep.MoveMS[0] < 0 {
				t.Fatalf("move times go back: %v", rep.MoveMS)
			}
		}

		// No spoilers: today's best daily only after one's own daily.
		sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "race ghost daily"}).
			WaitFor(t, "finish today's daily deal first", wait)
		// Another player's game that is not a past day's daily is not
		// found, as replay says.
		other := sshtest.NewKey(t)
		sshtest.OpenTerm(t, ts.dial(t, other), sshtest.TermOptions{Command: "race ghost " + strconv.FormatInt(won.ID, 10)}).
			WaitFor(t, "not found", wait)

		// Race the ghost of the won game: it plays on its own, the player
		// plays the same line, the results rank the two.
		g := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "race ghost " + strconv.FormatInt(won.ID, 10)})
		g.WaitFor(t, "ghost of alice", wait)
		mine := newGame(t, "classic", deal)
		waitPosition(t, g, mine)
		playLine(t, g, mine, line, true)
		screen := g.WaitFor(t, "practice: it records no result", wait)
		if !strings.Contains(screen, "ghost of alice · results") || !strings.Contains(screen, "cleared in") {
			t.Fatalf("results screen:\n%s", screen)
		}
		// The race's game is stored as practice: a second won game of
		// the deal, and still one result.
		// The results may show before the last save of the race's game
		// is stored: poll until it is, or the deadline.
		wonGames := func() int {
			n := 0
			for _, gj := range games(t, u) {
				if gj.Rules == "classic" && gj.Deal == deal && gj.Status == "won" {
					n++
				}
			}
			return n
		}
		n := wonGames()
		for deadline := time.Now().Add(wait); n != 2 && time.Now().Before(deadline); n = wonGames() {
			time.Sleep(20 * time.Millisecond) // polling the store, not synchronising
		}
		if n != 2 {
			t.Errorf("%d won games of the deal stored, want 2 (the game and its ghost race)", n)
		}
		if s := classicStats(t, u); s.Played != 1 || s.Won != 1 {
			t.Errorf("stats after a ghost race: played %d won %d, want 1 and 1 (a ghost race is practice)", s.Played, s.Won)
		}
	})
}
