package engine

import (
	"fmt"
	"testing"
)

// perft counts the legal move sequences of a given depth from g's position
// (like chess "perft"), applying and undoing every move.
func perft(t testing.TB, g *Game, depth int) int {
	if depth == 0 {
		return 1
	}
	n := 0
	for _, m := range g.Legal() {
		if err := g.Apply(m); err != nil {
			t.Fatalf("Legal() offered %s but Apply says %v", m, err)
		}
		n += perft(t, g, depth-1)
		if err := g.Undo(); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestPerft pins the number of legal move sequences to depths 1–4 from fixed
// positions under several rule sets: any change to what is legal changes a
// count. The counts were computed once by this engine and checked by hand at
// depth 1.
func TestPerft(t *testing.T) {
	tests := []struct {
		spec  string
		deal  string // deal text, or empty for deal number seed
		seed  uint64
		setup string
		want  [4]int
	}{
		{"classic", "", 1, "", [4]int{3, 6, 10, 16}},
		{"classic", baseDeal, 0, "", [4]int{4, 14, 49, 175}},
		{"open-stock", baseDeal, 0, "", [4]int{5, 23, 106, 486}},
		{"open-stock,cover=overlap", baseDeal, 0, "d 7.6+w", [4]int{6, 34, 184, 939}},
		{"draw-three", baseDeal, 0, "d", [4]int{7, 40, 191, 812}},
		{"relaxed", "", 2, "", [4]int{3, 5, 7, 10}},
		{"double", "", 3, "", [4]int{5, 16, 53, 152}},
		{"double,stock=open,pairs=any", "", 4, "", [4]int{4, 13, 35, 78}},
		{"classic,goal=all,passes=1", pairedStockDeal, 0, "", [4]int{3, 7, 15, 39}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d%s", tt.spec, tt.seed, tt.setup), func(t *testing.T) {
			var g *Game
			if tt.deal != "" {
				g = newTestGame(t, tt.spec, tt.deal, tt.setup)
			} else {
				var err error
				if g, err = NewNumbered(MustRules(tt.spec), tt.seed); err != nil {
					t.Fatal(err)
				}
			}
			var got [4]int
			for d := 1; d <= 4; d++ {
				got[d-1] = perft(t, g, d)
			}
			if got != tt.want {
				t.Fatalf("perft 1–4: got %v, want %v", got, tt.want)
			}
		})
	}
}
