package tui

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/vt"
	"github.com/muesli/termenv"
)

// lipglossBar is the help bar as lipgloss writes it: every piece in its
// style, then a full reset. fit writes shorter escape sequences; the
// terminal must show the same.
func lipglossBar(e *env, bindings []key.Binding) string {
	var b strings.Builder
	piece := func(id styleID, s string) {
		if e.pal.open[id] == "" {
			b.WriteString(s)
			return
		}
		b.WriteString(e.pal.open[id] + s + "\x1b[0m")
	}
	first := true
	for _, kb := range bindings {
		if !kb.Enabled() {
			continue
		}
		if !first {
			piece(sDesc, e.gl.sep)
		}
		first = false
		piece(sKey, kb.Help().Key)
		b.WriteByte(' ')
		piece(sDesc, kb.Help().Desc)
	}
	return b.String()
}

// TestBarOnScreen checks that the help bar shows on a terminal exactly
// as lipgloss's rendering of it does: every cell's character, and the
// style of every cell that is not a blank (a blank shows no foreground
// colour or boldness).
func TestBarOnScreen(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 200, Height: 34, Renderer: renderer(p)})
		e := m.env
		bindings := m.table().Keys.ShortHelp()
		got, want := fit(e, bindings, nil, 200), lipglossBar(e, bindings)
		if len(got) > len(want) {
			t.Errorf("profile %v: the bar is %d bytes, lipgloss's %d", p, len(got), len(want))
		}
		gt, wt := vt.NewEmulator(200, 1), vt.NewEmulator(200, 1)
		_, _ = gt.WriteString(got)
		_, _ = wt.WriteString(want)
		for x := range 200 {
			g, w := gt.CellAt(x, 0), wt.CellAt(x, 0)
			if g.Content != w.Content {
				t.Fatalf("profile %v: column %d shows %q, want %q\ngot  %q\nwant %q", p, x, g.Content, w.Content, got, want)
			}
			if g.Content != " " && g.Content != "" && !g.Style.Equal(&w.Style) {
				t.Errorf("profile %v: column %d (%q) has style %+v, want %+v", p, x, g.Content, g.Style, w.Style)
			}
			if g.Style.Bg != nil || w.Style.Bg != nil {
				t.Errorf("profile %v: column %d has a background", p, x)
			}
		}
	}
}

// TestBarKeepsTwo: a bar that goes back and forth between two (a race's
// every move: undo enabled by a removal, disabled by a draw) is drawn
// once each, then taken from the cache, as a fresh bar would draw it.
func TestBarKeepsTwo(t *testing.T) {
	m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 100, Height: 34, Renderer: renderer(termenv.ANSI256)})
	e := m.env
	a := m.table().Keys.ShortHelp()
	b := append([]key.Binding(nil), a...)
	b[0].SetEnabled(!b[0].Enabled())
	h := newHelpBar()
	wantA, wantB := newHelpBar().view(e, a, 100), newHelpBar().view(e, b, 100)
	if wantA == wantB {
		t.Fatal("the two bars are the same")
	}
	h.view(e, a, 100)
	h.view(e, b, 100)
	allocs := testing.AllocsPerRun(20, func() {
		if got := h.view(e, a, 100); got != wantA {
			t.Fatalf("bar a: got %q, want %q", got, wantA)
		}
		if got := h.view(e, b, 100); got != wantB {
			t.Fatalf("bar b: got %q, want %q", got, wantB)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations drawing two kept bars, want 0", allocs)
	}
}

// TestBarKeepsThree: a race's bar goes through three states (undo on,
// a draw off, the prompt open), each drawn once; a fourth
// drops the oldest, which is drawn again when it comes back.
func TestBarKeepsThree(t *testing.T) {
	m := New(Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 100, Height: 34, Renderer: renderer(termenv.ANSI256)})
	e := m.env
	bindings := m.table().Keys.ShortHelp()
	state := func(off ...int) []key.Binding {
		bs := append([]key.Binding(nil), bindings...)
		for _, i := range off {
			bs[i].SetEnabled(false)
		}
		return bs
	}
	states := [][]key.Binding{state(), state(2), state(0, 1, 2, 6), state(5)}
	for i := range states {
		for j := range i {
			if newHelpBar().view(e, states[i], 100) == newHelpBar().view(e, states[j], 100) {
				t.Fatalf("bars %d and %d are the same", j, i)
			}
		}
	}
	want := make([]string, len(states))
	for i, s := range states {
		want[i] = newHelpBar().view(e, s, 100)
	}
	h := newHelpBar()
	for i := range 3 {
		h.view(e, states[i], 100)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for i := range 3 {
			if got := h.view(e, states[i], 100); got != want[i] {
				t.Fatalf("bar %d: got %q, want %q", i, got, want[i])
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations drawing three kept bars, want 0", allocs)
	}
	// The last drawn was states[2]; states[0] is the oldest.
	first := unsafe.StringData(h.view(e, states[0], 100))
	h.view(e, states[1], 100)
	h.view(e, states[2], 100)
	h.view(e, states[3], 100) // a fourth: states[0] goes
	got := h.view(e, states[0], 100)
	if got != want[0] {
		t.Errorf("after a fourth bar: got %q, want %q", got, want[0])
	}
	if unsafe.StringData(got) == first {
		t.Error("the oldest bar is still kept after a fourth: want three kept")
	}
}
