package arcade

import (
	"context"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/tui"
)

// TestClusterWatch: two arcades on one bus, as two servers on one
// PostgreSQL are: a session of one watches a player of the other, who is
// told she is watched.
func TestClusterWatch(t *testing.T) {
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	one, two := clusterApp(t, b, "one"), clusterApp(t, b, "two")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ann := one.join(ctx, tui.Player{ID: "SHA256:ann", Name: "ann"})
	bob := two.join(ctx, tui.Player{ID: "SHA256:bob", Name: "bob"})
	live := &presence{lobby: two.lobby, self: bob}
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err = live.Watch("ann"); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond) // polling the other server's presence, not synchronising
	}
	if err != nil {
		t.Fatalf("bob on two watching ann on one: %v", err)
	}
	if n := one.lobby.SpectatorsOf(ann); n != 1 {
		t.Fatalf("ann has %d spectators, want 1", n)
	}
}
