package server

import (
	"bytes"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/muesli/termenv"

	"pyramid/tui"
)

// screenOut is a renderer's output fed through a terminal emulator, with
// the raw bytes of each write kept.
type screenOut struct {
	emu    *vt.Emulator
	writes [][]byte
}

func newScreenOut(w, h int) *screenOut {
	// Nothing the renderer writes asks the terminal for a reply, so the
	// emulator's reply pipe is never read.
	return &screenOut{emu: vt.NewEmulator(w, h)}
}

func (o *screenOut) Write(p []byte) (int, error) {
	o.writes = append(o.writes, bytes.Clone(p))
	return o.emu.Write(p) //nolint:wrapcheck // test sink
}

// since returns the writes after the first n, joined ("" if none).
func (o *screenOut) since(n int) string {
	var b strings.Builder
	for _, w := range o.writes[n:] {
		b.Write(w)
	}
	return b.String()
}

// screen is what view shows on a w × h terminal: ANSI stripped, each line
// cut to w, the bottom h lines, trailing spaces trimmed.
func screen(view string, w, h int) string {
	lines := strings.Split(view, "\n")
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = strings.TrimRight(ansi.Strip(ansi.Truncate(lines[i], w, "")), " ")
		}
	}
	return strings.Join(out, "\n")
}

// shown is the emulator's screen with trailing spaces trimmed.
func (o *screenOut) shown(h int) string {
	lines := strings.Split(o.emu.String(), "\n")
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = strings.TrimRight(lines[i], " ")
		}
	}
	return strings.Join(out, "\n")
}

// fakeNow is a clock tests move by hand.
type fakeNow struct{ t time.Time }

