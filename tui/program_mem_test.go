package tui

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
)

// lineModel is the load test's bare program (tools/loadgen): one line
// redrawn per key, the floor a session's program costs.
type lineModel struct{ presses int }

func (m lineModel) Init() tea.Cmd { return nil }

func (m lineModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		m.presses++
	}
	return m, nil
}

func (m lineModel) View() string { return fmt.Sprintf("load test\npressed %d times", m.presses) }

// counted counts the keys a model has handled, for the benchmark to know
// when the last one is in.
type counted struct {
	tea.Model
	keys *atomic.Int32
}

func (c counted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := c.Model.Update(msg)
	c.Model = next
	if _, ok := msg.(tea.KeyMsg); ok {
		c.keys.Add(1)
	}
	return c, cmd
}

// frames is a program's output: it counts the frames the renderer
// writes (the short sequences written on their own, such as the
// alternate screen's, are not frames).
type frames struct{ writes atomic.Int32 }

func (f *frames) Write(p []byte) (int, error) {
	if len(p) > 16 {
		f.writes.Add(1)
	}
	return len(p), nil
}

// BenchmarkProgramMemory reports what a session's Bubble Tea program
// keeps once it has handled ten keys at 100×34 and its renderer has
// drawn the last frame: heap (the model, the renderer's copies of the
// frame) and goroutine stacks, per program, against the load test's bare
// one-line program; and the bytes allocated per key, renderer included,
// which set how often the collector runs under load. It is the render
// path's share of a session's memory under tools/loadgen (the server's
// connection and SSH state come on top, for both).
func BenchmarkProgramMemory(b *testing.B) {
	const n = 50
	for _, c := range []struct {
		name  string
		model func() tea.Model
		keys  []string
	}{
		{"bare", func() tea.Model { return lineModel{} }, []string{"l", "h"}},
		{"table", func() tea.Model {
			return New(Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 100, Height: 34, Renderer: renderer(termenv.ANSI256)})
		}, []string{"l", "h"}},
		{"menu", func() tea.Model {
			return New(Deps{Unicode: true, Width: 100, Height: 34, Renderer: renderer(termenv.ANSI256)})
		}, []string{"down", "up"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var heap, stack, garbage float64
			for b.Loop() {
				heap0, stack0 := memInUse()
				var allocs uint64 // bytes allocated while the keys are handled and drawn
				progs := make([]*tea.Program, n)
				var wg sync.WaitGroup
				for i := range progs {
					var keys atomic.Int32
					out := &frames{}
					p := tea.NewProgram(counted{c.model(), &keys}, tea.WithInput(nil), tea.WithOutput(out),
						tea.WithoutSignalHandler(), tea.WithAltScreen(), tea.WithFPS(120))
					progs[i] = p
					wg.Add(1)
					go func() { defer wg.Done(); _, _ = p.Run() }()
					p.Send(tea.WindowSizeMsg{Width: 100, Height: 34})
					waitFor(b, func() bool { return out.writes.Load() > 0 }) // the first frame is drawn
					before := totalAlloc()
					for k := range 10 {
						// One key per frame, as a player types: each is
						// drawn before the next comes.
						w := out.writes.Load()
						p.Send(keyMsg(c.keys[k%len(c.keys)]))
						waitFor(b, func() bool { return keys.Load() == int32(k+1) && out.writes.Load() > w })
					}
					allocs += totalAlloc() - before
				}
				heap1, stack1 := memInUse()
				heap = float64(int64(heap1)-int64(heap0)) / n
				stack = float64(int64(stack1)-int64(stack0)) / n
				garbage = float64(allocs) / (10 * n)
				for _, p := range progs {
					p.Kill()
				}
				wg.Wait()
			}
			b.ReportMetric(heap, "heap-B/program")
			b.ReportMetric(stack, "stack-B/program")
			b.ReportMetric(garbage, "alloc-B/key")
		})
	}
}

// totalAlloc is the bytes allocated so far.
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// memInUse is the live heap after a full collection and the goroutine
// stacks in use.
func memInUse() (heap, stack uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.StackInuse
}

// waitFor polls cond until it holds, failing after a few seconds.
func waitFor(tb testing.TB, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatal("condition not met within 5 s")
		}
		runtime.Gosched()
	}
}
