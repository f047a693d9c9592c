package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
)

func TestFrontEventsOnline(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.arcade.setOnline(7)
	ev := ts.stream(t, "/events/front")
	ev.waitFor(t, "online", func(d string) bool { return d == "7" })
	ts.arcade.setOnline(7) // what players do changed, not their number: nothing to send
	ts.arcade.setOnline(8)
	if got := ev.waitFor(t, "online", func(string) bool { return true }); got != "8" {
		t.Fatalf("after 7 again, then 8: the viewer got %q, want 8 (nothing for an unchanged count)", got)
	}
	// A viewer that comes later starts from what is true now.
	later := ts.stream(t, "/events/front")
	later.waitFor(t, "online", func(d string) bool { return d == "8" })
}

func TestFrontEventsDaily(t *testing.T) {
	ts := newTestSite(t, nil)
	if _, body, _ := ts.get(t, "/"); !strings.Contains(body, "Nobody has finished today") {
		t.Fatalf("the front page before any result:\n%s", body)
	}
	ev := ts.stream(t, "/events/front")
	ts.store.setDaily([]store.DailyEntry{{Rank: 1, PlayerID: "h", PlayerName: hostile, Won: true, Removed: 28, Moves: 30, Elapsed: time.Minute}})
	ts.arcade.dailyFinished()
	html := ev.waitFor(t, "daily", func(d string) bool { return strings.Contains(d, "<table") })
	if strings.Contains(html, "<script>") || !strings.Contains(html, "&lt;script&gt;") || !strings.Contains(html, `<td class="n">1:00</td>`) {
		t.Fatalf("the daily event's board:\n%s", html)
	}
	// The front page's cache has it too, without waiting for its time.
	if _, body, _ := ts.get(t, "/"); !strings.Contains(body, "&lt;script&gt;") {
		t.Fatalf("the front page after a result:\n%s", body)
	}
}

// TestFrontEventsRatings: a race that moved ratings sends the front
// page's viewers the rating lists again, read once.
func TestFrontEventsRatings(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.get(t, "/")
	ev := ts.stream(t, "/events/front")
	ts.store.mu.Lock()
	ts.store.ratings["relaxed"] = []store.RatingEntry{{Rank: 1, PlayerID: "h", PlayerName: hostile, Rating: store.Rating{Display: 1623}, Wins: 4}}
	ts.store.mu.Unlock()
	ts.arcade.ratingsMoved("custom-rules") // no list of its own on the page: nothing
	ts.arcade.ratingsMoved("relaxed")
	html := ev.waitFor(t, "races", func(string) bool { return true })
	if strings.Contains(html, "<script>") || !strings.Contains(html, "&lt;script&gt;") || !strings.Contains(html, `<td class="n">1623</td>`) ||
		!strings.Contains(html, "<h3>Classic <small>classic</small></h3>") {
		t.Fatalf("the races event:\n%s", html)
	}
	if _, body, _ := ts.get(t, "/"); !strings.Contains(body, `<td class="n">1623</td>`) {
		t.Fatalf("the front page after the event lacks the new rating:\n%s", body)
	}
}

// arenaView is arena 5 with ann on points.
func arenaView(points int) lobby.ArenaView {
	info := lobby.ArenaInfo{ID: 5, Name: "Friday night", RulesID: "classic", Start: now.Add(-10 * time.Minute), End: now.Add(50 * time.Minute)}
	return lobby.ArenaView{Arena: info, Now: now, Players: 2, Playing: 2, Top: []lobby.ArenaStanding{
		{Rank: 1, ID: "a", Name: "ann", Line: arena.Line{Points: points, Games: 2}, State: lobby.ArenaPlaying},
		{Rank: 2, ID: "b", Name: "bob", Line: arena.Line{Points: 1, Games: 2}, State: lobby.ArenaPlaying},
	}}
}