func (c *fakeNow) now() time.Time      { return c.t }
func (c *fakeNow) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeNow() *fakeNow             { return &fakeNow{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }
func bold(s string) string             { return "\x1b[1m" + s + "\x1b[m" }
func lineList(lines ...string) string  { return strings.Join(lines, "\n") }

// numbered returns n lines made by f.
func numbered(n int, f func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestFrameRendererShowsEveryView(t *testing.T) {
	const w, h = 20, 6
	steps := []struct {
		name string
		view string
	}{
		{"first", lineList("title", "", bold("one"), "two", "three")},
		{"same", lineList("title", "", bold("one"), "two", "three")},
		{"one line changes", lineList("title", "", bold("one"), "TWO", "three")},
		{"a line gets shorter", lineList("title", "", bold("o"), "TWO", "three")},
		{"far lines change", lineList("TITLE", "", bold("o"), "TWO", "3")},
		{"fewer lines", lineList("TITLE", "x")},
		{"more lines than the screen", lineList(numbered(9, func(i int) string { return fmt.Sprint("row ", i) })...)},
		{"a full-width line", lineList(strings.Repeat("w", w), "next", strings.Repeat("z", w))},
		{"wider than the screen", lineList(strings.Repeat("abc", 10), bold(strings.Repeat("é", 30)), "宽字符宽字符宽字符宽字符宽字符")},
		{"empty", ""},
		{"after empty", lineList("back", "again")},
	}
	out := newScreenOut(w, h)
	r := newFrameRenderer(out, newFakeNow().now, w, h)
	for _, st := range steps {
		r.draw(st.view)
		want := screen(st.view, w, h)
		if got := out.shown(h); got != want {
			t.Errorf("%s: screen\n%s\nwant\n%s", st.name, got, want)
		}
	}
}

func TestFrameRendererWritesOnlyWhatChanged(t *testing.T) {
	const w, h = 100, 34
	base := numbered(30, func(i int) string { return fmt.Sprintf("line %02d %s", i, bold("bright")) })
	out := newScreenOut(w, h)
	r := newFrameRenderer(out, newFakeNow().now, w, h)
	r.draw(lineList(base...))
	first := out.since(0)
	for _, seq := range []string{seqAltScreenOn, seqCursorHide, seqPasteOn, seqMouseCell, seqMouseSGR, seqHome} {
		if !strings.Contains(first, seq) {
			t.Errorf("first write %q lacks %q", first, seq)
		}
	}
	if want := (len(first) + maxWrite - 1) / maxWrite; len(out.writes) != want {
		t.Errorf("first frame (%d bytes) in %d writes, want %d of at most %d bytes", len(first), len(out.writes), want, maxWrite)
	}

	tests := []struct {
		name    string
		change  map[int]string
		want    []string // in the write
		notWant []string
		maxLen  int
	}{
		{"nothing", nil, nil, nil, 0},
		{"line 0", map[int]string{0: "zero"}, []string{seqHome + seqEraseRight + "zero"}, []string{"line 01"}, 20},
		{"line 1", map[int]string{1: "one"}, []string{seqHome + "\r\n" + seqEraseRight + "one"}, nil, 20},
		{"two far apart", map[int]string{3: "three", 20: "twenty"}, []string{"\x1b[4H" + seqEraseRight + "three", "\x1b[21H" + seqEraseRight + "twenty"}, []string{"line"}, 40},
		{"neighbours", map[int]string{5: "five", 6: "six"}, []string{"five\r\n" + seqEraseRight + "six"}, nil, 30},
	}
	prev := base
	for _, tt := range tests {
		next := append([]string(nil), prev...)
		for i, l := range tt.change {
			next[i] = l
		}
		n := len(out.writes)
		r.draw(lineList(next...))
		got := out.since(n)
		if r.buf != nil || r.bufBox != nil {
			t.Errorf("%s: the renderer keeps its output buffer between frames", tt.name)
		}
		if tt.change == nil {
			if got != "" {
				t.Errorf("%s: wrote %q for an unchanged view", tt.name, got)
			}
			continue
		}
		if len(out.writes)-n != 1 {
			t.Errorf("%s: %d writes, want 1", tt.name, len(out.writes)-n)
		}
		for _, s := range tt.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: write %q lacks %q", tt.name, got, s)
			}
		}
		for _, s := range tt.notWant {
			if strings.Contains(got, s) {
				t.Errorf("%s: write %q has %q", tt.name, got, s)
			}
		}
		if len(got) > tt.maxLen {
			t.Errorf("%s: %d bytes (%q), want at most %d", tt.name, len(got), got, tt.maxLen)
		}
		if want := screen(lineList(next...), w, h); out.shown(h) != want {
			t.Errorf("%s: screen\n%s\nwant\n%s", tt.name, out.shown(h), want)
		}
		prev = next
	}
}

func TestFrameRendererCommands(t *testing.T) {
	const w, h = 30, 5
	view := lineList("alpha", "beta")
	tests := []struct {
		name  string
		msg   tea.Msg
		want  []string
		whole bool // the frame is drawn again, every line
	}{
		{"clear screen", tea.ClearScreen(), []string{ansi.EraseEntireScreen + ansi.CursorHomePosition}, true},
		{"show cursor", tea.ShowCursor(), []string{seqCursorShow}, false},
		{"hide cursor", tea.HideCursor(), []string{seqCursorHide}, false},
		{"mouse off", tea.DisableMouse(), []string{seqMouseCellOff, seqMouseAllOff, seqMouseSGROff}, false},
		{"all motion", tea.EnableMouseAllMotion(), []string{seqMouseAll, seqMouseSGR}, false},
		{"paste off", tea.DisableBracketedPaste(), []string{seqPasteOff}, false},
		{"focus on", tea.EnableReportFocus(), []string{seqFocusOn}, false},
		{"exit alt screen", tea.ExitAltScreen(), []string{seqAltScreenOff, "alpha", "beta"}, true},
		{"enter alt screen", tea.EnterAltScreen(), []string{seqAltScreenOn, "alpha", "beta"}, true},
	}
	out := newScreenOut(w, h)
	r := newFrameRenderer(out, newFakeNow().now, w, h)
	r.draw(view)
	for _, tt := range tests {
		n := len(out.writes)
		if !r.command(tt.msg) {
			t.Fatalf("%s: not taken for a terminal command", tt.name)
		}
		r.draw(view)
		got := out.since(n)
		if len(out.writes)-n != 1 {
			t.Errorf("%s: %d writes, want 1", tt.name, len(out.writes)-n)
		}
		for _, s := range tt.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: write %q lacks %q", tt.name, got, s)
			}
		}
		if redrawn := strings.Contains(got, "alpha"); redrawn != tt.whole {
			t.Errorf("%s: redrawn %v, want %v (%q)", tt.name, redrawn, tt.whole, got)
		}
	}
	if r.command(tea.KeyMsg{}) || r.command(tea.BatchMsg{nil}) {
		t.Error("a key or a batch taken for a terminal command")
	}
}

