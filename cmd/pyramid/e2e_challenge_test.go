package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// challengeJSON is a line of challenges --json.
type challengeJSON struct {
	ID        int64  `json:"id"`
	State     string `json:"state"`
	Deal      string `json:"deal"`
	YourGame  int64  `json:"your_game"`
	TheirGame int64  `json:"their_game"`
	Result    string `json:"result"`
	Counted   string `json:"counted"`
	Next      string `json:"next"`
}

// challengeDeal is the deal of challenge id, read from the server's
// database: no screen or command shows it while the challenge is open.
func challengeDeal(t *testing.T, ts *testServer, id int64) uint64 {
	t.Helper()
	var n int64
	if err := ts.db(t).QueryRow(`SELECT deal_number FROM challenges WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return uint64(n)
}

// personsPace is the time between two removals typed by playPaced: 15
// removals take more than ten seconds, as a person's do (games.Assisted).
const personsPace = 800 * time.Millisecond

// playPaced plays moves one at a time at the ":" prompt of each
// terminal (with its game), at a person's pace, each once the one before
// shows.
func playPaced(t *testing.T, terms []*sshtest.Term, gs []*engine.Game, moves []string) {
	t.Helper()
	for _, m := range moves {
		for i, term := range terms {
			typeKeys(t, term, ":"+m+"\r")
			play(t, gs[i], m)
		}
		for i, term := range terms {
			waitPosition(t, term, gs[i])
		}
		if m != "d" && m != "r" {
			time.Sleep(personsPace) // a person's pace, not a wait for anything
		}
	}
}

// TestE2EChallenge: alice challenges bob, who is told at once, at his
// next connection and in challenges, and accepts; each plays the hidden deal once over ssh -t … challenge 1
// (no hints, a second attempt refused); alice clears it faster and wins;
// the result is rated like a race of two, in challenges --json and stats.
func TestE2EChallenge(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
		alice, bob := ts.user(keyA), ts.user(keyB)
		runOK(t, alice, "name alice")
		runOK(t, bob, "name bob")
		live := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{})
		live.WaitScreen(t, wait, "bob's menu", isMenu)
		out := runOK(t, alice, "challenge bob")
		if !strings.Contains(out, "challenge 1 offered to bob") {
			t.Fatalf("challenge bob: %q", out)
		}
		deal := challengeDeal(t, ts, 1)
		if strings.Contains(out, strconv.FormatUint(deal, 10)) {
			t.Fatalf("the offer shows the hidden deal %d: %q", deal, out)
		}

		// Bob is told at once, at his next connection, and in challenges.
		live.WaitFor(t, "alice challenges you", wait)
		m := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{})
		m.WaitFor(t, "alice challenges you", wait)
		var list []challengeJSON
		runJSON(t, bob, "challenges --json", &list)
		if len(list) != 1 || list[0].State != "offered" || list[0].Deal != "hidden" || !strings.Contains(list[0].Next, "challenge accept 1") {
			t.Fatalf("bob's challenges: %+v", list)
		}
		if out := runOK(t, bob, "challenge accept 1"); !strings.Contains(out, "accepted challenge 1 of alice") {
			t.Fatalf("accept: %q", out)
		}

		// Both play, at once: alice clears the deal; bob plays the same
		// line, the last move two seconds later.
		line := winningLine(t, "classic", deal)
		a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "challenge 1"})
		ga := newGame(t, "classic", deal)
		s := waitPosition(t, a, ga)
		if !strings.Contains(s, "hidden deal") || hiddenDealRE.MatchString(s) {
			t.Fatalf("alice's challenge table shows the deal, or does not say it is hidden:\n%s", s)
		}
		typeKeys(t, a, "H")
		a.WaitFor(t, "no hints in a challenge", wait)
		b := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "challenge 1"})
		gb := newGame(t, "classic", deal)
		waitPosition(t, b, gb)
		last := len(line) - 1
		playPaced(t, []*sshtest.Term{a, b}, []*engine.Game{ga, gb}, line[:last])
		playPaced(t, []*sshtest.Term{a}, []*engine.Game{ga}, line[last:])
		time.Sleep(2 * time.Second) // bob is slower by that much
		playPaced(t, []*sshtest.Term{b}, []*engine.Game{gb}, line[last:])

		// Decided as soon as both are over: alice won, rated.
		sshtest.Eventually(t, wait, func() bool {
			runJSON(t, bob, "challenges --json", &list)
			return len(list) == 1 && list[0].State == "finished"
		}, "the challenge decided")
		if list[0].Result != "lost" || list[0].Deal != strconv.FormatUint(deal, 10) || !strings.HasPrefix(list[0].Counted, "1500 → ") ||
			list[0].TheirGame == 0 || !strings.Contains(list[0].Next, "race ghost "+strconv.FormatInt(list[0].TheirGame, 10)) {
			t.Fatalf("bob's finished challenge: %+v", list)
		}
		runJSON(t, alice, "challenges --json", &list)
		if list[0].Result != "won" || !strings.HasPrefix(list[0].Counted, "1500 → ") {
			t.Fatalf("alice's finished challenge: %+v", list)
		}
		var stats []statsRaceJSON
		runJSON(t, alice, "stats --json", &stats)
		found := false
		for _, st := range stats {
			if st.Rules == "classic" && st.Race != nil {
				found = st.Race.Races == 1 && st.Race.Wins == 1 && len(st.Race.History) == 1
			}
		}
		if !found {
			raw, _ := json.Marshal(stats)
			t.Fatalf("alice's stats: want one rated race won, got %s", raw)
		}
		// One attempt each.
		again := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "challenge 1"})
		again.WaitFor(t, "one attempt each", wait)
	})
}
