package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pyramid/engine"
	"pyramid/rating"
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
// rated, the results show each racer's rating change, stats --json both
// ratings (provisional) and their history, and top race --json lists
// nobody while the ratings are provisional. (Both races end as a player
// clears the deal with the other gone, after removing a pair: an earlier
// version of the test ended the rematch with both racers leaving, and on
// PostgreSQL about one run in twenty that race did not end; see the
// commit message.)
func TestE2ERaceRated(t *testing.T) {
	forEachBackend(t, testE2ERaceRated)
}

func testE2ERaceRated(t *testing.T, be backend) {
	ts := startServer(t, be.url(t), "--max-conns-per-ip", "32")
	deal, line := hintGame(t, "classic", engine.Won)
	keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(keyA), "name alice")
	runOK(t, ts.user(keyB), "name bob")

	// A chosen deal: bob removes a pair and leaves, alice clears it.
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
	pair, gb := toFirstRemoval(t, "classic", deal, line)
	playLine(t, b, newGame(t, "classic", deal), pair, false)
	a.WaitScreen(t, wait, "bob's pair", func(s string) bool {
		return strings.Contains(lineWith(s, " bob"), strconv.Itoa(gb.Removed())+"/28")
	})
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
	// bob removes a pair and leaves, alice clears the deal: the race ends.
	line2 := winningLine(t, "classic", deal2)
	pair2, gb2 := toFirstRemoval(t, "classic", deal2, line2)
	playLine(t, b, newGame(t, "classic", deal2), pair2, false)
	a.WaitScreen(t, wait, "bob's pair", func(s string) bool {
		return strings.Contains(lineWith(s, " bob"), strconv.Itoa(gb2.Removed())+"/28")
	})
	typeKeys(t, b, "qq")
	b.WaitScreen(t, wait, "the menu", isMenu)
	playLine(t, a, g2, line2, true)
	a.WaitFor(t, "room "+code+" · results", wait)
	// The ratings come once the race is stored: two new players, alice
	// first.
	m := rating.Races()
	after, err := m.Rate([]rating.Rating{m.New(), m.New()}, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	wantA := fmt.Sprintf("1500 → %d? +%d", int(math.Round(m.Display(after[0]))), int(math.Round(m.Display(after[0])))-1500)
	wantB := fmt.Sprintf("1500 → %d? −%d", int(math.Round(m.Display(after[1]))), 1500-int(math.Round(m.Display(after[1]))))
	s = a.WaitFor(t, wantA, wait)
	if !strings.Contains(lineWith(s, "1. alice"), wantA) || !strings.Contains(lineWith(s, "2. bob"), wantB) {
		t.Errorf("the rematch's results, want alice %q and bob %q:\n%s", wantA, wantB, s)
	}
	var stats []statsRaceJSON
	runJSON(t, ts.user(keyA), "stats --json", &stats)
	for _, s := range stats {
		if s.Rules == "classic" && (s.Race == nil || s.Race.Races != 1 || s.Race.Wins != 1 || s.Race.Unrated != 1 ||
			!s.Race.Provisional || math.Abs(s.Race.Rating-m.Display(after[0])) > 0.01 || len(s.Race.History) != 1 ||
			s.Race.History[0].Rating != s.Race.Rating) {
			t.Errorf("alice's classic stats %+v, want one rated race won and one unrated, a provisional rating of %.2f and its history",
				s.Race, m.Display(after[0]))
		}
	}
	runJSON(t, ts.user(keyB), "top race --json", &top)
	if len(top) != 0 {
		t.Errorf("top race --json after one rated race: got %+v, want nobody (provisional ratings)", top)
	}
	if out := runOK(t, ts.user(keyA), "stats"); !strings.Contains(out, fmt.Sprintf("%d?", int(math.Round(m.Display(after[0]))))) {
		t.Errorf("stats does not show alice's provisional rating:\n%s", out)
	}
}
