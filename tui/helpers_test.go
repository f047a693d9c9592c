package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"pyramid/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// epoch is the fake clock's start: 2026-03-01 12:00 UTC.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a clock the test moves by hand. It fails the test when it
// is read inside Update, which must stay pure.
type fakeClock struct {
	t        *testing.T
	mu       sync.Mutex
	now      time.Time
	inUpdate bool
	reads    int
}

func newClock(t *testing.T) *fakeClock { return &fakeClock{t: t, now: epoch} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inUpdate {
		c.t.Errorf("the clock was read inside Update")
	}
	c.reads++
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) setInUpdate(b bool) {
	c.mu.Lock()
	c.inUpdate = b
	c.mu.Unlock()
}

// renderer returns a session renderer with a fixed colour profile.
func renderer(p termenv.Profile) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(p)
	r.SetHasDarkBackground(true)
	return r
}

// harness drives a Model as Bubble Tea would: every command is run and
// its messages fed back until none are left.
type harness struct {
	t     *testing.T
	m     *Model
	clock *fakeClock
	quit  bool
	// skip drops messages of these kinds instead of delivering them.
	skip func(tea.Msg) bool
}

// newHarness builds a model from deps (with the harness's clock and an
// ANSI renderer unless set) and runs its Init.
func newHarness(t *testing.T, d Deps) *harness {
	t.Helper()
	h := &harness{t: t, clock: newClock(t)}
	if d.Now == nil {
		d.Now = h.clock.Now
	}
	if d.Rand == nil {
		d.Rand = zeros{} // the session's deal seed: all zeros (firstDeal)
	}
	if d.Renderer == nil {
		d.Renderer = renderer(termenv.ANSI256)
	}
	if d.Width == 0 {
		d.Width, d.Height = 80, 24
	}
	h.m = New(d)
	// Timers (the shutdown's wait) never fire by themselves here: the
	// harness runs commands in line, and a test sends their message.
	h.m.env.wait = func(time.Duration, func() tea.Msg) tea.Cmd { return nil }
	h.run(h.m.Init())
	return h
}

// send delivers a message and everything its commands lead to.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	h.clock.setInUpdate(true)
	next, cmd := h.m.Update(msg)
	h.clock.setInUpdate(false)
	h.m = next.(*Model)
	h.run(cmd)
}

// run runs a command and delivers its messages.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case tea.QuitMsg:
		h.quit = true
	default:
		if cmds, ok := sequence(msg); ok {
			for _, c := range cmds {
				h.run(c)
			}
			return
		}
		if h.skip != nil && h.skip(msg) {
			return
		}
		if strings.Contains(strings.ToLower(typeName(msg)), "clearscreen") {
			return
		}
		h.send(msg)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

// sequence returns the commands of tea.Sequence's message, which Bubble
// Tea runs one after the other.
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return nil, false
	}
	cmds := make([]tea.Cmd, v.Len())
	for i := range cmds {
		cmds[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}

// keys sends key presses: names such as "enter", "left", "ctrl+c", or
// single characters; a word in quotes ('7.1+7.4') is typed rune by rune.
func (h *harness) keys(names ...string) {
	h.t.Helper()
	for _, n := range names {
		h.send(keyMsg(n))
	}
}

// typeText types text rune by rune.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		if r == ' ' {
			h.send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
			continue
		}
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// keyMsg builds the KeyMsg of a key name.
func keyMsg(n string) tea.KeyMsg {
	switch n {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "ctrl+l":
		return tea.KeyMsg{Type: tea.KeyCtrlL}
	case "ctrl+z":
		return tea.KeyMsg{Type: tea.KeyCtrlZ}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(n)}
}

// click sends a left click at (x, y).
func (h *harness) click(x, y int) {
	h.t.Helper()
	h.send(tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
}

// resize sends a window size.
func (h *harness) resize(w, ht int) { h.t.Helper(); h.send(tea.WindowSizeMsg{Width: w, Height: ht}) }

// screen is the view without escape sequences.
func (h *harness) screen() string { return ansi.Strip(h.m.View()) }

// game is the game on the table; it fails the test when there is none.
func (h *harness) game() *engine.Game {
	h.t.Helper()
	if !h.m.playing {
		h.t.Fatalf("no game on the table; screen:\n%s", h.screen())
	}
	return h.m.table().Game()
}

// wantScreen fails unless the screen contains every string.
func (h *harness) wantScreen(subs ...string) {
	h.t.Helper()
	s := h.screen()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			h.t.Errorf("screen lacks %q:\n%s", sub, s)
		}
	}
}

// wantNotScreen fails if the screen contains any of the strings.
func (h *harness) wantNotScreen(subs ...string) {
	h.t.Helper()
	s := h.screen()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			h.t.Errorf("screen has %q:\n%s", sub, s)
		}
	}
}

// golden compares text with testdata/name.golden, rewriting it with
// -update. Trailing blanks are dropped from every line.
func golden(t *testing.T, name, text string) {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	got := b.String()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// checkShape fails unless a view has exactly h lines, none wider than w.
func checkShape(t *testing.T, view string, w, h int) {
	t.Helper()
	ls := strings.Split(view, "\n")
	if len(ls) != h {
		t.Errorf("view has %d lines, want %d", len(ls), h)
	}
	for i, l := range ls {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, window is %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

// redeemForm is the redeem screen, or nil.
func (m *Model) redeemForm() *redeemScreen {
	f, _ := m.screens[screenRedeem].(*redeemScreen)
	return f
}

// nameForm is the name screen, or nil.
func (m *Model) nameForm() *nameScreen {
	f, _ := m.screens[screenName].(*nameScreen)
	return f
}

// lineOf returns the first line of s holding sub.
func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// zeros is a source of random bytes that are all zero: the harness's
// sessions draw the same deals every time.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// seedDeal is the n-th new deal of a harness's session (zeros).
func seedDeal(n int) uint64 { return seededDeal([32]byte{}, n) }
