package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/lobby"
)

// TestMenuBackToRaceOver: the menu offers Back to race while the player
// has a seat in a race that runs; chosen after the race ended (the end
// came after the menu showed), it does not join the room again: the menu
// drops the line and says the race is over.
func TestMenuBackToRaceOver(t *testing.T) {
	tests := []struct {
		name     string
		seatedAt string // the seat when Back to race is chosen
		wantRace bool
	}{
		{"the race still runs", "KMTX", true},
		{"the race ended since", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
			f.seated = "KMTX"
			h.keys("q", "q")
			if s := screenOf(h); h.m.cur != screenMenu || !strings.Contains(s, "> Back to race KMTX") {
				t.Fatalf("after leaving the race: want the menu offering it back:\n%s", s)
			}
			f.mu.Lock()
			f.seated = tt.seatedAt
			f.mu.Unlock()
			h.keys("enter")
			s := screenOf(h)
			if got := h.m.cur == screenRace; got != tt.wantRace {
				t.Fatalf("Back to race: on the race screen %v, want %v:\n%s", got, tt.wantRace, s)
			}
			if tt.wantRace {
				return
			}
			if strings.Contains(s, "Back to race") || !strings.Contains(s, "the race in room KMTX is over") {
				t.Errorf("want the line gone and the menu saying the race is over:\n%s", s)
			}
		})
	}
}

// TestMenuBackGoesWhenRaceEnds: while the player sits in the menu, the
// menu asks now and then whether the race it offers still runs: once it
// ended, Back to race goes by itself and the menu says the race is over;
// while it runs the line stays, and the asking goes on.
func TestMenuBackGoesWhenRaceEnds(t *testing.T) {
	h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	var timers []tea.Msg
	h.m.env.wait = func(_ time.Duration, read func() tea.Msg) tea.Cmd {
		msg := read()
		timers = append(timers, msg)
		return nil
	}
	f.seated = "KMTX"
	h.keys("q", "q")
	if s := screenOf(h); h.m.cur != screenMenu || !strings.Contains(s, "Back to race KMTX") {
		t.Fatalf("after leaving the race: want the menu offering it back:\n%s", s)
	}
	poll := func() {
		t.Helper()
		var tick tea.Msg
		for _, msg := range timers {
			if _, ok := msg.(menuSeatTickMsg); ok {
				tick = msg
			}
		}
		if tick == nil {
			t.Fatalf("the menu does not ask again whether race KMTX runs (timers %v)", timers)
		}
		timers = nil
		h.send(tick)
	}
	poll()
	if s := screenOf(h); !strings.Contains(s, "Back to race KMTX") {
		t.Fatalf("the race still runs: want the line kept:\n%s", s)
	}
	f.mu.Lock()
	f.seated = ""
	f.mu.Unlock()
	poll()
	s := screenOf(h)
	if strings.Contains(s, "Back to race") || !strings.Contains(s, "the race in room KMTX is over") {
		t.Errorf("the race ended: want the line gone and the menu saying so:\n%s", s)
	}
	for _, msg := range timers {
		if _, ok := msg.(menuSeatTickMsg); ok {
			t.Errorf("the menu still asks with no race to offer")
		}
	}
}

// TestMenuNoBackToRoomJustLeft: leaving a waiting room gives its seat
// up, and the menu asks about seats only once the leave is done: it
// offered Back to race for the room just left when its question ran
// first, then dropped it saying the race was over.
func TestMenuNoBackToRoomJustLeft(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	f.mu.Lock()
	f.seated, f.leaveFrees = "KMTX", true
	f.mu.Unlock()
	h.keys("q")
	s := screenOf(h)
	if h.m.cur != screenMenu || strings.Contains(s, "Back to race") || strings.Contains(s, "is over") {
		t.Errorf("after leaving the waiting room: want the menu, no Back to race:\n%s", s)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.left != 1 {
		t.Errorf("%d leaves, want 1", f.left)
	}
}