func TestFrameRendererRestore(t *testing.T) {
	tests := []struct {
		name     string
		msgs     []tea.Msg
		want     []string
		notWant  []string
		farewell bool // the last view stays on the main screen
	}{
		{"from the alternate screen", nil, []string{seqPasteOff, seqCursorShow, seqMouseCellOff, seqMouseSGROff, seqAltScreenOff}, []string{seqFocusOff}, false},
		{"focus on", []tea.Msg{tea.EnableReportFocus()}, []string{seqFocusOff, seqAltScreenOff}, nil, false},
		{"after a farewell", []tea.Msg{tea.ExitAltScreen()}, []string{seqPasteOff, seqCursorShow, seqMouseCellOff}, []string{seqAltScreenOff}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := newScreenOut(40, 10)
			r := newFrameRenderer(out, newFakeNow().now, 40, 10)
			r.draw("playing")
			for _, m := range tt.msgs {
				r.command(m)
			}
			r.draw("\nsee you\n")
			n := len(out.writes)
			r.restore()
			got := out.since(n)
			for _, s := range tt.want {
				if !strings.Contains(got, s) {
					t.Errorf("restore %q lacks %q", got, s)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(got, s) {
					t.Errorf("restore %q has %q", got, s)
				}
			}
			if shown := strings.Contains(out.emu.String(), "see you"); shown != tt.farewell {
				t.Errorf("farewell on the screen after restore: %v, want %v", shown, tt.farewell)
			}
			n = len(out.writes)
			r.restore()
			if len(out.writes) != n {
				t.Error("a second restore wrote again")
			}
		})
	}
}

// pacedModel counts messages and shows the last one.
type pacedModel struct{ last string }

func (m pacedModel) Init() tea.Cmd { return nil }
func (m pacedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.last = fmt.Sprintf("%T %v", msg, msg)
	return m, nil
}
func (m pacedModel) View() string { return m.last }

type eventMsg int

