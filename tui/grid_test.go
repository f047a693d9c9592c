package tui

import (
	"fmt"
	"sync"
	"testing"

	"github.com/muesli/termenv"
)

// TestPooledGrids checks that sessions drawing at once, in grids they
// borrow from one pool (which copy the lines their last frame wrote),
// draw exactly what each draws alone: deals, window sizes, character
// sets and colour profiles differ from session to session.
func TestPooledGrids(t *testing.T) {
	profiles := []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor}
	keys := []string{"l", "l", "h", "j", "d", "u", "enter", "l", "enter", "d", "d", "H", "k", "l", "l", "l", "h"}
	deps := make([]Deps, 12)
	for i := range deps {
		deps[i] = Deps{
			Args:     []string{[]string{"classic", "double", "draw-three"}[i%3], fmt.Sprint(40 + i%5)},
			Unicode:  i%2 == 0,
			Width:    80 + i%3*40,
			Height:   24 + i%3*13,
			Renderer: renderer(profiles[i%len(profiles)]),
		}
	}
	play := func(d Deps) []string {
		h := newHarness(t, d)
		var frames []string
		for range 3 {
			for _, k := range keys {
				h.keys(k)
				frames = append(frames, h.m.View())
			}
		}
		return frames
	}
	alone := make([][]string, len(deps))
	for i, d := range deps {
		alone[i] = play(d)
	}
	together := make([][]string, len(deps))
	var wg sync.WaitGroup
	for i, d := range deps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			together[i] = play(d)
		}()
	}
	wg.Wait()
	for i := range deps {
		for j := range alone[i] {
			if together[i][j] != alone[i][j] {
				t.Fatalf("session %d (%v), frame %d: drawn with others it differs from drawn alone", i, deps[i].Args, j)
			}
		}
	}
}
