package tui

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// analystSolver is fakeSolver with the second level answered by the real
// engine, or by canned answers when set.
type analystSolver struct {
	fakeSolver
	mu2 sync.Mutex
	// unknown makes WhereLost and Par answer as a solver out of budget.
	unknown bool
	// par, when above 0, is Par's answer for any deal: the shortest-line
	// search of some deals takes seconds under the race detector (the
	// arcade's tests check the real figures).
	par int
	// lost counts WhereLost calls, live StillWinnable calls, pars Par
	// calls.
	lost, live, pars int
}

var _ Analyst = (*analystSolver)(nil)

func (a *analystSolver) Par(ctx context.Context, r engine.Rules, d engine.Deal) (int, error) {
	a.mu2.Lock()
	a.pars++
	unknown, par := a.unknown, a.par
	a.mu2.Unlock()
	if unknown {
		return 0, ErrNoPar
	}
	if par > 0 {
		return par, nil
	}
	g, err := engine.NewGame(r, d)
	if err != nil {
		return 0, err
	}
	sol := engine.SolveOptimal(ctx, g, 0)
	if sol.Verdict != engine.Winnable || !sol.Optimal {
		return 0, ErrNoPar
	}
	return len(sol.Moves), nil
}

func (a *analystSolver) WhereLost(ctx context.Context, g *engine.Game) (engine.WinLoss, error) {
	a.mu2.Lock()
	a.lost++
	unknown := a.unknown
	a.mu2.Unlock()
	if unknown {
		return engine.WinLoss{Verdict: engine.Unknown}, nil
	}
	return engine.WhereLost(ctx, g, 0), nil
}

func (a *analystSolver) StillWinnable(ctx context.Context, g *engine.Game) (engine.Verdict, error) {
	a.mu2.Lock()
	a.live++
	a.mu2.Unlock()
	return engine.StillWinnable(ctx, g, 0), nil
}

// playLine types moves at the table's prompt.
func playLine(h *harness, moves []string) {
	h.t.Helper()
	h.keys(":")
	h.typeText(strings.Join(moves, " "))
	h.keys("enter")
}

func TestWinScreenPar(t *testing.T) {
	moves, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s); pick another deal", status)
	}
	tests := []struct {
		name    string
		unknown bool
		want    string
		golden  string
	}{
		{"par known", false, "74 moves, par 58", "win_par"},
		{"par unknown", true, "74 moves", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}, unknown: tt.unknown, par: 58}
			h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: s})
			h.clock.advance(4*time.Minute + 12*time.Second)
			playLine(h, moves)
			if h.game().Status() != engine.Won {
				t.Fatalf("not won:\n%s", h.screen())
			}
			h.wantScreen("You cleared the pyramid!", tt.want)
			if tt.unknown {
				h.wantNotScreen("par")
			}
			if s.pars != 1 {
				t.Errorf("%d questions for par, want 1", s.pars)
			}
			if tt.golden != "" {
				golden(t, tt.golden+"_80x24", h.screen())
				h.resize(120, 40)
				golden(t, tt.golden+"_120x40", h.screen())
			}
		})
	}
}

func TestParNote(t *testing.T) {
	tests := []struct {
		moves, par int
		want       string
	}{
		{1, 0, "1 move"},
		{74, 0, "74 moves"},
		{74, 58, "74 moves, par 58"},
	}
	for _, tt := range tests {
		if got := parNote(tt.moves, tt.par); got != tt.want {
			t.Errorf("parNote(%d, %d) = %q, want %q", tt.moves, tt.par, got, tt.want)
		}
	}
}

// classic 2: the heuristic's line loses it, and its 19th move (7.1+w)
// is the one that lost the win; a draw kept it.
const lostSpec, lostDeal, lostMove = "classic", 2, "move 19, 7.1+w, lost the win: d kept it"

