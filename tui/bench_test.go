package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
)

// benchModel is a model with a game on the table, as a session has it.
func benchModel(b *testing.B, args []string, w, h int) *Model {
	b.Helper()
	m := New(Deps{Args: args, Unicode: true, Width: w, Height: h, Renderer: renderer(termenv.ANSI256)})
	if !m.playing {
		b.Fatalf("no game for %v", args)
	}
	return m
}

func BenchmarkView(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		w, h int
	}{
		{"single_80x24", []string{"classic", "42"}, 80, 24},
		{"double_80x24", []string{"double", "7"}, 80, 24},
		{"double_160x50", []string{"double", "7"}, 160, 50},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := benchModel(b, c.args, c.w, c.h)
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// BenchmarkCursorMove is what a session does per arrow key: Update, then
// View of the new frame.
func BenchmarkCursorMove(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		w, h int
	}{
		{"single_80x24", []string{"classic", "42"}, 80, 24},
		{"double_80x24", []string{"double", "7"}, 80, 24},
		{"double_160x50", []string{"double", "7"}, 160, 50},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := benchModel(b, c.args, c.w, c.h)
			keys := []tea.Msg{keyMsg("right"), keyMsg("right"), keyMsg("left"), keyMsg("left")}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				next, _ := m.Update(keys[i%len(keys)])
				m = next.(*Model)
				_ = m.View()
				i++
			}
		})
	}
}

// BenchmarkPlay is a move that changes the game: a draw, then its undo.
func BenchmarkPlay(b *testing.B) {
	m := benchModel(b, []string{"classic", "42"}, 80, 24)
	keys := []tea.Msg{keyMsg("d"), keyMsg("u")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		next, _ := m.Update(keys[i%len(keys)])
		m = next.(*Model)
		_ = m.View()
		i++
	}
}

// BenchmarkPlayStored is a move of a stored game: the table as it was is
// kept (a clone of the game) and shown until the store's answer, which
// lets the new position show.
func BenchmarkPlayStored(b *testing.B) {
	m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: &fakeGames{},
		Renderer: renderer(termenv.ANSI256)})
	next, _ := m.Update(unfinishedMsg{})
	m = next.(*Model)
	if !m.playing {
		b.Fatal("no game on the table")
	}
	keys := []tea.Msg{keyMsg("d"), keyMsg("u")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		next, _ := m.Update(keys[i%len(keys)])
		m = next.(*Model)
		_ = m.View()
		next, _ = m.Update(savedMsg{token: m.token, id: "g1"})
		m = next.(*Model)
		_ = m.View()
		i++
	}
	if m.saves.held.shown != nil {
		b.Fatal("the table is still held")
	}
}
