package pgbus

import (
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pyramid/bus"
	"pyramid/store/storetest"
)

// TestLease: one holder at a time; the holder keeps its lease; another
// takes it once it ran out and learns whose it was.
func TestLease(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	a, b := open(t, u, Options{}), open(t, u, Options{})
	for i, step := range []struct {
		bus      *Bus
		holder   string
		ttl      time.Duration
		held     bool
		previous string
	}{
		{a, "a", time.Hour, true, ""},
		{b, "b", time.Hour, false, ""},
		{a, "a", time.Hour, true, ""},
		{a, "a", 0, true, ""}, // runs out at once
		{b, "b", time.Hour, true, "a"},
		{a, "a", time.Hour, false, ""},
		{b, "b", time.Hour, true, ""},
	} {
		held, prev, err := step.bus.Hold(ctxFor(t), "races", step.holder, step.ttl)
		if err != nil {
			t.Fatalf("step %d: Hold: %v", i, err)
		}
		if held != step.held || prev != step.previous {
			t.Fatalf("step %d: %s holds %v (before: %q), want %v (%q)", i, step.holder, held, prev, step.held, step.previous)
		}
	}
}

// TestLeasePruned: a prune forgets the leases that ran out more than
// MaxAge ago (the own lease of a server long gone) and keeps the others:
// a held one, and one run out lately, whose taker still learns whose it
// was. A forgotten lease is free to take.
func TestLeasePruned(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	b := open(t, u, Options{MaxAge: time.Hour})
	ctx := ctxFor(t)
	for _, l := range []struct {
		name string
		ttl  time.Duration
	}{{"lobby.instance.gone", time.Hour}, {"lobby.instance.lately", time.Hour}, {"lobby.races", time.Hour}} {
		if held, _, err := b.Hold(ctx, l.name, "x", l.ttl); err != nil || !held {
			t.Fatalf("Hold %s: %v, %v", l.name, held, err)
		}
	}
	if _, err := b.pool.Exec(ctx, `UPDATE bus_leases SET expires = now() - interval '2 hours' WHERE name = 'lobby.instance.gone'`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(ctx, `UPDATE bus_leases SET expires = now() - interval '1 minute' WHERE name = 'lobby.instance.lately'`); err != nil {
		t.Fatal(err)
	}
	if err := b.prune(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := b.pool.Query(ctx, `SELECT name FROM bus_leases ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lobby.instance.lately", "lobby.races"}; !slices.Equal(names, want) {
		t.Fatalf("leases after the prune: %q, want %q", names, want)
	}
	if held, prev, err := b.Hold(ctx, "lobby.instance.lately", "y", time.Hour); err != nil || !held || prev != "x" {
		t.Fatalf("taking the lease run out lately: held %v, before %q, %v; want held, before \"x\"", held, prev, err)
	}
	if held, prev, err := b.Hold(ctx, "lobby.instance.gone", "y", time.Hour); err != nil || !held || prev != "" {
		t.Fatalf("taking the forgotten lease: held %v, before %q, %v; want held, before nobody", held, prev, err)
	}
}

// TestNow: the database's clock is this machine's, give or take.
func TestNow(t *testing.T) {
	b := open(t, storetest.PostgresSchemaURL(t), Options{})
	before := time.Now()
	now, err := b.Now(ctxFor(t))
	if err != nil {
		t.Fatalf("Now: %v", err)
	}
	if d := now.Sub(before); d < -time.Second || d > 5*time.Second {
		t.Fatalf("database clock %v, this machine's %v", now, before)
	}
}

// TestRetainTopic: a topic given a retain of its own keeps its events past
// the bus's Retain.
func TestRetainTopic(t *testing.T) {
	b := open(t, storetest.PostgresSchemaURL(t), Options{Retain: 100, RetainTopic: map[string]int{"keep": 1000}})
	ctx := ctxFor(t)
	for range 130 {
		for _, topic := range []string{"keep", "t"} {
			if _, err := b.Publish(ctx, topic, bus.Message{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for topic, first := range map[string]uint64{"keep": 1, "t": 29} {
		var n int64
		if err := b.pool.QueryRow(ctx, `SELECT min(seq) FROM bus_events WHERE topic = $1`, topic).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if uint64(n) != first {
			t.Errorf("topic %s: first event kept #%d, want #%d", topic, n, first)
		}
	}
}
