package main

// End-to-end test of the daily deal's spoiler rule over real SSH, as in
// e2e_test.go: nobody watches another player's game of today's daily
// before finishing their own.

import (
	"strings"
	"testing"

	"pyramid/server/sshtest"
)

// spoilerWords is how a refused spectator of today's daily is told why.
const spoilerWords = "plays today's daily deal: finish yours first, watching would spoil it"

// TestE2EWatchDailyNeedsYoursFinished: `watch ann` showed ann's game of
// today's daily to a player who had not played it, while `race ghost
// daily` refused as a spoiler. Watching it is now refused by the same
// rule, to a keyed player and a guest, with the reason; a spectator
// whose player goes to today's daily stops watching, told why; once the
// player finished the daily (here: abandoned it), they watch.
func TestE2EWatchDailyNeedsYoursFinished(t *testing.T) {
	ts := startServer(t, "", "--max-conns-per-ip", "32")
	annKey, bobKey, carolKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)

	// carol watches ann's game of her own; ann goes to today's daily.
	ann := ts.openAs(t, "ann", annKey, "classic 42")
	waitPosition(t, ann, newGame(t, "classic", 42))
	carol := ts.openAs(t, "carol", carolKey, "watch ann")
	waitPosition(t, carol, newGame(t, "classic", 42))
	ann.WaitFor(t, "1 watching", wait)
	typeKeys(t, ann, "q")
	ann.WaitScreen(t, wait, "ann's menu", isMenu)
	menuSelect(t, ann, "Daily")
	typeKeys(t, ann, sshtest.KeyEnter)
	ann.WaitFor(t, "A hint takes you off today's board", wait)
	typeKeys(t, ann, "d")
	carol.WaitFor(t, "ann "+spoilerWords, wait)
	if s := carol.Screen(); strings.Contains(s, "stock") {
		t.Fatalf("carol still sees a board after ann went to today's daily:\n%s", s)
	}

	bob := ts.openAs(t, "bob", bobKey, "watch ann")
	bob.WaitFor(t, "ann "+spoilerWords, wait)
	guest := ts.openAs(t, "guest", nil, "watch ann")
	guest.WaitFor(t, "ann "+spoilerWords, wait)
	if s := ann.Screen(); strings.Contains(s, "watching") {
		t.Fatalf("ann counts spectators after refusals:\n%s", s)
	}

	// bob plays today's daily and abandons it: finished, he watches.
	typeKeys(t, bob, "q")
	bob = ts.openAs(t, "bob", bobKey, "daily")
	bob.WaitFor(t, "A hint takes you off today's board", wait)
	typeKeys(t, bob, "dn")
	bob.WaitFor(t, "This will be your result on today's board.", wait)
	typeKeys(t, bob, "y")
	bob.WaitScreen(t, wait, "a new deal", func(s string) bool { return !strings.Contains(s, "abandon it?") })
	typeKeys(t, bob, "d") // the new game's first save abandons the first attempt
	sshtest.Eventually(t, wait, func() bool {
		var stats []struct {
			Rules       string `json:"rules"`
			DailyPlayed int    `json:"daily_played"`
		}
		runJSON(t, ts.user(bobKey), "stats --json", &stats)
		for _, s := range stats {
			if s.DailyPlayed == 1 {
				return true
			}
		}
		return false
	}, "bob's daily attempt stored")
	late := ts.openAs(t, "bob", bobKey, "watch ann")
	late.WaitScreen(t, wait, "ann's daily", func(s string) bool {
		first, _, _ := strings.Cut(s, "\n")
		return strings.Contains(first, "ann") && strings.Contains(first, "Daily")
	})
	ann.WaitFor(t, "1 watching", wait)
}
