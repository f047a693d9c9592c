package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
)

// wait bounds every wait of these tests; waits end as soon as their
// condition holds.
const wait = 10 * time.Second

// hostile is a name no store should hold, and every page must escape.
const hostile = `<script>alert("x")</script>&<b>`

// today is the fake clock's date.
var now = time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)

// fakeStore is the store's reads, from memory.
type fakeStore struct {
	mu      sync.Mutex
	daily   []store.DailyEntry
	ratings map[string][]store.RatingEntry
	players map[string]store.Player // by lower-case name
	records map[string][]store.RaceRecord
	history map[string][]store.RatingPoint // by player ID + "/" + rules ID
	races   map[string][]store.Race
	fail    error
	reads   int
}

func newFakeStore() *fakeStore {
	return &fakeStore{ratings: map[string][]store.RatingEntry{}, players: map[string]store.Player{},
		records: map[string][]store.RaceRecord{}, history: map[string][]store.RatingPoint{}, races: map[string][]store.Race{}}
}

func (f *fakeStore) read() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.fail
}

func (f *fakeStore) setDaily(d []store.DailyEntry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.daily = d
}

func (f *fakeStore) Leaderboard(_ context.Context, rulesID, date string, limit int) ([]store.DailyEntry, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if rulesID != "daily" || date != now.Format(time.DateOnly) {
		return nil, nil
	}
	return append([]store.DailyEntry(nil), f.daily[:min(limit, len(f.daily))]...), nil
}

func (f *fakeStore) TopRatings(_ context.Context, rulesID string, limit int) ([]store.RatingEntry, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.ratings[rulesID]
	return append([]store.RatingEntry(nil), l[:min(limit, len(l))]...), nil
}

func (f *fakeStore) PlayerByName(_ context.Context, name string) (store.Player, error) {
	if err := f.read(); err != nil {
		return store.Player{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.players[strings.ToLower(name)]
	if !ok {
		return store.Player{}, store.ErrNotFound
	}
	return p, nil
}

func (f *fakeStore) RaceRecords(_ context.Context, playerID string) ([]store.RaceRecord, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.records[playerID], nil
}

func (f *fakeStore) RatingHistory(_ context.Context, playerID, rulesID string, _ int) ([]store.RatingPoint, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.history[playerID+"/"+rulesID], nil
}

func (f *fakeStore) RatedRaces(_ context.Context, playerID string, _ int) ([]store.Race, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.races[playerID], nil
}

// Ping fails with the store's failure.
func (f *fakeStore) Ping(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail
}

// fakeArcade is the arcade's live side: a count and its observers.
type fakeArcade struct {
	mu        sync.Mutex
	online    int
	observers map[int]lobby.Sink
	next      int
	instances []string
}

func newFakeArcade() *fakeArcade {
	return &fakeArcade{observers: map[int]lobby.Sink{}, instances: []string{"one"}}
}

func (a *fakeArcade) Online() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.online
}

func (a *fakeArcade) Observe(sink lobby.Sink) func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	id := a.next
	a.observers[id] = sink
	sink.Coalesce("presence", lobby.PresenceChanged{Online: a.online})
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		delete(a.observers, id)
	}
}

func (a *fakeArcade) Instances() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.instances
}

// setOnline changes the count and tells the observers, as the lobby does.
func (a *fakeArcade) setOnline(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.online = n
	for _, s := range a.observers {
		s.Coalesce("presence", lobby.PresenceChanged{Online: n})
	}
}

// dailyFinished tells the observers of a daily result, as the lobby does.
func (a *fakeArcade) dailyFinished() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.observers {
		s.Coalesce("daily", lobby.DailyChanged{Rules: "daily", Date: now.Format(time.DateOnly)})
	}
}

// ratingsMoved tells the observers a race moved ratings, as the lobby
// does.
func (a *fakeArcade) ratingsMoved(rulesID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.observers {
		s.Coalesce("ratings/"+rulesID, lobby.RatingsChanged{Rules: rulesID})
	}
}

// fakeArenas is the arenas, from memory.
type fakeArenas struct {
	mu       sync.Mutex
	events   []arena.Event
	views    map[int64]lobby.ArenaView
	boards   map[int64]lobby.Board
	results  map[string][]ArenaResult
	watchers map[int64]map[int]lobby.Sink
	next     int
	topName  string // the top game's racer; "" is ann
}

func newFakeArenas() *fakeArenas {
	return &fakeArenas{views: map[int64]lobby.ArenaView{}, boards: map[int64]lobby.Board{},
		results: map[string][]ArenaResult{}, watchers: map[int64]map[int]lobby.Sink{}}
}

var (
	_ ArenaSource  = (*fakeArenas)(nil)
	_ ArenaResults = (*fakeArenas)(nil)
)

