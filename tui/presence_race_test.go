package tui

import (
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// What the lobby is told of a racer (presence.go): racing, the room's
// phase, the round, and a ghost race.

// TestRacePresenceFollowsTheRound: after a rematch, who and the Lobby
// said the racers were still on the first round's deal with 28/28
// removed until each made a move of the new race; the race screen now
// tells the lobby the room's deal and the cards the room has of the
// player, round after round.
func TestRacePresenceFollowsTheRound(t *testing.T) {
	fl := newFakeLobby()
	snap := raceRoom(3, lobby.PhaseResults)
	snap.Public = true
	snap.Members[0].Removed = 28
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Lobby: fl, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	if d := fl.last(); d.What != lobby.Racing || d.Room != "KMTX" || d.Deal != 42 || d.Removed != 28 {
		t.Fatalf("on the results the lobby is told %+v, want racing in KMTX, deal 42, 28 removed", d)
	}
	next := raceRoom(3, lobby.PhaseWaiting)
	next.Round, next.Seq, next.Deal, next.Public = 2, 2, 43, true
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	if d := fl.last(); d.What != lobby.Racing || d.Room != "KMTX" || d.Deal != 43 || d.Removed != 0 {
		t.Fatalf("after the rematch the lobby is told %+v, want racing in KMTX, deal 43, 0 removed", d)
	}
	next.Phase, next.Seq = lobby.PhaseRacing, 3
	for i := range next.Members {
		next.Members[i].State = lobby.RacerPlaying
	}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	me := h.m.race().racers[0]
	me.Removed = 2
	h.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 2, Racer: me}})
	if d := fl.last(); d.Deal != 43 || d.Removed != 2 {
		t.Fatalf("after a removal the lobby is told %+v, want deal 43, 2 removed", d)
	}
	// A spectator's presence is the server's (watching room KMTX): the
	// screen tells nothing of its own.
	fl2 := newFakeLobby()
	h2 := newHarness(t, Deps{Races: f, Lobby: fl2, Args: []string{"race", "watch", snap.Code}, Width: 80, Height: 24, Unicode: true})
	h2.wantScreen("room KMTX")
	for _, d := range fl2.doing {
		if d.What == lobby.Racing {
			t.Fatalf("a spectator's session told the lobby %+v", d)
		}
	}
}

// TestGhostRacePresence: a player racing a ghost is racing in the Lobby
// and `who`, on the ghost's rules and deal with the cards removed, in no
// room; not "in the menu" (seen over SSH: who said "eve in the menu"
// while eve raced the ghost of the daily), and back at the menu after.
func TestGhostRacePresence(t *testing.T) {
	line, _ := heuristicLine(t, "classic", 3)
	times := make([]time.Duration, len(line))
	for i := range times {
		times[i] = time.Duration(i+1) * time.Second
	}
	gh := &fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Times: times}}
	fl := newFakeLobby()
	h := newHarness(t, Deps{Args: []string{"race", "ghost", "7"}, Unicode: true, Player: testPlayer, Ghosts: gh, Lobby: fl})
	h.send(ghostTickMsg{})
	if rs := h.m.race(); rs == nil || rs.ghost == nil {
		t.Fatalf("no ghost race:\n%s", h.screen())
	}
	h.keys(":")
	h.typeText(line[0])
	h.keys("enter")
	removed := h.m.race().mine().Removed
	if removed == 0 {
		t.Fatalf("the first move %s removed nothing:\n%s", line[0], h.screen())
	}
	want := lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 3, Removed: removed}
	if got := fl.last(); got != want {
		t.Errorf("presence in the ghost race %+v, want %+v", got, want)
	}
	if got := describeDoing(want, h.m.env.gl); !strings.HasPrefix(got, "racing a ghost · Classic · deal 3 · ") {
		t.Errorf("the Lobby says %q, want racing a ghost on Classic deal 3", got)
	}
	h.keys("q", "q")
	if got := fl.last(); got.What != lobby.AtMenu {
		t.Errorf("presence after leaving the ghost race %+v, want the menu", got)
	}
}

// TestRacePresencePhase: a racer in a race's waiting room, or at its
// results, was "racing in room X" for the Lobby and who; the race screen
// now tells the room's phase, and the Lobby says it.
func TestRacePresencePhase(t *testing.T) {
	fl := newFakeLobby()
	snap := raceRoom(3, lobby.PhaseWaiting)
	snap.Public = true
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
			next.Seq, next.Public = uint64(i+1), true
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

// TestRacePresencePrivate: who and the Lobby printed a private room's
// code and deal to everybody, and enter on its racer watched it; a
// private room's racer now tells the lobby neither, the Lobby says
// "a private room", and enter on the racer says how to watch instead.
func TestRacePresencePrivate(t *testing.T) {
	fl := newFakeLobby()
	snap := raceRoom(3, lobby.PhaseRacing)
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	newHarness(t, Deps{Races: f, Lobby: fl, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	d := fl.last()
	if d.What != lobby.Racing || !d.Private || d.Room != "" || d.Deal != 0 || d.Rules != "classic" {
		t.Fatalf("a private room's racer tells the lobby %+v, want racing classic in a private room, no code, no deal", d)
	}
	if got, want := describeDoing(d, newGlyphs(true)), "racing in a private room · Classic · 0/28 removed"; got != want {
		t.Errorf("describeDoing: got %q, want %q", got, want)
	}

	other := newFakeLobby()
	other.who = []lobby.Presence{{Player: lobby.Player{ID: "p9", Name: "ann"}, Doing: d}}
	h := newHarness(t, Deps{Player: testPlayer, Races: f, Lobby: other, Width: 80, Height: 24, Unicode: true})
	h.open(itemLobby)
	h.wantScreen("ann", "racing in a private room · Classic")
	h.wantNotScreen(snap.Code, "deal")
	h.keys("w")
	h.wantScreen("ann races in a private room: to watch, ask for its code")
	if h.m.cur != screenLobby {
		t.Errorf("w on a private racer left the Lobby for screen %v", h.m.cur)
	}
	// watch NAME says the same.
	h = newHarness(t, Deps{Player: testPlayer, Races: f, Lobby: other, Args: []string{"watch", "ann"}, Width: 80, Height: 24, Unicode: true})
	h.wantScreen("ann races in a private room: to watch, ask for its code")
	if h.m.cur == screenRace || h.m.cur == screenSpectate {
		t.Errorf("watch ann opened screen %v, want a refusal", h.m.cur)
	}
}
