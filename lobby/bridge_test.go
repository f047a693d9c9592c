package lobby

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
)

// flaky is a bus that refuses publishes while it is down, as the
// PostgreSQL bus does while its server is.
type flaky struct {
	bus.Bus
	mu       sync.Mutex
	down     bool
	refused  int
	accepted int
}

func (f *flaky) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	f.mu.Lock()
	down := f.down
	if down {
		f.refused++
	} else {
		f.accepted++
	}
	f.mu.Unlock()
	if down {
		return bus.Event{}, errors.New("connection refused")
	}
	return f.Bus.Publish(ctx, topic, m)
}

func (f *flaky) set(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// TestLobbyBridgeRetry: a takeover the bus refused reaches the other
// server once the bus is back, once; not when the session that took the
// game left meanwhile, nor when a newer takeover of the player came.
func TestLobbyBridgeRetry(t *testing.T) {
	alice := Player{ID: "SHA256:a", Name: "alice"}
	tests := []struct {
		name string
		// meanwhile runs while the bus is down, after the takeover of
		// game 7 by s; it returns the game the other server should hear
		// of, or "" for none.
		meanwhile func(l *Lobby, s *Session) string
	}{
		{"told when the bus is back", func(*Lobby, *Session) string { return "7" }},
		{"not once the session left", func(l *Lobby, s *Session) string { l.Leave(s); return "" }},
		{"only the newer takeover", func(l *Lobby, _ *Session) string {
			s2 := l.Join(alice)
			if err := l.TakeOver(context.Background(), s2, "8", ""); err == nil {
				t.Error("a takeover with the bus down: no error")
			}
			return "8"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				mem := bus.NewMemory(bus.MemoryOptions{})
				defer mem.Close()
				f := &flaky{Bus: mem}
				one, two := New(Config{}), New(Config{})
				defer one.Close()
				defer two.Close()
				if err := one.Bridge(ctx, f, "one"); err != nil {
					t.Fatal(err)
				}
				if err := two.Bridge(ctx, mem, "two"); err != nil {
					t.Fatal(err)
				}
				a1, a2 := one.Join(alice), two.Join(alice)
				f.set(true)
				if err := one.TakeOver(ctx, a1, "7", ""); err == nil {
					t.Fatal("a takeover with the bus down: no error")
				}
				want := tt.meanwhile(one, a1)
				time.Sleep(time.Minute) // down a while: the retries back off
				synctest.Wait()
				if n := a2.Queue().Len(); n != 0 {
					t.Fatalf("the other server's session got %d events with the bus down", n)
				}
				f.set(false)
				time.Sleep(takeoverRetryMax)
				synctest.Wait()
				evs := events(t, a2)
				switch {
				case want == "" && len(evs) != 0:
					t.Fatalf("the other server's session got %v, want nothing", evs)
				case want != "" && (len(evs) != 1 || evs[0] != TakenOver{GameID: want}):
					t.Fatalf("the other server's session got %v, want only the takeover of %s", evs, want)
				}
				f.mu.Lock()
				refused := f.refused
				f.mu.Unlock()
				if refused > 40 {
					t.Fatalf("%d publishes refused in a minute: no backoff", refused)
				}
			})
		})
	}
}
