package main

import (
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// TestE2EVoidRace: a rated race (ann hosts a random deal, dan removes a
// pair and leaves, ann removes more and leaves), dan reports ann, the
// admin finds the race in the reports and voids it with the command they
// name: ann's open session is told, ann's and dan's stats show no rated
// race and no rating at once, the race counts as unrated for both, and
// ann reads the void in her audit log.
func TestE2EVoidRace(t *testing.T) {
	forEachBackend(t, testE2EVoidRace)
}

func testE2EVoidRace(t *testing.T, be backend) {
	adminKey, annKey, danKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	ts := startServer(t, be.url(t), "--max-conns-per-ip", "32", "--admins", gossh.FingerprintSHA256(adminKey.PublicKey()))
	runOK(t, ts.user(annKey), "name ann")
	runOK(t, ts.user(danKey), "name dan")

	a := sshtest.OpenTerm(t, ts.dial(t, annKey), sshtest.TermOptions{Command: "race new classic"})
	code := waitRoom(t, a)
	a.WaitFor(t, "hidden deal", wait)
	d := ts.openAs(t, "dan", danKey, "race "+code)
	d.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	before := lastGameID(t, ts)
	readyStart(t, a, d)
	deal := raceDeal(t, ts, code, 1, before)
	ga, gd := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, d, gd)
	line := winningLine(t, "classic", deal)
	pair, afterPair := toFirstRemoval(t, "classic", deal, line)
	playLine(t, d, gd, pair, false)
	a.WaitScreen(t, wait, "dan's pair", func(s string) bool {
		return strings.Contains(lineWith(s, " dan"), strconv.Itoa(afterPair.Removed())+"/28")
	})
	typeKeys(t, d, "qq")
	d.WaitScreen(t, wait, "dan's menu", isMenu)
	more, _ := toRemovals(t, "classic", deal, line, afterPair.Removed()+1)
	playLine(t, a, ga, more, false)
	typeKeys(t, a, "qq")
	a.WaitScreen(t, wait, "ann's menu", isMenu)

	classic := func(key gossh.Signer) statsRaceJSON {
		var stats []statsRaceJSON
		runJSON(t, ts.user(key), "stats --json", &stats)
		for _, s := range stats {
			if s.Rules == "classic" && s.Race != nil {
				return s
			}
		}
		return statsRaceJSON{}
	}
	sshtest.Eventually(t, wait, func() bool {
		s := classic(annKey)
		return s.Race != nil && s.Race.Races == 1 && s.Race.Rating > 1500
	}, "ann's stats count the rated race")

	runOK(t, ts.user(danKey), "report ann too fast to be true")
	var reports []struct {
		Player string `json:"player"`
		Races  []struct {
			ID      int64  `json:"id"`
			Counted string `json:"counted"`
			Void    string `json:"void"`
		} `json:"races"`
	}
	admin := ts.user(adminKey)
	runJSON(t, admin, "reports --json", &reports)
	if len(reports) != 1 || reports[0].Player != "ann" || len(reports[0].Races) != 1 || reports[0].Races[0].Counted != "rated" {
		t.Fatalf("reports --json = %+v, want dan's report of ann with her rated race", reports)
	}
	race := reports[0].Races[0]
	if out := runOK(t, admin, "reports"); !strings.Contains(out, race.Void) {
		t.Errorf("reports does not name %q:\n%s", race.Void, out)
	}
	id := strconv.FormatInt(race.ID, 10)
	ann := ts.openAs(t, "ann", annKey, "")
	ann.WaitScreen(t, wait, "ann's menu", isMenu)
	out := runOK(t, admin, strings.Replace(race.Void, "REASON", "moves too fast", 1))
	ann.WaitFor(t, "an admin voided your race "+id, wait)
	if !strings.Contains(out, "race "+id+" voided") || !strings.Contains(out, "ann: no rating in classic (0 rated races)") {
		t.Errorf("void:\n%s", out)
	}
	for name, key := range map[string]gossh.Signer{"ann": annKey, "dan": danKey} {
		if s := classic(key); s.Race == nil || s.Race.Races != 0 || s.Race.Wins != 0 || s.Race.Rating != 0 || s.Race.Unrated != 1 {
			t.Errorf("%s's classic stats after the void: %+v, want no rated race, no rating, one unrated", name, s.Race)
		}
	}
	var top []ratingJSON
	runJSON(t, ts.user(danKey), "top race --json", &top)
	if len(top) != 0 {
		t.Errorf("top race --json after the void: %+v, want nobody", top)
	}
	if out := runOK(t, ts.user(annKey), "audit"); !strings.Contains(out, "void") || !strings.Contains(out, "race "+id) ||
		!strings.Contains(out, "moves too fast") {
		t.Errorf("ann's audit log lacks the void:\n%s", out)
	}
	if _, errOut, status := ts.user(annKey).exec(t, "void "+id+" revenge"); status != 1 || !strings.Contains(errOut, "admins") {
		t.Errorf("ann voids: exit %d, %q", status, errOut)
	}
}
