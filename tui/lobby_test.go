package tui

import (
	"strings"
	"testing"

	"pyramid/arena"
	"pyramid/lobby"
)

// The Lobby screen (lobby.go): its help bar and columns.

// TestLobbyBarOnARoom: on a room's line the Lobby's help bar said "w
// watch" (enter joins); it says what enter does there.
func TestLobbyBarOnARoom(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1}}
	fl.rooms = []lobby.RoomInfo{{Code: "KXQR", RulesTitle: "Classic", Players: 2, MaxPlayers: 8, Host: "bob", Phase: lobby.PhaseWaiting}}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: &fakeRaces{}, Unicode: true})
	h.open(itemLobby)
	h.keys("down")
	if l := lineOf(h.screen(), "q menu"); !strings.Contains(l, "enter join") || strings.Contains(l, "w watch") {
		t.Errorf("the bar on a waiting room: %q, want enter join", l)
	}
}

// TestLobbyRacerFits80: at 80 columns a racer's line in the Lobby ended
// "… deal 845224 · 6/28 remo…"; the deal number (the room says which)
// goes first, the cards stay.
func TestLobbyRacerFits80(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "b", Name: "bob"}, Doing: lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 845224, Room: "CMYV", Removed: 6}, Session: 2},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: &fakeRaces{}, Unicode: true})
	h.open(itemLobby)
	h.wantScreen("racing in room CMYV · Classic · 6/28 removed")
	h.resize(120, 30)
	h.wantScreen("racing in room CMYV · Classic · deal 845224 · 6/28 removed")
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

// TestLobbyOpensArenas: a on the Lobby opens the list of arenas to join,
// as the menu's Arenas does; on a server without arenas the key is not
// offered and does nothing.
func TestLobbyOpensArenas(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1}}
	fa := &fakeArenas{view: arenaView(lobby.ArenaFree), list: []arena.Event{testArena().Event()}}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: &fakeRaces{}, Arenas: fa, Unicode: true})
	fa.clock = h.clock
	h.open(itemLobby)
	if l := lineOf(h.screen(), "q menu"); !strings.Contains(l, "a arenas") {
		t.Errorf("the Lobby's bar: %q, want a arenas", l)
	}
	h.keys("a")
	if h.m.cur != screenArena {
		t.Fatalf("after a on the Lobby: screen %v, want the arenas", h.m.cur)
	}
	h.wantScreen(testArena().Name)

	h = newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: &fakeRaces{}, Unicode: true})
	h.open(itemLobby)
	if l := lineOf(h.screen(), "q menu"); strings.Contains(l, "arenas") {
		t.Errorf("the Lobby's bar without arenas: %q", l)
	}
	h.keys("a")
	if h.m.cur != screenLobby {
		t.Errorf("after a on the Lobby without arenas: screen %v, want the Lobby still", h.m.cur)
	}
}
