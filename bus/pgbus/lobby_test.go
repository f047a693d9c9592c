package pgbus_test

// The lobby across servers on the PostgreSQL bus: how soon a spectator
// on one server sees a move made on another (TestWatchLatency), and a
// takeover made while PostgreSQL is down (TestTakeoverWhileDown).
//
// A takeover across servers while their PostgreSQL is down: the
// cluster's takeovers publish it again once the server is back. It stops and starts
// the server, so it runs only when PYRAMID_TEST_PG_STOP and
// PYRAMID_TEST_PG_START hold the commands that do it, on a throwaway
// server of one's own (never a shared one):
//
//	eval "$(PGPORT=24310 .ci/postgres.sh)"
//	pgctl="runuser -u postgres -- $(ls -d /usr/lib/postgresql/*/bin | tail -1)/pg_ctl -D $PYRAMID_TEST_PGDATA/db -l $PYRAMID_TEST_PGDATA/server.log -w"
//	PYRAMID_TEST_PG_STOP="$pgctl -m fast stop" \
//	PYRAMID_TEST_PG_START="$pgctl -o '-c listen_addresses=127.0.0.1 -p 24310 -k $PYRAMID_TEST_PGDATA' start" \
//	  go test ./bus/pgbus -run TakeoverWhileDown -v
//
// (pg_ctl start, unlike restart, does not reuse the options the server
// was started with: the port must be given again.)

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/bus/pgbus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store/storetest"
)

var (
	watchMoves    = flag.Int("pgbus.watchmoves", 20, "moves TestWatchLatency times")
	watchWatchers = flag.Int("pgbus.watchers", 3, "spectators of TestWatchLatency, all on the other server")
)

// TestWatchLatency times a move published on one server to the board in
// the queues of its spectators on the other, at a player's pace (a move
// every 150 ms, further apart than the boards' coalescing), and counts
// the events it costs (one per move and spectators' server, however many
// watch there):
//
//	go test ./bus/pgbus -run WatchLatency -v -pgbus.watchmoves 200 -pgbus.watchers 49
func TestWatchLatency(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+time.Duration(*watchMoves)*time.Second)
	defer cancel()
	cfg := cluster.PresenceConfig{Heartbeat: time.Second, TTL: 3 * time.Second, Every: 100 * time.Millisecond}
	server := func(instance string) *lobby.Lobby {
		b, err := pgbus.Open(ctx, u, pgbus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		l := lobby.New(lobby.Config{})
		p, err := cluster.JoinPresence(ctx, l, b, instance, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close) // before the bus closes (cleanups run last first)
		s, err := cluster.JoinSpectating(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		t.Cleanup(l.Close) // first of all
		return l
	}
	probe, err := pgbus.Open(ctx, u, pgbus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	one, two := server("one"), server("two")
	ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
	one.SetDoing(ann, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 42})
	var viewers []*lobby.Session
	for i := range max(*watchWatchers, 1) {
		viewers = append(viewers, two.Join(lobby.Player{ID: "v" + strconv.Itoa(i), Name: "v" + strconv.Itoa(i)}))
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(names(two.Who()), "ann"); {
		if time.Now().After(deadline) {
			t.Fatalf("server two never listed ann: %q", names(two.Who()))
		}
		time.Sleep(10 * time.Millisecond) // polling the other server's presence, not synchronising
	}
	for _, v := range viewers {
		if _, err := two.Watch(v, "ann"); err != nil {
			t.Fatal(err)
		}
	}
	seq := func() uint64 { // the last event on the spectators' server's topic
		sub, err := probe.Subscribe(ctx, cluster.WatchTopic("two"), bus.Latest)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		return sub.Seq()
	}
	before := seq()
	pace := time.NewTicker(150 * time.Millisecond)
	defer pace.Stop()
	var took []time.Duration
	for i := range *watchMoves {
		<-pace.C
		rec := engine.Record{Rules: "classic", Deal: 42, Moves: slices.Repeat([]string{"d"}, i+1)}
		start := time.Now()
		one.Publish(ann, lobby.Board{Record: rec})
		for _, v := range viewers {
			for {
				ev, err := v.Queue().Next(ctx)
				if err != nil {
					t.Fatalf("move %d never reached a spectator: %v", i+1, err)
				}
				if w, ok := ev.(lobby.Watched); ok && len(w.Board.Record.Moves) == i+1 {
					break
				}
			}
		}
		took = append(took, time.Since(start))
	}
	events := seq() - before
	slices.Sort(took)
	p := func(q float64) time.Duration {
		return took[min(len(took)-1, int(q*float64(len(took))))].Round(100 * time.Microsecond)
	}
	t.Logf("a move on server one in the queues of its %d spectators on server two, %d moves: p50 %s, p90 %s, p99 %s, max %s; %d events on server two's topic",
		len(viewers), len(took), p(0.5), p(0.9), p(0.99), took[len(took)-1].Round(100*time.Microsecond), events)
}

// names lists the names of a Who.
func names(who []lobby.Presence) string {
	var out []string
	for _, p := range who {
		out = append(out, p.Name)
	}
	return strings.Join(out, " ")
}

func TestTakeoverWhileDown(t *testing.T) {
	stop, start := os.Getenv("PYRAMID_TEST_PG_STOP"), os.Getenv("PYRAMID_TEST_PG_START")
	if stop == "" || start == "" {
		t.Skip("stops PostgreSQL: set PYRAMID_TEST_PG_STOP and PYRAMID_TEST_PG_START to the commands that stop and start a throwaway server")
	}
	u := storetest.PostgresSchemaURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	open := func() *pgbus.Bus {
		b, err := pgbus.Open(ctx, u, pgbus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	one, two := lobby.New(lobby.Config{}), lobby.New(lobby.Config{})
	defer one.Close()
	defer two.Close()
	for _, server := range []struct {
		l    *lobby.Lobby
		name string
	}{{one, "one"}, {two, "two"}} {
		tk, err := cluster.JoinTakeovers(ctx, server.l, open(), server.name)
		if err != nil {
			t.Fatal(err)
		}
		defer tk.Close()
	}
	alice := lobby.Player{ID: "SHA256:a", Name: "alice"}
	a1, a2 := one.Join(alice), two.Join(alice)

	run := func(command string) {
		t.Helper()
		// Its output goes to a file: a server started by the command
		// keeps the file open, and would keep a pipe open forever.
		out, err := os.Create(filepath.Join(t.TempDir(), "pg_ctl.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd := exec.Command("sh", "-c", command)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
	}
	run(stop)
	stopped := true
	t.Cleanup(func() {
		if stopped {
			run(start)
		}
	})
	if err := one.TakeOver(ctx, a1, "7", ""); err == nil {
		t.Fatal("a takeover with PostgreSQL down: no error")
	}
	run(start)
	stopped = false
	up := time.Now()
	ev, err := a2.Queue().Next(ctx)
	if err != nil {
		t.Fatalf("the other server's session was never told: %v", err)
	}
	if ev != (lobby.TakenOver{GameID: "7"}) {
		t.Fatalf("the other server's session got %v, want the takeover of game 7", ev)
	}
	t.Logf("the takeover made while PostgreSQL was down reached the other server %s after it was up",
		time.Since(up).Round(time.Millisecond))
}