func TestArenaEvents(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.arenas.change(5, arenaView(4), lobby.Board{Record: gameRecord(t)})
	ev := ts.stream(t, "/arena/5/events")
	ev.waitFor(t, "standings", func(d string) bool { return strings.Contains(d, `<td class="n points">4</td>`) })
	ev.waitFor(t, "board", func(d string) bool { return strings.Contains(d, "0/28 removed · 0 moves") })
	// ann scores and moves: the page's viewers see both.
	ts.arenas.change(5, arenaView(9), lobby.Board{Record: gameRecord(t, "d", "7.5+w")})
	ev.waitFor(t, "standings", func(d string) bool { return strings.Contains(d, `<td class="n points">9</td>`) })
	ev.waitFor(t, "board", func(d string) bool { return strings.Contains(d, "1/28 removed · 2 moves") })
	if ts.arenas.watching(5) != 1 {
		t.Fatalf("arena 5 is watched %d times with one viewer, want once", ts.arenas.watching(5))
	}
	// No stream for an arena that is not.
	if status, _, _ := ts.get(t, "/arena/6/events"); status != http.StatusNotFound {
		t.Fatalf("GET /arena/6/events: %d, want 404", status)
	}
	// The last viewer gone, the arena is no longer watched.
	ev.resp.Body.Close()
	eventually(t, "arena 5 unwatched once its viewer left", func() bool {
		return ts.arenas.watching(5) == 0 && ts.Site.arenas.watching() == 0
	})
}

func TestHubDropsSlowViewer(t *testing.T) {
	h := newHub()
	slow, _ := h.subscribe("t")
	fast, _ := h.subscribe("t")
	for i := range clientQueue + 1 {
		h.publish("t", "n", fmt.Sprint(i))
		select {
		case <-fast.ch:
		default:
			t.Fatalf("the reading viewer lacks message %d", i)
		}
	}
	select {
	case <-slow.gone:
	default:
		t.Fatal("a viewer that read nothing of more than its queue is not dropped")
	}
	select {
	case <-fast.gone:
		t.Fatal("the reading viewer was dropped")
	default:
	}
	if n := h.viewers("t"); n != 1 {
		t.Fatalf("the topic has %d viewers after the drop, want 1", n)
	}
	// A new viewer gets the newest message of each event name first.
	c, _ := h.subscribe("t")
	if got := string(<-c.ch); got != fmt.Sprintf("event: n\ndata: %d\n\n", clientQueue) {
		t.Fatalf("a new viewer's first message: %q", got)
	}
	h.close()
	select {
	case <-c.gone:
	default:
		t.Fatal("closing the hub leaves a viewer")
	}
	if _, ok := h.subscribe("t"); ok {
		t.Fatal("a closed hub takes a viewer")
	}
}

// TestHubSendsChangesOnly: an event whose data is its last one's is sent
// to nobody; a change, or a return to earlier data, is.
func TestHubSendsChangesOnly(t *testing.T) {
	h := newHub()
	defer h.close()
	c, _ := h.subscribe("t")
	for _, d := range []string{"a", "a", "b", "b", "b", "a"} {
		h.publish("t", "n", d)
	}
	h.publish("t", "m", "a") // another event's data may be the same
	var got []string
	for len(c.ch) > 0 {
		got = append(got, strings.ReplaceAll(string(<-c.ch), "\n", " "))
	}
	want := []string{"event: n data: a  ", "event: n data: b  ", "event: n data: a  ", "event: m data: a  "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the viewer got %q, want %q", got, want)
	}
}

// TestHubPublishAll: events published together reach a viewer as one
// message, without those whose data did not change; every viewer of a
// topic with more than a slice of them gets it, and a viewer whose queue
// is full is dropped wherever its slice is.
func TestHubPublishAll(t *testing.T) {
	h := newHub()
	defer h.close()
	n := 2*fanOutSlice + 7
	var cs []*client
	for range n {
		c, _ := h.subscribe("arena/5")
		cs = append(cs, c)
	}
	h.publishAll("arena/5", []event{{"standings", "s1"}, {"board", "b1"}})
	h.publishAll("arena/5", []event{{"standings", "s1"}, {"board", "b2"}})
	for i, c := range cs {
		first, second := string(<-c.ch), string(<-c.ch)
		if first != "event: standings\ndata: s1\n\nevent: board\ndata: b1\n\n" || second != "event: board\ndata: b2\n\n" {
			t.Fatalf("viewer %d got %q then %q", i, first, second)
		}
	}
	// The last viewer reads nothing more: past its queue it is dropped.
	last := cs[n-1]
	for i := range clientQueue + 1 {
		h.publishAll("arena/5", []event{{"board", fmt.Sprint("b", i+3)}})
		for _, c := range cs[:n-1] {
			<-c.ch
		}
	}
	select {
	case <-last.gone:
	default:
		t.Fatal("a viewer that read nothing of more than its queue is not dropped")
	}
	if got := h.viewers("arena/5"); got != n-1 {
		t.Fatalf("%d viewers after the drop, want %d", got, n-1)
	}
}

