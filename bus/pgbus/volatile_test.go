package pgbus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pyramid/bus"
	"pyramid/store/storetest"
)

// TestAsyncCommitIsLocal: asyncCommitSQL at the head of a batch sent
// without BEGIN turns synchronous_commit off for the batch's implicit
// transaction only, which is what PublishVolatile relies on.
func TestAsyncCommitIsLocal(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	ctx := ctxFor(t)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	batch := &pgx.Batch{}
	batch.Queue(asyncCommitSQL)
	var in, after string
	batch.Queue("SELECT current_setting('synchronous_commit')").QueryRow(func(row pgx.Row) error { return row.Scan(&in) })
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT current_setting('synchronous_commit')").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if in != "off" || after != "on" {
		t.Fatalf("synchronous_commit in the batch %q, after it %q; want off, then on", in, after)
	}
}

// TestLostTail: the database loses a topic's last events, as a crash
// after volatile publishes does, and later events take their numbers;
// a subscriber that had read the lost ones goes back, at its bus's
// resync, to the last event kept and reads the later ones (rather than
// skip them as events it had).
func TestLostTail(t *testing.T) {
	tests := []struct {
		name string
		// crash makes the table lose the topic's events after #3 of 5;
		// the later events (IDs "new4", "new5") are published after the
		// resync, or stored by crash itself (published before the
		// listener came back, unheard).
		crash     []string
		publishes int
	}{
		{"the counter went back", []string{
			"DELETE FROM bus_events WHERE topic = 't' AND seq > 3",
			"UPDATE bus_topics SET seq = 3 WHERE topic = 't'",
		}, 2},
		{"later events took the numbers", []string{
			"DELETE FROM bus_events WHERE topic = 't' AND seq > 3",
			"INSERT INTO bus_events (topic, seq, id, kind, body) VALUES ('t', 4, 'new4', 'n', 'new4'), ('t', 5, 'new5', 'n', 'new5')",
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := storetest.PostgresSchemaURL(t)
			resynced := make(chan time.Duration, 10)
			listener := open(t, u, Options{OnResync: func(d time.Duration) { resynced <- d }})
			publisher := open(t, u, Options{})
			ctx := ctxFor(t)
			s, err := listener.Subscribe(ctx, "t", 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 5; i++ {
				if _, err := publisher.PublishVolatile(ctx, []bus.Post{{Topic: "t", Message: bus.Message{Kind: "n", Body: []byte{byte('0' + i)}}}}); err != nil {
					t.Fatal(err)
				}
			}
			readN(t, s, 5)
			admin, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(context.Background())
			for _, q := range tt.crash {
				if _, err := admin.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			terminate(t, admin, listener)
			<-resynced
			for i := 4; i < 4+tt.publishes; i++ {
				m := bus.Message{ID: "new" + string(rune('0'+i)), Kind: "n", Body: []byte("new" + string(rune('0'+i)))}
				if _, err := publisher.PublishVolatile(ctx, []bus.Post{{Topic: "t", Message: m}}); err != nil {
					t.Fatal(err)
				}
			}
			for i, ev := range readN(t, s, 2) {
				if want := "new" + string(rune('4'+i)); ev.Seq != uint64(4+i) || ev.ID != want {
					t.Errorf("after the loss, event %d: #%d %q, want #%d %q", i, ev.Seq, ev.ID, 4+i, want)
				}
			}
		})
	}
}

// BenchmarkPublishBatch: notifying commits from many publishers at once
// (two servers' coalescers and their other publishes), durable against
// volatile: each durable commit holds NOTIFY's commit-time lock, which
// all of them take in turn, through its WAL sync; a volatile one does
// not wait for the sync. Each op is one batch of one event on the
// publisher's own topic; compare ns/op (the inverse of the commits per
// second the database takes) run against run in the same minute:
//
//	go test ./bus/pgbus -run '^$' -bench PublishBatch -benchtime 2000x
func BenchmarkPublishBatch(b *testing.B) {
	u := storetest.PostgresSchemaURL(b)
	pb := open(b, u, Options{Conns: 16})
	for _, tt := range []struct {
		name    string
		publish func(context.Context, []bus.Post) ([]bus.Event, error)
	}{{"durable", pb.PublishBatch}, {"volatile", pb.PublishVolatile}} {
		b.Run(tt.name, func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				topic := fmt.Sprint("bench.", tt.name, ".", n.Add(1))
				post := []bus.Post{{Topic: topic, Message: bus.Message{Kind: "progress", Body: []byte(`{"r":[{"id":"x","r":4}]}`)}}}
				for pb.Next() {
					if _, err := tt.publish(context.Background(), post); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// TestServerCrash: PostgreSQL crashes (an immediate stop) right after a
// burst of volatile publishes, so that it may lose the last of them;
// the events published after it, which then take the lost ones'
// numbers, all reach a subscriber that had read the lost ones. It
// crashes the server, so it runs only when PYRAMID_TEST_PG_CRASH holds
// the command that does it and starts it again, on a throwaway server
// of one's own (never a shared one):
//
//	eval "$(PGPORT=5450 .ci/postgres.sh)"
//	PYRAMID_TEST_PG_CRASH="runuser -u postgres -- $(ls -d /usr/lib/postgresql/*/bin | tail -1)/pg_ctl -D $PYRAMID_TEST_PGDATA/db -l $PYRAMID_TEST_PGDATA/server.log -m immediate -w restart" \
//	  go test ./bus/pgbus -run ServerCrash -v
func TestServerCrash(t *testing.T) {
	crash := os.Getenv("PYRAMID_TEST_PG_CRASH")
	if crash == "" {
		t.Skip("crashes PostgreSQL: set PYRAMID_TEST_PG_CRASH to the command that crashes and starts a throwaway server")
	}
	u := storetest.PostgresSchemaURL(t)
	listener := open(t, u, Options{})
	publisher := open(t, u, Options{})
	ctx := ctxFor(t)
	s, err := listener.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	publish := func(id string) {
		for {
			_, err := publisher.PublishVolatile(ctx, []bus.Post{{Topic: "t", Message: bus.Message{ID: id, Kind: "n"}}})
			if err == nil {
				return
			} else if ctx.Err() != nil {
				t.Fatalf("PublishVolatile: %v", err)
			}
			time.Sleep(50 * time.Millisecond) // retrying while the server is down
		}
	}
	const burst = 50
	for i := range burst {
		publish(fmt.Sprint("before-", i))
	}
	readN(t, s, burst)
	out, err := os.Create(filepath.Join(t.TempDir(), "crash.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("sh", "-c", crash)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v", crash, err)
	}
	var kept int
	if err := publisher.pool.QueryRow(ctx, "SELECT count(*) FROM bus_events WHERE topic = 't'").Scan(&kept); err != nil {
		t.Fatal(err)
	}
	t.Logf("the crash lost %d of the %d events", burst-kept, burst)
	const after = 5
	for i := range after {
		publish(fmt.Sprint("after-", i))
	}
	next := 0
	for next < after {
		ev, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("Next, waiting for after-%d: %v", next, err)
		}
		if ev.ID == fmt.Sprint("after-", next) {
			next++
		}
	}
}