func TestFramedModelPacesBursts(t *testing.T) {
	clock := newFakeNow()
	out := newScreenOut(40, 5)
	r := newFrameRenderer(out, clock.now, 40, 5)
	// The timer runs on the real clock: a flush may come early if the
	// test is slow, or twice after a timer is moved while firing; any
	// flush draws what is held, so the test only waits for one.
	flushes := make(chan struct{}, 16)
	r.send = func(msg tea.Msg) {
		if _, ok := msg.(flushMsg); ok {
			flushes <- struct{}{}
		}
	}
	awaitFlush := func() {
		t.Helper()
		select {
		case <-flushes:
		case <-time.After(5 * time.Second):
			t.Fatal("no flush asked within 5 s")
		}
	}
	var m tea.Model = &framedModel{model: pacedModel{}, r: r}
	m.Init()
	if r.frames != 1 {
		t.Fatalf("%d frames after Init, want 1", r.frames)
	}
	step := func(msg tea.Msg) {
		m, _ = m.Update(msg)
	}
	frames := func() int64 { return r.frames }

	step(eventMsg(1)) // the first frame was just written: held
	if frames() != 1 || !r.held || !r.armed {
		t.Fatalf("event right after a frame: frames %d held %v armed %v", frames(), r.held, r.armed)
	}
	step(eventMsg(2)) // still held, one timer
	clock.add(eventGap)
	awaitFlush()
	step(flushMsg{})
	if frames() != 2 || !strings.Contains(out.shown(5), "eventMsg 2") {
		t.Fatalf("after the flush: frames %d, screen %q", frames(), out.shown(5))
	}

	clock.add(inputGap)
	step(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k")}) // a key: inputGap is enough
	if frames() != 3 {
		t.Fatalf("key %s after a frame: frames %d, want 3", inputGap, frames())
	}
	clock.add(time.Millisecond)
	step(eventMsg(4)) // held: the timer is armed for eventGap after the key's frame
	clock.add(time.Millisecond)
	step(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")}) // held too, but due sooner: the timer is moved
	if frames() != 3 || !r.held || !r.due.Equal(r.last.Add(inputGap)) {
		t.Fatalf("key after a held event: frames %d, held %v, due %s after the last frame", frames(), r.held, r.due.Sub(r.last))
	}
	awaitFlush()
	step(flushMsg{})
	if frames() != 4 || !strings.Contains(out.shown(5), "j") {
		t.Fatalf("after the key's flush: frames %d, screen %q", frames(), out.shown(5))
	}
	step(tea.WindowSizeMsg{Width: 30, Height: 5}) // a resize: at once
	if frames() != 5 {
		t.Fatalf("resize: frames %d, want 5", frames())
	}
	clock.add(eventGap)
	step(eventMsg(3)) // an event long after the last frame: at once
	if frames() != 6 || r.held {
		t.Fatalf("event %s after a frame: frames %d held %v", eventGap, frames(), r.held)
	}
	step(flushMsg{}) // a late flush with nothing held draws nothing
	if frames() != 6 {
		t.Fatalf("flush with nothing held: frames %d, want 6", frames())
	}
	if v := m.View(); v != "" {
		t.Errorf("framedModel.View() = %q, want empty (the renderer draws)", v)
	}
	r.restore()
}

// BenchmarkProgramKey runs the arcade's menu and table as the server runs
// them (framedModel in a Bubble Tea program without its renderer, keys
// through Send) and reports, per key at 100×34, the bytes the renderer
// writes (B/key, before SSH) and the allocations of the whole key → frame
// path (Update, View, diff, write), Bubble Tea's event loop included.
func BenchmarkProgramKey(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		keys []tea.KeyMsg
	}{
		{"menu_100x34", nil, []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyUp}}},
		{"table_100x34", []string{"classic", "42"}, []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("l")}, {Type: tea.KeyRunes, Runes: []rune("h")}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			lr := lipgloss.NewRenderer(io.Discard)
			lr.SetColorProfile(termenv.ANSI256)
			lr.SetHasDarkBackground(true)
			model := tui.New(tui.Deps{Args: c.args, Unicode: true, Width: 100, Height: 34, Renderer: lr, Now: time.Now})
			out := &countingWriter{}
			// A clock a second later at every look: each key is drawn at
			// once, as a player's keys are, none held by the pacing.
			var ticks atomic.Int64
			base := time.Now()
			now := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Second) }
			r := newFrameRenderer(out, now, 100, 34)
			p := tea.NewProgram(&framedModel{model: model, r: r}, tea.WithInput(nil), tea.WithOutput(io.Discard),
				tea.WithoutRenderer(), tea.WithoutSignalHandler())
			r.send = p.Send
			before := runtime.NumGoroutine()
			done := make(chan struct{})
			go func() { defer close(done); _, _ = p.Run() }()
			p.Send(tea.WindowSizeMsg{Width: 100, Height: 34})
			start := out.writes.Load()
			bytes0 := out.bytes.Load()
			var n int
			b.ReportAllocs()
			for b.Loop() {
				w := out.writes.Load()
				p.Send(c.keys[n%len(c.keys)])
				n++
				deadline := time.Now().Add(5 * time.Second)
				for out.writes.Load() == w { // every key changes the screen
					if time.Now().After(deadline) {
						b.Fatal("no frame within 5 s")
					}
					runtime.Gosched()
				}
			}
			b.ReportMetric(float64(out.bytes.Load()-bytes0)/float64(n), "B/key")
			b.ReportMetric(float64(out.writes.Load()-start)/float64(n), "writes/key")
			p.Kill()
			<-done
			waitGoroutines(before)
		})
	}
}

