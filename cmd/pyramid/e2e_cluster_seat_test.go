package main

// A racer who moves between the instances of a cluster mid-race: the
// stored game is the truth, so every seat starts from it, whatever an
// instance kept of the race from an earlier visit, and a racer has one
// stored game per race however often they come back, and wherever.

import (
	"strconv"
	"strings"
	"testing"

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/store/storetest"
)

// TestE2EClusterSeatFromStore: bob races on two instances in turn, four
// times back and forth, then on a new instance after SIGKILL of the one
// he was on: each time his board is his stored game, the moves he makes
// there are stored on top of it, and he has one game of the race.
func TestE2EClusterSeatFromStore(t *testing.T) {
	dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
	bin := buildPyramid(t)
	ttl := []string{"--presence-ttl", clusterTTL.String()}
	c1 := startClusterChild(t, bin, dbURL, ttl...)
	c2 := startClusterChild(t, bin, dbURL, ttl...)
	one := &testServer{addr: c1.addr, dbURL: dbURL, logs: c1.stderr}
	two := &testServer{addr: c2.addr, dbURL: dbURL, logs: c2.stderr}

	deal, line := hintGame(t, "classic", engine.Won)
	if len(line) < 16 {
		t.Fatalf("the deal's line has %d moves, want 16 at least", len(line))
	}
	keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, one.user(keyA), "name alice")
	runOK(t, one.user(keyB), "name bob")
	a := sshtest.OpenTerm(t, one.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10) + " --time 10m"})
	code := waitRoom(t, a)
	b := sshtest.OpenTerm(t, two.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	readyStart(t, a, b)
	ga, gb := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, b, gb)
	playLine(t, a, ga, line[:2], false) // alice keeps the race going meanwhile

	// bob plays on two, then on one, two, one and two again: each
	// instance but the first kept a copy of his race from his last visit.
	visits := []*testServer{two, one, two, one, two}
	chunks := [][]string{line[0:3], line[3:4], line[4:7], line[7:9], line[9:10]}
	for i, ts := range visits {
		if i > 0 {
			if err := b.Close(); err != nil {
				t.Logf("closing bob's terminal: %v", err)
			}
			b = sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
			// His board is the stored game, not the copy this instance
			// had of his race.
			waitPosition(t, b, gb)
		}
		playLine(t, b, gb, chunks[i], false)
		waitStored(t, two.user(keyB), "classic", deal, gb.Record().Moves)
		a.WaitScreen(t, wait, "bob's moves on alice's panel", func(s string) bool {
			return strings.Contains(lineWith(s, " bob"), strconv.Itoa(gb.Removed())+"/28")
		})
	}
	oneRaceGame(t, one.user(keyB), deal, gb)

	// two dies by SIGKILL with bob on it; bob comes back on a new
	// instance, which never saw the race but from the bus and the store.
	c2.kill(t)
	c3 := startClusterChild(t, bin, dbURL, ttl...)
	three := &testServer{addr: c3.addr, dbURL: dbURL, logs: c3.stderr}
	b = sshtest.OpenTerm(t, three.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	waitPosition(t, b, gb)
	playLine(t, b, gb, line[10:12], false)
	waitStored(t, three.user(keyB), "classic", deal, gb.Record().Moves)
	oneRaceGame(t, three.user(keyB), deal, gb)
	// And once more on one, which kept his copy from the third visit.
	if err := b.Close(); err != nil {
		t.Logf("closing bob's terminal: %v", err)
	}
	b = sshtest.OpenTerm(t, one.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	waitPosition(t, b, gb)
	playLine(t, b, gb, line[12:13], false)
	waitStored(t, one.user(keyB), "classic", deal, gb.Record().Moves)
	oneRaceGame(t, one.user(keyB), deal, gb)
}

// oneRaceGame checks that the player has exactly one game of the deal,
// with g's moves.
func oneRaceGame(t *testing.T, u user, deal uint64, g *engine.Game) {
	t.Helper()
	var of []gameJSON
	for _, sg := range games(t, u) {
		if sg.Rules == "classic" && sg.Deal == deal {
			of = append(of, sg)
		}
	}
	if len(of) != 1 || !slicesEqual(of[0].Moves, g.Record().Moves) {
		t.Fatalf("games of deal %d: %+v; want one, with the moves %q", deal, of, g.Record().Moves)
	}
}
