package pgbus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pyramid/bus"
	"pyramid/bus/bustest"
	"pyramid/store/storetest"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// open opens a bus on dbURL, closed when t ends.
func open(t testing.TB, dbURL string, opts Options) *Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	b, err := Open(ctx, dbURL, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestConformance(t *testing.T) {
	bustest.Run(t, func(t *testing.T) bus.Bus {
		return open(t, storetest.PostgresSchemaURL(t), Options{})
	})
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// readN reads n events from s.
func readN(t *testing.T, s bus.Subscription, n int) []bus.Event {
	t.Helper()
	var evs []bus.Event
	for range n {
		ev, err := s.Next(ctxFor(t))
		if err != nil {
			t.Fatalf("Next after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestTwoBuses: two buses on one database, as two servers have, each with
// its own listening connection and pool, see each other's events, every
// one once and in order, whoever published them.
func TestTwoBuses(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	one, two := open(t, u, Options{}), open(t, u, Options{})
	ctx := ctxFor(t)
	s1, err := one.Subscribe(ctx, "room", bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := two.Subscribe(ctx, "room", bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	const each = 40
	var wg sync.WaitGroup
	for i, b := range []*Bus{one, two} {
		wg.Go(func() {
			for j := range each {
				if _, err := b.Publish(ctx, "room", bus.Message{Kind: "n", Body: fmt.Appendf(nil, "%d-%d", i, j)}); err != nil {
					t.Errorf("Publish: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	a, b := readN(t, s1, 2*each), readN(t, s2, 2*each)
	for i := range a {
		if a[i].Seq != uint64(i+1) || b[i].Seq != a[i].Seq || a[i].ID != b[i].ID || string(a[i].Body) != string(b[i].Body) {
			t.Fatalf("event %d: bus one read #%d %s %q, bus two #%d %s %q; want the same, #%d",
				i, a[i].Seq, a[i].ID, a[i].Body, b[i].Seq, b[i].ID, b[i].Body, i+1)
		}
	}
}

// terminate ends the listening connection of b from the server side, as
// a PostgreSQL restart or a network cut would, and returns when it is
// gone.
func terminate(t *testing.T, admin *pgx.Conn, b *Bus) {
	t.Helper()
	b.mu.Lock()
	pid := b.listenPID
	b.mu.Unlock()
	if pid == 0 {
		t.Fatal("the bus is not listening")
	}
	var ok bool
	if err := admin.QueryRow(ctxFor(t), "SELECT pg_terminate_backend($1)", int64(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d): %v, %v", pid, ok, err)
	}
}

// TestReconnect: the listening connection is killed while events are
// published; the bus reconnects within about a second, resyncs, and its
// subscriber reads every event once and in order, including those
// published while it was deaf.
func TestReconnect(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	resynced := make(chan time.Duration, 10)
	listener := open(t, u, Options{OnResync: func(d time.Duration) { resynced <- d }})
	publisher := open(t, u, Options{})
	ctx := ctxFor(t)
	s, err := listener.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())

	const n = 60
	got := make(chan []bus.Event, 1)
	go func() {
		var evs []bus.Event
		for range n {
			ev, err := s.Next(ctx)
			if err != nil {
				t.Errorf("Next: %v", err)
				break
			}
			evs = append(evs, ev)
		}
		got <- evs
	}()
	var worst time.Duration
	for i := range n {
		if _, err := publisher.Publish(ctx, "t", bus.Message{Kind: "n", Body: []byte{byte(i)}}); err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if i%20 == 10 {
			start := time.Now()
			terminate(t, admin, listener)
			select {
			case d := <-resynced:
				worst = max(worst, time.Since(start))
				t.Logf("reconnected and resynced %s after pg_terminate_backend (deaf %s)", time.Since(start), d)
			case <-time.After(wait):
				t.Fatal("the bus did not reconnect")
			}
		}
	}
	evs := <-got
	if len(evs) != n {
		t.Fatalf("read %d events, want %d", len(evs), n)
	}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) || ev.Body[0] != byte(i) {
			t.Fatalf("event %d: got #%d %v, want #%d", i, ev.Seq, ev.Body, i+1)
		}
	}
	if worst > 3*time.Second {
		t.Errorf("worst reconnect: %s, want about a second at most", worst)
	}
}

// TestDeafSubscriber: events published while a bus's listener is down
// reach a subscriber that waits in Next across the outage, woken by the
// resync alone (no later event to notify it).
func TestDeafSubscriber(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	resynced := make(chan time.Duration, 10)
	listener := open(t, u, Options{OnResync: func(d time.Duration) { resynced <- d }, ReconnectMax: 300 * time.Millisecond})
	publisher := open(t, u, Options{})
	ctx := ctxFor(t)
	s, err := listener.Subscribe(ctx, "t", bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	// Published right after the kill, most often while the bus is deaf;
	// either way the event must arrive, once.
	terminate(t, admin, listener)
	ev, err := publisher.Publish(ctx, "t", bus.Message{Kind: "during"})
	if err != nil {
		t.Fatal(err)
	}
	<-resynced
	got := readN(t, s, 1)[0]
	if got.ID != ev.ID || got.Seq != 1 {
		t.Fatalf("got %+v, want %+v", got, ev)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if ev, err := s.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second Next: got %+v, %v; want nothing more", ev, err)
	}
}

// TestGap: a subscriber behind the events the table keeps is told what
// it missed, then reads on from the oldest kept.
func TestGap(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	b := open(t, u, Options{Retain: 100})
	ctx := ctxFor(t)
	for range 130 {
		if _, err := b.Publish(ctx, "t", bus.Message{}); err != nil {
			t.Fatal(err)
		}
	}
	// Pruned at #128: events 1..28 are gone.
	s, err := b.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Next(ctx)
	var gap *bus.GapError
	if !errors.As(err, &gap) || gap.From != 1 || gap.To != 28 {
		t.Fatalf("Next: got %v, want a gap of 1 to 28", err)
	}
	evs := readN(t, s, 102)
	if evs[0].Seq != 29 || evs[101].Seq != 130 {
		t.Fatalf("after the gap: #%d to #%d, want 29 to 130", evs[0].Seq, evs[101].Seq)
	}
}

func TestParsePayload(t *testing.T) {
	for _, tt := range []struct {
		in    string
		topic string
		seq   uint64
		ok    bool
	}{
		{"12 lobby.takeover", "lobby.takeover", 12, true},
		{"1 a", "a", 1, true},
		{"x a", "", 0, false},
		{"12", "", 0, false},
		{"", "", 0, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			topic, seq, ok := parsePayload(tt.in)
			if ok != tt.ok || ok && (topic != tt.topic || seq != tt.seq) {
				t.Fatalf("parsePayload(%q) = %q, %d, %v; want %q, %d, %v", tt.in, topic, seq, ok, tt.topic, tt.seq, tt.ok)
			}
		})
	}
}

// TestServerRestart measures the bus's reconnect after its PostgreSQL
// restarts, with nothing lost. It restarts the server, so it runs only
// when PYRAMID_TEST_PG_RESTART holds the command that does it, on a
// throwaway server of one's own (never a shared one):
//
//	eval "$(PGPORT=5450 .ci/postgres.sh)"
//	PYRAMID_TEST_PG_RESTART="runuser -u postgres -- $(ls -d /usr/lib/postgresql/*/bin | tail -1)/pg_ctl -D $PYRAMID_TEST_PGDATA/db -l $PYRAMID_TEST_PGDATA/server.log -m fast -w restart" \
//	  go test ./bus/pgbus -run ServerRestart -v
func TestServerRestart(t *testing.T) {
	restart := os.Getenv("PYRAMID_TEST_PG_RESTART")
	if restart == "" {
		t.Skip("restarts PostgreSQL: set PYRAMID_TEST_PG_RESTART to the command that restarts a throwaway server")
	}
	u := storetest.PostgresSchemaURL(t)
	resynced := make(chan time.Duration, 10)
	listener := open(t, u, Options{OnResync: func(d time.Duration) { resynced <- d }})
	publisher := open(t, u, Options{})
	ctx := ctxFor(t)
	s, err := listener.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	publish := func(i int) {
		for {
			if _, err := publisher.Publish(ctx, "t", bus.Message{Body: []byte{byte(i)}}); err == nil {
				return
			} else if ctx.Err() != nil {
				t.Fatalf("Publish: %v", err)
			}
			time.Sleep(50 * time.Millisecond) // retrying while the server is down
		}
	}
	publish(0)
	start := time.Now()
	// Its output goes to a file: a server started by the command keeps
	// the file open, and would keep a pipe open forever.
	out, err := os.Create(filepath.Join(t.TempDir(), "restart.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("sh", "-c", restart)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v", restart, err)
	}
	up := time.Now()
	publish(1)
	select {
	case d := <-resynced:
		t.Logf("PostgreSQL restart took %s; the bus listened again %s after the restart began, %s after the server was up (deaf %s)",
			up.Sub(start).Round(time.Millisecond), time.Since(start).Round(time.Millisecond), time.Since(up).Round(time.Millisecond), d.Round(time.Millisecond))
	case <-time.After(wait):
		t.Fatal("the bus did not reconnect")
	}
	evs := readN(t, s, 2)
	if evs[0].Body[0] != 0 || evs[1].Body[0] != 1 || evs[1].Seq != 2 {
		t.Fatalf("events: %+v, want #1 and #2", evs)
	}
}

// TestQuietPing: a listening connection that hears nothing is pinged
// after PingEvery, and kept: no reconnect, and the next event arrives.
func TestQuietPing(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	resynced := make(chan time.Duration, 10)
	listener := open(t, u, Options{PingEvery: 20 * time.Millisecond, OnResync: func(d time.Duration) { resynced <- d }})
	publisher := open(t, u, Options{})
	ctx := ctxFor(t)
	s, err := listener.Subscribe(ctx, "t", bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	listener.mu.Lock()
	pid := listener.listenPID
	listener.mu.Unlock()
	quiet, cancel := context.WithTimeout(ctx, 300*time.Millisecond) // some 15 pings
	defer cancel()
	if _, err := s.Next(quiet); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on a quiet topic: %v", err)
	}
	select {
	case <-resynced:
		t.Fatal("the bus reconnected although its connection was alive")
	default:
	}
	listener.mu.Lock()
	same := listener.listenPID == pid
	listener.mu.Unlock()
	if !same {
		t.Fatal("the listening connection changed")
	}
	ev, err := publisher.Publish(ctx, "t", bus.Message{Kind: "after"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readN(t, s, 1)[0]; got.ID != ev.ID {
		t.Fatalf("got %+v, want %+v", got, ev)
	}
}

// TestMaxAge: events older than MaxAge go, whatever their topic's
// activity; the counter stays, so a later event does not reuse a number,
// and a subscriber from the start learns of the gap.
func TestMaxAge(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	b := open(t, u, Options{MaxAge: time.Hour})
	ctx := ctxFor(t)
	for range 3 {
		if _, err := b.Publish(ctx, "old", bus.Message{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.pool.Exec(ctx, `UPDATE bus_events SET at = now() - interval '2 hours' WHERE seq <= 2`); err != nil {
		t.Fatal(err)
	}
	if err := b.prune(ctx); err != nil {
		t.Fatal(err)
	}
	ev, err := b.Publish(ctx, "old", bus.Message{})
	if err != nil || ev.Seq != 4 {
		t.Fatalf("Publish after the prune: #%d, %v; want #4", ev.Seq, err)
	}
	s, err := b.Subscribe(ctx, "old", 0)
	if err != nil {
		t.Fatal(err)
	}
	var gap *bus.GapError
	if _, err := s.Next(ctx); !errors.As(err, &gap) || gap.From != 1 || gap.To != 2 {
		t.Fatalf("Next: %v, want a gap of 1 to 2", err)
	}
	if evs := readN(t, s, 2); evs[0].Seq != 3 || evs[1].Seq != 4 {
		t.Fatalf("after the gap: %+v", evs)
	}
}

// TestAllConnectionsKilled: every connection of a bus, pooled and
// listening, dies while a subscriber waits and events are published
// elsewhere; the subscriber reads them all, once, in order, with no error.
func TestAllConnectionsKilled(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	resynced := make(chan time.Duration, 10)
	victim := open(t, u, Options{OnResync: func(d time.Duration) { resynced <- d }})
	publisher := open(t, u, Options{})
	ctx := ctxFor(t)
	s, err := victim.Subscribe(ctx, "t", bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	// Fill the pool, note its backends, kill them and the listener.
	for range 3 {
		if _, err := publisher.Publish(ctx, "t", bus.Message{Kind: "before"}); err != nil {
			t.Fatal(err)
		}
	}
	readN(t, s, 3)
	var pids []int64
	for _, c := range victim.pool.AcquireAllIdle(ctx) {
		pids = append(pids, int64(c.Conn().PgConn().PID()))
		c.Release()
	}
	victim.mu.Lock()
	pids = append(pids, int64(victim.listenPID))
	victim.mu.Unlock()
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", pids); err != nil {
		t.Fatal(err)
	}
	// The victim's pool is all dead connections: its publishes still
	// go (a dead one fails before anything is sent, and is retried).
	for i := range 2 {
		if _, err := victim.Publish(ctx, "t", bus.Message{Kind: "mine", Body: []byte{byte(i)}}); err != nil {
			t.Fatalf("Publish %d after the kill: %v", i, err)
		}
	}
	for i := range 3 {
		if _, err := publisher.Publish(ctx, "t", bus.Message{Kind: "theirs", Body: []byte{byte(2 + i)}}); err != nil {
			t.Fatal(err)
		}
	}
	evs := readN(t, s, 5)
	for i, ev := range evs {
		if ev.Seq != uint64(4+i) || ev.Body[0] != byte(i) {
			t.Fatalf("event %d after the kill: #%d %v, want #%d", i, ev.Seq, ev.Body, 4+i)
		}
	}
	select {
	case <-resynced:
	case <-time.After(wait):
		t.Fatal("the listener did not reconnect")
	}
}

// TestDuplicateCatchesUp: an event this bus's subscription never heard of
// (its NOTIFY lost: here it is written straight into the table) comes to
// the subscription when a publish of the same ID finds it there, as a
// race's end that two servers publish under one fixed ID does, rather
// than never: by Publish and by PublishBatch (beside a fresh event of
// another topic), whether the stored event is the next the subscription
// reads or one after others it missed. The duplicate is not counted as
// published.
func TestDuplicateCatchesUp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		missed int // events stored before the duplicate, unheard too
		batch  bool
	}{
		{"Publish, the next event", 0, false},
		{"Publish, after missed ones", 2, false},
		{"PublishBatch, the next event", 0, true},
		{"PublishBatch, after missed ones", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := storetest.PostgresSchemaURL(t)
			b := open(t, u, Options{PingEvery: time.Hour})
			ctx := ctxFor(t)
			s, err := b.Subscribe(ctx, "t", bus.Latest)
			if err != nil {
				t.Fatal(err)
			}
			admin, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(context.Background())
			last := tc.missed + 1
			if _, err := admin.Exec(ctx, `INSERT INTO bus_topics (topic, seq) VALUES ('t', $1)`, last); err != nil {
				t.Fatal(err)
			}
			for seq := 1; seq <= last; seq++ {
				id := "missed/" + strconv.Itoa(seq)
				if seq == last {
					id = "end/1"
				}
				if _, err := admin.Exec(ctx, `INSERT INTO bus_events (topic, seq, id, kind, body) VALUES ('t', $1, $2, 'end', '')`, seq, id); err != nil {
					t.Fatal(err)
				}
			}
			before := b.Stats().Published
			var ev bus.Event
			if tc.batch {
				evs, berr := b.PublishBatch(ctx, []bus.Post{{Topic: "t", Message: bus.Message{ID: "end/1", Kind: "end"}},
					{Topic: "u", Message: bus.Message{Kind: "fresh"}}})
				if berr == nil && len(evs) == 2 {
					ev = evs[0]
				}
				err = berr
			} else {
				ev, err = b.Publish(ctx, "t", bus.Message{ID: "end/1", Kind: "end"})
			}
			if err != nil || ev.Seq != uint64(last) || ev.ID != "end/1" {
				t.Fatalf("publish of a stored ID: got %+v, %v; want the stored event #%d", ev, err, last)
			}
			want := int64(0)
			if tc.batch {
				want = 1 // the fresh one
			}
			if n := b.Stats().Published - before; n != want {
				t.Errorf("Stats().Published grew by %d, want %d (a repeated ID is not counted)", n, want)
			}
			short, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			for seq := 1; seq <= last; seq++ {
				got, err := s.Next(short)
				if err != nil || got.Seq != uint64(seq) {
					t.Fatalf("Next: got %+v, %v; want event #%d", got, err, seq)
				}
				if seq == last && got.ID != "end/1" {
					t.Fatalf("Next: got %+v; want the event end/1", got)
				}
			}
		})
	}
}

// TestRetryDelay: the waits between attempts to reconnect double from
// 50 ms, up to 250 ms in the first 10 s out (a restart's listener is back
// within 250 ms of the server), then up to ReconnectMax.
func TestRetryDelay(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		last, out, limit, want time.Duration
	}{
		{0, 0, time.Second, 50 * ms},
		{50 * ms, 60 * ms, time.Second, 100 * ms},
		{100 * ms, 200 * ms, time.Second, 200 * ms},
		{200 * ms, 400 * ms, time.Second, 250 * ms},
		{250 * ms, 9 * time.Second, time.Second, 250 * ms},
		{250 * ms, 10 * time.Second, time.Second, 500 * ms},
		{500 * ms, 11 * time.Second, time.Second, time.Second},
		{time.Second, time.Minute, time.Second, time.Second},
		{0, 0, 20 * ms, 20 * ms},                                // a limit below the first wait
		{250 * ms, 30 * time.Second, 5 * time.Second, 500 * ms}, // doubling on to a larger limit
	} {
		if got := retryDelay(tc.last, tc.out, tc.limit); got != tc.want {
			t.Errorf("retryDelay(%s, %s, %s) = %s, want %s", tc.last, tc.out, tc.limit, got, tc.want)
		}
	}
}
