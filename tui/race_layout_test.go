package tui

import (
	"fmt"
	"strings"
	"testing"

	"pyramid/lobby"
)

// TestRaceHelpBarAtBottom: during a race the help bar is the screen's
// last line, whatever the window, with the racer panel above it (it used
// to come after the bar, which then showed in mid-screen in a tall
// window).
func TestRaceHelpBarAtBottom(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h, _ := raceHarness(t, raceRoom(3, lobby.PhaseRacing), size[0], size[1])
			s := screenOf(h)
			lines := strings.Split(s, "\n")
			if len(lines) != size[1] {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), size[1], s)
			}
			bar, panel := -1, -1
			for i, l := range lines {
				if strings.Contains(l, "q leave") {
					bar = i
				}
				if strings.Contains(l, "left") && strings.Contains(l, "room KMTX") {
					panel = i
				}
			}
			if bar != len(lines)-1 || panel < 0 || panel > bar {
				t.Errorf("help bar on line %d, panel's room line on line %d, want the bar last (%d) and the panel above it:\n%s",
					bar+1, panel+1, len(lines), s)
			}
		})
	}
}
