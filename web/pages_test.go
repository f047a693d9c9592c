package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/lobby"
	"pyramid/rating"
	"pyramid/store"
)

// noRaw fails when body holds the hostile name unescaped, or misses it
// escaped (cut to a name's width, as every screen cuts names).
func noRaw(t *testing.T, page, body string) {
	t.Helper()
	if strings.Contains(body, "<script>") || strings.Contains(body, "<b>") {
		t.Errorf("%s holds the hostile name unescaped:\n%s", page, body)
	}
	if !strings.Contains(body, "&lt;script&gt;alert(&#34;") {
		t.Errorf("%s does not show the hostile name escaped:\n%s", page, body)
	}
}

func TestFrontPage(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.arcade.setOnline(7)
	ts.store.setDaily([]store.DailyEntry{
		{Rank: 1, PlayerID: "a", PlayerName: "ann", Won: true, Removed: 28, Moves: 40, Elapsed: 95 * time.Second},
		{Rank: 2, PlayerID: "h", PlayerName: hostile, Removed: 20, Moves: 33, Elapsed: 3 * time.Minute},
	})
	ts.store.ratings["classic"] = []store.RatingEntry{{Rank: 1, PlayerID: "a", PlayerName: "ann", Rating: store.Rating{Display: 1612.4, Races: 12}, Wins: 5},
		{Rank: 2, PlayerID: "h", PlayerName: hostile, Rating: store.Rating{Display: 1501}, Wins: 1}}
	ts.arenas.events = []arena.Event{
		{ID: 1, Name: "Friday night", RulesID: "classic", Start: now.Add(-10 * time.Minute), Duration: time.Hour},
		{ID: 2, Name: hostile, RulesID: "classic", Start: now.Add(time.Hour), Duration: time.Hour},
		{ID: 3, Name: "Last week", RulesID: "classic", Start: now.Add(-7 * 24 * time.Hour), Duration: time.Hour},
		{ID: 4, Name: "Called off", RulesID: "classic", Start: now.Add(time.Hour), Duration: time.Hour, Cancelled: true},
	}
	status, body, h := ts.get(t, "/")
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %q", status, h.Get("Content-Type"))
	}
	for _, want := range []string{
		`<strong id="online" data-live="online">7</strong>`,
		`ssh -p 23234 club.example`, `SHA256:abcdef`,
		`The daily deal <small>2026-12-05</small>`,
		`<a href="/player/ann">ann</a></td><td class="n">28</td><td>yes</td><td class="n">1:35</td><td class="n">40</td>`,
		`<h3>Classic <small>classic</small></h3>`, `<td class="n">1612</td>`,
		`<h3>Running</h3><ul class="arenas"><li><a href="/arena/1">Friday night</a>`,
		`<h3>Upcoming</h3>`, `<a href="/arena/3">Last week</a>`,
		`<body data-events="/events/front">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the front page lacks %q", want)
		}
	}
	if strings.Contains(body, "Called off") {
		t.Error("the front page lists a cancelled arena")
	}
	// The hostile name links to its page with the path escaped.
	if !strings.Contains(body, `href="/player/%3Cscript%3Ealert%28%22`) {
		t.Errorf("the hostile name's link is not path-escaped:\n%s", body)
	}
	noRaw(t, "the front page", body)
	if h.Get("Set-Cookie") != "" {
		t.Errorf("the front page sets a cookie: %q", h.Get("Set-Cookie"))
	}
	if h.Get("Content-Security-Policy") == "" || h.Get("X-Frame-Options") != "DENY" {
		t.Errorf("the front page lacks its security headers: %v", h)
	}
}

// TestFrontPageCached: a crowd loading the front page within CacheFor
// costs the store one load.
func TestFrontPageCached(t *testing.T) {
	clock := now
	ts := newTestSite(t, func(c *Config) { c.Now = func() time.Time { return clock } })
	for range 5 {
		ts.get(t, "/")
	}
	ts.store.mu.Lock()
	one := ts.store.reads
	ts.store.mu.Unlock()
	if want := 1 + len(raceRules()); one != want {
		t.Fatalf("5 loads read the store %d times, want %d (one load)", one, want)
	}
}

func TestFrontPageStoreDown(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.store.fail = errDown
	status, body, _ := ts.get(t, "/")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "cannot reach its database") || strings.Contains(body, "10.0.0.5") {
		t.Fatalf("GET / with the store down: %d %s; want 503 saying so, without the driver's words", status, body)
	}
}