func TestEncodeEventLines(t *testing.T) {
	got := string(encodeEvent("daily", "<p>a</p>\r\n<p>b</p>"))
	if want := "event: daily\ndata: <p>a</p>\ndata: <p>b</p>\n\n"; got != want {
		t.Fatalf("encodeEvent: %q, want %q", got, want)
	}
}

// TestLimits: the open requests of one address are bounded, and so are
// all of them; behind the balancer, its X-Forwarded-For names the
// address, from it only.
func TestLimits(t *testing.T) {
	ts := newTestSite(t, func(c *Config) {
		c.MaxConnsPerIP, c.MaxConns = 2, 3
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	open := func(addr string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.srv.URL+"/events/front", nil)
		if addr != "" {
			req.Header.Set("X-Forwarded-For", "198.51.100.9, "+addr) // the client's own words first
		}
		resp, err := ts.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for range 2 {
		if r := open("203.0.113.7"); r.StatusCode != http.StatusOK {
			t.Fatalf("a stream of 203.0.113.7: %s", r.Status)
		}
	}
	r := open("203.0.113.7")
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "Too many connections from your address (203.0.113.7)") {
		t.Fatalf("a third stream of one address: %s %q", r.Status, body)
	}
	if r := open("2001:db8::1"); r.StatusCode != http.StatusOK {
		t.Fatalf("a stream of another address: %s", r.Status)
	}
	r = open("2001:db8::2")
	body, _ = io.ReadAll(r.Body)
	if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "The page is full") {
		t.Fatalf("a stream past the most overall: %s %q", r.Status, body)
	}
}

func TestClientAddr(t *testing.T) {
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.2/32")}
	for _, tt := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no balancer", "192.0.2.1:5000", nil, "192.0.2.1"},
		{"a client's own header", "192.0.2.1:5000", []string{"203.0.113.7"}, "192.0.2.1"},
		{"the balancer's", "10.0.0.2:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"the balancer's after the client's", "10.0.0.2:5000", []string{"6.6.6.6, 203.0.113.7"}, "203.0.113.7"},
		{"the balancer's in a header of its own", "10.0.0.2:5000", []string{"6.6.6.6", "203.0.113.7"}, "203.0.113.7"},
		{"garbage from the balancer", "10.0.0.2:5000", []string{"nonsense"}, "10.0.0.2"},
		{"the balancer without a header", "10.0.0.2:5000", nil, "10.0.0.2"},
		{"IPv6 by /64", "[2001:db8:1:2:3:4:5:6]:443", nil, "2001:db8:1:2::/64"},
		{"IPv4 in IPv6", "[::ffff:192.0.2.1]:443", nil, "192.0.2.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := addrKey(clientAddr(r, lb)); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestFanOut: a thousand viewers of one arena's page all see its change;
// the arena is watched once and each change rendered once.
func TestFanOut(t *testing.T) {
	const viewers = 1000
	ts := newTestSite(t, func(c *Config) { c.MaxConnsPerIP, c.MaxConns = viewers+10, viewers+10 })
	ts.arenas.change(5, arenaView(4), lobby.Board{Record: gameRecord(t)})
	tr := &http.Transport{MaxIdleConnsPerHost: -1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ready, got sync.WaitGroup
	ready.Add(viewers)
	got.Add(viewers)
	errs := make(chan error, viewers)
	for range viewers {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.srv.URL+"/arena/5/events", nil)
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				ready.Done()
				got.Done()
				return
			}
			defer resp.Body.Close()
			ch := make(chan sseEvent, 64)
			go readEvents(resp.Body, ch)
			first, second := true, false
			for ev := range ch {
				if ev.name != "standings" {
					continue
				}
				if first && strings.Contains(ev.data, `points">4<`) {
					first = false
					ready.Done()
				}
				if !second && strings.Contains(ev.data, `points">9<`) {
					second = true
					got.Done()
				}
			}
			if first || !second {
				errs <- fmt.Errorf("a viewer's stream ended (first seen %v, change seen %v)", !first, second)
				if first {
					ready.Done()
				}
				if !second {
					got.Done()
				}
			}
		}()
	}
	waitGroup(t, &ready, "every viewer sees the standings")
	if n := ts.arenas.watching(5); n != 1 {
		t.Fatalf("arena 5 is watched %d times by %d viewers, want once", n, viewers)
	}
	start := time.Now()
	ts.arenas.change(5, arenaView(9), lobby.Board{Record: gameRecord(t, "d")})
	waitGroup(t, &got, "every viewer sees the change")
	t.Logf("%d viewers saw the change %v after it", viewers, time.Since(start).Round(time.Millisecond))
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// waitGroup waits for wg, failing after wait.
func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * wait):
		t.Fatalf("%s: not within %s", what, 3*wait)
	}
}