// countingWriter counts bytes, and frames: writes of more than 16 bytes
// (Bubble Tea's standard renderer writes each terminal command on its
// own; those short writes are not frames).
type countingWriter struct{ writes, bytes atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.bytes.Add(int64(len(p)))
	if len(p) > 16 {
		w.writes.Add(1)
	}
	return len(p), nil
}

// BenchmarkProgramMemory is what a session's program keeps at the menu
// at 100×34 once it has drawn ten keys, per program, run as the server
// runs it (framed: this renderer) and as it ran before (standard: Bubble
// Tea's renderer at its default 60 fps): live heap, goroutine stacks,
// goroutines, and the bytes allocated per key.
func BenchmarkProgramMemory(b *testing.B) {
	const n = 50
	for _, framed := range []bool{true, false} {
		name := map[bool]string{true: "framed", false: "standard"}[framed]
		b.Run(name, func(b *testing.B) {
			before := runtime.NumGoroutine()
			var heap, stack, gors, garbage float64
			for b.Loop() {
				heap0, stack0 := memInUse()
				g0 := runtime.NumGoroutine()
				var allocs uint64
				progs := make([]*tea.Program, n)
				var wg sync.WaitGroup
				for i := range progs {
					lr := lipgloss.NewRenderer(io.Discard)
					lr.SetColorProfile(termenv.ANSI256)
					lr.SetHasDarkBackground(true)
					model := tui.New(tui.Deps{Unicode: true, Width: 100, Height: 34, Renderer: lr, Now: time.Now})
					out := &countingWriter{}
					var p *tea.Program
					if framed {
						var ticks atomic.Int64
						base := time.Now()
						r := newFrameRenderer(out, func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Second) }, 100, 34)
						p = tea.NewProgram(&framedModel{model: model, r: r}, tea.WithInput(nil), tea.WithOutput(io.Discard),
							tea.WithoutRenderer(), tea.WithoutSignalHandler())
						r.send = p.Send
					} else {
						p = tea.NewProgram(model, tea.WithInput(nil), tea.WithOutput(out),
							tea.WithoutSignalHandler(), tea.WithAltScreen(), tea.WithMouseCellMotion())
					}
					progs[i] = p
					wg.Add(1)
					go func() { defer wg.Done(); _, _ = p.Run() }()
					p.Send(tea.WindowSizeMsg{Width: 100, Height: 34})
					waitWrites(b, out, 1)
					before := totalAlloc()
					for k := range 10 {
						w := out.writes.Load()
						p.Send([]tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyUp}}[k%2])
						waitWrites(b, out, w+1)
					}
					allocs += totalAlloc() - before
				}
				heap1, stack1 := memInUse()
				heap = float64(int64(heap1)-int64(heap0)) / n
				stack = float64(int64(stack1)-int64(stack0)) / n
				gors = float64(runtime.NumGoroutine()-g0) / n
				garbage = float64(allocs) / (10 * n)
				for _, p := range progs {
					p.Kill()
				}
				wg.Wait()
			}
			b.ReportMetric(heap, "heap-B/program")
			b.ReportMetric(stack, "stack-B/program")
			b.ReportMetric(gors, "goroutines/program")
			b.ReportMetric(garbage, "alloc-B/key")
			waitGoroutines(before)
		})
	}
}