func TestPlayerPage(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.store.players["ann"] = store.Player{ID: "a", Name: "ann", Created: now.Add(-30 * 24 * time.Hour)}
	ts.store.records["a"] = []store.RaceRecord{
		{RulesID: "classic", Races: 3, Wins: 2, Podiums: 3, Rating: store.Rating{Display: 1580, Races: 3, Provisional: true}},
		{RulesID: "double", Unrated: 1}, // raced, never rated: no line
	}
	ts.store.history["a/classic"] = []store.RatingPoint{
		{At: now.Add(-3 * time.Hour), Rating: store.Rating{Display: 1500}},
		{At: now.Add(-2 * time.Hour), Rating: store.Rating{Display: 1545}},
		{At: now.Add(-1 * time.Hour), Rating: store.Rating{Display: 1580}},
	}
	ts.store.races["a"] = []store.Race{{ID: 9, RulesID: "classic", Racers: 2, Ended: now.Add(-time.Hour), Placings: []store.RacePlacing{
		{PlayerID: "a", PlayerName: "ann", Place: 1, Outcome: store.OutcomeCleared, Standing: rating.Rated,
			Rating: store.Rating{Display: 1580}, Before: store.Rating{Display: 1545, Races: 2}},
		{PlayerID: "h", PlayerName: hostile, Place: 2, Outcome: store.OutcomeStuck},
	}}}
	ts.arenas.results["a"] = []ArenaResult{{Arena: arena.Event{ID: 1, Name: "Friday night", Start: now.Add(-48 * time.Hour), Duration: time.Hour},
		Rank: 2, Players: 9, Line: arena.Line{Points: 31, Games: 8, Wins: 4}}}
	status, body, _ := ts.get(t, "/player/ANN")
	if status != http.StatusOK {
		t.Fatalf("GET /player/ANN: %d", status)
	}
	for _, want := range []string{
		`<h1 id="name">ann</h1>`, `<h3>Classic <small>classic</small></h3>`,
		`<strong class="big">1580?</strong> · 3 rated races · 2 wins · 3 podiums`,
		`<svg class="chart"`, `aria-label="rating over the last 3 rated races, from 1500 to 1580"`,
		`<td>1 of 2</td>`, `cleared · rated`, `1580 (&#43;35)`,
		`<a href="/arena/1">Friday night</a>`, `<td>2 of 9</td><td class="n">31</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("ann's page lacks %q\n%s", want, body)
		}
	}
	if strings.Contains(body, "Double") {
		t.Error("ann's page has a rating line for a rule set she was never rated in")
	}
	noRaw(t, "ann's page", body)
}

// TestPlayerPageNotShown: nobody's page for an unknown name, a name no
// player may have, or a banned player.
func TestPlayerPageNotShown(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.store.players["kitty"] = store.Player{ID: "k", Name: "kitty", Banned: true}
	for _, path := range []string{"/player/nobody", "/player/" + url.PathEscape(hostile), "/player/kitty", "/player/"} {
		status, body, _ := ts.get(t, path)
		if status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, status)
		}
		if strings.Contains(body, "<script>") {
			t.Errorf("GET %s echoes the path unescaped", path)
		}
	}
}

func TestPlayerPageWithoutArenas(t *testing.T) {
	ts := newTestSite(t, func(c *Config) { c.Arenas = nil })
	ts.store.players["ann"] = store.Player{ID: "a", Name: "ann"}
	status, body, _ := ts.get(t, "/player/ann")
	if status != http.StatusOK || strings.Contains(body, "arena-results") || strings.Contains(body, "No rated race yet.") == false {
		t.Fatalf("GET /player/ann without arenas: %d\n%s", status, body)
	}
	if _, body, _ := ts.get(t, "/"); strings.Contains(body, `id="arenas"`) {
		t.Error("the front page has an arena section without arenas")
	}
	if status, _, _ := ts.get(t, "/arena/1"); status != http.StatusNotFound {
		t.Errorf("GET /arena/1 without arenas: %d, want 404", status)
	}
}

func TestStatus(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.arcade.instances = []string{"one", "two"}
	ts.arcade.setOnline(3)
	status, body, _ := ts.get(t, "/status")
	if status != http.StatusOK || !strings.Contains(body, `<td id="database" class="ok">reachable</td>`) ||
		!strings.Contains(body, `<td id="instances">2: <code>one</code>, <code>two</code></td>`) || !strings.Contains(body, "pyramid v1.2.3") {
		t.Fatalf("GET /status: %d\n%s", status, body)
	}
	for _, accept := range []string{"application/json", "text/html;q=0.5, application/json"} {
		status, body, h := ts.get(t, "/status", "Accept", accept)
		var got statusData
		if err := json.Unmarshal([]byte(body), &got); err != nil || status != http.StatusOK || h.Get("Content-Type") != "application/json" {
			t.Fatalf("GET /status as JSON (Accept %q): %d %q %v\n%s", accept, status, h.Get("Content-Type"), err, body)
		}
		want := statusData{Up: true, Version: "pyramid v1.2.3", Instances: []string{"one", "two"}, DatabaseReachable: true, Online: 3, Time: now}
		if got.Up != want.Up || got.Version != want.Version || strings.Join(got.Instances, " ") != "one two" ||
			got.DatabaseReachable != want.DatabaseReachable || got.Online != want.Online || !got.Time.Equal(want.Time) {
			t.Fatalf("GET /status as JSON: got %+v, want %+v", got, want)
		}
	}
	ts.store.fail = errDown
	_, body, _ = ts.get(t, "/status", "Accept", "application/json")
	if !strings.Contains(body, `"database_reachable":false`) || !strings.Contains(body, `"up":true`) || strings.Contains(body, "10.0.0.5") {
		t.Fatalf("GET /status with the database down: %s; want unreachable, without the driver's words", body)
	}
	if _, body, _ := ts.get(t, "/status"); !strings.Contains(body, `class="bad">unreachable`) {
		t.Fatalf("the status page with the database down:\n%s", body)
	}
}

func TestArenaPage(t *testing.T) {
	ts := newTestSite(t, nil)
	info := lobby.ArenaInfo{ID: 5, Name: "Friday <night>", RulesID: "classic", Start: now.Add(-10 * time.Minute), End: now.Add(50 * time.Minute)}
	ts.arenas.change(5, lobby.ArenaView{Arena: info, Now: now, Players: 3, Playing: 2, Top: []lobby.ArenaStanding{
		{Rank: 1, ID: "a", Name: "ann", Line: arena.Line{Points: 12, Streak: 2, Games: 4, Wins: 3}, State: lobby.ArenaPlaying, Code: "KMTXCV"},
		{Rank: 2, ID: "h", Name: hostile, Line: arena.Line{Points: 7, Games: 4, Wins: 1}, State: lobby.ArenaFree},
	}}, lobby.Board{Record: gameRecord(t, "d")})
	status, body, _ := ts.get(t, "/arena/5")
	if status != http.StatusOK {
		t.Fatalf("GET /arena/5: %d", status)
	}
	for _, want := range []string{
		`<h1>Friday &lt;night&gt;</h1>`, `Classic · running`, `3 players · 2 racing`,
		`<a href="/player/ann">ann</a></td><td class="n points">12</td>`, `<td>playing</td>`, `<span class="streak">▲ 2</span>`,
		`<div class="pyramid">`, `<p class="header">Classic · pass 1/3 · 0/28 removed · 1 move</p>`,
		`<body data-events="/arena/5/events">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the arena's page lacks %q", want)
		}
	}
	// The board: 28 pyramid cards, the bottom row available, the rest
	// covered, the stock and the waste as counts only.
	if n := strings.Count(body, `class="card`); n != 28+2 {
		t.Errorf("the board draws %d cards, want the 28 of the pyramid and the backs of the stock and the waste", n)
	}
	if n := strings.Count(body, " covered\""); n != 21 {
		t.Errorf("the board draws %d covered cards, want 21 (all but the bottom row)", n)
	}
	if !strings.Contains(body, "stock <span class=\"card back\">▒▒</span> 23") || !strings.Contains(body, "waste <span class=\"card back\">▒▒</span> 1") {
		t.Errorf("the board's stock and waste are not counts of 23 and 1 (one drawn):\n%s", body)
	}
	noRaw(t, "the arena's page", body)
	for _, path := range []string{"/arena/6", "/arena/x", "/arena/-1"} {
		if status, _, _ := ts.get(t, path); status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, status)
		}
	}
}

// TestStaticAndNotFound: the stylesheet and the script are served with a
// cache lifetime; any other path is a 404 page; nothing is writable.
func TestStaticAndNotFound(t *testing.T) {
	ts := newTestSite(t, nil)
	for path, typ := range map[string]string{"/static/site.css": "text/css", "/static/live.js": "text/javascript"} {
		status, body, h := ts.get(t, path)
		if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), typ) || h.Get("Cache-Control") != "public, max-age=3600" || len(body) < 100 {
			t.Errorf("GET %s: %d %q %q, %d bytes", path, status, h.Get("Content-Type"), h.Get("Cache-Control"), len(body))
		}
	}
	status, body, _ := ts.get(t, "/nothing/<here>")
	if status != http.StatusNotFound || !strings.Contains(body, "There is no such page.") || strings.Contains(body, "<here>") {
		t.Errorf("GET /nothing: %d\n%s", status, body)
	}
	resp, err := ts.srv.Client().Post(ts.srv.URL+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /: %d, want it refused", resp.StatusCode)
	}
}
