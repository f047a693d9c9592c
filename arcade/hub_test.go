package arcade

import (
	"testing"

	"pyramid/tui"
)

func TestHubTellsOtherSessionsOfThePlayer(t *testing.T) {
	h := newHub()
	a1, a2, b := h.join("alice"), h.join("alice"), h.join("bob")
	h.tell(a1, tui.GameTakenMsg{ID: "7"})
	select {
	case msg := <-a2.ch:
		if msg != (tui.GameTakenMsg{ID: "7"}) {
			t.Fatalf("got %v", msg)
		}
	default:
		t.Fatal("the other session of the player was not told")
	}
	if len(a1.ch) != 0 || len(b.ch) != 0 {
		t.Fatalf("the sender or another player was told: %d, %d", len(a1.ch), len(b.ch))
	}
	// A session that does not read is never waited on.
	for range 3 * inboxSize {
		h.tell(a1, tui.GameTakenMsg{ID: "8"})
	}
	if len(a2.ch) != inboxSize {
		t.Fatalf("full inbox holds %d, want %d", len(a2.ch), inboxSize)
	}
	h.leave(a2)
	h.leave(a1)
	h.leave(b)
	if len(h.byPlayer) != 0 {
		t.Fatalf("hub keeps %d players after every session left", len(h.byPlayer))
	}
}
