package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/web/browsertest"
)

// TestE2EWebArenaLive: an arena's page, open in a real browser, follows
// the arena while two players race in it over SSH: both appear as racing,
// the top game's board follows the moves, and the standings show ann's
// win once her race ends, all without a reload. The screenshot is kept.
func TestE2EWebArenaLive(t *testing.T) {
	ctx := browsertest.Start(t, 1200, 1000)
	adminKey, annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	ts := startServer(t, "", "--web", "127.0.0.1:0", "--presence-ttl", arenaTTL.String(),
		"--admins", gossh.FingerprintSHA256(adminKey.PublicKey()))
	runOK(t, ts.user(annKey), "name ann")
	runOK(t, ts.user(bobKey), "name bob")
	id := newArena(t, ts.user(adminKey))
	page := ts.webURL(t) + "arena/" + strconv.FormatInt(id, 10)

	ctx, cancel := context.WithTimeout(ctx, 12*wait)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#standings"))); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.classList.contains("live")`, chromedp.WithPollingTimeout(wait))); err != nil {
		t.Fatalf("the page's live stream did not open: %v", err)
	}

	link := "arena " + strconv.FormatInt(id, 10)
	a := ts.openAs(t, "ann", annKey, link)
	b := ts.openAs(t, "bob", bobKey, link)
	waitArenaRace(t, a, "ann")
	waitArenaRace(t, b, "bob")
	waitPage(t, ctx, "both racing", "#standings", func(s string) bool {
		return strings.Contains(s, "ann") && strings.Contains(s, "bob") && strings.Contains(s, "2 racing")
	})

	// The top game is the best ranked racer's; with no game played yet
	// the two are level, so either may be on top. Its racer draws: the
	// board follows the move on the open page.
	top := waitPage(t, ctx, "a top game", "#topgame", func(s string) bool { return topGamePlayer(s) != "" })
	var ga *engine.Game
	who := topGamePlayer(top)
	t.Logf("the top game is %s's", who)
	switch who {
	case "ann":
		ga = drawFirst(t, a, ts, annKey)
	case "bob":
		drawFirst(t, b, ts, bobKey)
		ga = newGame(t, "classic", racePlayingDeal(t, ts, annKey))
	default:
		t.Fatalf("the top game is %q's, want ann's or bob's", who)
	}
	waitPage(t, ctx, "the top game's first move", "#topgame", func(s string) bool { return strings.Contains(s, "· 1 move\n") })

	// ann clears the deal at a person's pace; bob leaves without
	// playing, so hers is a walkover, scored as a solo deal cleared.
	playHuman(t, a, ga, solveFrom(t, ga), true)
	a.WaitFor(t, "You cleared the pyramid!", wait)
	typeKeys(t, b, "qq")
	waitPage(t, ctx, "ann's win in the standings", "#standings", func(s string) bool {
		s = strings.Join(strings.Fields(s), "")
		return strings.Contains(s, "ann3") && strings.Contains(s, "bob0") // a win and a clear for ann, nothing for bob
	})

	path := browsertest.Screenshot(t, ctx, "web-arena-live-e2e.png")
	t.Logf("the arena's page, live, as the browser showed it: %s", path)
}

// topGamePlayer returns the racer's name the top game panel's text shows
// ("Top game\nbob \nClassic · …"), or "" while it shows none.
func topGamePlayer(panel string) string {
	lines := strings.Split(panel, "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != "Top game" {
		return ""
	}
	return strings.TrimSpace(lines[1])
}
