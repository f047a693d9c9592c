package arcade

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/bus/pgbus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store/sqlstore"
	"pyramid/store/storetest"
	"pyramid/tui"
)

// syncBuffer is a log's buffer that the test reads while servers write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOutageRace: the database out of reach mid-race, on two arcades, as two servers
// on one PostgreSQL, each through a proxy the test cuts: a rated race
// with two racers on each, the database gone for both for several
// leases' time mid-race. During it a move is refused in plain words (the
// log has the detail); when it is back every racer plays on, on their own
// server, without coming back, every move shows on both servers, and
// the race is stored void: unrated for everybody.
func TestOutageRace(t *testing.T) {
	base := storetest.PostgresSchemaURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var proxies []*storetest.Proxy
	testOutageRace(t, func() string {
		p := storetest.NewProxy(t, u.Host)
		proxies = append(proxies, p)
		return p.Via(t, base)
	}, func() {
		for _, p := range proxies {
			p.Cut()
		}
	}, func() {
		time.Sleep(4 * outageTTL) // the outage itself: every lease's time runs out, on its own
		for _, p := range proxies {
			p.Restore()
		}
	})
}

// TestPostgresRestartRace is TestOutageRace with a PostgreSQL of the
// test's own, stopped as a crash stops it (`pg_ctl -m immediate stop`)
// and started again after several leases' time, as the issue did.
func TestPostgresRestartRace(t *testing.T) {
	srv := storetest.NewServer(t)
	testOutageRace(t, func() string { return srv.URL }, func() { srv.Stop("immediate") }, func() {
		time.Sleep(6 * outageTTL) // the outage itself
		srv.Start()
	})
}

// outageTTL is the servers' LeaseTTL in the outage tests.
const outageTTL = time.Second

// testOutageRace runs the race of TestOutageRace with two servers on
// the databases dbURL gives (one call per server), the database out of
// reach from cut until back returns.
func testOutageRace(t *testing.T, dbURL func() string, cut, back func()) {
	ctx := context.Background()
	const ttl = outageTTL
	var logs []*syncBuffer
	var f *fixture
	newApp := func(instance string) *App {
		dbURL := dbURL()
		st, err := sqlstore.Open(ctx, t.TempDir(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		pb, err := pgbus.Open(ctx, dbURL, pgbus.Options{RetainTopic: map[string]int{cluster.RoomsTopic: cluster.RoomsRetain},
			PingEvery: 200 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pb.Close() })
		logged := &syncBuffer{}
		a := New(Config{Store: st, Logger: log.New(logged), Bus: pb, Instance: instance, Lease: pb, DBNow: pb.Now,
			LeaseTTL: ttl, Cluster: cluster.PresenceConfig{TTL: 3 * ttl, Heartbeat: ttl}})
		t.Cleanup(a.Close)
		if f == nil {
			f = &fixture{t: t, st: st, app: a}
		}
		logs = append(logs, logged)
		return a
	}
	one := newApp("one")
	waitFor(t, "one holds the lease", one.rooms.Holder)
	two := newApp("two")

	racers := map[string]*races{}
	for _, name := range []string{"ann", "bob"} {
		racers[name] = clusterRacer(t, f, one, name)
	}
	for _, name := range []string{"carol", "dave"} {
		racers[name] = clusterRacer(t, f, two, name)
	}
	seat, err := racers["ann"].Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	waitFor(t, "two knows the room", func() bool { _, ok := two.rooms.Room(code); return ok })
	for _, name := range []string{"bob", "carol", "dave"} {
		if _, err := racers[name].Join(ctx, code); err != nil {
			t.Fatalf("%s joins: %v", name, err)
		}
	}
	readyAll(t, code, racers["bob"], racers["carol"], racers["dave"])
	if err := racers["ann"].Start(code); err != nil {
		t.Fatal(err)
	}
	r1, _ := one.rooms.Room(code)
	r2, _ := two.rooms.Room(code)
	waitPhase(t, r1, lobby.PhaseRacing)
	waitPhase(t, r2, lobby.PhaseRacing)
	if !r1.Snapshot().Rated {
		t.Fatal("the race is not rated")
	}

	// Everybody plays the same line, one move at a time.
	line := removeOne(t, engine.Classic(), r1.Snapshot().Deal).Moves
	for len(line) < 3 {
		line = append(line, "d")
	}
	seq := map[string]int{}
	play := func(name string, moves int) error {
		seq[name]++
		rec := engine.Record{Rules: engine.Classic().ID(), Deal: r1.Snapshot().Deal, Moves: line[:moves]}
		_, err := racers[name].Play(ctx, code, 1, seq[name], rec)
		return err
	}
	seen := func(moves int) bool {
		for _, r := range []*lobby.Room{r1, r2} {
			for _, rs := range racers {
				if m, _ := r.Snapshot().Member(rs.me.ID); !m.Present || m.Moves != moves {
					return false
				}
			}
		}
		return true
	}
	for name := range racers {
		if err := play(name, 1); err != nil {
			t.Fatalf("%s's first move: %v", name, err)
		}
	}
	waitFor(t, "the first moves on both servers", func() bool { return seen(1) })

	cut()
	// A move during the outage is refused, in plain words.
	err = play("carol", 2)
	if err == nil {
		t.Fatal("a move stored with the database gone")
	}
	if why := tui.Reason(err); why != "the database is unreachable for now" {
		t.Errorf("carol reads %q", why)
	}
	back()

	waitFor(t, "every racer plays on", func() bool {
		for name := range racers {
			if m, _ := r1.Snapshot().Member(racers[name].me.ID); m.Moves < 2 && play(name, 2) != nil {
				return false
			}
		}
		return seen(2)
	})
	// They stay seated while the leases are taken again.
	for deadline := time.Now().Add(3 * ttl); time.Now().Before(deadline); {
		for _, r := range []*lobby.Room{r1, r2} {
			for name, rs := range racers {
				if m, _ := r.Snapshot().Member(rs.me.ID); !m.Present {
					t.Fatalf("%s away after the outage: %+v", name, m)
				}
			}
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not synchronising on time
	}
	for name := range racers {
		if err := play(name, 3); err != nil {
			t.Fatalf("%s's third move: %v", name, err)
		}
	}
	waitFor(t, "the third moves on both servers", func() bool { return seen(3) })
	for _, name := range []string{"ann", "bob", "carol", "dave"} {
		if err := racers[name].Leave(code); err != nil {
			t.Fatalf("%s leaves: %v", name, err)
		}
	}
	for name, rs := range racers {
		rec := waitRecords(t, f, rs.me.ID, 1)
		if rec.Races != 0 || rec.Unrated != 1 || rec.Rating.Races != 0 {
			t.Errorf("%s's race record %+v, want one unrated race", name, rec)
		}
	}
	for i, l := range logs {
		if !strings.Contains(l.String(), "failed to connect") {
			t.Errorf("server %d's log has no detail of the outage:\n%s", i+1, l.String())
		}
	}
}
