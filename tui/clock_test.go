package tui

import (
	"pyramid/engine"
	"testing"
	"time"
)

func TestClockStopsInTheMenu(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.wantScreen("0 moves · 0:00")
	h.clock.advance(30 * time.Second)
	h.send(tickMsg{token: h.m.token})
	h.wantScreen("0 moves · 0:30")
	h.keys("q") // the clock stops in the menu
	h.clock.advance(time.Minute)
	h.open(itemContinue)
	h.clock.advance(10 * time.Second)
	h.send(tickMsg{token: h.m.token})
	h.wantScreen("0 moves · 0:40")
	h.keys("d")
	if got := store.saves[len(store.saves)-1].Played; got != 40*time.Second {
		t.Errorf("saved played time %v, want 40s (the minute in the menu does not count)", got)
	}
}

func TestClockPauseAndStartInEitherOrder(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	tb := h.m.table()
	// Out and back before the pause's reading comes: the start waits
	// for it, so the clock runs from the reading on.
	cmd := tb.leave()
	if cmd2 := tb.back(); cmd2 != nil {
		t.Error("back while the pause's reading is on its way asked the clock again")
	}
	h.clock.advance(5 * time.Second)
	h.run(cmd) // the pause's reading, then the start it asks for
	if tb.since.IsZero() || tb.away {
		t.Errorf("after the pause's reading, back at the table: since %v away %v; want the clock running", tb.since, tb.away)
	}
	if tb.played != 5*time.Second {
		t.Errorf("played %v, want the 5s before the pause", tb.played)
	}
}

// TestClockOfADealFoundInTheBackground: a deal picked in the background
// (the daily, winnable-only deals) shows its clock in the header from
// the start, and it counts, as a deal known at once does.
func TestClockOfADealFoundInTheBackground(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}, Width: 80, Height: 24,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	h.wantScreen("0 moves · 0:00")
	h.clock.advance(12 * time.Second)
	h.send(tickMsg{token: h.m.token})
	h.wantScreen("0 moves · 0:12")
}
