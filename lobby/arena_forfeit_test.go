package lobby

import (
	"slices"
	"testing"
	"time"
)

// TestArenaRecentOpponents: a player's recent opponents are those of
// their last two games, the older ones forgotten.
func TestArenaRecentOpponents(t *testing.T) {
	p := &arenaPlayer{Entrant: Entrant{ID: "a"}}
	for _, step := range []struct {
		race []string
		want []string
	}{
		{[]string{"a", "b"}, []string{"b"}},
		{[]string{"c", "a", "d"}, []string{"c", "d", "b"}},
		{[]string{"a", "c"}, []string{"c", "d"}},
		{[]string{"a"}, []string{"c"}},
	} {
		p.raced(step.race)
		if got := p.recent(); !slices.Equal(got, step.want) {
			t.Fatalf("after racing %v: recent %v, want %v", step.race, got, step.want)
		}
	}
}

// TestArenaPairsApartFromGameBeforeLast: the holder's pairing keeps a
// player from the opponent of their game before last too, where another
// player is free to trade with.
func TestArenaPairsApartFromGameBeforeLast(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, _ := syncRooms(t, clock)
	info := ArenaInfo{ID: 1, Name: "apart", RulesID: "classic", Start: t0.Add(-time.Minute), End: t0.Add(time.Hour), GameTime: 4 * time.Minute}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if _, err := rs.JoinArena(info, Entrant{ID: id, Name: id}, &countSink{}, ArenaStanding{}); err != nil {
			t.Fatal(err)
		}
	}
	rs.mu.Lock()
	ar := rs.arenas[1]
	// a raced b, then d; b raced a, then e: a and b met in the game
	// before their last.
	for _, race := range [][]string{{"a", "b"}, {"a", "d"}, {"b", "e"}} {
		for _, id := range race {
			ar.players[id].raced(race)
		}
	}
	_, pairs := rs.arenaDuties(t0.Add(time.Minute))
	rs.mu.Unlock()
	if len(pairs) != 1 {
		t.Fatalf("pairings %+v, want one", pairs)
	}
	seen := 0
	for _, g := range pairs[0].groups {
		seen += len(g)
		for _, pair := range [][2]string{{"a", "b"}, {"a", "d"}, {"b", "e"}} {
			if slices.Contains(g, pair[0]) && slices.Contains(g, pair[1]) {
				t.Errorf("groups %v: %s and %s race again", pairs[0].groups, pair[0], pair[1])
			}
		}
	}
	if seen != 5 {
		t.Errorf("groups %v: %d players, want 5", pairs[0].groups, seen)
	}
}
