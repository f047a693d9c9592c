package tui

import (
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

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

// TestDailyWonHelpBar: after a win of the daily the help bar's enter
// replays the day's deal, as the end panel says ("enter or n: replay
// (practice)"), not "new deal" (seen over SSH: the panel and the bar
// disagreed).
func TestDailyWonHelpBar(t *testing.T) {
	store := &recordingGames{res: SaveResult{Status: StatusWon}}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	endGame(t, h, "daily", 3, engine.Won)
	h.wantScreen("enter or n: replay (practice)", "enter replay")
	h.wantNotScreen("new deal")
}
