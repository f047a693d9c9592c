package tui

import (
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"pyramid/lobby"
)

// raceBench is a racer's session in a race of eight at 100×34, the load
// test's terminal, driven as Bubble Tea would (commands run in line,
// timers never fire).
type raceBench struct {
	m     *Model
	r     *wire
	parts []string // ViewParts's, as the session's renderer keeps them
}

func newRaceBench(b *testing.B, w, h int) *raceBench {
	b.Helper()
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: raceRoom(8, lobby.PhaseRacing)}}
	m := New(Deps{Races: f, Args: []string{"race", "KMTX"}, Width: w, Height: h, Unicode: true,
		Renderer: renderer(termenv.ANSI256), Now: func() time.Time { return epoch }})
	m.env.wait = func(time.Duration, func() tea.Msg) tea.Cmd { return nil }
	rb := &raceBench{m: m, r: &wire{w: w, h: h}}
	rb.run(m.Init())
	if rb.m.race() == nil || rb.m.race().table == nil {
		b.Fatal("the race did not start")
	}
	rb.r.frame(rb.m.View())
	return rb
}

// send delivers msg and what its commands bring, and returns the bytes
// its frame costs on the wire; the view is taken in parts, as the
// session's renderer takes it (ViewParts), and the renderer's diff is
// left out of the benchmark's time and allocations.
func (rb *raceBench) send(b *testing.B, msg tea.Msg) int {
	next, cmd := rb.m.Update(msg)
	rb.m = next.(*Model)
	rb.run(cmd)
	rb.parts = rb.m.ViewParts(rb.parts[:0])
	b.StopTimer()
	var n int
	if rb.r != nil {
		n = len(rb.r.frame(strings.Join(rb.parts, "\n")))
	}
	b.StartTimer()
	return n
}

func (rb *raceBench) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			rb.run(c)
		}
	default:
		if cmds, ok := sequence(msg); ok {
			for _, c := range cmds {
				rb.run(c)
			}
			return
		}
		next, cmd := rb.m.Update(msg)
		rb.m = next.(*Model)
		rb.run(cmd)
	}
}

// opponent is racer i's progress after n moves.
func opponent(i, n int) tea.Msg {
	r := lobby.Racer{ID: "p" + string(rune('0'+i)), Name: "racer" + string(rune('0'+i)), Present: true, Cards: 28,
		Progress: lobby.Progress{Removed: n % 29, Moves: n, Pass: 1, State: lobby.RacerPlaying}}
	return RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 1, Racer: r}}
}

// BenchmarkRace is what a racer's session does for an opponent's move
// (the panel changes) and for its own cursor key, in a race of eight at
// 100×34 (and 100×40, a racer a line, and 120×40, with the mini
// pyramids), and for the race's clock's tick: Update, View, and the
// bytes the standard renderer's line diff writes (wire-B/op, before SSH).
//
//	go test -run '^$' -bench BenchmarkRace -benchmem ./tui/
func BenchmarkRace(b *testing.B) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"100x34", 100, 34}, {"100x40", 100, 40}, {"120x40", 120, 40}} {
		b.Run("opponent_"+size.name, func(b *testing.B) {
			rb := newRaceBench(b, size.w, size.h)
			var sent, n int
			b.ReportAllocs()
			for b.Loop() {
				sent += rb.send(b, opponent(1+n%7, 1+n/7))
				n++
			}
			b.ReportMetric(float64(sent)/float64(n), "wire-B/op")
		})
		b.Run("tick_"+size.name, func(b *testing.B) {
			// The race's clock, a second a tick: the room's line says
			// the time left.
			rb := newRaceBench(b, size.w, size.h)
			var sent, n int
			b.ReportAllocs()
			for b.Loop() {
				n++
				sent += rb.send(b, raceClockMsg{now: epoch.Add(time.Duration(n%60) * time.Second)})
			}
			b.ReportMetric(float64(sent)/float64(n), "wire-B/op")
		})
		b.Run("cursor_"+size.name, func(b *testing.B) {
			rb := newRaceBench(b, size.w, size.h)
			keys := []tea.Msg{keyMsg("l"), keyMsg("h")}
			var sent, n int
			b.ReportAllocs()
			for b.Loop() {
				sent += rb.send(b, keys[n%2])
				n++
			}
			b.ReportMetric(float64(sent)/float64(n), "wire-B/op")
		})
	}
}

// BenchmarkRaceMemory reports what a racer's model keeps between frames
// in a race of eight at 100×34 (bytes of live heap per model after a
// collection), once it has drawn an opponent's move and its own cursor
// key: the race screen's share of a racer's resident memory.
func BenchmarkRaceMemory(b *testing.B) {
	const n = 200
	var per float64
	for b.Loop() {
		models := make([]*Model, n)
		before := heapInUse()
		for i := range models {
			rb := newRaceBench(b, 100, 34)
			rb.send(b, opponent(1, 1))
			rb.send(b, keyMsg("l"))
			rb.r = nil // the renderer's copy of the frame is not the model's
			models[i] = rb.m
		}
		after := heapInUse()
		per = float64(int64(after)-int64(before)) / n
		runtime.KeepAlive(models)
	}
	b.ReportMetric(per, "B/model")
}
