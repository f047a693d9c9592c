package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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

// TestLobbyLinesRedrawn: the Lobby draws a player's line again from the
// last view only while nothing it shows changed: a player's new count, a
// moved cursor and a new width all show at once.
func TestLobbyLinesRedrawn(t *testing.T) {
	racer := func(name string, removed int) lobby.Presence {
		return lobby.Presence{Player: lobby.Player{ID: "p-" + name, Name: name}, Session: 1,
			Doing: lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 7, Removed: removed, Room: "KMTX", Phase: lobby.RaceRunning}}
	}
	fl := newFakeLobby()
	fl.who = []lobby.Presence{racer("ann", 2), racer("bob", 4)}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
	h.open(itemLobby)
	h.wantScreen("ann", "2/28 removed", "bob", "4/28 removed")
	fl.who = []lobby.Presence{racer("ann", 2), racer("bob", 6)}
	h.send(lobby.PresenceChanged{})
	h.wantScreen("2/28 removed", "6/28 removed")
	if strings.Contains(h.screen(), "4/28 removed") {
		t.Fatalf("bob's old line is still drawn:\n%s", h.screen())
	}
	h.keys("down") // the cursor on bob: ann's line loses its mark
	if got := lineWith(h.screen(), "ann"); strings.Contains(got, ">") {
		t.Fatalf("ann's line still has the cursor: %q", got)
	}
	h.send(tea.WindowSizeMsg{Width: 60, Height: 24})
	for _, name := range []string{"ann", "bob"} {
		if got := lineWith(h.screen(), name); cells(got) > 60 {
			t.Fatalf("%s's line is %d cells wide at 60 columns: %q", name, cells(got), got)
		}
	}
}