func (f *fakeArenas) List(context.Context, int) ([]arena.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]arena.Event(nil), f.events...), nil
}

func (f *fakeArenas) View(_ context.Context, id int64, top int) (lobby.ArenaView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.views[id]
	if !ok {
		return lobby.ArenaView{}, store.ErrNotFound
	}
	v.Top = v.Top[:min(top, len(v.Top))]
	return v, nil
}

func (f *fakeArenas) TopBoard(_ context.Context, id int64) (lobby.Board, string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.boards[id]
	name := f.topName
	if name == "" {
		name = "ann"
	}
	return b, name, ok, nil
}

func (f *fakeArenas) Watch(id int64, sink lobby.Sink) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	n := f.next
	if f.watchers[id] == nil {
		f.watchers[id] = map[int]lobby.Sink{}
	}
	f.watchers[id][n] = sink
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.watchers[id], n)
	}
}

func (f *fakeArenas) PlayerArenas(_ context.Context, playerID string, _ int) ([]ArenaResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.results[playerID], nil
}

// watching is how many watch arena id.
func (f *fakeArenas) watching(id int64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watchers[id])
}

// setTopName names the top game's racer.
func (f *fakeArenas) setTopName(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.topName = name
}

// change sets an arena's view and board and tells its watchers.
func (f *fakeArenas) change(id int64, v lobby.ArenaView, b lobby.Board) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views[id] = v
	f.boards[id] = b
	for _, s := range f.watchers[id] {
		s.Coalesce(lobby.ArenaKey(id), lobby.ArenaChanged{ID: id})
	}
}

// testSite is a site on fakes, served by httptest.
type testSite struct {
	*Site
	store  *fakeStore
	arcade *fakeArcade
	arenas *fakeArenas
	srv    *httptest.Server
}

// newTestSite serves a site on fakes; change edits its config first.
func newTestSite(t *testing.T, change func(*Config)) *testSite {
	t.Helper()
	ts := &testSite{store: newFakeStore(), arcade: newFakeArcade(), arenas: newFakeArenas()}
	cfg := Config{Store: ts.store, Arcade: ts.arcade, Arenas: ts.arenas, Connect: "ssh -p 23234 club.example",
		Fingerprint: "SHA256:abcdef", Version: "pyramid v1.2.3", Now: func() time.Time { return now }}
	if change != nil {
		change(&cfg)
	}
	site, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.Site = site
	ts.srv = httptest.NewServer(site.Handler())
	t.Cleanup(func() {
		site.Close()
		ts.srv.Close()
	})
	return ts
}

// get fetches path with the headers given as name, value pairs.
func (ts *testSite) get(t *testing.T, path string, header ...string) (status int, body string, h http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	name, data string
}

// events is a live stream as a test reads it.
type events struct {
	resp *http.Response
	ch   chan sseEvent
}

// stream opens the live stream at path; it is closed when the test ends.
func (ts *testSite) stream(t *testing.T, path string) *events {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.srv.URL+path, nil)
	resp, err := ts.srv.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		resp.Body.Close()
		t.Fatalf("GET %s: %s %q, want 200 text/event-stream", path, resp.Status, resp.Header.Get("Content-Type"))
	}
	ev := &events{resp: resp, ch: make(chan sseEvent, 64)}
	go readEvents(resp.Body, ev.ch)
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
	})
	return ev
}

// readEvents parses a stream into ch until it ends, then closes ch.
func readEvents(r io.Reader, ch chan<- sseEvent) {
	defer close(ch)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" || len(data) > 0 {
				cur.data = strings.Join(data, "\n")
				ch <- cur
			}
			cur, data = sseEvent{}, nil
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
}

// waitFor reads events until one named name satisfies ok.
func (e *events) waitFor(t *testing.T, name string, ok func(data string) bool) string {
	t.Helper()
	deadline := time.After(wait)
	var seen []string
	for {
		select {
		case ev, open := <-e.ch:
			if !open {
				t.Fatalf("the stream ended before a %q event that holds; saw %q", name, seen)
			}
			seen = append(seen, ev.name+": "+ev.data)
			if ev.name == name && ok(ev.data) {
				return ev.data
			}
		case <-deadline:
			t.Fatalf("no %q event that holds within %s; saw %q", name, wait, seen)
		}
	}
}

// eventually waits until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(wait); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, wait)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not synchronising
	}
}

// gameRecord is a classic deal 42 after a few moves, as a top board.
func gameRecord(t *testing.T, moves ...string) engine.Record {
	t.Helper()
	g, err := engine.NewGame(engine.Classic(), engine.NewDeal(42, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		if err := g.ApplyNotation(m); err != nil {
			t.Fatalf("move %s: %v", m, err)
		}
	}
	return g.Record()
}

var errDown = errors.New("dial tcp 10.0.0.5:5432: connect: connection refused (user=pyramid)")
