package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"pyramid/lobby"
)

// runCmds runs a command and those of its batches, dropping their
// messages: what the presence hook's commands cost.
func runCmds(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if batch, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range batch {
			runCmds(c)
		}
	}
}

// BenchmarkPlayPresence is BenchmarkPlay with a lobby, its commands run:
// the presence hook's cost per move, without spectators and with two
// (each move then publishes the game's record).
func BenchmarkPlayPresence(b *testing.B) {
	for _, c := range []struct {
		name     string
		watchers int
	}{{"unwatched", 0}, {"watched", 2}} {
		b.Run(c.name, func(b *testing.B) {
			fl := newFakeLobby()
			m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Lobby: fl, Renderer: renderer(termenv.ANSI256)})
			if c.watchers > 0 {
				next, cmd := m.Update(lobby.Spectators{N: c.watchers})
				m = next.(*Model)
				runCmds(cmd)
			}
			keys := []tea.Msg{keyMsg("d"), keyMsg("u")}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				next, cmd := m.Update(keys[i%len(keys)])
				m = next.(*Model)
				runCmds(cmd)
				_ = m.View()
				i++
			}
			fl.mu.Lock()
			fl.published = nil
			fl.doing = nil
			fl.mu.Unlock()
		})
	}
}
