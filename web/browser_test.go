package web

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pyramid/arena"
	"pyramid/lobby"
)

// chromium finds a Chromium to drive, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (chromium, chromium-browser, google-chrome): .ci/run installs Debian's chromium")
	return ""
}

// headless starts a headless Chromium for one test and returns its
// context, with the flags a closed network and a root user need.
func headless(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // the tests run as root in CI
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// text is the text of the first element sel matches, "" for none.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	q, _ := json.Marshal(sel)
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){ var e = document.querySelector(`+string(q)+`); return e ? e.textContent : ""; })()`))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// TestBrowserArenaLive opens an arena's page in a real browser and
// watches its standings and its top game change as the arena does, with
// no reload; the page is kept as a screenshot.
func TestBrowserArenaLive(t *testing.T) {
	ctx := headless(t)
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
	if got := text(t, ctx, "#standings td.points"); got != "4" {
		t.Fatalf("ann's points before: %q, want 4", got)
	}
	if got := text(t, ctx, "#topgame .header"); !strings.Contains(got, "0/28 removed") {
		t.Fatalf("the top game before: %q", got)
	}
	if !strings.Contains(text(t, ctx, "body"), `<script>alert("`) {
		t.Fatalf("the hostile name is not shown as text:\n%s", text(t, ctx, "body"))
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script").length`)); n != 1 {
		t.Fatalf("the page has %d scripts, want its own only", n)
	}
	// ann clears two pairs and scores: the open page follows.
	ts.arenas.change(5, view(9), lobby.Board{Record: gameRecord(t, "d", "7.5+w", "7.2+7.3")})
	ok := pollText(t, ctx, "#standings td.points", "9") && pollText(t, ctx, "#topgame .header", "Classic · pass 1/3 · 3/28 removed · 3 moves")
	if !ok {
		t.Fatalf("the page did not follow the arena: points %q, top game %q", text(t, ctx, "#standings td.points"), text(t, ctx, "#topgame .header"))
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("PYRAMID_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join(dir, "web-arena-live.png"))
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the arena's page, live, as the browser showed it: %s", path)
}

// pollText waits until the text of sel is want.
func pollText(t *testing.T, ctx context.Context, sel, want string) bool {
	t.Helper()
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) { // polling the page, not synchronising
		if text(t, ctx, sel) == want {
			return true
		}
	}
	return false
}
