package main

// End-to-end tests of smaller gaps over real SSH: the daily's
// end shows its share line; share ID of a race's game gives the place; a
// racer whose seat went to another room of theirs is told so.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// TestE2EDailyShareLine: the end of the day's daily shows its share
// line, spoiler-free, under the board.
func TestE2EDailyShareLine(t *testing.T) {
	ts := startServer(t, "")
	key := sshtest.NewKey(t)
	u := ts.user(key)
	term := ts.openAs(t, "ann", key, "daily")
	term.WaitScreen(t, wait, "the daily game", func(s string) bool { _, ok := readHeader(s); return ok })
	typeKeys(t, term, "d")
	term.WaitFor(t, "1 move", wait)
	var daily gameJSON
	for deadline := time.Now().Add(wait); daily.ID == 0; {
		for _, g := range games(t, u) {
			if g.Rules == "daily" && len(g.Moves) == 1 {
				daily = g
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the daily game is not stored")
		}
		time.Sleep(20 * time.Millisecond) // polling the server, not synchronising
	}
	g := newGame(t, "daily", daily.Deal)
	play(t, g, "d")
	probe := newGame(t, "daily", daily.Deal)
	play(t, probe, "d")
	var line []string
	for probe.Status() == engine.Playing {
		m, ok := probe.Hint()
		if !ok {
			break
		}
		if err := probe.Apply(m); err != nil {
			t.Fatal(err)
		}
		line = append(line, m.String())
	}
	playLine(t, term, g, line, true)
	s := term.WaitFor(t, "share: Pyramid · daily ", wait)
	share := lineWith(s, "share: ")
	what := strconv.Itoa(probe.Removed()) + "/28"
	if probe.Status() == engine.Won {
		what = "cleared"
	}
	if !strings.Contains(share, " · Daily · "+what+" · ") || !strings.HasSuffix(strings.TrimSpace(share), strconv.Itoa(len(line)+1)+" moves") {
		t.Fatalf("the share line: %q, want the date, Daily, %s, the time and %d moves", share, what, len(line)+1)
	}
	if strings.ContainsAny(share, "♠♥♦♣") {
		t.Fatalf("the share line gives cards away: %q", share)
	}
}

// kindJSON is the part of games --json that says what a game is.
type kindJSON struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"`
}

// TestE2ERaceMovesAndShares: bob's session in alice's room is told
// plainly when another session of his goes into another room; after a
// race, share of bob's race game gives his place.
func TestE2ERaceMovesAndShares(t *testing.T) {
	ts := startServer(t, "", "--max-conns-per-ip", "32")
	deal, line := hintGame(t, "classic", engine.Won)
	keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(keyA), "name alice")
	runOK(t, ts.user(keyB), "name bob")
	a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10)})
	code := waitRoom(t, a)
	b := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)

	// Another session of bob's opens a room of its own: the first one
	// is told where its seat went.
	b2 := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race new"})
	other := waitRoom(t, b2)
	b.WaitFor(t, "you left room "+code+" for room "+other+" in another session", wait)
	b2.Session().Close()
	b = sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)

	// The race: bob draws once and leaves, alice clears the deal.
	readyStart(t, a, b)
	ga, gb := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, b, gb)
	typeKeys(t, b, "d")
	play(t, gb, "d")
	waitPosition(t, b, gb)
	typeKeys(t, b, "qq")
	b.WaitScreen(t, wait, "the menu", isMenu)
	playLine(t, a, ga, line, true)
	a.WaitFor(t, "room "+code+" · results", wait)

	var id int64
	sshtest.Eventually(t, wait, func() bool {
		var list []kindJSON
		runJSON(t, ts.user(keyB), "games --json", &list)
		for _, g := range list {
			if g.Kind == "race" {
				id = g.ID
			}
		}
		return id != 0
	}, "bob's race game, of kind race")
	sshtest.Eventually(t, wait, func() bool {
		out := runOK(t, ts.user(keyB), "share "+strconv.FormatInt(id, 10))
		// The deal was chosen: the race is unrated, and the line says so.
		return strings.HasPrefix(out, "Pyramid race · Classic · 2nd of 2 · 0/28 · ") && strings.HasSuffix(out, " · 1 move · unrated\n")
	}, "share of bob's race game gives his place")
}

// TestE2EJoiningARoomStopsWatching: ann watches bob's game, then joins
// a race room from another session: bob's count drops, ann's watching
// session is told why, and who says she races.
func TestE2EJoiningARoomStopsWatching(t *testing.T) {
	ts := startServer(t, "", "--max-conns-per-ip", "32")
	annKey, bobKey, carolKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(annKey), "name ann")
	bob := ts.openAs(t, "bob", bobKey, "classic 42")
	waitPosition(t, bob, newGame(t, "classic", 42))
	watching := ts.openAs(t, "ann", annKey, "watch bob")
	waitPosition(t, watching, newGame(t, "classic", 42))
	bob.WaitFor(t, "1 watching", wait)

	carol := sshtest.OpenTerm(t, ts.dial(t, carolKey), sshtest.TermOptions{Command: "race new --public"})
	code := waitRoom(t, carol)
	sshtest.OpenTerm(t, ts.dial(t, annKey), sshtest.TermOptions{Command: "race " + code}).WaitFor(t, "room "+code, wait)
	watching.WaitFor(t, "you joined room "+code, wait)
	bob.WaitScreen(t, wait, "nobody watching", func(s string) bool { return !strings.Contains(s, "watching") })
	waitWho(t, ts.user(bobKey), "ann racing", func(w map[string]whoJSON) bool {
		return w["ann"].Doing == "racing" && w["ann"].Room == code
	})
}