func TestLostWhereLost(t *testing.T) {
	moves, status := heuristicLine(t, lostSpec, lostDeal)
	if status != engine.Lost {
		t.Fatalf("the heuristic does not lose %s %d any more (%s); pick another deal", lostSpec, lostDeal, status)
	}
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Args: []string{lostSpec, "2"}, Unicode: true, Solver: s})
	playLine(h, moves)
	h.wantScreen(lostMove, "w: watch from there", "lost")
	if s.lost != 1 || s.solves != 0 {
		t.Errorf("%d where-lost questions and %d solves, want 1 and 0", s.lost, s.solves)
	}
	golden(t, "lost_where_80x24", h.screen())
	h.resize(120, 40)
	golden(t, "lost_where_120x40", h.screen())
	h.resize(80, 24)

	// w watches the winning line from the position before move 19.
	h.keys("w")
	if h.m.cur != screenWatch {
		t.Fatalf("w did not open the watch screen:\n%s", h.screen())
	}
	w := h.m.watch()
	if w.Pos() != 0 || w.Board().MovesMade() != 18 {
		t.Fatalf("watch starts at line move %d, game move %d; want 0 and 18", w.Pos(), w.Board().MovesMade())
	}
	h.wantScreen("the solver from move 19", "next: ")
	golden(t, "watch_from_lost_80x24", h.screen())
	h.keys("G")
	if w.Board().Status() != engine.Won {
		t.Fatalf("the line from move 19 does not win:\n%s", h.screen())
	}
	h.keys("g")
	if w.Board().MovesMade() != 18 {
		t.Fatalf("home went to game move %d, want 18 (the line's start)", w.Board().MovesMade())
	}
	h.keys("q")
	if h.m.cur != screenTable {
		t.Fatalf("q did not go back to the table")
	}
	h.wantScreen(lostMove)

	// Undoing past the losing move makes the note false: it goes, and
	// a new loss on another line says nothing of the old one.
	for range len(moves) - 17 {
		h.keys("u")
	}
	if h.game().MovesMade() != 17 {
		t.Fatalf("%d moves after undo, want 17", h.game().MovesMade())
	}
	if got := h.m.table().lossNote(80); got != "" {
		t.Errorf("after undoing the losing move the note is %q, want none", got)
	}
}

func TestLostWhereUnknown(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}, unknown: true}
	h := newHarness(t, Deps{Args: []string{lostSpec, "2"}, Unicode: true, Solver: s})
	playLine(h, moves)
	h.wantScreen("The solver could not decide in time")
	h.wantNotScreen("lost the win", "watch")
}

func TestLostWhereNoAnalyst(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	s := &fakeSolver{deal: engine.Winnable}
	h := newHarness(t, Deps{Args: []string{lostSpec, "2"}, Unicode: true, Solver: s})
	playLine(h, moves)
	h.wantScreen("This deal could be won")
	h.wantNotScreen("lost the win")
}

// tellAccount is a fakeAccount that keeps settings.
type tellAccount struct {
	fakeAccount
	mu  sync.Mutex
	set map[string]string
	err error
}

func (a *tellAccount) Settings(ctx context.Context, player string) (map[string]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]string{}
	for k, v := range a.set {
		out[k] = v
	}
	return out, nil
}

func (a *tellAccount) SetSetting(ctx context.Context, player, name, value string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	a.set[name] = value
	return nil
}

// tellItem moves the menu's cursor to the setting.
func tellItem(h *harness) {
	h.t.Helper()
	mn := h.m.menu()
	for range len(mn.items) {
		if mn.items[mn.cur].kind == itemTellLost {
			return
		}
		h.keys("down")
	}
	h.t.Fatalf("no Tell me item in the menu:\n%s", h.screen())
}

