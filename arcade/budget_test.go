package arcade

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"pyramid/budget"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/tui"
)

// guestAt is a guest's races connecting from addr.
func (f *fixture) guestAt(t *testing.T, name, addr string) *races {
	t.Helper()
	rs, _ := f.racer(t, name, true)
	rs.addr = addr
	return rs
}

// TestMutedGuestComesBackMuted: a guest the host muted came back as a new
// guest and chatted on. The mute holds for the guest's address: the next
// guest of it is muted in the room, a guest of another address is not;
// the guest the host removes cannot come back, as a new guest neither.
func TestMutedGuestComesBackMuted(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	seat, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	g1 := f.guestAt(t, "g1", "203.0.113.7")
	if _, err := g1.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := ann.Mute(code, g1.me.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := g1.Say(code, "spam"); !errors.Is(err, lobby.ErrMuted) {
		t.Fatalf("the muted guest says: got %v, want ErrMuted", err)
	}
	if err := g1.Leave(code); err != nil {
		t.Fatal(err)
	}
	g2 := f.guestAt(t, "g2", "203.0.113.7")
	if _, err := g2.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := g2.Say(code, "spam again"); !errors.Is(err, lobby.ErrMuted) {
		t.Fatalf("the guest back as a new guest says: got %v, want ErrMuted", err)
	}
	g3 := f.guestAt(t, "g3", "198.51.100.2")
	if _, err := g3.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := g3.Say(code, "hello"); err != nil {
		t.Fatalf("a guest of another address says: %v", err)
	}
	if err := ann.Remove(code, g2.me.ID); err != nil {
		t.Fatal(err)
	}
	g4 := f.guestAt(t, "g4", "203.0.113.7")
	if _, err := g4.Join(ctx, code); !errors.Is(err, lobby.ErrRemoved) {
		t.Fatalf("a new guest of the removed guest's address joins: got %v, want ErrRemoved", err)
	}
}

// TestSpectatorSeatsPerAddress: 50 guests took every spectator seat of a
// room. The guests of one address hold the budget's seats in a room at
// most; another address's guest still watches, and a seat let go is
// free again.
func TestSpectatorSeatsPerAddress(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	seat, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	seats := budget.SpectatorSeat.Default().N
	var watchers []*races
	for i := range seats {
		g := f.guestAt(t, "w"+strconv.Itoa(i), "203.0.113.7")
		if _, err := g.Watch(ctx, code); err != nil {
			t.Fatalf("guest %d of the address watches: %v", i+1, err)
		}
		watchers = append(watchers, g)
	}
	extra := f.guestAt(t, "extra", "203.0.113.7")
	if _, err := extra.Watch(ctx, code); !errors.Is(err, budget.ErrRefused) {
		t.Fatalf("guest %d of the address watches: got %v, want refused", seats+1, err)
	}
	if _, err := f.guestAt(t, "other", "198.51.100.2").Watch(ctx, code); err != nil {
		t.Fatalf("a guest of another address watches: %v", err)
	}
	if err := watchers[0].Leave(code); err != nil {
		t.Fatal(err)
	}
	if _, err := extra.Watch(ctx, code); err != nil {
		t.Fatalf("once a seat is let go: %v", err)
	}
}

// TestChatPerAddress: the guests of one address share its chat budget,
// each within the room's limit per player.
func TestChatPerAddress(t *testing.T) {
	f := newFixture(t)
	b, err := budget.New(budget.Config{Limits: map[budget.Kind]budget.Limit{budget.ChatLine: {N: 4, Per: 1 << 40}}})
	if err != nil {
		t.Fatal(err)
	}
	f.app.budgets = b
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	seat, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	said := 0
	for i := range 4 {
		g := f.guestAt(t, "c"+strconv.Itoa(i), "203.0.113.7")
		if _, err := g.Join(ctx, code); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if g.Say(code, "hi") == nil {
				said++
			}
		}
	}
	if said != 4 {
		t.Errorf("four guests of one address said %d lines, want the budget's 4", said)
	}
}

// TestSpectatorSeatsAtAPlayer: the guests of one address hold the
// budget's seats at one player at most, as at a room; a seat let go
// (Unwatch) is free again.
func TestSpectatorSeatsAtAPlayer(t *testing.T) {
	f := newFixture(t)
	l := f.app.lobby
	l.Join(lobby.Player{ID: "ann", Name: "ann"})
	viewer := func(addr string) *presence {
		return &presence{lobby: l, self: l.Join(lobby.Player{Name: "guest", Guest: true}),
			budgets: f.app.budgets, who: budget.Who{Addr: addr}}
	}
	var held []*presence
	for i := range budget.SpectatorSeat.Default().N {
		p := viewer("203.0.113.7")
		if _, err := p.Watch("ann"); err != nil {
			t.Fatalf("guest %d of the address watches ann: %v", i+1, err)
		}
		held = append(held, p)
	}
	extra := viewer("203.0.113.7")
	if _, err := extra.Watch("Ann"); !errors.Is(err, budget.ErrRefused) {
		t.Fatalf("one guest more of the address: got %v, want refused", err)
	}
	if _, err := viewer("198.51.100.2").Watch("ann"); err != nil {
		t.Fatalf("a guest of another address: %v", err)
	}
	held[0].Unwatch()
	if _, err := extra.Watch("ann"); err != nil {
		t.Fatalf("once a seat is let go: %v", err)
	}
}
