package pgbus_test

// A takeover across servers while their PostgreSQL is down: the lobby's
// bridge publishes it again once the server is back. It stops and starts
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
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"pyramid/bus/pgbus"
	"pyramid/lobby"
	"pyramid/store/storetest"
)

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
	if err := one.Bridge(ctx, open(), "one"); err != nil {
		t.Fatal(err)
	}
	if err := two.Bridge(ctx, open(), "two"); err != nil {
		t.Fatal(err)
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
