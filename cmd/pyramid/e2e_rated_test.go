package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// waitingDealRE finds the deal on a waiting room's second line.
var waitingDealRE = regexp.MustCompile(`deal (\d+) . the same deal for everybody`)

// winningLine is a line of play that clears a deal, from the solver.
func winningLine(t *testing.T, rules string, deal uint64) []string {
	t.Helper()
	sol := engine.Solve(t.Context(), newGame(t, rules, deal), 0)
	if sol.Verdict != engine.Winnable {
		t.Fatalf("deal %d: the solver says %v, want a winnable deal (the rematch's deal is one)", deal, sol.Verdict)
	}
	line := make([]string, len(sol.Moves))
	for i, m := range sol.Moves {
		line[i] = m.String()
	}
	return line
}

// TestE2ERaceRated: a race on a deal the host chose (race new classic N)
// is stored unrated: the results say so, top race --json stays empty and
// stats count it apart. The host's rematch deals at random: that race is
// rated, and top race --json lists both racers. (Both races end as a
// player clears the deal with the other gone: an earlier version of the
// test ended the rematch with both racers leaving, and on PostgreSQL about
// one run in twenty that race did not end; see the commit message.)
func TestE2ERaceRated(t *testing.T) {
	forEachBackend(t, testE2ERaceRated)
}

func testE2ERaceRated(t *testing.T, be backend) {
	ts := startServer(t, be.url(t), "--max-conns-per-ip", "32")
	deal, line := hintGame(t, "classic", engine.Won)
	keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(keyA), "name alice")
	runOK(t, ts.user(keyB), "name bob")

	// A chosen deal: bob leaves, alice clears it.
	a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10)})
	code := waitRoom(t, a)
	a.WaitFor(t, "unrated: chosen deal", wait)
	b := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	readyStart(t, a, b)
	ga := newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, b, newGame(t, "classic", deal))
	a.WaitFor(t, "left · unrated: chosen deal", wait) // the race panel's header
	typeKeys(t, b, "qq")
	b.WaitScreen(t, wait, "the menu", isMenu)
	playLine(t, a, ga, line, true)
	a.WaitFor(t, "room "+code+" · results", wait)
	a.WaitFor(t, "Unrated (the host chose the deal)", wait)
	sshtest.Eventually(t, wait, func() bool {
		var stats []statsRaceJSON
		runJSON(t, ts.user(keyA), "stats --json", &stats)
		for _, s := range stats {
			if s.Rules == "classic" && s.Race != nil && s.Race.Unrated == 1 && s.Race.Races == 0 && s.Race.Wins == 0 {
				return true
			}
		}
		return false
	}, "alice's stats show one unrated race")
	var top []ratingJSON
	runJSON(t, ts.user(keyB), "top race --json", &top)
	if len(top) != 0 {
		t.Fatalf("top race --json after a chosen deal's race: got %+v, want nobody rated", top)
	}

	// The rematch deals at random: rated.
	typeKeys(t, a, "r")
	s := a.WaitScreen(t, wait, "the rematch's waiting room", func(s string) bool { return waitingDealRE.MatchString(s) })
	if strings.Contains(s, "unrated") {
		t.Errorf("the rematch's waiting room says unrated:\n%s", s)
	}
	deal2, err := strconv.ParseUint(waitingDealRE.FindStringSubmatch(s)[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	b = sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	readyStart(t, a, b)
	g2 := newGame(t, "classic", deal2)
	waitPosition(t, a, g2)
	waitPosition(t, b, newGame(t, "classic", deal2))
	// bob leaves, alice clears the deal: the race ends.
	typeKeys(t, b, "qq")
	b.WaitScreen(t, wait, "the menu", isMenu)
	playLine(t, a, g2, winningLine(t, "classic", deal2), true)
	a.WaitFor(t, "room "+code+" · results", wait)
	if !sshtest.Poll(wait, func() bool {
		top = nil
		runJSON(t, ts.user(keyB), "top race --json", &top)
		return len(top) == 2
	}) {
		t.Fatalf("top race --json after the rematch: %+v, want alice and bob; alice's stats: %s\nalice's screen:\n%s\nbob's screen:\n%s",
			top, runOK(t, ts.user(keyA), "stats --json"), a.Screen(), b.Screen())
	}
	if top[0].Name != "alice" || top[0].Races != 1 || top[0].Wins != 1 || top[1].Races != 1 || top[1].Wins != 0 {
		t.Errorf("top race --json after the rematch: got %+v, want alice first, one race each, her win only", top)
	}
	var stats []statsRaceJSON
	runJSON(t, ts.user(keyA), "stats --json", &stats)
	for _, s := range stats {
		if s.Rules == "classic" && (s.Race == nil || s.Race.Races != 1 || s.Race.Wins != 1 || s.Race.Unrated != 1) {
			t.Errorf("alice's classic stats %+v, want one rated race won and one unrated", s.Race)
		}
	}
}
