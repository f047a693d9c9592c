package arcade

import (
	"context"
	"testing"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/tui"
)

// TestQuickMatchSkipsFinishedHostedRoom: a player who still hosts a room
// whose race is over (everybody left its results) is matched by quick
// match, not sent back to those old results; the old room closes. A
// waiting room they host and left is still where quick match takes them.
func TestQuickMatchSkipsFinishedHostedRoom(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: 42, HasDeal: true}, ann, bob)
	for _, rs := range []*races{bob, ann} {
		if err := rs.Leave(code); err != nil {
			t.Fatal(err)
		}
	}
	waitPhase(t, room, lobby.PhaseResults)
	if h, ok := f.app.rooms.Hosted(ann.me.ID); !ok || h.Code() != code {
		t.Fatalf("ann hosts %v (%v), want the finished room %s", h, ok, code)
	}
	seat, err := ann.Quick(ctx)
	if err != nil {
		t.Fatalf("quick match: %v", err)
	}
	if seat.Snapshot.Code == code || seat.Snapshot.Phase != lobby.PhaseWaiting {
		t.Fatalf("quick match took ann to room %s in phase %v, want a new waiting room (not %s)", seat.Snapshot.Code, seat.Snapshot.Phase, code)
	}
	if got := room.Snapshot().Phase; got != lobby.PhaseClosed {
		t.Errorf("the finished room is in phase %v, want closed", got)
	}

	// Back in the menu, quick match goes back to the waiting room she hosts.
	waiting := seat.Snapshot.Code
	if err := ann.Leave(waiting); err != nil {
		t.Fatal(err)
	}
	seat, err = ann.Quick(ctx)
	if err != nil {
		t.Fatalf("quick match again: %v", err)
	}
	if seat.Snapshot.Code != waiting {
		t.Errorf("quick match took ann to room %s, want her waiting room %s", seat.Snapshot.Code, waiting)
	}
}
