package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"pyramid/engine"
)

// The bytes and allocations of a key on the wire are measured where the
// frames are drawn, by the server's renderer: BenchmarkProgramKey and
// BenchmarkFrame in package server. The tests here bound the tui's share,
// Update and View.

// wire is what Bubble Tea's standard renderer (v1, alternate screen)
// writes for a frame after the previous one: the lines that changed,
// whole, with the cursor moves between them. The server no longer runs
// that renderer; the race's benchmark (race_bench_test.go) still counts
// its bytes with this.
type wire struct {
	w, h  int
	last  string
	lines []string
}

// frame returns the bytes the renderer writes for view after the last
// frame, as standardRenderer.flush does.
func (r *wire) frame(view string) string {
	if view == "" {
		view = " "
	}
	if view == r.last {
		return ""
	}
	var b strings.Builder
	b.WriteString(ansi.CursorHomePosition)
	next := strings.Split(view, "\n")
	if r.h > 0 && len(next) > r.h {
		next = next[len(next)-r.h:]
	}
	for i, line := range next {
		if i < len(r.lines) && r.lines[i] == line {
			if i < len(next)-1 {
				b.WriteByte('\n')
			}
			continue
		}
		if i == 0 && r.last == "" {
			b.WriteByte('\r')
		}
		line = ansi.Truncate(line, r.w, "")
		if ansi.StringWidth(line) < r.w {
			line += ansi.EraseLineRight
		}
		b.WriteString(line)
		if i < len(next)-1 {
			b.WriteString("\r\n")
		}
	}
	if len(r.lines) > len(next) {
		b.WriteString(ansi.EraseScreenBelow)
	}
	b.WriteString(ansi.CursorPosition(0, len(next)))
	r.last, r.lines = view, next
	return b.String()
}

// TestKeyAllocations bounds the allocations of a key, Update and View,
// at the table of a session in the lobby (a cursor move) and in the menu
// (up and down the list): the frame's string, and a little more.
func TestKeyAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates")
	}
	for _, tt := range []struct {
		name string
		args []string
		keys []string
		max  float64
	}{
		{"table", []string{"classic", "42"}, []string{"l", "h"}, 2},
		{"menu", nil, []string{"down", "up"}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Deps{Args: tt.args, Unicode: true, Width: 100, Height: 34,
				Player: testPlayer, Lobby: newFakeLobby(), Renderer: renderer(termenv.ANSI256)})
			if m.playing != (tt.args != nil) {
				t.Fatalf("playing %v for %v", m.playing, tt.args)
			}
			keys := []tea.Msg{keyMsg(tt.keys[0]), keyMsg(tt.keys[1])}
			i := 0
			step := func() {
				next, _ := m.Update(keys[i%2])
				m = next.(*Model)
				_ = m.View()
				i++
			}
			step() // the lobby is told once what the session does
			step()
			if n := testing.AllocsPerRun(100, step); n > tt.max {
				t.Errorf("a key allocates %.0f times, want at most %.0f", n, tt.max)
			}
		})
	}
}

// The menu's texts kept from frame to frame follow what they are made
// of: the count online, the player's name, the rules of the last game
// and the glyphs.
func TestMenuTextsFollowChanges(t *testing.T) {
	m := New(Deps{Unicode: true, Width: 100, Height: 34, Player: testPlayer, Renderer: renderer(termenv.ANSI256)})
	mu := m.menu()
	screen := func() string { return ansi.Strip(m.View()) }
	if s := screen(); !strings.Contains(s, "playing as "+testPlayer.Name) {
		t.Fatalf("no identity line in\n%s", s)
	}
	for _, tt := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"online", func() { mu.online = 3 }, []string{"Pyramid Solitaire · 3 online", "3 online"}},
		{"online again", func() { mu.online = 12 }, []string{"Pyramid Solitaire · 12 online"}},
		{"name", func() { mu.name = "bob" }, []string{"playing as bob · "}},
		{"rules", func() { mu.rules, _ = engine.Preset("double") }, []string{"Double or any rule set"}},
		{"ascii", func() { m.env.gl = glyphSets[0] }, []string{"Pyramid Solitaire - 12 online", "playing as bob - "}},
	} {
		tt.change()
		s := screen()
		for _, w := range tt.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: no %q in\n%s", tt.name, w, s)
			}
		}
	}
}
