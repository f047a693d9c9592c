package roomtest

import (
	"pyramid/lobby"
	"testing"
)

// testProgressUnchangedRacers: another server's progress holds all
// of its racers in the room; only those whose progress changed reach the
// local sessions' panels.
func testProgressUnchangedRacers(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, _, bob := sharedRace(t, e, a, b)
	hb, _ := b.Room(code)
	key := lobby.RacerKey(code, "id-ann")
	tests := []struct {
		name    string
		removed int
		shown   bool
	}{
		{"a change", 2, true},
		{"the same again", 2, false},
		{"the next change", 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bob.mu.Lock()
			delete(bob.latest, key)
			bob.mu.Unlock()
			b.ApplyProgress(code, hb.Snapshot().RoomID, lobby.ServerProgress{Inst: "a", Round: 1,
				Racers: []lobby.RacerReport{{ID: "id-ann", Progress: lobby.Progress{Removed: tt.removed, Moves: 1, Pass: 1}}}})
			bob.mu.Lock()
			_, shown := bob.latest[key]
			bob.mu.Unlock()
			if shown != tt.shown {
				t.Errorf("ann's line on bob's panel: shown %v, want %v", shown, tt.shown)
			}
		})
	}
}
