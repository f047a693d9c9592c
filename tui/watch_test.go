package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pyramid/engine"
)

// solverLine is the engine's winning line of a deal from its start: the
// one real search of these tests, on deals it decides in a millisecond.
func solverLine(t *testing.T, spec string, n uint64) []engine.Move {
	t.Helper()
	g, err := engine.NewNumbered(engine.MustRules(spec), n)
	if err != nil {
		t.Fatal(err)
	}
	sol := engine.Solve(context.Background(), g, 0)
	if sol.Verdict != engine.Winnable {
		t.Fatalf("%s %d: the solver says %s, want winnable", spec, n, sol.Verdict)
	}
	return sol.Moves
}

// endGame plays the heuristic's line of a deal to its end through the
// prompt and fails unless it ends with status want.
func endGame(t *testing.T, h *harness, spec string, n uint64, want engine.Status) {
	t.Helper()
	moves, status := heuristicLine(t, spec, n)
	if status != want {
		t.Fatalf("the heuristic ends %s %d %s, want %s; pick another deal", spec, n, status, want)
	}
	h.keys(":")
	h.typeText(strings.Join(moves, " "))
	h.keys("enter")
	if got := h.game().Status(); got != want {
		t.Fatalf("%s %d is %s, want %s:\n%s", spec, n, got, want, h.screen())
	}
}

// isSolved reports whether a message is the solver's answer about a deal.
func isSolved(msg tea.Msg) bool { _, ok := msg.(solvedMsg); return ok }

// The answers the end screens show, and the fake solver that gives each
// ("asking" drops the answer, so that it never comes).
var answerCases = []struct {
	name   string
	solver func(t *testing.T) *fakeSolver
	want   string
}{
	{"asking", func(t *testing.T) *fakeSolver { return &fakeSolver{deal: engine.Winnable} }, "asking the solver…"},
	{"winnable", func(t *testing.T) *fakeSolver {
		return &fakeSolver{deal: engine.Winnable, line: solverLine(t, "classic", 3)}
	}, "watch a winning line (w)"},
	{"unwinnable", func(t *testing.T) *fakeSolver { return &fakeSolver{deal: engine.Unwinnable} }, "it was never winnable"},
	{"unknown", func(t *testing.T) *fakeSolver { return &fakeSolver{err: context.DeadlineExceeded} }, "The solver could not decide in time"},
}

func TestEndScreensGolden(t *testing.T) {
	for _, end := range []struct {
		name   string
		spec   string
		n      uint64
		status engine.Status
	}{
		{"win", "classic", 3, engine.Won},
		{"lost", "one-pass", 1, engine.Lost},
	} {
		for _, c := range answerCases {
			t.Run(end.name+"_"+c.name, func(t *testing.T) {
				s := c.solver(t)
				want := c.want
				if end.status == engine.Won && c.name == "winnable" {
					want = "watch the solver's line (w)" // not "could be won": it just was
				}
				h := newHarness(t, Deps{Args: []string{end.spec, itoa(int(end.n))}, Unicode: true, Solver: s})
				if c.name == "asking" {
					h.skip = isSolved
				}
				h.clock.advance(4*time.Minute + 12*time.Second)
				endGame(t, h, end.spec, end.n, end.status)
				h.wantScreen(want)
				if s.solves != 1 {
					t.Errorf("the solver was asked %d times, want once", s.solves)
				}
				for _, sz := range [][2]int{{80, 24}, {120, 40}} {
					h.resize(sz[0], sz[1])
					view := h.m.View()
					checkShape(t, view, sz[0], sz[1])
					name := end.name + "_solver_" + c.name + "_" + sizeName(sz)
					golden(t, name, ansi.Strip(view))
					if !strings.Contains(ansi.Strip(view), want) {
						t.Errorf("%s lacks %q", name, want)
					}
				}
			})
		}
	}
}

// dealAt is the message that seats deal n of spec as the menu's deal by
// number does.
func dealAt(spec string, n uint64) tea.Msg {
	r := engine.MustRules(spec)
	return menuPlayMsg{spec: dealSpec{rules: r, number: n, hasNumber: true}}
}

func sizeName(sz [2]int) string {
	return strings.Join([]string{itoa(sz[0]), itoa(sz[1])}, "x")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestNoSolverNoAnswer(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true})
	endGame(t, h, "one-pass", 1, engine.Lost)
	h.wantScreen("no moves left: undo (u) or start a new deal (n)")
	h.wantNotScreen("solver", "w watch")
	h.keys("w")
	if h.m.cur != screenTable {
		t.Errorf("w without a solver left the table")
	}
}

