package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pyramid/arena"
	"pyramid/lobby"
	"pyramid/web/browsertest"
)

// TestBrowserArenaLive opens an arena's page in a real browser and
// watches its standings and its top game change as the arena does, with
// no reload; the page is kept as a screenshot.
func TestBrowserArenaLive(t *testing.T) {
	ctx := browsertest.Start(t, 1200, 900)
	ts := newTestSite(t, nil)
	view := func(annPoints int) lobby.ArenaView {
		v := arenaView(annPoints)
		v.Arena.Name = "Friday night arena"
		v.Players, v.Playing = 4, 2
		v.Top = append(v.Top,
			lobby.ArenaStanding{Rank: 3, ID: "c", Name: "carol", Line: arena.Line{Points: 0, Games: 1}, State: lobby.ArenaFree},
			lobby.ArenaStanding{Rank: 4, ID: "h", Name: hostile, Line: arena.Line{Points: 0, Games: 1}, State: lobby.ArenaPaused})
		v.Top[0].Streak, v.Top[0].Wins = 2, 2
		return v
	}
	ts.arenas.change(5, view(4), lobby.Board{Record: gameRecord(t)})
	ctx, cancel := context.WithTimeout(ctx, 6*wait)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.srv.URL+"/arena/5"), chromedp.WaitVisible(chromedp.CSS("#standings"))); err != nil {
		t.Fatalf("open the arena's page: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.classList.contains("live")`, chromedp.WithPollingTimeout(wait))); err != nil {
		t.Fatalf("the page's live stream did not open: %v", err)
	}
	if got := browsertest.Text(t, ctx, "#standings td.points"); got != "4" {
		t.Fatalf("ann's points before: %q, want 4", got)
	}
	if got := browsertest.Text(t, ctx, "#topgame .header"); !strings.Contains(got, "0/28 removed") {
		t.Fatalf("the top game before: %q", got)
	}
	if !strings.Contains(browsertest.Text(t, ctx, "body"), `<script>alert("`) {
		t.Fatalf("the hostile name is not shown as text:\n%s", browsertest.Text(t, ctx, "body"))
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script").length`)); n != 1 {
		t.Fatalf("the page has %d scripts, want its own only", n)
	}
	// ann clears two pairs and scores: the open page follows.
	ts.arenas.change(5, view(9), lobby.Board{Record: gameRecord(t, "d", "7.5+w", "7.2+7.3")})
	ok := pollText(t, ctx, "#standings td.points", "9") && pollText(t, ctx, "#topgame .header", "Classic · pass 1/3 · 3/28 removed · 3 moves")
	if !ok {
		t.Fatalf("the page did not follow the arena: points %q, top game %q", browsertest.Text(t, ctx, "#standings td.points"), browsertest.Text(t, ctx, "#topgame .header"))
	}
	path := browsertest.Screenshot(t, ctx, "web-arena-live.png")
	t.Logf("the arena's page, live, as the browser showed it: %s", path)
}

// pollText waits until the text of sel is want.
func pollText(t *testing.T, ctx context.Context, sel, want string) bool {
	t.Helper()
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) { // polling the page, not synchronising
		if browsertest.Text(t, ctx, sel) == want {
			return true
		}
	}
	return false
}
