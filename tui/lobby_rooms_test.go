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

// TestLobbyCursorKeepsThePlayer: a reload keeps the cursor on the same
// player, also when another server's player has the same session number
// (each server counts its own) and the list order changes.
func TestLobbyCursorKeepsThePlayer(t *testing.T) {
	ann := lobby.Presence{Player: lobby.Player{ID: "p-ann", Name: "ann"}, Session: 7}
	bob := lobby.Presence{Player: lobby.Player{ID: "p-bob", Name: "bob"}, Session: 7, Instance: "two"}
	guestHere := lobby.Presence{Player: lobby.Player{Name: "guest-a", Guest: true}, Session: 3}
	guestThere := lobby.Presence{Player: lobby.Player{Name: "guest-b", Guest: true}, Session: 3, Instance: "two"}
	for _, tc := range []struct {
		name   string
		before []lobby.Presence
		cur    int
		after  []lobby.Presence
		want   string
	}{
		{"same session on two servers", []lobby.Presence{bob, ann}, 1, []lobby.Presence{ann, bob}, "ann"},
		{"the other way round", []lobby.Presence{ann, bob}, 1, []lobby.Presence{bob, ann}, "bob"},
		{"the shown session changed", []lobby.Presence{ann, bob}, 0, []lobby.Presence{bob, {Player: ann.Player, Session: 9}}, "ann"},
		{"guests by server and session", []lobby.Presence{guestThere, guestHere}, 1, []lobby.Presence{guestHere, guestThere}, "guest-a"},
		{"gone: back to the top", []lobby.Presence{ann, bob}, 1, []lobby.Presence{ann}, "ann"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &lobbyScreen{}
			l.req = 1
			l.loaded(lobbyMsg{req: 1, who: tc.before})
			l.cur = tc.cur
			l.loaded(lobbyMsg{req: 1, who: tc.after})
			if got := l.who[l.cur].Name; got != tc.want {
				t.Fatalf("cursor on %s, want %s", got, tc.want)
			}
		})
	}
}