func TestTellLostLive(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	acct := &tellAccount{set: map[string]string{}}
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true, Solver: s, Account: acct})
	tellItem(h)
	h.wantScreen("Tell me when a deal can no longer be won", "[ ] off")
	h.keys("enter")
	h.wantScreen("[x] on")
	if acct.set[settingTellLost] != "on" {
		t.Fatalf("setting kept as %q, want on", acct.set[settingTellLost])
	}
	// Off by default: a new session of another player has it off, this
	// player's next session has it on.
	h2 := newHarness(t, Deps{Player: testPlayer, Unicode: true, Solver: s, Account: acct, Args: []string{lostSpec, "2"}})
	if !h2.m.menu().TellLost || !h2.m.table().live.on {
		t.Fatalf("the kept setting is not loaded: menu %v, table %v", h2.m.menu().TellLost, h2.m.table().live.on)
	}
	// Move by move, the check after move 19 says the deal is lost.
	for i, mv := range moves[:18] {
		playLine(h2, []string{mv})
		if strings.Contains(h2.screen(), "can no longer be won") {
			t.Fatalf("after move %d (%s) the deal is said lost:\n%s", i+1, mv, h2.screen())
		}
	}
	playLine(h2, []string{moves[18]})
	h2.wantScreen("this deal can no longer be won (since move 19)")
	// It stays said after the next moves, without asking again.
	asked := s.live
	playLine(h2, []string{moves[19]})
	h2.wantScreen("this deal can no longer be won (since move 19)")
	if s.live != asked {
		t.Errorf("the solver was asked again about a lost line")
	}
	// Undo back before it: the next check finds it winnable again.
	h2.keys("u", "u")
	playLine(h2, []string{"d"})
	h2.wantNotScreen("can no longer be won")

	// Without the setting nothing is asked.
	s2 := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h3 := newHarness(t, Deps{Unicode: true, Solver: s2, Args: []string{lostSpec, "2"}})
	playLine(h3, moves[:20])
	if s2.live != 0 {
		t.Errorf("%d live checks with the setting off", s2.live)
	}
}

func TestTellLostLatestOnly(t *testing.T) {
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Unicode: true, Solver: s, Args: []string{lostSpec, "2"}})
	h.m.table().live.on = true
	// The checks' answers are held back: moves meanwhile start none.
	var held []liveMsg
	h.skip = func(msg tea.Msg) bool {
		if lm, ok := msg.(liveMsg); ok {
			held = append(held, lm)
			return true
		}
		return false
	}
	h.keys("d", "d", "d")
	if len(held) != 1 {
		t.Fatalf("%d checks in flight after three moves, want 1", len(held))
	}
	h.skip = nil
	h.send(held[0]) // an old position's answer: the latest is checked now
	if s.live != 2 {
		t.Fatalf("%d checks, want 2 (the first, then the latest)", s.live)
	}
	if v := h.m.table().live; v.busy || v.winAt != 3 {
		t.Errorf("after the latest check: %+v, want idle and winnable at move 3", v)
	}
}

func TestTellSettingSaveFails(t *testing.T) {
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	acct := &tellAccount{set: map[string]string{}, err: errors.New("db down")}
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true, Solver: s, Account: acct})
	tellItem(h)
	h.keys("enter")
	h.wantScreen("[x] on", "not kept for next time")
}

func TestBoardPar(t *testing.T) {
	want := "par 57 (the shortest winning line)"
	for _, sz := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x40", 120, 40}} {
		t.Run(sz.name, func(t *testing.T) {
			d := accountDeps(newFakeAccount())
			d.Solver = &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}, par: 57}
			h := newHarness(t, d)
			h.open(itemLeaders)
			h.resize(sz.w, sz.h)
			h.wantScreen(want, "bob")
			golden(t, "board_par_"+sz.name, h.screen())
			// Another day: its par is asked for that day.
			h.keys("left")
			h.wantScreen("2026-02-28")
		})
	}
	// Without an analyst the board says nothing of par.
	d := accountDeps(newFakeAccount())
	d.Solver = &fakeSolver{deal: engine.Winnable}
	h := newHarness(t, d)
	h.open(itemLeaders)
	h.wantNotScreen("par ")
}

func TestDailyStartPar(t *testing.T) {
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}, par: 57}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Solver: s})
	// The daily's rules are on the message line before the first move:
	// par comes after them.
	h.wantScreen("Daily", "A hint takes you off today's board · undo takes back removals only · par 57")
	if h.m.table().par != 57 {
		t.Errorf("the table keeps par %d, want 57 for its win panel", h.m.table().par)
	}
	// A deal that is not the daily one asks only once it is won.
	s2 := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}, par: 58}
	h2 := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: s2})
	h2.wantNotScreen("par ")
	if s2.pars != 0 {
		t.Errorf("%d questions for par before the win, want 0", s2.pars)
	}
	// A late answer about an earlier game is dropped.
	h2.send(parMsg{screen: screenTable, key: h2.m.token - 1, par: 12})
	if h2.m.table().par != 0 {
		t.Errorf("an earlier game's par reached the table")
	}
}

