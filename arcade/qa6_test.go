package arcade

import (
	"strings"
	"testing"

	"pyramid/lobby"
)

// TestWhoRacePhase: who said "racing in room X" of a racer in the room's
// waiting room or at its results; it now says where the room stands, and
// who --json keeps doing "racing" with the room and adds the phase.
func TestWhoRacePhase(t *testing.T) {
	f := newFixture(t)
	l := f.app.lobby
	for _, p := range []struct {
		name  string
		phase lobby.RacePhase
	}{{"ann", lobby.RaceWaiting}, {"bob", lobby.RaceRunning}, {"cat", lobby.RaceResults}, {"dan", ""}} {
		s := l.Join(lobby.Player{ID: "SHA256:" + p.name, Name: p.name})
		l.SetDoing(s, lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 9, Room: "ABCD", Phase: p.phase})
	}
	code, out, _ := f.run(session(nil, "guest", "who", "--json"))
	for _, want := range []string{
		`"name": "ann",
    "doing": "racing",
    "phase": "waiting",`,
		`"name": "bob",
    "doing": "racing",
    "phase": "racing",`,
		`"name": "cat",
    "doing": "racing",
    "phase": "results",`,
		`"name": "dan",
    "doing": "racing",
    "phase": "racing",`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("who --json: exit %d, want\n%s\nin:\n%s", code, want, out)
		}
	}
	code, out, _ = f.run(session(nil, "guest", "who"))
	for _, want := range []string{"waiting in room ABCD · Classic", "racing in room ABCD · Classic", "at the results of room ABCD · Classic"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("who: exit %d, want %q in:\n%s", code, want, out)
		}
	}
}