func TestAskedOncePerGame(t *testing.T) {
	s := &fakeSolver{deal: engine.Unwinnable}
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true, Solver: s})
	endGame(t, h, "one-pass", 1, engine.Lost)
	h.wantScreen("no moves left. No line of play wins this deal: it was never winnable")
	h.keys("u")
	h.wantNotScreen("never winnable")
	h.keys("r")
	h.wantScreen("no moves left. No line of play wins this deal: it was never winnable")
	h.keys("w") // nothing to watch
	if h.m.cur != screenTable || s.solves != 1 {
		t.Errorf("screen %d, %d solves; want the table and one solve", h.m.cur, s.solves)
	}
	// The note follows the width: at 60 columns the sentence alone.
	h.resize(60, 24)
	h.wantScreen("No line of play wins this deal: it was never winnable")
	h.wantNotScreen("no moves left.")
}

func TestDealAnewFromLost(t *testing.T) {
	// The answer came before the player dealt anew.
	s := &fakeSolver{deal: engine.Unwinnable}
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true, Solver: s})
	endGame(t, h, "one-pass", 1, engine.Lost)
	h.keys("n")
	h.wantScreen("One pass · hidden deal", "0 moves", "the deal you left could never have been won")
	// The answer comes after.
	s2 := &fakeSolver{deal: engine.Winnable, line: solverLine(t, "one-pass", 18)}
	h2 := newHarness(t, Deps{Args: []string{"one-pass", "18"}, Unicode: true, Solver: s2})
	var late []tea.Msg
	h2.skip = func(msg tea.Msg) bool {
		if isSolved(msg) {
			late = append(late, msg)
			return true
		}
		return false
	}
	endGame(t, h2, "one-pass", 18, engine.Lost)
	h2.wantScreen("asking the solver…")
	h2.keys("n")
	if len(late) != 1 {
		t.Fatalf("%d answers held back, want 1", len(late))
	}
	h2.wantNotScreen("the deal you left")
	h2.send(late[0])
	h2.wantScreen("0 moves", "the deal you left could have been won")
	// A won game dealt anew from says nothing of it.
	h3 := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: &fakeSolver{deal: engine.Winnable}})
	endGame(t, h3, "classic", 3, engine.Won)
	h3.keys("n")
	h3.wantNotScreen("the deal you left")
}

