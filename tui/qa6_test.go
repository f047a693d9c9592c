package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// TestRacePresencePhase: a racer in a race's waiting room, or at its
// results, was "racing in room X" for the Lobby and who; the race screen
// now tells the room's phase, and the Lobby says it.
func TestRacePresencePhase(t *testing.T) {
	fl := newFakeLobby()
	snap := raceRoom(3, lobby.PhaseWaiting)
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Lobby: fl, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	steps := []struct {
		phase lobby.Phase
		want  lobby.RacePhase
	}{
		{lobby.PhaseWaiting, lobby.RaceWaiting},
		{lobby.PhaseCountdown, lobby.RaceWaiting},
		{lobby.PhaseRacing, lobby.RaceRunning},
		{lobby.PhaseResults, lobby.RaceResults},
	}
	for i, st := range steps {
		if i > 0 {
			next := raceRoom(3, st.phase)
			next.Seq = uint64(i + 1)
			h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
		}
		if d := fl.last(); d.What != lobby.Racing || d.Room != "KMTX" || d.Phase != st.want {
			t.Fatalf("in phase %v the lobby is told %+v, want racing in KMTX, phase %q", st.phase, d, st.want)
		}
	}
}

// TestDescribeRacePhase: the Lobby's line of a racer says where the room
// stands.
func TestDescribeRacePhase(t *testing.T) {
	gl := newGlyphs(true)
	tests := []struct {
		phase lobby.RacePhase
		want  string
	}{
		{lobby.RaceWaiting, "waiting in room KMTX · Classic · deal 3"},
		{lobby.RaceRunning, "racing in room KMTX · Classic · deal 3 · 0/28 removed"},
		{"", "racing in room KMTX · Classic · deal 3 · 0/28 removed"},
		{lobby.RaceResults, "at the results of room KMTX · Classic · deal 3 · 0/28 removed"},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			d := lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 3, Room: "KMTX", Phase: tt.phase}
			if got := describeDoing(d, gl); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
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

// TestTellLostLoadedLate: the player's setting "Tell me when a deal can
// no longer be won" may come from the store after the game was seated
// and moves were made (a slow store): the position on the table is then
// checked at once, not only after the next move, which may never come.
func TestTellLostLoadedLate(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true, Solver: s, Args: []string{lostSpec, "2"}})
	for _, mv := range moves[:19] {
		playLine(h, []string{mv})
	}
	h.wantNotScreen("can no longer be won")
	h.send(settingsMsg{values: map[string]string{settingTellLost: "on"}})
	h.wantScreen("this deal can no longer be won (since move 19")
}

// TestSpectatorBoardAfterTheEnd: a spectator's board asked for just
// before the race ended (the last racer's leave) came back refused,
// the racer's seat gone with the end, and the results said "their board:
// you are not in this room"; an answer about a race that is over is
// dropped.
func TestSpectatorBoardAfterTheEnd(t *testing.T) {
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(2, lobby.PhaseRacing)}}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	h.wantScreen("room KMTX")
	watched := h.m.race().watched
	h.send(RaceEventMsg{Event: lobby.RaceEnded{Code: "KMTX", Round: 1, Results: []lobby.Placing{{Place: 1, ID: "p0", Name: "racer0"}}}})
	h.send(raceBoardMsg{id: watched, err: lobby.ErrNotMember})
	h.wantNotScreen("their board")
	h.wantScreen("room KMTX · results")
}

// TestJoinAfterTheStart: race CODE on a room whose race had started made
// the player a spectator saying only "you watch room X"; it now says why.
func TestJoinAfterTheStart(t *testing.T) {
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(2, lobby.PhaseRacing)}, joinErr: lobby.ErrRaceUnderway}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	h.wantScreen("the race in room KMTX had started: you watch it")
}

// TestLobbyColumns: a guest's name with " (guest)" was two cells wider
// than the name column, and pushed what the guest does out of line.
func TestLobbyColumns(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "b", Name: "bob"}, Doing: lobby.Doing{What: lobby.AtMenu}, Session: 2},
		{Player: lobby.Player{Name: "guest-VPJ9", Guest: true}, Doing: lobby.Doing{What: lobby.Watching, Watched: "room KMTX"}, Session: 3},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true, Width: 80, Height: 24})
	h.open(itemLobby)
	s := h.screen()
	col := -1
	for _, want := range []string{"in the menu", "watching room KMTX"} {
		line := lineOf(s, want)
		at := strings.Index(line, want)
		if at < 0 || col >= 0 && at != col {
			t.Fatalf("%q starts at %d, want %d like the others:\n%s", want, at, col, s)
		}
		col = at
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
