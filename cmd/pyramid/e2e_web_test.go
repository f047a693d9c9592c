package main

// End-to-end test of the club's page (--web) in a real headless browser
// (Debian's chromium, driven with chromedp), while players play over
// real SSH as in e2e_test.go. It keeps a screenshot as an artifact.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pyramid/server/sshtest"
	"pyramid/web/browsertest"
)

// webURL is the address of the server's page, as serve printed it.
func (ts *testServer) webURL(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`web page: (http://\S+/)`).FindStringSubmatch(ts.out.String())
	if m == nil {
		t.Fatalf("serve did not print its web page's address:\n%s", ts.out)
	}
	return m[1]
}

// webGet fetches a page of the club's site and returns its body; it
// fails unless the answer is 200.
func webGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, b)
	}
	return string(b)
}

// waitPage waits until the text of sel satisfies cond, reading the page
// as the browser shows it.
func waitPage(t *testing.T, ctx context.Context, what, sel string, cond func(string) bool) string {
	t.Helper()
	var last string
	ok := sshtest.Poll(wait, func() bool {
		last = browsertest.Text(t, ctx, sel)
		return cond(last)
	})
	if !ok {
		t.Fatalf("the page: %s: not within %s; %s reads %q", what, wait, sel, last)
	}
	return last
}

// TestE2EWebFrontPageLive opens the front page in a real browser, then
// players come over SSH: the online count and today's daily board change
// on the open page, by its live stream, with no reload. The page is kept
// as a screenshot.
func TestE2EWebFrontPageLive(t *testing.T) {
	ctx := browsertest.Start(t, 1200, 1000)
	ts := startServer(t, "", "--web", "127.0.0.1:0")
	front := ts.webURL(t)

	ctx, cancel := context.WithTimeout(ctx, 6*wait)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(front), chromedp.WaitVisible(chromedp.CSS("#online"))); err != nil {
		t.Fatalf("open %s: %v", front, err)
	}
	if got := browsertest.Text(t, ctx, "#online"); got != "0" {
		t.Fatalf("the page says %q online before anybody came, want 0", got)
	}
	if got := browsertest.Text(t, ctx, "#connect"); got != "ssh -p PORT arcade.test" {
		t.Errorf("the page's command to connect: %q", got)
	}
	if got := browsertest.Text(t, ctx, "#fingerprint"); !strings.HasPrefix(got, "SHA256:") {
		t.Errorf("the page's fingerprint: %q", got)
	}
	if got := browsertest.Text(t, ctx, "#daily"); !strings.Contains(got, "Nobody has finished today's deal yet.") {
		t.Errorf("the daily board before any result: %q", got)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.classList.contains("live")`, chromedp.WithPollingTimeout(wait))); err != nil {
		t.Fatalf("the page's live stream did not open: %v", err)
	}

	// ann comes and plays: one online, on the open page.
	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := ts.openAs(t, "ann", annKey, "classic 42")
	waitPosition(t, ann, newGame(t, "classic", 42))
	waitPage(t, ctx, "one online", "#online", func(s string) bool { return s == "1" })

	// bob plays today's daily and gives it up: his result is on the
	// board, on the open page.
	bob := ts.openAs(t, "bob", bobKey, "daily")
	waitPage(t, ctx, "two online", "#online", func(s string) bool { return s == "2" })
	bob.WaitFor(t, "A hint takes you off today's board", wait)
	typeKeys(t, bob, "dn")
	bob.WaitFor(t, "This will be your result on today's board.", wait)
	typeKeys(t, bob, "y")
	bob.WaitScreen(t, wait, "a new deal", func(s string) bool { return !strings.Contains(s, "abandon it?") })
	typeKeys(t, bob, "d") // the new game's first save abandons the first attempt
	board := waitPage(t, ctx, "bob on today's board", "#daily", func(s string) bool { return strings.Contains(s, "bob") })
	if !strings.Contains(board, "1bob0no") {
		t.Errorf("bob's line on the board: %q, want rank 1, bob, 0 removed, not won", board)
	}

	path := browsertest.Screenshot(t, ctx, "web-front-live.png")
	t.Logf("the front page, live, as the browser showed it: %s", path)

	// ann leaves: the count goes down on the open page too.
	ann.Close()
	waitPage(t, ctx, "one online after ann left", "#online", func(s string) bool { return s == "1" })

	// The same server's /status answers JSON to a script.
	req, _ := http.NewRequest(http.MethodGet, front+"status", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Up        bool     `json:"up"`
		Instances []string `json:"instances"`
		DB        bool     `json:"database_reachable"`
		Online    int      `json:"online"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || !st.Up || !st.DB || len(st.Instances) != 1 || st.Online != 1 {
		t.Fatalf("/status as JSON: %+v, %v", st, err)
	}
}