func TestWatchWinningLine(t *testing.T) {
	line := solverLine(t, "classic", 3)
	s := &fakeSolver{deal: engine.Winnable, line: line}
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: s, Player: testPlayer, Games: store})
	h.send(unfinishedMsg{})
	endGame(t, h, "classic", 3, engine.Won)
	h.wantScreen("watch the solver's line (w)", "w watch")
	h.wantNotScreen("This deal could be won")
	saves := len(store.saves)
	h.keys("w")
	if h.m.cur != screenWatch || h.m.watch() == nil {
		t.Fatalf("w did not open the watch screen:\n%s", h.screen())
	}
	if s.solves != 2 {
		t.Errorf("%d solves, want 2 (the answer, then the line to watch)", s.solves)
	}
	w := h.m.watch()
	fresh, _ := engine.NewNumbered(engine.Classic(), 3)
	h.wantScreen("Classic · deal 3", "watching the solver · move 0/"+itoa(len(line)), "next: ", "→ next", "a auto-play", "? help", "q back")
	h.wantNotScreen("←")
	if w.board.hint != line[0] {
		t.Errorf("the hinted move is %v, want the line's first, %v", w.board.hint, line[0])
	}
	if w.board.cursor != engine.NoPlace {
		t.Errorf("the watch has a cursor at %s", w.board.cursor)
	}
	// Forward to the end, with each of the keys.
	keys := []string{"l", "right", "space"}
	for i := range line {
		h.keys(keys[i%len(keys)])
	}
	if got := h.m.watch().Pos(); got != len(line) {
		t.Fatalf("at move %d after %d steps", got, len(line))
	}
	board := h.m.watch().Board()
	if board.Status() != engine.Won {
		t.Fatalf("the line's end is %s, want won:\n%s", board.Status(), h.screen())
	}
	replay := fresh.Clone()
	for _, m := range board.Moves() {
		if err := replay.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	if replay.Status() != engine.Won {
		t.Errorf("the moves the watch played do not win from the deal")
	}
	h.wantScreen("move "+itoa(len(line))+"/"+itoa(len(line)), "The solver cleared the pyramid", "the solver's line wins in")
	h.keys("l") // past the end: nothing
	if h.m.watch().Pos() != len(line) {
		t.Error("a step past the end moved")
	}
	// Backward to the start, with each of the keys.
	keys = []string{"h", "left"}
	for i := range line {
		h.keys(keys[i%len(keys)])
	}
	if got := h.m.watch().Pos(); got != 0 {
		t.Fatalf("at move %d after stepping back all the way", got)
	}
	if got, want := h.m.watch().Board().String(), fresh.String(); got != want {
		t.Errorf("the start of the line is not the deal:\n%s\nwant\n%s", got, want)
	}
	h.keys("G")
	if h.m.watch().Pos() != len(line) {
		t.Error("G did not jump to the end")
	}
	h.keys("g")
	if h.m.watch().Pos() != 0 {
		t.Error("g did not jump to the start")
	}
	// The help and back.
	h.keys("?")
	if h.m.cur != screenHelp || h.m.watch() == nil {
		t.Fatal("? on the watch screen did not open the help over it")
	}
	h.keys("q")
	if h.m.cur != screenWatch {
		t.Fatal("the help did not return to the watch screen")
	}
	h.keys("esc")
	if h.m.cur != screenTable || h.m.watch() != nil {
		t.Fatalf("esc did not leave the watch (screen %d)", h.m.cur)
	}
	// The player's game is as it was, and nothing was stored meanwhile.
	if g := h.game(); g.Status() != engine.Won || g.MovesMade() != 74 {
		t.Errorf("the player's game is %s in %d moves after watching", g.Status(), g.MovesMade())
	}
	h.wantScreen("You cleared the pyramid!", "74 moves")
	if len(store.saves) != saves {
		t.Errorf("%d saves while watching", len(store.saves)-saves)
	}
	h.keys("w", "q")
	if h.m.cur != screenTable {
		t.Error("q did not leave the watch")
	}
}

func TestWatchAutoPlay(t *testing.T) {
	line := solverLine(t, "classic", 3)
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: &fakeSolver{deal: engine.Winnable, line: line}})
	h.m.env.watchStep = time.Millisecond
	var ticks []tea.Msg
	h.skip = func(msg tea.Msg) bool {
		if _, ok := msg.(watchTickMsg); ok {
			ticks = append(ticks, msg)
			return true
		}
		return false
	}
	endGame(t, h, "classic", 3, engine.Won)
	h.keys("w", "a")
	h.wantScreen("a pause")
	for i := 1; i <= 3; i++ {
		if len(ticks) != 1 {
			t.Fatalf("%d ticks waiting, want 1", len(ticks))
		}
		tick := ticks[0]
		ticks = ticks[:0]
		h.send(tick)
		if got := h.m.watch().Pos(); got != i {
			t.Fatalf("at move %d after %d ticks", got, i)
		}
	}
	// Paused, the tick on its way does nothing, and none follows.
	h.keys("a")
	h.wantScreen("a auto-play")
	if len(ticks) != 1 {
		t.Fatalf("%d ticks on their way, want 1", len(ticks))
	}
	late := ticks[0]
	ticks = ticks[:0]
	h.send(late)
	if got := h.m.watch().Pos(); got != 3 || len(ticks) != 0 {
		t.Fatalf("a tick after the pause: at move %d, %d ticks", got, len(ticks))
	}
	// A tick of an earlier run does nothing once auto-play starts again.
	h.keys("a")
	stale := watchTickMsg{run: h.m.watch().run - 1}
	h.send(stale)
	if got := h.m.watch().Pos(); got != 3 {
		t.Fatalf("a stale tick moved to %d", got)
	}
	// Played to the end, auto-play stops there.
	for len(ticks) > 0 {
		tick := ticks[0]
		ticks = ticks[1:]
		h.send(tick)
	}
	if got := h.m.watch().Pos(); got != len(line) || h.m.watch().auto {
		t.Fatalf("auto-play stopped at move %d (auto %v), want the end", got, h.m.watch().auto)
	}
	if h.m.watch().Board().Status() != engine.Won {
		t.Error("auto-play's end is not won")
	}
	// At the end, a starts over.
	h.keys("a")
	if got := h.m.watch().Pos(); got != 0 || len(ticks) != 1 {
		t.Errorf("a at the end: at move %d with %d ticks, want 0 and 1", got, len(ticks))
	}
}

