package tui

import (
	"slices"
	"testing"

	"pyramid/arena"
	"pyramid/lobby"
)

// TestArenaLink: ssh -t HOST arena ID, handed over by the arcade, opens
// the arena's screen and joins it; an ID that is no number says so on the
// menu; other words that start with arena are no arena link.
func TestArenaLink(t *testing.T) {
	fa := &fakeArenas{view: arenaView(lobby.ArenaFree)}
	h := newHarness(t, Deps{Args: []string{"arena", "7"}, Arenas: fa, Races: &fakeRaces{}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	fa.clock = h.clock
	if h.m.cur != screenArena || h.m.arena().stage != arenaIn {
		t.Fatalf("arena 7 did not open the arena:\n%s", h.screen())
	}
	if !slices.Equal(fa.joins, []int64{7}) {
		t.Errorf("joins %v, want [7]", fa.joins)
	}
	h.wantScreen("Friday", "free: paired in")

	bad := newHarness(t, Deps{Args: []string{"arena", "friday"}, Arenas: &fakeArenas{}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	bad.wantScreen("arena ID: the ID is a number")
	if !isMenuScreen(bad) {
		t.Fatalf("arena friday is off the menu:\n%s", bad.screen())
	}
	none := newHarness(t, Deps{Args: []string{"arena", "7"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	none.wantScreen("this server runs no arenas")

	list := newHarness(t, Deps{Args: []string{"arena"}, Arenas: &fakeArenas{list: []arena.Event{testArena().Event()}}, Races: &fakeRaces{}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	list.wantScreen("Friday")
	if list.m.cur != screenArena || list.m.arena().stage != arenaListing {
		t.Fatalf("arena alone did not open the list:\n%s", list.screen())
	}

	for _, args := range [][]string{{"arenas"}, {"arena", "new", "classic"}, {"classic", "12"}} {
		if _, ok := arenaLink(args); ok {
			t.Errorf("arenaLink(%q) is a link", args)
		}
	}
}
