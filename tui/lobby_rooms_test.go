package tui

import (
	"testing"

	"pyramid/lobby"
)

// TestLobbyRoomsSelectable: the Lobby's cursor goes on from the players
// to the rooms; enter on a waiting room joins it, on a room whose race
// runs watches it, through the race screen.
func TestLobbyRoomsSelectable(t *testing.T) {
	for _, tc := range []struct {
		name      string
		phase     lobby.Phase
		wantWatch bool
		hint      string
	}{
		{"a waiting room", lobby.PhaseWaiting, false, "enter joins room KMTX"},
		{"a race that runs", lobby.PhaseRacing, true, "enter watches the race in room KMTX"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fl := newFakeLobby()
			fl.who = []lobby.Presence{{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1}}
			fl.rooms = []lobby.RoomInfo{{Code: "KMTX", RulesTitle: "Classic", Phase: tc.phase, Players: 2, MaxPlayers: 8, Host: "bob"}}
			f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: raceRoom(2, tc.phase)}}
			h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: f, Unicode: true})
			h.open(itemLobby)
			h.wantScreen("lobby", "KMTX", "2/8 players")
			h.keys("down")
			h.wantScreen(tc.hint)
			h.keys("down") // the last line: the cursor stays
			h.wantScreen(tc.hint)
			h.keys("enter")
			if h.m.cur != screenRace {
				t.Fatalf("enter on the room did not open the race screen:\n%s", h.screen())
			}
			h.wantScreen("room KMTX")
			if rs := h.m.race(); rs == nil || rs.watching != tc.wantWatch {
				t.Fatalf("the race screen: watching %v, want %v", rs != nil && rs.watching, tc.wantWatch)
			}
		})
	}
}