// waitWrites polls until out has seen at least n writes.
func waitWrites(tb testing.TB, out *countingWriter, n int64) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for out.writes.Load() < n {
		if time.Now().After(deadline) {
			tb.Fatalf("%d writes within 5 s, want %d", out.writes.Load(), n)
		}
		runtime.Gosched()
	}
}

// waitGoroutines polls, for a few seconds at most, until no more than n
// goroutines are left: the tui's clock ticks (tea.Tick goroutines) end
// within their step, and TestMain's leak check must not see them.
func waitGoroutines(n int) {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) //nolint:forbidigo // polling for goroutines to end, not synchronising
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

// randomView builds a view of up to h+2 lines from styled pieces: plain
// and wide text, bold, reverse, colours and backgrounds, some closed by a
// reset at once, some left open to the end of the line, where every line
// ends reset, as lipgloss's do (a style left open would run into the next
// line: line-based renderers all take each line to start reset).
func randomView(rng *mrand.Rand, w, h int) string {
	pieces := []string{"a", "bc", " ", "   ", "♠", "10♦", "宽", "é", "│", "[ 9♠]", "xyz"}
	styles := []string{"", "", "\x1b[1m", "\x1b[7m", "\x1b[1;7m", "\x1b[90m", "\x1b[91m", "\x1b[38;5;205m", "\x1b[44m", "\x1b[1;44;33m"}
	lines := make([]string, rng.IntN(h+3))
	for i := range lines {
		var b strings.Builder
		open := false
		for range rng.IntN(w / 3) {
			st := styles[rng.IntN(len(styles))]
			b.WriteString(st)
			b.WriteString(pieces[rng.IntN(len(pieces))])
			open = open || st != ""
			if open && rng.IntN(3) != 0 {
				b.WriteString("\x1b[m")
				open = false
			}
		}
		if open {
			b.WriteString("\x1b[m")
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

// mutate changes a few lines of view, or a few pieces of one line.
func mutate(rng *mrand.Rand, view string, w, h int) string {
	if rng.IntN(6) == 0 {
		return randomView(rng, w, h)
	}
	lines := strings.Split(view, "\n")
	other := strings.Split(randomView(rng, w, h), "\n")
	for range 1 + rng.IntN(3) {
		i := rng.IntN(len(lines))
		o := other[rng.IntN(len(other))]
		switch rng.IntN(3) {
		case 0:
			lines[i] = o
		case 1: // same start, new end
			lines[i] = ansi.Cut(lines[i], 0, rng.IntN(w)) + o
		default: // new start, same end
			lines[i] = o + ansi.Cut(lines[i], rng.IntN(w), w)
		}
	}
	return strings.Join(lines, "\n")
}

// Every frame drawn over the last one leaves the terminal exactly as the
// same view drawn on a fresh terminal: text, and every cell's style.
func TestFrameRendererMatchesAFreshDraw(t *testing.T) {
	const w, h = 24, 8
	rng := mrand.New(mrand.NewPCG(13, 14))
	out := newScreenOut(w, h)
	r := newFrameRenderer(out, newFakeNow().now, w, h)
	view := randomView(rng, w, h)
	for i := range 800 {
		r.draw(view)
		fresh := newScreenOut(w, h)
		newFrameRenderer(fresh, newFakeNow().now, w, h).draw(view)
		if got, want := out.emu.Render(), fresh.emu.Render(); got != want {
			t.Fatalf("frame %d of view %q:\ngot  %q\nwant %q\n(last write %q)", i, view, got, want, out.writes[len(out.writes)-1])
		}
		view = mutate(rng, view, w, h)
	}
}

// BenchmarkFrame is the renderer's own share of a key at 100×34: the
// frame of a key's view drawn over the one before (line and cell diff,
// into the output buffer), menu and table.
func BenchmarkFrame(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		keys []tea.KeyMsg
	}{
		{"menu_100x34", nil, []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyUp}}},
		{"table_100x34", []string{"classic", "42"}, []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("l")}, {Type: tea.KeyRunes, Runes: []rune("h")}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			lr := lipgloss.NewRenderer(io.Discard)
			lr.SetColorProfile(termenv.ANSI256)
			lr.SetHasDarkBackground(true)
			var m tea.Model = tui.New(tui.Deps{Args: c.args, Unicode: true, Width: 100, Height: 34, Renderer: lr, Now: time.Now})
			var views []string
			for _, k := range c.keys {
				m, _ = m.Update(k)
				views = append(views, m.View())
			}
			out := &countingWriter{}
			r := newFrameRenderer(out, time.Now, 100, 34)
			r.draw(views[1])
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				r.draw(views[i%2])
				i++
			}
		})
	}
}

