package tui

import (
	"runtime"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
)

// sessionModel builds a model as the arcade does for a player with a key
// who connects with a deep link ("classic 42" at 80×24, a store and an
// account), runs it to the table and presses keys, viewing every frame
// as Bubble Tea would.
//
// It returns the model New made and the last one: Bubble Tea keeps both,
// the first as its program's initial model.
func sessionModel(tb testing.TB, games Games, acc Account, keys []tea.Msg) (first tea.Model, last *Model) {
	m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 80, Height: 24,
		Player: testPlayer, Games: games, Account: acc, Renderer: renderer(termenv.ANSI256)})
	first = m
	_ = m.View()
	next, _ := m.Update(unfinishedMsg{})
	m = next.(*Model)
	if !m.playing {
		tb.Fatal("no game on the table")
	}
	_ = m.View()
	for _, k := range keys {
		next, _ = m.Update(k)
		m = next.(*Model)
		_ = m.View()
		if m.saves.held.shown != nil {
			next, _ = m.Update(savedMsg{token: m.token, id: "g1"})
			m = next.(*Model)
			_ = m.View()
		}
	}
	return first, m
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkSessionMemory reports what a session's model keeps between
// frames (bytes of live heap per model after a collection): idle on the
// table after its first frame, after cursor moves, and after moves that
// change the game. It is the tui's share of a session's resident memory,
// which the server's budget per session bounds.
func BenchmarkSessionMemory(b *testing.B) {
	const n = 200
	for _, c := range []struct {
		name string
		keys []tea.Msg
	}{
		{"idle", nil},
		{"cursor", []tea.Msg{keyMsg("l"), keyMsg("h"), keyMsg("l"), keyMsg("h")}},
		{"play", []tea.Msg{keyMsg("d"), keyMsg("l"), keyMsg("d"), keyMsg("u"), keyMsg("h")}},
	} {
		b.Run(c.name, func(b *testing.B) {
			games, acc := &fakeGames{}, newFakeAccount()
			var per float64
			for b.Loop() {
				// Bubble Tea keeps a session's models as tea.Models: the
				// boxed copies are part of what the session keeps.
				models := make([]tea.Model, 2*n)
				before := heapInUse()
				for i := range n {
					models[2*i], models[2*i+1] = sessionModel(b, games, acc, c.keys)
				}
				after := heapInUse()
				per = float64(int64(after)-int64(before)) / n
				runtime.KeepAlive(models)
			}
			b.ReportMetric(per, "B/model")
		})
	}
}
