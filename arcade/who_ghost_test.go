package arcade

import (
	"encoding/json"
	"testing"

	"pyramid/lobby"
)

// TestWhoGhostRacer: a racer in no room races a ghost; `who` says so
// and its JSON has the game but no room.
func TestWhoGhostRacer(t *testing.T) {
	es := whoEntries([]lobby.Presence{{Player: lobby.Player{Name: "eve"}, Doing: lobby.Doing{What: lobby.Racing, Rules: "daily", Deal: 4738675024595041984, Removed: 5}}})
	if got, want := es[0].describe(), "racing a ghost · Daily · deal 4738675024595041984 · 5/28 removed"; got != want {
		t.Errorf("who says %q, want %q", got, want)
	}
	b, err := json.Marshal(es[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"name":"eve","doing":"racing","rules":"daily","deal":"4738675024595041984","removed":5}`; got != want {
		t.Errorf("who --json %s, want %s", got, want)
	}
}
