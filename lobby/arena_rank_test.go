package lobby

import (
	"testing"
	"time"

	"pyramid/arena"
)

// TestArenaStandingsRanks: the fold ranks an arena's players as the
// store ranks their lines (docs/arenas.md): most points, then fewer
// games, then who reached their points first; players equal on all
// three share a rank (1, 2, 2, 4). Players who joined without a game
// yet are listed after everybody with one, without a rank, and take no
// place from them.
func TestArenaStandingsRanks(t *testing.T) {
	at := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	ar := &arenaRun{players: map[string]*arenaPlayer{}}
	add := func(id string, points, games int, reached time.Duration) {
		ar.players[id] = &arenaPlayer{Entrant: Entrant{ID: id, Name: id}, line: arena.Line{Points: points, Games: games},
			reached: at.Add(reached)}
	}
	add("ann", 4, 1, 10*time.Second)
	add("cat", 2, 1, 70*time.Second)
	add("fay", 0, 0, 0) // joined, no game yet
	add("bob", 0, 1, 10*time.Second)
	add("dan", 0, 1, 70*time.Second)
	add("eve", 0, 1, 70*time.Second)
	add("gus", 0, 0, 0)
	order, ranks := ar.standings()
	want := []struct {
		id   string
		rank int
	}{{"ann", 1}, {"cat", 2}, {"bob", 3}, {"dan", 4}, {"eve", 4}, {"fay", 0}, {"gus", 0}}
	if len(order) != len(want) {
		t.Fatalf("%d players in the standings, want %d", len(order), len(want))
	}
	for i, w := range want {
		if order[i].ID != w.id || ranks[w.id] != w.rank {
			t.Errorf("line %d: got %s ranked %d, want %s ranked %d", i+1, order[i].ID, ranks[order[i].ID], w.id, w.rank)
		}
	}
}
