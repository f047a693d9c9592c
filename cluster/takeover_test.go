package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
	"pyramid/bus/pgbus"
	"pyramid/lobby"
	"pyramid/store/storetest"
)

// takeoverFlaky is a bus that refuses publishes while it is down, as the
// PostgreSQL bus does while its server is.
type takeoverFlaky struct {
	bus.Bus
	mu       sync.Mutex
	down     bool
	refused  int
	accepted int
}

func (f *takeoverFlaky) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
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

func (f *takeoverFlaky) set(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// takeoverJoin joins l's takeovers to the servers on b as instance,
// until the test ends.
func takeoverJoin(t *testing.T, l *lobby.Lobby, b bus.Bus, instance string) {
	t.Helper()
	tk, err := JoinTakeovers(context.Background(), l, b, instance)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tk.Close)
}

// takeoverEvents takes every waiting event of a session's queue.
func takeoverEvents(t *testing.T, s *lobby.Session) []lobby.Event {
	t.Helper()
	var got []lobby.Event
	for s.Queue().Len() > 0 {
		ev, err := s.Queue().Next(context.Background())
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, ev)
	}
	return got
}

// TestTakeovers: two servers' lobbies on one bus. A takeover on either
// tells the player's sessions on both, each once; other players and a
// lobby without the player hear nothing.
func TestTakeovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := lobby.New(lobby.Config{}), lobby.New(lobby.Config{})
		defer one.Close()
		defer two.Close()
		takeoverJoin(t, one, b, "one")
		takeoverJoin(t, two, b, "two")
		if tk, err := JoinTakeovers(ctx, two, b, "two"); err == nil {
			tk.Close()
			t.Fatal("a second join was accepted")
		}
		alice := lobby.Player{ID: "SHA256:a", Name: "alice"}
		a1, a3 := one.Join(alice), one.Join(alice)
		a2 := two.Join(alice)
		bob := two.Join(lobby.Player{ID: "SHA256:b", Name: "bob"})
		if err := two.TakeOver(ctx, a2, "7", ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		lens := func() string {
			return fmt.Sprint(a1.Queue().Len(), a2.Queue().Len(), a3.Queue().Len(), bob.Queue().Len())
		}
		if got := lens(); got != "1 0 1 0" {
			t.Fatalf("queues of a1 a2 a3 bob after a2 (server two) took over: %s, want 1 0 1 0", got)
		}
		if ev, _ := a1.Queue().Next(ctx); ev != (lobby.TakenOver{GameID: "7"}) {
			t.Fatalf("a1 got %v", ev)
		}
		a3.Queue().Next(ctx)
		if err := one.TakeOver(ctx, a1, "8", ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := lens(); got != "0 1 1 0" {
			t.Fatalf("queues of a1 a2 a3 bob after a1 (server one) took over: %s, want 0 1 1 0", got)
		}
		if ev, _ := a2.Queue().Next(ctx); ev != (lobby.TakenOver{GameID: "8"}) {
			t.Fatalf("a2 got %v", ev)
		}
		// Once the bus is gone, a takeover still reaches the sessions here
		// and says the others could not be told.
		one.Close()
		b.Close()
		synctest.Wait()
		if err := two.TakeOver(ctx, bob, "9", ""); !errors.Is(err, bus.ErrClosed) {
			t.Fatalf("a takeover with the bus closed: %v, want bus.ErrClosed", err)
		}
	})
}

// TestTakeoversRetry: a takeover the bus refused reaches the other
// server once the bus is back, once; not when the session that took the
// game left meanwhile, nor when a newer takeover of the player came.
func TestTakeoversRetry(t *testing.T) {
	alice := lobby.Player{ID: "SHA256:a", Name: "alice"}
	tests := []struct {
		name string
		// meanwhile runs while the bus is down, after the takeover of
		// game 7 by s; it returns the game the other server should hear
		// of, or "" for none.
		meanwhile func(l *lobby.Lobby, s *lobby.Session) string
	}{
		{"told when the bus is back", func(*lobby.Lobby, *lobby.Session) string { return "7" }},
		{"not once the session left", func(l *lobby.Lobby, s *lobby.Session) string { l.Leave(s); return "" }},
		{"only the newer takeover", func(l *lobby.Lobby, _ *lobby.Session) string {
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
				f := &takeoverFlaky{Bus: mem}
				one, two := lobby.New(lobby.Config{}), lobby.New(lobby.Config{})
				defer one.Close()
				defer two.Close()
				takeoverJoin(t, one, f, "one")
				takeoverJoin(t, two, mem, "two")
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
				evs := takeoverEvents(t, a2)
				switch {
				case want == "" && len(evs) != 0:
					t.Fatalf("the other server's session got %v, want nothing", evs)
				case want != "" && (len(evs) != 1 || evs[0] != lobby.TakenOver{GameID: want}):
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

// TestTakeoversPostgres: a takeover on one server reaches the player's
// session on another through PostgreSQL.
func TestTakeoversPostgres(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	ctx := context.Background()
	server := func(instance string) *lobby.Lobby {
		b, err := pgbus.Open(ctx, u, pgbus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		l := lobby.New(lobby.Config{})
		takeoverJoin(t, l, b, instance)
		t.Cleanup(l.Close)
		return l
	}
	one, two := server("one"), server("two")
	alice := lobby.Player{ID: "SHA256:a", Name: "alice"}
	a1, a2 := one.Join(alice), two.Join(alice)
	if err := one.TakeOver(ctx, a1, "7", "abandoned"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the session on two told", func() bool { return a2.Queue().Len() > 0 })
	if evs := takeoverEvents(t, a2); len(evs) != 1 || evs[0] != (lobby.TakenOver{GameID: "7", Reason: "abandoned"}) {
		t.Fatalf("the session on two got %v, want the takeover of game 7, abandoned", evs)
	}
}