func TestWatchFromLost(t *testing.T) {
	// One pass 18: the heuristic loses it, the solver wins it in 45.
	line := solverLine(t, "one-pass", 18)
	s := &fakeSolver{deal: engine.Winnable, line: line}
	h := newHarness(t, Deps{Args: []string{"one-pass", "18"}, Unicode: true, Solver: s})
	endGame(t, h, "one-pass", 18, engine.Lost)
	h.wantScreen("no moves left. This deal could be won: watch a winning line (w)", "w watch", "? help", "q menu")
	lost := h.game().MovesMade()
	h.keys("w")
	h.wantScreen("watching the solver · move 0/45")
	h.keys("G")
	h.wantScreen("The solver cleared the pyramid", "move 45/45")
	h.keys("q")
	h.wantScreen("no moves left. This deal could be won", "lost")
	if g := h.game(); g.Status() != engine.Lost || g.MovesMade() != lost {
		t.Errorf("the player's lost game changed: %s in %d moves", g.Status(), g.MovesMade())
	}
	// The line is asked for again, and may not come.
	s.err = context.DeadlineExceeded
	h.keys("w")
	if h.m.cur != screenTable {
		t.Fatal("a failed line opened the watch")
	}
	h.wantScreen("no line to watch")
}

func TestWatchGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		spec string
		n    uint64
		at   int
	}{
		{"watch_80x24", "classic", 3, 12},
		{"watch_double_80x24", "double", 7, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := solverLine(t, c.spec, c.n)
			h := newHarness(t, Deps{Args: []string{c.spec, itoa(int(c.n))}, Unicode: true, Solver: &fakeSolver{deal: engine.Winnable, line: line}})
			// The watch opens from the end of a game; the line, not the
			// game, is what it shows.
			for _, m := range line {
				h.keys(":")
				h.typeText(m.String())
				h.keys("enter")
			}
			if h.game().Status() != engine.Won {
				t.Fatalf("the solver's line does not win %s %d", c.spec, c.n)
			}
			h.keys("w")
			for range c.at {
				h.keys("l")
			}
			view := h.m.View()
			checkShape(t, view, 80, 24)
			golden(t, c.name, ansi.Strip(view))
			h.wantScreen("watching the solver · move " + itoa(c.at) + "/" + itoa(len(line)))
		})
	}
}

func TestWatchAcrossScreens(t *testing.T) {
	line := solverLine(t, "classic", 3)
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: &fakeSolver{deal: engine.Winnable, line: line}})
	endGame(t, h, "classic", 3, engine.Won)
	h.keys("w", "l", "l")
	// A notice shows on the watch screen; resizing keeps the line's place.
	h.send(NoticeMsg{Text: "server restarts in 10 s"})
	h.wantScreen("server restarts in 10 s")
	h.resize(120, 40)
	h.wantScreen("watching the solver · move 2/")
	h.resize(30, 10)
	h.wantScreen("make the window larger")
	h.keys("l") // ignored while too small
	h.resize(80, 24)
	if h.m.watch().Pos() != 2 {
		t.Errorf("at move %d, want 2", h.m.watch().Pos())
	}
	// The game taken by another session drops the watch too.
	h.send(GameTakenMsg{ID: "x"}) // not this game: nothing
	if h.m.cur != screenWatch {
		t.Fatal("another game's takeover left the watch")
	}
	h.keys("ctrl+c")
	if !h.quit {
		t.Error("ctrl+c on the watch screen did not quit")
	}
}

