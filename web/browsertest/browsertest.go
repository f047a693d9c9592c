// Package browsertest drives the club's page from tests the way a visitor
// sees it: a real headless Chromium (Debian's chromium, which .ci/run
// installs), driven with chromedp, reading the page as it shows and
// keeping screenshots as artifacts.
//
//	ctx := browsertest.Start(t, 1200, 900)
//	chromedp.Run(ctx, chromedp.Navigate(url))
//	online := browsertest.Text(t, ctx, "#online")
//	browsertest.Screenshot(t, ctx, "front.png")
//
// A test skips when no Chromium is installed.
package browsertest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium to drive, or skips the test.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (chromium, chromium-browser, google-chrome): .ci/run installs Debian's chromium")
	return ""
}

// Start starts a headless Chromium with a window of width×height for one
// test, with the flags a closed network and a root user need, and
// returns its context; the browser ends with the test. It skips the test
// when no Chromium is installed.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	path := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // the tests run as root in CI
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return bctx
}

// Text returns the text of the first element sel matches, as the page
// shows it now, or "" when none does.
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	q, _ := json.Marshal(sel)
	js := `(function(){ var e = document.querySelector(` + string(q) + `); return e ? e.textContent : ""; })()`
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// Screenshot keeps a screenshot of the whole page as name in the
// artifacts' directory ($PYRAMID_ARTIFACTS, else artifacts/ in the test's
// package, which .gitignore keeps out of git) and returns its path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("PYRAMID_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifacts: %v", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return path
}
