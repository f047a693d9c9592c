package main

// End-to-end tests of the solver's second level over real SSH, as in
// e2e_test.go: par on the win screen and in `top daily`,
// "where the win was lost" on the lost screen with w watching from there,
// and the setting "Tell me when a deal can no longer be won".

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// heuristicMoves plays the engine's hint from the start of a deal until
// the game ends, and returns the moves in notation and the end.
func heuristicMoves(t *testing.T, rules string, deal uint64) ([]string, engine.Status) {
	t.Helper()
	g := newGame(t, rules, deal)
	for g.Status() == engine.Playing {
		m, ok := g.Hint()
		if !ok {
			break
		}
		if err := g.Apply(m); err != nil {
			t.Fatalf("%s %d: the hint %s is illegal: %v", rules, deal, m, err)
		}
	}
	return g.Record().Moves, g.Status()
}

// TestE2EParAndWhereLost: ann loses classic 2, whose 19th move under the
// hint lost a winnable deal, and reads where; w watches the winning line
// from there. She wins classic 3 and reads its par; `top daily` names
// the day's.
func TestE2EParAndWhereLost(t *testing.T) {
	ts := startServer(t, "")
	key := sshtest.NewKey(t)

	lose, end := heuristicMoves(t, "classic", 2)
	if end != engine.Lost {
		t.Fatalf("the hint does not lose classic 2 any more (%s): pick another deal", end)
	}
	term := ts.openAs(t, "ann", key, "classic 2")
	g := newGame(t, "classic", 2)
	waitPosition(t, term, g)
	typeKeys(t, term, ":"+strings.Join(lose, " ")+sshtest.KeyEnter)
	play(t, g, lose...)
	waitPosition(t, term, g)
	term.WaitFor(t, "move 19, 7.1+w, lost the win: d kept it", wait)
	typeKeys(t, term, "w")
	screen := term.WaitFor(t, "the solver from move 19", wait)
	if !strings.Contains(screen, "next: ") {
		t.Errorf("the watch screen does not show the line's first move:\n%s", screen)
	}
	typeKeys(t, term, "q")
	term.WaitFor(t, "lost the win", wait)

	win, end := heuristicMoves(t, "classic", 3)
	if end != engine.Won {
		t.Fatalf("the hint does not win classic 3 any more (%s): pick another deal", end)
	}
	term2 := ts.openAs(t, "ann", key, "classic 3")
	g = newGame(t, "classic", 3)
	waitPosition(t, term2, g)
	typeKeys(t, term2, ":"+strings.Join(win, " ")+sshtest.KeyEnter)
	term2.WaitFor(t, "74 moves, par 58", wait)

	out := runOK(t, ts.user(key), "top daily")
	if first, _, _ := strings.Cut(out, "\n"); !regexp.MustCompile(`, par \d+ \(the shortest winning line\):`).MatchString(first) {
		t.Errorf("top daily does not name the day's par:\n%s", out)
	}
}

// TestE2ETellWhenLost: with the setting on (kept for the next session),
// playing classic 2 move by move says when the deal can no longer be won.
func TestE2ETellWhenLost(t *testing.T) {
	ts := startServer(t, "")
	key := sshtest.NewKey(t)
	menu := ts.openAs(t, "bo", key, "")
	menu.WaitFor(t, "Classic", wait)
	menuSelect(t, menu, "Tell me when a deal can no longer be won")
	typeKeys(t, menu, sshtest.KeyEnter)
	menu.WaitScreen(t, wait, "the setting on", func(s string) bool {
		return strings.Contains(lineWith(s, "> "), "[x] on")
	})
	// The menu shows the setting at once and keeps it in a command: the
	// next session reads it from the store, so it must be there first
	// (under load the save came after that session's read).
	db := ts.db(t)
	for deadline := time.Now().Add(wait); count(t, db, "SELECT count(*) FROM settings WHERE name = 'tell-unwinnable' AND value = 'on'") != 1; {
		if time.Now().After(deadline) {
			t.Fatalf("after %s the setting is not stored", wait)
		}
		time.Sleep(20 * time.Millisecond) // polling the store, not synchronising
	}

	moves, _ := heuristicMoves(t, "classic", 2)
	term := ts.openAs(t, "bo", key, "classic 2")
	g := newGame(t, "classic", 2)
	waitPosition(t, term, g)
	for i, mv := range moves[:19] {
		typeKeys(t, term, ":"+mv+sshtest.KeyEnter)
		play(t, g, mv)
		screen := waitPosition(t, term, g)
		if i < 18 && strings.Contains(screen, "can no longer be won") {
			t.Fatalf("after move %d the deal is said lost:\n%s", i+1, screen)
		}
	}
	term.WaitFor(t, "this deal can no longer be won (since move 19", wait)
}
