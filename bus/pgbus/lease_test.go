package pgbus

import (
	"testing"
	"time"

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
