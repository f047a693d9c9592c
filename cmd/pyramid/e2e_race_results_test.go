package main

// End-to-end tests of a club's evening over real SSH (qa6): where a racer
// stands in who, and the results of a race that ended while its racer was
// in the menu.

import (
	"strconv"
	"strings"
	"testing"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// TestE2EResultsOfARaceEndedInTheMenu: who says bob waits in the room,
// then races; bob leaves the race for the menu (Back to race); alice
// clears the deal, and bob's menu turns the line into Results of race,
// which shows the results; who says alice is at them. race CODE brings
// them too.
func TestE2EResultsOfARaceEndedInTheMenu(t *testing.T) {
	ts := startServer(t, "", "--max-conns-per-ip", "32")
	deal, line := hintGame(t, "classic", engine.Won)
	keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(keyA), "name alice")
	runOK(t, ts.user(keyB), "name bob")
	a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10)})
	code := waitRoom(t, a)
	b := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	waitWho(t, ts.user(keyA), "bob waiting in the room", func(w map[string]whoJSON) bool {
		return w["bob"].Doing == "racing" && w["bob"].Private && w["bob"].Room == "" && w["bob"].Phase == "waiting"
	})
	if out := runOK(t, ts.user(keyA), "who"); !strings.Contains(out, "waiting in a private room · Classic\n") {
		t.Fatalf("who, bob in the waiting room of a private room:\n%s", out)
	}

	readyStart(t, a, b)
	ga, gb := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, b, gb)
	waitWho(t, ts.user(keyA), "bob racing", func(w map[string]whoJSON) bool { return w["bob"].Phase == "racing" })
	typeKeys(t, b, "d")
	play(t, gb, "d")
	waitPosition(t, b, gb)
	typeKeys(t, b, "qq")
	b.WaitFor(t, "Back to race "+code, wait)
	playLine(t, a, ga, line, true)
	a.WaitFor(t, "room "+code+" · results", wait)
	waitWho(t, ts.user(keyB), "alice at the results", func(w map[string]whoJSON) bool {
		return w["alice"].Private && w["alice"].Phase == "results"
	})

	b.WaitFor(t, "> Results of race "+code, wait)
	typeKeys(t, b, sshtest.KeyEnter)
	s := b.WaitFor(t, "room "+code+" · results", wait)
	if !strings.Contains(s, "1. alice") || !strings.Contains(s, "2. bob") {
		t.Fatalf("bob's results of race %s:\n%s", code, s)
	}
	typeKeys(t, b, "q")
	s = b.WaitScreen(t, wait, "the menu", isMenu)
	if strings.Contains(s, "Results of race") {
		t.Fatalf("the results seen, the menu still offers them:\n%s", s)
	}
	b.Session().Close()

	b = sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	if s := b.WaitFor(t, "room "+code+" · results", wait); !strings.Contains(s, "1. alice") {
		t.Fatalf("race %s after its end:\n%s", code, s)
	}
}