// TestStreamOutlivesReadTimeout: a live stream served by Site.Server,
// whose ReadTimeout bounds the reading of a request, goes on past it.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	ts := newTestSite(t, nil)
	srv := ts.Server()
	srv.ReadTimeout = 200 * time.Millisecond
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	resp, err := http.Get("http://" + l.Addr().String() + "/events/front")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ch := make(chan sseEvent, 16)
	go readEvents(resp.Body, ch)
	ev := &events{resp: resp, ch: ch}
	ev.waitFor(t, "online", func(d string) bool { return d == "0" })
	<-time.After(5 * srv.ReadTimeout) // the time the test is about, not a synchronisation
	ts.arcade.setOnline(1)
	ev.waitFor(t, "online", func(d string) bool { return d == "1" })
}

// stockFaces are the faces, as the page would write them, of the cards
// of deal 42's stock in their order: what a racer of its race must not
// learn from the page.
func stockFaces(t *testing.T) []string {
	t.Helper()
	g, err := engine.NewGame(engine.Classic(), engine.NewDeal(42, 1))
	if err != nil {
		t.Fatal(err)
	}
	var faces []string
	for g.StockCount() > 0 {
		if err := g.ApplyNotation("d"); err != nil {
			t.Fatalf("draw: %v", err)
		}
		c, ok := g.WasteTop(0)
		if !ok {
			t.Fatal("a draw left the waste empty")
		}
		faces = append(faces, face(c).Face)
	}
	return faces
}

// TestArenaTopGameHidesTheDeal: the top game is of a race that runs,
// whose racers all play its deal and may open the page. Its racer (a
// hostile name) drew four cards and paired one: neither the page nor
// its live event holds a card of the stock or the waste, only their
// counts; the pyramid is drawn.
func TestArenaTopGameHidesTheDeal(t *testing.T) {
	ts := newTestSite(t, nil)
	ts.arenas.setTopName(hostile)
	rec := gameRecord(t, "d", "7.5+w", "d", "d", "d")
	ts.arenas.change(5, arenaView(4), lobby.Board{Record: rec})
	hidden := stockFaces(t)
	check := func(what, html string) {
		t.Helper()
		for i, f := range hidden {
			if strings.Contains(html, ">"+f+"<") {
				t.Errorf("%s shows %s, card %d of the stock", what, f, i+1)
			}
		}
		if n := strings.Count(html, `class="card back"`); n != 2 {
			t.Errorf("%s draws %d card backs, want 2 (stock and waste)", what, n)
		}
		if !strings.Contains(html, "stock <span class=\"card back\">▒▒</span> 20") || !strings.Contains(html, "waste <span class=\"card back\">▒▒</span> 3") {
			t.Errorf("%s lacks the counts of the stock (20) and the waste (3):\n%s", what, html)
		}
		if n := strings.Count(html, `<span class="card`) - 2; n != 28 {
			t.Errorf("%s draws %d pyramid slots, want 28", what, n)
		}
		if strings.Contains(html, "42") {
			t.Errorf("%s shows the deal's number:\n%s", what, html)
		}
	}
	_, body, _ := ts.get(t, "/arena/5")
	check("the arena's page", body)
	noRaw(t, "the arena's page", body)
	ev := ts.stream(t, "/arena/5/events")
	html := ev.waitFor(t, "board", func(d string) bool { return strings.Contains(d, "5 moves") })
	check("the board event", html)
	noRaw(t, "the board event", html)
}
