package tui

import (
	"strconv"
	"strings"
	"testing"

	"pyramid/engine"
	"pyramid/lobby"
)

// TestRacePanelNames80: at 80×24 the panel showed names of 16 cells cut
// to 10 ("player-15…") whatever the room beside them. Every racer of 2
// to 8, on both pyramid sizes, keeps their whole name on a line of their
// own, and as much of it as a half line holds (13 cells and the ellipsis)
// when two racers share a line; every line fits.
func TestRacePanelNames80(t *testing.T) {
	for _, rules := range []string{"classic", "double"} {
		for n := 2; n <= 8; n++ {
			t.Run(rules+"/"+strconv.Itoa(n), func(t *testing.T) {
				snap := raceRoom(n, lobby.PhaseRacing)
				r := engine.MustRules(rules)
				snap.RulesID, snap.RulesTitle, snap.Cards = r.ID(), r.Title(), r.PyramidSize()
				for i := range snap.Members {
					snap.Members[i].Name = "player-" + strconv.Itoa(i) + "-abcdefg" // 16 cells
					snap.Members[i].Cards = r.PyramidSize()
				}
				h, _ := raceHarness(t, snap, 80, 24)
				s := screenOf(h)
				checkShape(t, s, 80, 24)
				two := h.m.race().panelCols() == 2
				for i, m := range snap.Members {
					want := m.Name
					if two {
						want = m.Name[:13] + "…"
					}
					l := lineWith(s, want)
					if l == "" {
						t.Fatalf("racer %d: %q is not on the screen (two to a line: %v):\n%s", i, want, two, s)
					}
					if !strings.Contains(l, "0/"+strconv.Itoa(r.PyramidSize())+"   0 mv p1 playing") {
						t.Errorf("racer %d's line %q lacks the figures", i, l)
					}
				}
			})
		}
	}
}