// TestHelpBarKeepsQAndHelp: at 80 columns, whatever else the bar gives
// up, it shows how to leave (q) and the help (?) on every screen that
// has them.
func TestHelpBarKeepsQAndHelp(t *testing.T) {
	line := solverLine(t, "classic", 3)
	states := map[string]func(h *harness){
		"menu":          func(h *harness) { h.keys("q") },
		"fresh":         func(h *harness) {},
		"undo and redo": func(h *harness) { h.keys("d", "d", "d", "u") },
		"selected":      func(h *harness) { h.keys("enter") },
		"pass 2":        func(h *harness) { h.typeText(strings.Repeat("d", 25)); h.keys("u") },
		"won":           func(h *harness) { endGame(t, h, "classic", 3, engine.Won) },
		"watch":         func(h *harness) { endGame(t, h, "classic", 3, engine.Won); h.keys("w", "l") },
		"watch auto":    func(h *harness) { endGame(t, h, "classic", 3, engine.Won); h.keys("w", "l", "a") },
		"lost": func(h *harness) {
			h.send(dealAt("one-pass", 1))
			endGame(t, h, "one-pass", 1, engine.Lost)
		},
		"lost with undo and redo": func(h *harness) {
			h.send(dealAt("one-pass", 18))
			endGame(t, h, "one-pass", 18, engine.Lost)
			h.keys("u", "u", "r")
		},
	}
	for name, setup := range states {
		for _, unicode := range []bool{true, false} {
			for _, scheme := range []KeyScheme{SchemeVi, SchemeWASD} {
				s := &fakeSolver{deal: engine.Winnable, line: line}
				h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: unicode, Solver: s})
				h.m.env.watchStep = time.Millisecond
				h.skip = func(msg tea.Msg) bool { _, ok := msg.(watchTickMsg); return ok } // auto-play stays at its first move
				h.m.menu().Scheme = scheme
				h.send(menuSettingsMsg{})
				setup(h)
				lines := strings.Split(h.screen(), "\n")
				bar := lines[len(lines)-1]
				if !strings.Contains(bar, "q ") || !strings.Contains(bar, "? help") {
					t.Errorf("%s (unicode %v, scheme %d): the bar lacks q or ?: %q", name, unicode, scheme, bar)
				}
				if n := ansi.StringWidth(bar); n > 80 {
					t.Errorf("%s: the bar is %d cells wide", name, n)
				}
			}
		}
	}
}

func TestBarDropsLeastImportantFirst(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.keys("d", "d", "u")
	lines := strings.Split(h.screen(), "\n")
	got := lines[len(lines)-1]
	want := " enter select · d draw · u undo · H hint · : moves · ? help · n new · q menu …"
	if got != want {
		t.Errorf("the bar at 80 columns is\n%q, want\n%q", got, want)
	}
	// Wide enough, nothing gives way.
	h.resize(120, 40)
	lines = strings.Split(h.screen(), "\n")
	got = lines[len(lines)-1]
	want = " ←↑↓→ move · enter select · d draw · u undo · r redo · H hint · : moves · ? help · n new · q menu"
	if got != want {
		t.Errorf("the bar at 120 columns is\n%q, want\n%q", got, want)
	}
}

func TestHelpTellsOfWatch(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: &fakeSolver{}})
	h.resize(80, 60)
	h.keys("?")
	h.wantScreen("after a game: watch the solver win the deal from its start,", "(→ next, ← previous, a auto-play, q back)")
	h2 := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true})
	h2.resize(80, 60)
	h2.keys("?")
	h2.wantNotScreen("watch the solver")
}

func TestEndAndWatchASCII(t *testing.T) {
	line := solverLine(t, "classic", 3)
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Solver: &fakeSolver{deal: engine.Winnable, line: line}})
	endGame(t, h, "classic", 3, engine.Won)
	screens := map[string]string{"win": h.screen()}
	h.keys("w", "l")
	screens["watch"] = h.screen()
	h.keys("G")
	screens["watch end"] = h.screen()
	h.wantScreen("h: step back", "h previous")
	for name, s := range screens {
		for i, r := range s {
			if r > 127 {
				t.Errorf("%s: non-ASCII %q at byte %d:\n%s", name, r, i, s)
				break
			}
		}
	}
	golden(t, "watch_ascii_80x24", screens["watch"])
}

func TestResumedLostAsks(t *testing.T) {
	// A game stored at its lost position (stored as playing: undo may
	// leave it) asks the solver when it is resumed, as the lost screen
	// does when the game ends.
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true, Player: testPlayer, Games: store})
	endGame(t, h, "one-pass", 1, engine.Lost)
	if sg := store.games["g1"]; sg.Status != StatusPlaying {
		t.Fatalf("the lost game is stored as %q", sg.Status)
	}
	s := &fakeSolver{deal: engine.Unwinnable}
	h2 := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true, Player: testPlayer, Games: store, Solver: s})
	if h2.game().Status() != engine.Lost {
		t.Fatalf("resumed at %s", h2.game().Status())
	}
	if s.solves != 1 {
		t.Errorf("%d solves on resuming a lost game, want 1", s.solves)
	}
	h2.keys("u", "r")
	h2.wantScreen("no moves left. No line of play wins this deal: it was never winnable")
}