func TestHelpTellsOfWatchFromLoss(t *testing.T) {
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Args: []string{"classic", "2"}, Unicode: true, Solver: s, Width: 120, Height: 60})
	h.keys("?")
	h.wantScreen("after a loss: from the move that lost the win")
}

func TestTellLostTurnedOffMeanwhile(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Unicode: true, Solver: s, Args: []string{lostSpec, "2"}})
	var held []liveMsg
	h.skip = func(msg tea.Msg) bool {
		if lm, ok := msg.(liveMsg); ok {
			held = append(held, lm)
			return true
		}
		return false
	}
	playLine(h, moves[:18])
	h.m.table().live.on = true
	playLine(h, moves[18:19])
	if len(held) != 1 {
		t.Fatalf("%d checks, want 1", len(held))
	}
	h.skip = nil
	h.m.table().live.on = false
	h.send(held[0])
	h.wantNotScreen("can no longer be won")
}

func TestDealAnewSaysWhereLost(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	const want = "the deal you left could have been won: move 19, 7.1+w, lost it (d kept it)"
	// The answer came before the player dealt anew.
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Args: []string{lostSpec, "2"}, Unicode: true, Solver: s})
	playLine(h, moves)
	h.keys("n")
	h.wantScreen("0 moves", want)
	// The answer comes after.
	h2 := newHarness(t, Deps{Args: []string{lostSpec, "2"}, Unicode: true, Solver: s})
	var late []tea.Msg
	h2.skip = func(msg tea.Msg) bool {
		if _, ok := msg.(lostMsg); ok {
			late = append(late, msg)
			return true
		}
		return false
	}
	playLine(h2, moves)
	h2.keys("n")
	if len(late) != 1 {
		t.Fatalf("%d answers held back, want 1", len(late))
	}
	h2.wantNotScreen("the deal you left")
	h2.send(late[0])
	h2.wantScreen("0 moves", want)
}

// TestRaceClearedPanelPar: a racer who cleared the pyramid reads "N
// moves, par P" in the panel over the board, as the solo win screen
// says it, once the par is known.
func TestRaceClearedPanelPar(t *testing.T) {
	line, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s)", status)
	}
	a := &analystSolver{par: 41}
	snap := raceRoom(2, lobby.PhaseRacing)
	snap.Deal = 3
	snap.Members[0].Finish = 3*time.Second + 300*time.Millisecond // a clock that makes the line long
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Solver: a, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	h.keys(":")
	h.typeText(strings.Join(line, " "))
	h.keys("enter")
	h.send(raceDoneMsg{what: "move", play: true, seq: 1, round: 1})
	want := strconv.Itoa(len(line)) + " moves, par 41"
	s := screenOf(h)
	if !strings.Contains(s, "You cleared the pyramid!") || !strings.Contains(s, want) {
		t.Fatalf("want the cleared panel with %q:\n%s", want, s)
	}
	// At 80 columns the line is too long for the panel: it breaks
	// between its parts, none of them cut (seen: "ime 0:03.3 · … passe").
	for _, part := range []string{"time 0:03.3", "3 of 3 passes"} {
		if !strings.Contains(s, part) {
			t.Errorf("the panel cuts %q:\n%s", part, s)
		}
	}
}

// TestTellLostLoadedLate: the player's setting "Tell me when a deal can
// no longer be won" may come from the store after the game was seated
// and moves were made (a slow store): the position on the table is then
// checked at once, not only after the next move, which may never come.
func TestTellLostLoadedLate(t *testing.T) {
	moves, _ := heuristicLine(t, lostSpec, lostDeal)
	s := &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true, Solver: s, Args: []string{lostSpec, "2"}})
	for _, mv := range moves[:19] {
		playLine(h, []string{mv})
	}
	h.wantNotScreen("can no longer be won")
	h.send(settingsMsg{values: map[string]string{settingTellLost: "on"}})
	h.wantScreen("this deal can no longer be won (since move 19")
}
