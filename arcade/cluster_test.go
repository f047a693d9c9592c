package arcade

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/server/sshtest"
	"pyramid/tui"
)

// clusterApp is an arcade on bus b as server instance, with a fast
// heartbeat, closed when the test ends.
func clusterApp(t *testing.T, b bus.Bus, instance string) *App {
	t.Helper()
	fast := cluster.PresenceConfig{Heartbeat: 50 * time.Millisecond, Every: 10 * time.Millisecond}
	a := New(Config{Logger: log.New(&bytes.Buffer{}), Bus: b, Instance: instance, Cluster: fast})
	t.Cleanup(a.Close)
	return a
}

// TestClusterWho: two arcades on one bus, as two servers on one
// PostgreSQL are: who on either lists the players of both, and a server
// that closes takes its players with it.
func TestClusterWho(t *testing.T) {
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	one, two := clusterApp(t, b, "one"), clusterApp(t, b, "two")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	one.join(ctx, tui.Player{ID: "SHA256:ann", Name: "ann"})
	two.join(ctx, tui.Player{ID: "SHA256:bob", Name: "bob"})

	who := func(a *App) []whoEntry {
		var out, errOut bytes.Buffer
		if code := a.Exec(context.Background(), session(sshtest.NewKey(t), "x", "who", "--json"), &out, &errOut); code != 0 {
			t.Fatalf("who --json: exit %d, %s", code, errOut.String())
		}
		var entries []whoEntry
		if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
			t.Fatalf("who --json: %v\n%s", err, out.String())
		}
		return entries
	}
	waitWho := func(a *App, want string) {
		t.Helper()
		var got []whoEntry
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			got = who(a)
			names := ""
			for _, e := range got {
				names += e.Name + " "
			}
			if names == want {
				return
			}
			time.Sleep(5 * time.Millisecond) // polling the other server's view, not synchronising
		}
		t.Fatalf("who: %+v, want %q", got, want)
	}
	waitWho(one, "ann bob ")
	waitWho(two, "ann bob ")
	two.Close()
	waitWho(one, "ann ")
}