// narrowRune's blocks are one cell wide for the ansi package too, and
// token measures text as ansi.StringWidth does.
func TestNarrowRunes(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		if narrowRune(r) {
			if w := ansi.StringWidth(string(r) + "a"); w != 2 {
				t.Errorf("%U %q: ansi width %d, want 1", r, r, w-1)
			}
		}
	}
	for _, s := range []string{"", "abc", "é", "e\u0301x", "宽字", "♠️", "👍🏽 ok", "\x1b[1;7m>8♣   <\x1b[m │4♠", "·→←│", "\x1b]8;;x\x1b\\link\x1b]8;;\x1b\\", "a\x1b[2Kb",
		"10♦", "1♦\u0301", "a♠️", "│4♠ ▒▒▒ ·x", "é\u0301", "→\u200d←", "a\u200db", "♠♥♦♣", "x←\ufe0f"} {
		if got, want := cells(s), ansi.StringWidth(s); got != want {
			t.Errorf("cells(%q) = %d, want %d", s, got, want)
		}
	}
}

// writesOut keeps each write apart.
type writesOut struct{ writes [][]byte }

func (w *writesOut) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

// TestFrameRendererSplitsLargeFrames: a repaint goes to the channel in
// writes of at most maxWrite bytes (the channel keeps buffers as large
// as its largest write), and shows the frame; a key's frame is one
// write.
func TestFrameRendererSplitsLargeFrames(t *testing.T) {
	const w, h = 100, 34
	full := lineList(numbered(h, func(i int) string { return bold(fmt.Sprintf("row %02d ", i)) + strings.Repeat("é", 80) })...)
	out := &writesOut{}
	r := newFrameRenderer(out, newFakeNow().now, w, h)
	r.draw(full)
	var all []byte
	for _, p := range out.writes {
		if len(p) > maxWrite {
			t.Errorf("a write of %d bytes, want at most %d", len(p), maxWrite)
		}
		all = append(all, p...)
	}
	if len(out.writes) < 2 {
		t.Fatalf("the repaint (%d bytes) went in %d write(s)", len(all), len(out.writes))
	}
	so := newScreenOut(w, h)
	for _, p := range out.writes {
		_, _ = so.Write(p)
	}
	if got, want := so.shown(h), screen(full, w, h); got != want {
		t.Errorf("the split frame shows\n%s\nwant\n%s", got, want)
	}
	out.writes = nil
	r.draw(strings.Replace(full, "row 03", "row 3!", 1))
	if len(out.writes) != 1 {
		t.Errorf("a one-line change went in %d writes, want 1", len(out.writes))
	}
}

