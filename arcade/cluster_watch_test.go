package arcade

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/bus"
	"pyramid/lobby"
	"pyramid/tui"
)

// TestClusterWatch: two arcades on one bus, as two servers on one
// PostgreSQL are: a session of one watches a player of the other, who is
// told she is watched.
func TestClusterWatch(t *testing.T) {
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	fast := lobby.ClusterConfig{Heartbeat: 50 * time.Millisecond, Every: 10 * time.Millisecond}
	newApp := func(instance string) *App {
		a := New(Config{Logger: log.New(&bytes.Buffer{}), Bus: b, Instance: instance, Cluster: fast})
		t.Cleanup(a.Close)
		return a
	}
	one, two := newApp("one"), newApp("two")
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
