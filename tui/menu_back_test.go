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
	h.keys("q", "q")
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

// TestMenuResultsOfEndedRace: a race that ended while its racer sat in
// the menu offered no way to its results: Back to race now turns into
// Results of race, which shows them; a seat that is Over (the room is
// gone) shows the stored results without rematch or chat, with how each
// racer's race ended.
func TestMenuResultsOfEndedRace(t *testing.T) {
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
	var tick tea.Msg
	for _, msg := range timers {
		if _, ok := msg.(menuSeatTickMsg); ok {
			tick = msg
		}
	}
	if tick == nil {
		t.Fatalf("the menu does not ask again whether race KMTX runs")
	}
	done := raceRoom(3, lobby.PhaseResults)
	done.Results = []lobby.Placing{{Place: 1, ID: "p1", Name: "racer1", Cleared: true, Time: 90 * time.Second, Moves: 40},
		{Place: 2, ID: "p0", Name: "racer0", Removed: 6, Time: 30 * time.Second, Moves: 12, State: lobby.RacerLeft},
		// Stored before the store kept how a racer's race ended.
		{Place: 3, ID: "p2", Name: "racer2", Removed: 3, Time: 10 * time.Second, Moves: 5, State: lobby.RacerWaiting}}
	f.mu.Lock()
	f.seated, f.ended = "", "KMTX"
	f.seat = RaceSeat{You: "p0", Snapshot: done, Over: true, Guests: 1}
	f.mu.Unlock()
	h.send(tick)
	s := screenOf(h)
	if strings.Contains(s, "Back to race") || !strings.Contains(s, "> Results of race KMTX") || !strings.Contains(s, "the race in room KMTX is over") {
		t.Fatalf("the race ended: want Results of race KMTX in its place, and the menu saying the race is over:\n%s", s)
	}
	h.keys("enter")
	s = screenOf(h)
	if h.m.cur != screenRace || !strings.Contains(s, "room KMTX · results") || !strings.Contains(s, "cleared in 1:30") || !strings.Contains(s, "6/28 at 0:30") {
		t.Fatalf("Results of race KMTX: want the race's results:\n%s", s)
	}
	if strings.Contains(s, "rematch") || !strings.Contains(s, "6/28 at 0:30.0 (left)") || !strings.Contains(s, "The deal was winnable") ||
		!strings.Contains(s, "3/28 at 0:10.0 ") || strings.Contains(s, "3/28 at 0:10.0 (") ||
		!strings.Contains(s, "1 guest raced too") {
		t.Errorf("the stored results of a room that is gone: want no rematch, how each racer's race ended and the verdict:\n%s", s)
	}
	h.keys("r")
	h.keys("t")
	if h.m.race().inputOpen || f.rematches != 0 {
		t.Errorf("a room that is gone: r asked for a rematch (%d) or t opened the chat (%v)", f.rematches, h.m.race().inputOpen)
	}
	h.keys("q")
	if h.m.cur != screenMenu {
		t.Fatalf("q on the stored results: want the menu:\n%s", screenOf(h))
	}
	if s := screenOf(h); strings.Contains(s, "Results of race KMTX") {
		t.Errorf("the results seen, the menu still offers them:\n%s", s)
	}
}

// TestMenuResultsSeenThenRacedAgain: results seen are not offered again,
// but the next race of the same room, left mid-race, offers its own.
func TestMenuResultsSeenThenRacedAgain(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(3, lobby.PhaseResults), 80, 24)
	h.keys("q")
	if h.m.cur != screenMenu {
		t.Fatalf("q on the results: want the menu:\n%s", screenOf(h))
	}
	h.send(raceSeatedMsg{ended: "KMTX"})
	if s := screenOf(h); strings.Contains(s, "Results of race") {
		t.Fatalf("the results seen are offered again:\n%s", s)
	}
	h.send(raceSeatedMsg{code: "KMTX"}) // the rematch, left mid-race
	h.send(raceSeatedMsg{ended: "KMTX"})
	if s := screenOf(h); !strings.Contains(s, "> Results of race KMTX") {
		t.Fatalf("the next race's end: want its results offered:\n%s", s)
	}
}

// TestMenuResultsGoAfterAWhile: Results of race is offered for a while:
// the menu asks again now and then, and drops the line once the server
// no longer offers the results.
func TestMenuResultsGoAfterAWhile(t *testing.T) {
	h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	var timers []tea.Msg
	h.m.env.wait = func(_ time.Duration, read func() tea.Msg) tea.Cmd {
		msg := read()
		timers = append(timers, msg)
		return nil
	}
	h.keys("q", "q")
	f.mu.Lock()
	f.ended = "KMTX"
	f.mu.Unlock()
	h.send(raceSeatedMsg{ended: "KMTX"})
	tick := func() {
		t.Helper()
		var last tea.Msg
		for _, msg := range timers {
			if _, ok := msg.(menuSeatTickMsg); ok {
				last = msg
			}
		}
		if last == nil {
			t.Fatalf("the menu does not ask again about the results it offers:\n%s", screenOf(h))
		}
		timers = nil
		h.send(last)
	}
	tick()
	if s := screenOf(h); !strings.Contains(s, "Results of race KMTX") {
		t.Fatalf("still offered: want the line kept:\n%s", s)
	}
	f.mu.Lock()
	f.ended = ""
	f.mu.Unlock()
	tick()
	if s := screenOf(h); strings.Contains(s, "Results of race") {
		t.Fatalf("no longer offered: want the line gone:\n%s", s)
	}
	for _, msg := range timers {
		if _, ok := msg.(menuSeatTickMsg); ok {
			t.Errorf("the menu still asks with nothing to offer")
		}
	}
}
