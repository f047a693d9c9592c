package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// toFirstRemoval is the start of line up to the first move that removes
// a pyramid card, and the game after it.
func toFirstRemoval(t *testing.T, rules string, deal uint64, line []string) ([]string, *engine.Game) {
	t.Helper()
	g := newGame(t, rules, deal)
	for i, m := range line {
		play(t, g, m)
		if g.Removed() > 0 {
			return line[:i+1], g
		}
	}
	t.Fatalf("deal %d: the line removes no pyramid card", deal)
	return nil, nil
}

// farmRace is the second-key farm as a player tries it: ann opens a
// rated room (a random deal), other joins with their key (nil: as a
// guest), ann starts, other makes its draws (maybe none), ann removes one
// pair, then both leave. It returns the room's code.
func farmRace(t *testing.T, ts *testServer, annKey, otherKey gossh.Signer, otherDraws int) string {
	t.Helper()
	a := sshtest.OpenTerm(t, ts.dial(t, annKey), sshtest.TermOptions{Command: "race new classic"})
	code := waitRoom(t, a)
	s := a.WaitScreen(t, wait, "the waiting room's deal", func(s string) bool { return waitingDealRE.MatchString(s) })
	if strings.Contains(s, "unrated") {
		t.Fatalf("a random deal's room says unrated:\n%s", s)
	}
	deal, err := strconv.ParseUint(waitingDealRE.FindStringSubmatch(s)[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	name := "dan"
	if otherKey == nil {
		name = "guest"
	}
	o := ts.openAs(t, name, otherKey, "race "+code)
	o.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	typeKeys(t, o, "r") // ready, where the room asks for it
	a.WaitFor(t, "You host, and everybody is ready", wait)
	typeKeys(t, a, "s")
	ga, gd := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, o, gd)
	if otherDraws > 0 {
		playLine(t, o, gd, slices.Repeat([]string{"d"}, otherDraws), false)
	}
	pair, _ := toFirstRemoval(t, "classic", deal, winningLine(t, "classic", deal))
	playLine(t, a, ga, pair, false)
	typeKeys(t, o, "qq")
	o.WaitScreen(t, wait, "the menu", isMenu)
	typeKeys(t, a, "qq")
	a.WaitScreen(t, wait, "the menu", isMenu)
	return code
}

// noRatedRace fails the test when stats --json counts a rated race, a
// win or a podium, or a rating, for the player of key.
func noRatedRace(t *testing.T, ts *testServer, key gossh.Signer, who string) {
	t.Helper()
	var stats []statsRaceJSON
	runJSON(t, ts.user(key), "stats --json", &stats)
	for _, s := range stats {
		if r := s.Race; r != nil && (r.Races != 0 || r.Wins != 0 || r.Podiums != 0 || r.Rating != 0) {
			t.Errorf("%s's %s stats after the farm: %+v, want no rated race", who, s.Rules, *r)
		}
	}
}

// TestE2ERatingFarm: the second-key farm (ann hosts, dan, her other key,
// joins, ann removes one pair, both leave) and its variants (dan draws a
// card first; a guest as the other racer, who moves) leave every rating
// and count unchanged, and the results say why.
func TestE2ERatingFarm(t *testing.T) {
	forEachBackend(t, testE2ERatingFarm)
}

func testE2ERatingFarm(t *testing.T, be backend) {
	ts := startServer(t, be.url(t), "--max-conns-per-ip", "32")
	annKey, danKey := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(annKey), "name ann")
	runOK(t, ts.user(danKey), "name dan")
	for _, tt := range []struct {
		name       string
		other      gossh.Signer
		otherDraws int
		says       []string
	}{
		{"dan never moves", danKey, 0, []string{"no race: fewer than two racers with a key moved: ann", "no race: never moved: dan"}},
		{"dan draws, then leaves", danKey, 1, []string{"unrated: no rated opponent: ann", "no race: left before removing a card: dan"}},
		{"a guest moves", nil, 2, []string{"no race: fewer than two racers with a key moved: ann"}},
	} {
		code := farmRace(t, ts, annKey, tt.other, tt.otherDraws)
		// Back to the room: its results, and how the race counted.
		a := sshtest.OpenTerm(t, ts.dial(t, annKey), sshtest.TermOptions{Command: "race " + code})
		a.WaitFor(t, "room "+code+" · results", wait)
		for _, say := range tt.says {
			a.WaitFor(t, say, wait)
		}
		noRatedRace(t, ts, annKey, "ann")
		noRatedRace(t, ts, danKey, "dan")
		var top []ratingJSON
		runJSON(t, ts.user(danKey), "top race --json", &top)
		if len(top) != 0 {
			t.Errorf("%s: top race --json %+v, want nobody", tt.name, top)
		}
		typeKeys(t, a, "q")
		a.WaitScreen(t, wait, "the menu", isMenu)
	}
	var stats []statsRaceJSON
	runJSON(t, ts.user(annKey), "stats --json", &stats)
	if len(stats) != 1 || stats[0].Race == nil || stats[0].Race.Unrated != 1 {
		t.Errorf("ann's stats after the farms: %+v, want one unrated race (the one dan drew in), nothing else", stats)
	}
}
