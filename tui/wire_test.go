package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// wire is what Bubble Tea's standard renderer (v1, alternate screen)
// writes for a frame after the previous one: the lines that changed,
// whole, with the cursor moves between them. It counts the bytes a key
// costs on the wire, before SSH.
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

// BenchmarkKey is what a session does per key at 100×34, the load test's
// terminal: Update, View, and the renderer's diff of the frame against
// the last one. It reports the bytes the key costs on the wire (B/key,
// before SSH and the PTY's CR before each LF) besides the allocations of
// the key → frame path (the renderer's own work left out).
func BenchmarkKey(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		keys []string
	}{
		{"table_100x34", []string{"classic", "42"}, []string{"l", "h"}},
		{"menu_100x34", nil, []string{"down", "up"}},
		{"double_100x34", []string{"double", "7"}, []string{"l", "h"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := New(Deps{Args: c.args, Unicode: true, Width: 100, Height: 34, Renderer: renderer(termenv.ANSI256)})
			if (c.args != nil) != m.playing {
				b.Fatalf("playing %v for %v", m.playing, c.args)
			}
			keys := make([]tea.Msg, len(c.keys))
			for i, k := range c.keys {
				keys[i] = keyMsg(k)
			}
			r := &wire{w: 100, h: 34}
			r.frame(m.View())
			var sent, n int
			b.ReportAllocs()
			for b.Loop() {
				next, _ := m.Update(keys[n%len(keys)])
				m = next.(*Model)
				v := m.View()
				b.StopTimer()
				sent += len(r.frame(v))
				n++
				b.StartTimer()
			}
			b.ReportMetric(float64(sent)/float64(n), "B/key")
		})
	}
}

// BenchmarkDiff is the renderer's share of a key at 100×34: the diff of
// a key's frame against the one before (wire.frame, which does what
// Bubble Tea's standardRenderer.flush does: split the frame into lines,
// compare each with the last, and measure and cut the changed ones).
func BenchmarkDiff(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		keys []string
	}{
		{"table_100x34", []string{"classic", "42"}, []string{"l", "h"}},
		{"menu_100x34", nil, []string{"down", "up"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := New(Deps{Args: c.args, Unicode: true, Width: 100, Height: 34, Renderer: renderer(termenv.ANSI256)})
			var frames []string
			for _, k := range c.keys {
				next, _ := m.Update(keyMsg(k))
				m = next.(*Model)
				frames = append(frames, m.View())
			}
			r := &wire{w: 100, h: 34}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r.frame(frames[i%len(frames)])
				i++
			}
		})
	}
}

// TestKeyAllocations bounds the allocations of a cursor move at the
// table of a session in the lobby, Update and View: the frame, and the
// key's name, which bubbles/key builds for every binding it checks.
func TestKeyAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates")
	}
	m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 100, Height: 34,
		Player: testPlayer, Lobby: newFakeLobby(), Renderer: renderer(termenv.ANSI256)})
	if !m.playing {
		t.Fatal("no game on the table")
	}
	keys := []tea.Msg{keyMsg("l"), keyMsg("h")}
	i := 0
	step := func() {
		next, _ := m.Update(keys[i%2])
		m = next.(*Model)
		_ = m.View()
		i++
	}
	step() // the lobby is told once what the session does
	if n := testing.AllocsPerRun(100, step); n > 10 {
		t.Errorf("a cursor move allocates %.0f times, want at most 10", n)
	}
}