// A view given in parts (PartsViewer) is drawn as the same view joined:
// the same bytes on the wire, however it is cut into parts, and a frame
// whose new parts say what the last frame's said writes nothing.
func TestFrameRendererParts(t *testing.T) {
	const w, h = 24, 8
	rng := mrand.New(mrand.NewPCG(15, 16))
	joined, parted := &bytes.Buffer{}, &bytes.Buffer{}
	rj := newFrameRenderer(joined, newFakeNow().now, w, h)
	rp := newFrameRenderer(parted, newFakeNow().now, w, h)
	view := randomView(rng, w, h+2) // taller than the screen: its top lines scroll off
	for i := range 400 {
		joined.Reset()
		parted.Reset()
		rj.draw(view)
		rp.drawParts(cutParts(rng, view))
		if joined.String() != parted.String() {
			t.Fatalf("frame %d of view %q:\nparts  %q\njoined %q", i, view, parted.String(), joined.String())
		}
		view = mutate(rng, view, w, h)
	}
	rp.drawParts(cutParts(rng, view))
	parted.Reset()
	frames := rp.frames
	rp.drawParts(cutParts(rng, strings.Clone(view)))
	if parted.Len() != 0 || rp.frames != frames {
		t.Errorf("the same view in new parts wrote %q (%d frames)", parted.String(), rp.frames-frames)
	}
}

// cutParts cuts a view into parts joined by newlines: whole lines, runs
// of lines, and empty parts where the view has an empty line.
func cutParts(rng *mrand.Rand, view string) []string {
	lines := strings.Split(view, "\n")
	var parts []string
	for len(lines) > 0 {
		n := 1 + rng.IntN(min(3, len(lines)))
		parts = append(parts, strings.Join(lines[:n], "\n"))
		lines = lines[n:]
	}
	return parts
}

// TestFrameRendererSynchronizesLongFrames: a frame that goes in several
// writes (the first one, a repaint) is bracketed with synchronized output
// so the terminal never shows it half drawn; a small one goes as it is.
func TestFrameRendererSynchronizesLongFrames(t *testing.T) {
	const w, h = 100, 34
	base := numbered(30, func(i int) string { return fmt.Sprintf("line %02d %s", i, bold("bright")) })
	out := newScreenOut(w, h)
	r := newFrameRenderer(out, newFakeNow().now, w, h)
	r.draw(lineList(base...))
	first := out.since(0)
	if len(out.writes) < 2 || !strings.HasPrefix(first, seqSyncBegin) || !strings.HasSuffix(first, seqSyncEnd) ||
		strings.Count(first, seqSyncBegin) != 1 || strings.Count(first, seqSyncEnd) != 1 {
		t.Errorf("first frame, %d writes: %q…%q, want it between %q and %q", len(out.writes), first[:20], first[len(first)-20:], seqSyncBegin, seqSyncEnd)
	}
	next := append([]string(nil), base...)
	next[3] = "three"
	n := len(out.writes)
	r.draw(lineList(next...))
	if got := out.since(n); strings.Contains(got, "2026") {
		t.Errorf("a one-line change %q is bracketed", got)
	}
	if want := screen(lineList(next...), w, h); out.shown(h) != want {
		t.Errorf("screen\n%s\nwant\n%s", out.shown(h), want)
	}
}

// clipMsg is a message with a terminal sequence, as the tui's copy to
// the clipboard is.
type clipMsg string

func (c clipMsg) TerminalSequence() string { return "\x1b]52;c;" + string(c) + "\a" }

// TestTerminalWriterGoesAtOnce: a message's terminal sequence is written
// at once, even right after a frame and with a view that did not change.
func TestTerminalWriterGoesAtOnce(t *testing.T) {
	clock := newFakeNow()
	out := newScreenOut(40, 5)
	r := newFrameRenderer(out, clock.now, 40, 5)
	r.send = func(tea.Msg) {}
	var m tea.Model = &framedModel{model: constModel("same"), r: r}
	m.Init()
	n := len(out.writes)
	_, _ = m.Update(clipMsg("aGk="))
	if got := out.since(n); !strings.Contains(got, "\x1b]52;c;aGk=\a") {
		t.Fatalf("after the message: wrote %q, want the sequence", got)
	}
}

// constModel is a model whose view never changes.
type constModel string

func (m constModel) Init() tea.Cmd                       { return nil }
func (m constModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return m, nil }
func (m constModel) View() string                        { return string(m) }
