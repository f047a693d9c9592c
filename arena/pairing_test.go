package arena

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestPair(t *testing.T) {
	now := time.Date(2026, 12, 12, 19, 10, 0, 0, time.UTC)
	long := now.Add(-time.Minute)
	just := now.Add(-time.Second)
	players := func(n int, since time.Time) []Free {
		out := make([]Free, n)
		for i := range out {
			out[i] = Free{ID: fmt.Sprintf("p%d", i+1), Rank: i + 1, Since: since}
		}
		return out
	}
	tests := []struct {
		name string
		free []Free
		want [][]string
	}{
		{"nobody", nil, nil},
		{"alone, just free", players(1, just), nil},
		{"alone for long: solo", players(1, long), [][]string{{"p1"}}},
		{"alone, not yet long", []Free{{ID: "a", Rank: 1, Since: now.Add(-AloneAfter + time.Second)}}, nil},
		{"two who waited", players(2, long), [][]string{{"p1", "p2"}}},
		{"two just free wait to gather", players(2, just), nil},
		{"one waiting takes one just free", []Free{{ID: "a", Rank: 2, Since: long}, {ID: "b", Rank: 1, Since: just}}, [][]string{{"b", "a"}}},
		{"four make one race", players(4, long), [][]string{{"p1", "p2", "p3", "p4"}}},
		{"five make three and two", players(5, long), [][]string{{"p1", "p2", "p3"}, {"p4", "p5"}}},
		{"seven make four and three", players(7, long), [][]string{{"p1", "p2", "p3", "p4"}, {"p5", "p6", "p7"}}},
		{"nine make three threes", players(9, long), [][]string{{"p1", "p2", "p3"}, {"p4", "p5", "p6"}, {"p7", "p8", "p9"}}},
		{"grouped by standings, not by list order", []Free{
			{ID: "d", Rank: 8, Since: long}, {ID: "a", Rank: 1, Since: long}, {ID: "c", Rank: 7, Since: long},
			{ID: "b", Rank: 2, Since: long}, {ID: "e", Rank: 9, Since: long},
		}, [][]string{{"a", "b", "c"}, {"d", "e"}}},
		{"ties in rank by ID", []Free{{ID: "z", Rank: 3, Since: long}, {ID: "y", Rank: 3, Since: long}}, [][]string{{"y", "z"}}},
		{"last opponents split when a trade helps", []Free{
			{ID: "a", Rank: 1, Since: long}, {ID: "b", Rank: 2, Since: long, Last: []string{"a"}},
			{ID: "c", Rank: 3, Since: long}, {ID: "d", Rank: 4, Since: long},
			{ID: "e", Rank: 5, Since: long},
		}, [][]string{{"a", "d", "c"}, {"b", "e"}}},
		{"four free make one race, recent opponents or not", []Free{
			{ID: "a", Rank: 1, Since: long}, {ID: "b", Rank: 2, Since: long, Last: []string{"c", "a"}},
			{ID: "c", Rank: 3, Since: long}, {ID: "d", Rank: 4, Since: long},
		}, [][]string{{"a", "b", "c", "d"}}},
		{"recent opponents split across two races", []Free{
			{ID: "a", Rank: 1, Since: long, Last: []string{"x", "b"}}, {ID: "b", Rank: 2, Since: long},
			{ID: "c", Rank: 3, Since: long}, {ID: "d", Rank: 4, Since: long},
			{ID: "e", Rank: 5, Since: long},
		}, [][]string{{"a", "d", "c"}, {"b", "e"}}},
		{"the last group's rematch traded with the group before", []Free{
			{ID: "a", Rank: 1, Since: long}, {ID: "b", Rank: 2, Since: long},
			{ID: "c", Rank: 3, Since: long}, {ID: "d", Rank: 4, Since: long},
			{ID: "e", Rank: 5, Since: long, Last: []string{"d"}},
		}, [][]string{{"a", "b", "d"}, {"c", "e"}}},
		{"the player two others raced moves, not one of them", []Free{
			{ID: "a", Rank: 1, Since: long}, {ID: "b", Rank: 2, Since: long},
			{ID: "c", Rank: 3, Since: long, Last: []string{"b"}},
			{ID: "d", Rank: 4, Since: long, Last: []string{"b"}}, {ID: "e", Rank: 5, Since: long},
		}, [][]string{{"a", "d", "c"}, {"b", "e"}}},
		{"two free who met recently race again: nobody else is free", []Free{
			{ID: "a", Rank: 1, Since: long, Last: []string{"c", "b"}}, {ID: "b", Rank: 2, Since: long},
		}, [][]string{{"a", "b"}}},
		{"a rematch no trade mends stays", []Free{
			{ID: "a", Rank: 1, Since: long, Last: []string{"b"}}, {ID: "b", Rank: 2, Since: long, Last: []string{"a"}},
		}, [][]string{{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Pair(tt.free, now)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Pair = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPairKeepsEveryoneOnce(t *testing.T) {
	now := time.Date(2026, 12, 12, 19, 10, 0, 0, time.UTC)
	for n := 2; n <= 40; n++ {
		free := make([]Free, n)
		for i := range free {
			free[i] = Free{ID: fmt.Sprintf("p%02d", i), Rank: (i * 7) % n, Since: now.Add(-time.Minute), Last: []string{fmt.Sprintf("p%02d", (i+1)%n)}}
		}
		seen := map[string]bool{}
		for _, g := range Pair(free, now) {
			if len(g) < MinRacers || len(g) > MaxRacers {
				t.Fatalf("%d free: a group of %d", n, len(g))
			}
			for _, id := range g {
				if seen[id] {
					t.Fatalf("%d free: %s twice", n, id)
				}
				seen[id] = true
			}
		}
		if len(seen) != n {
			t.Fatalf("%d free: %d paired", n, len(seen))
		}
	}
}

// BenchmarkPair pairs 1,000 free players each of whom raced the players
// beside them in the standings in their last two games: every group
// holds recent opponents, the most untangling pairing does.
func BenchmarkPair(b *testing.B) {
	now := time.Date(2026, 12, 12, 19, 10, 0, 0, time.UTC)
	const n = 1000
	id := func(i int) string { return fmt.Sprintf("p%04d", (i+n)%n) }
	free := make([]Free, n)
	for i := range free {
		free[i] = Free{ID: id(i), Rank: i + 1, Since: now.Add(-time.Minute),
			Last: []string{id(i - 1), id(i + 1), id(i + 2), id(i - 2), id(i + 3)}}
	}
	b.ReportAllocs()
	for b.Loop() {
		Pair(free, now)
	}
}

func TestPairAt(t *testing.T) {
	now := time.Date(2026, 12, 12, 19, 10, 0, 0, time.UTC)
	tests := []struct {
		name string
		free []Free
		want time.Time
	}{
		{"nobody", nil, time.Time{}},
		{"alone", []Free{{ID: "a", Since: now}}, now.Add(AloneAfter)},
		{"two: the first's gather time", []Free{{ID: "a", Since: now.Add(time.Second)}, {ID: "b", Since: now}}, now.Add(GatherTime)},
		{"three", []Free{{ID: "a", Since: now}, {ID: "b", Since: now.Add(-time.Second)}, {ID: "c", Since: now.Add(time.Second)}},
			now.Add(GatherTime - time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PairAt(tt.free); !got.Equal(tt.want) {
				t.Errorf("PairAt = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPairAtIsWhenPairPairs: for every set of free players, Pair pairs
// nobody just before PairAt and somebody at it.
func TestPairAtIsWhenPairPairs(t *testing.T) {
	now := time.Date(2026, 12, 12, 19, 10, 0, 0, time.UTC)
	for n := 1; n <= 9; n++ {
		for shift := range 5 {
			free := make([]Free, n)
			for i := range free {
				free[i] = Free{ID: fmt.Sprintf("p%d", i), Rank: i + 1, Since: now.Add(time.Duration((i*7+shift*3)%11) * 300 * time.Millisecond)}
			}
			at := PairAt(free)
			if got := Pair(free, at.Add(-time.Millisecond)); got != nil {
				t.Errorf("%d free (shift %d): paired %v a moment before PairAt %v", n, shift, got, at)
			}
			if got := Pair(free, at); len(got) == 0 {
				t.Errorf("%d free (shift %d): nobody paired at PairAt %v", n, shift, at)
			}
		}
	}
}
