package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// The narrow board: a phone's terminal of 40×20 plays a single game, the
// daily, a double deal and a race.

// TestNarrowGolden: the screens of a 40-column window, each within its
// size.
func TestNarrowGolden(t *testing.T) {
	tests := []struct {
		name  string
		deps  Deps
		w, h  int
		setup func(h *harness)
		want  []string
	}{
		{"table_40x20", Deps{Args: []string{"classic", "42"}, Unicode: true}, 40, 20,
			func(h *harness) { h.keys("enter", "right") }, []string{"*8♣*>4♠<[9♣][T♦]", "stock [▒▒] 24", "? help"}},
		{"table_ascii_40x20", Deps{Args: []string{"classic", "42"}}, 40, 20,
			func(h *harness) { h.keys("enter", "right") }, []string{"*8C*>4S<[9C][TD]", "stock [##] 24", "? help"}},
		{"drawthree_40x20", Deps{Args: []string{"classic,draw=3", "5"}, Unicode: true}, 40, 20,
			func(h *harness) { h.keys("d") }, []string{"waste [J♥] [9♦] [8♥]"}},
		{"daily_40x20", Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &fakeGames{},
			Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}}, 40, 20, nil,
			[]string{"Daily · 2026-03-01", "A hint takes you off today's board", "? help"}},
		{"daily_won_40x20", Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &recordingGames{res: SaveResult{Status: StatusWon}},
			Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}}, 40, 20,
			func(h *harness) { endGame(h.t, h, "daily", 3, engine.Won) }, []string{"You cleared the pyramid!", "replay (practice)", "cleared · 0:00 · 74 moves"}},
		{"lost_40x20", Deps{Args: []string{"one-pass", "1"}, Unicode: true}, 40, 20,
			func(h *harness) { endGame(h.t, h, "one-pass", 1, engine.Lost) }, []string{"no moves left: undo (u)", "[2♦]", "u undo"}},
		{"double_40x16", Deps{Args: []string{"double", "7"}, Unicode: true}, 40, 16, nil,
			[]string{"Double · deal 7", "0/45"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.deps
			d.Width, d.Height = tt.w, tt.h
			h := newHarness(t, d)
			if tt.setup != nil {
				tt.setup(h)
			}
			if !h.m.table().lay.geo.narrow() {
				t.Errorf("the board at %d×%d is not the narrow one", tt.w, tt.h)
			}
			s := h.screen()
			checkShape(t, h.m.View(), tt.w, tt.h)
			for _, want := range tt.want {
				if !strings.Contains(s, want) {
					t.Errorf("the screen lacks %q:\n%s", want, s)
				}
			}
			golden(t, tt.name, s)
		})
	}
}

// TestNarrowRaceGolden: a race's waiting room, board and panel, and
// results at 40×20; eight racers go two to a panel line.
func TestNarrowRaceGolden(t *testing.T) {
	results := []lobby.Placing{
		{Place: 1, ID: "p1", Name: "racer1", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 83 * time.Second},
		{Place: 2, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 38, Time: 75 * time.Second},
		{Place: 3, ID: "p2", Name: "racer2", State: lobby.RacerStuck, Removed: 12, Moves: 30, Time: 65 * time.Second},
		{Place: 4, ID: "p3", Name: "racer3", State: lobby.RacerLeft, Removed: 2, Moves: 3, Time: 5 * time.Second},
	}
	tests := []struct {
		name   string
		racers int
		phase  lobby.Phase
		want   []string
	}{
		{"race_waiting_40x20", 2, lobby.PhaseWaiting, []string{"racer0 host  not ready  (you)", "everybody is ready (1 not yet)."}},
		{"race_racing_40x20", 3, lobby.PhaseRacing, []string{">8♣<[4♠]", ">racer0", " racer2", "? help"}},
		{"race_racing8_40x20", 8, lobby.PhaseRacing, []string{">8♣<[4♠]", ">racer0  0/28", "racer3 12/28 stuck", "racer4 28/28 clear", "racer5  0/28 left", "? help"}},
		{"race_results_40x20", 4, lobby.PhaseResults, []string{"1. racer1 cleared in 1:23.0", "2. racer0 20/28 at 1:15.0 (stuck)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := raceRoom(tt.racers, tt.phase)
			switch tt.phase {
			case lobby.PhaseResults:
				snap.Results = results
			case lobby.PhaseRacing:
				if tt.racers > 5 {
					snap.Members[3].State, snap.Members[3].Removed = lobby.RacerStuck, 12
					snap.Members[4].State, snap.Members[4].Removed = lobby.RacerCleared, 28
					snap.Members[5].Present = false
				}
			}
			h, _ := raceHarness(t, snap, 40, 20)
			s := screenOf(h)
			checkShape(t, h.m.View(), 40, 20)
			for _, want := range tt.want {
				if !strings.Contains(s, want) {
					t.Errorf("the screen lacks %q:\n%s", want, s)
				}
			}
			golden(t, tt.name, s)
		})
	}
}

// TestNarrowPlayThrough: a deal is won at 40×20 with the keys alone, the
// arrows walking the cursor over the narrow board to each card of the
// line, enter taking it, d drawing; every frame fits the window.
func TestNarrowPlayThrough(t *testing.T) {
	line, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s); pick another deal", status)
	}
	moves, err := engine.ParseMoves(strings.Join(line, " "))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Width: 40, Height: 20})
	for i, m := range moves {
		switch m.Kind {
		case engine.Draw, engine.Redeal:
			h.keys("d")
		case engine.RemoveKing:
			walkTo(h, m.A)
			h.keys("enter")
		case engine.RemovePair:
			walkTo(h, m.A)
			h.keys("enter")
			walkTo(h, m.B)
			h.keys("enter")
		}
		if got := h.game().MovesMade(); got != i+1 {
			t.Fatalf("move %d (%s) not played by keys: %d moves made:\n%s", i+1, m, got, h.screen())
		}
		checkShape(t, h.m.View(), 40, 20)
	}
	if h.game().Status() != engine.Won {
		t.Fatalf("not won:\n%s", h.screen())
	}
	h.wantScreen("You cleared the pyramid!", "won")
}

// racerLobby is a lobby where racer1 races in room KMTX.
func racerLobby() *fakeLobby {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "p1", Name: "racer1"}, Doing: lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 42, Room: "KMTX"}, Session: 2},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	return fl
}

// walkTo moves the table's cursor to p with the arrow keys, the shortest
// way the board's navigation allows.
func walkTo(h *harness, p engine.Place) {
	h.t.Helper()
	b := h.m.table().board // a copy to try the keys on
	steps := map[string][2]int{"left": {-1, 0}, "right": {1, 0}, "up": {0, -1}, "down": {0, 1}}
	from := map[engine.Place][]string{b.cursor: nil}
	queue := []engine.Place{b.cursor}
	for len(queue) > 0 && from[p] == nil && b.cursor != p {
		at := queue[0]
		queue = queue[1:]
		for _, k := range []string{"left", "right", "up", "down"} {
			b.cursor = at
			b.move(steps[k][0], steps[k][1])
			if _, seen := from[b.cursor]; !seen {
				from[b.cursor] = append(append([]string(nil), from[at]...), k)
				queue = append(queue, b.cursor)
			}
		}
	}
	path, ok := from[p]
	if !ok {
		h.t.Fatalf("the arrows do not reach %s:\n%s", p, h.screen())
	}
	h.keys(path...)
	if got := h.m.table().cursor; got != p {
		h.t.Fatalf("the cursor is at %s, want %s", got, p)
	}
}

// TestNarrowClicks: a click on a card of the narrow board selects that
// card, a click beside the cards selects nothing, a click on the stock
// draws.
func TestNarrowClicks(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 40, Height: 20})
	tb := h.m.table()
	for c := 1; c <= 7; c++ {
		p := engine.Slot(7, c)
		x, y := cellOf(h, p)
		for _, dx := range []int{-1, 0, 1, 2} { // every cell of a four-cell card
			h.keys("esc")
			h.click(x+dx-tb.lay.geo.cardW/2+1, y)
			if got := h.m.table().sel; got != p {
				t.Errorf("a click on %s (column %d) selected %s:\n%s", p, x+dx-tb.lay.geo.cardW/2+1, got, h.screen())
			}
		}
	}
	h.keys("esc")
	x, y := cellOf(h, engine.Slot(7, 1))
	h.click(x-3, y)
	if got := h.m.table().sel; got != engine.NoPlace {
		t.Errorf("a click left of the pyramid selected %s", got)
	}
	x, y = cellOf(h, engine.Stock)
	h.click(x, y)
	if h.game().MovesMade() != 1 {
		t.Errorf("a click on the stock did not draw:\n%s", h.screen())
	}
}

// TestNarrowScreensFit: every screen of a 40×20 window shows within it,
// or says precisely what it needs: the size it names shows the screen
// within it. A single game, the daily, a double deal and a race fit.
func TestNarrowScreensFit(t *testing.T) {
	type screenCase struct {
		name  string
		deps  Deps
		setup func(h *harness)
		fits  bool // must show at 40×20
	}
	acc := func() Deps { return accountDeps(newFakeAccount()) }
	cases := []screenCase{
		{"menu", Deps{Player: testPlayer, Unicode: true}, nil, true},
		{"menu_ascii", Deps{Player: Player{Guest: true}}, nil, true},
		{"classic", Deps{Args: []string{"classic", "42"}, Unicode: true}, nil, true},
		{"classic_ascii", Deps{Args: []string{"classic", "42"}}, nil, true},
		{"double", Deps{Args: []string{"double", "7"}, Unicode: true}, nil, true},
		{"double_ascii", Deps{Args: []string{"double", "7"}}, nil, true},
		{"drawthree", Deps{Args: []string{"classic,draw=3", "5"}, Unicode: true}, nil, true},
		{"daily", Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &fakeGames{},
			Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}}, nil, true},
		{"prompt", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys(":"); h.typeText("7.1+7.5 d") }, true},
		{"help", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys("?") }, true},
		{"confirm", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys("d", "q", "down", "enter") }, true},
		{"won", Deps{Args: []string{"classic", "3"}, Unicode: true}, func(h *harness) { endGame(h.t, h, "classic", 3, engine.Won) }, true},
		{"lost", Deps{Args: []string{"one-pass", "1"}, Unicode: true}, func(h *harness) { endGame(h.t, h, "one-pass", 1, engine.Lost) }, true},
		{"custom", Deps{Player: testPlayer, Unicode: true}, func(h *harness) { h.open(itemCustom) }, false},
		{"number", Deps{Player: testPlayer, Unicode: true}, func(h *harness) { h.open(itemNumber) }, false},
		{"stats", acc(), func(h *harness) { h.open(itemStats) }, false},
		{"name", acc(), func(h *harness) { h.open(itemName) }, false},
		{"link", acc(), func(h *harness) { h.open(itemLink) }, false},
		{"redeem", acc(), func(h *harness) { h.open(itemRedeem) }, false},
		{"lobby", Deps{Player: testPlayer, Unicode: true, Lobby: newFakeLobby()}, func(h *harness) { h.open(itemLobby) }, false},
		{"race_join", Deps{Player: testPlayer, Unicode: true, Races: &fakeRaces{}}, func(h *harness) { h.open(itemRaceJoin) }, true},
		{"watch", Deps{Args: []string{"classic", "3"}, Unicode: true, Solver: &fakeSolver{deal: engine.Winnable, line: solverLine(t, "classic", 3)}},
			func(h *harness) { endGame(h.t, h, "classic", 3, engine.Won); h.keys("w", "l") }, true},
		{"race_spectator", Deps{Player: testPlayer, Lobby: racerLobby(), Unicode: true, Args: []string{"watch", "RACER1"},
			Races: &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}}, nil, true},
	}
	for _, n := range []int{6, 8} { // a double race: 40×20 holds six racers, eight need 40×21
		snap := raceRoom(n, lobby.PhaseRacing)
		snap.RulesID, snap.RulesTitle, snap.Cards, snap.Deal = engine.MustRules("double").ID(), "Double", 45, 7
		cases = append(cases, screenCase{"race_double_" + strconv.Itoa(n),
			Deps{Races: &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}, Args: []string{"race", snap.Code}, Unicode: true},
			nil, n == 6})
	}
	for _, end := range []struct {
		spec   string
		n      uint64
		status engine.Status
	}{{"one-pass", 1, engine.Lost}, {"classic", 3, engine.Won}} {
		snap := raceRoom(3, lobby.PhaseRacing)
		snap.RulesID, snap.Deal = engine.MustRules(end.spec).ID(), end.n
		cases = append(cases, screenCase{"race_" + end.status.String(),
			Deps{Races: &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}, Args: []string{"race", snap.Code}, Unicode: true},
			func(h *harness) {
				moves, _ := heuristicLine(h.t, end.spec, end.n)
				h.keys(":")
				h.typeText(strings.Join(moves, " "))
				h.keys("enter")
				if got := h.m.race().table.game.Status(); got != end.status {
					h.t.Fatalf("the race's game is %s, want %s", got, end.status)
				}
			}, true})
	}
	for _, n := range []int{2, 4, 8} {
		for _, phase := range []lobby.Phase{lobby.PhaseWaiting, lobby.PhaseRacing, lobby.PhaseResults} {
			snap := raceRoom(n, phase)
			if phase == lobby.PhaseResults {
				for i := range n {
					snap.Results = append(snap.Results, lobby.Placing{Place: i + 1, ID: "p" + strconv.Itoa(i),
						Name: "racer" + strconv.Itoa(i), State: lobby.RacerStuck, Removed: 20 - i, Moves: 30})
				}
			}
			cases = append(cases, screenCase{"race_" + phase.String() + "_" + strconv.Itoa(n),
				Deps{Races: &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}, Args: []string{"race", snap.Code}, Unicode: true},
				nil, true})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.deps
			d.Width, d.Height = 80, 24 // the forms are driven at a readable size,
			h := newHarness(t, d)
			if c.setup != nil {
				c.setup(h)
			}
			h.resize(40, 20) // then looked at in a phone's window
			view := h.m.View()
			checkShape(t, view, 40, 20)
			needW, needH := h.m.needs()
			if !h.m.tooSmall() {
				if strings.Contains(view, "make the window larger") {
					t.Errorf("the screen fits but says it does not:\n%s", h.screen())
				}
				return
			}
			if c.fits {
				t.Fatalf("needs %d×%d, want it to fit 40×20:\n%s", needW, needH, h.screen())
			}
			if want := "need " + strconv.Itoa(needW) + "×" + strconv.Itoa(needH) + ", now 40×20"; !strings.Contains(strings.ReplaceAll(h.screen(), "\n", " "), want) {
				t.Errorf("the too-small screen does not say %q:\n%s", want, h.screen())
			}
			// The size it names is enough.
			h.resize(max(needW, 40), max(needH, 20))
			if h.m.tooSmall() {
				t.Errorf("at the %d×%d it asked for, still too small", needW, needH)
			}
			checkShape(t, h.m.View(), max(needW, 40), max(needH, 20))
		})
	}
}

// TestNarrowSizesFit: from 40 columns to the compact board's width, and
// from the narrow board's height up, the table and the race show within
// the window, or say what they need and fit at that size.
func TestNarrowSizesFit(t *testing.T) {
	var runs []func() *harness
	for _, args := range [][]string{{"classic", "42"}, {"double", "7"}, {"classic,draw=3", "5"}} {
		for _, unicode := range []bool{true, false} {
			runs = append(runs, func() *harness { return newHarness(t, Deps{Args: args, Unicode: unicode}) })
		}
	}
	for _, n := range []int{3, 8} {
		runs = append(runs, func() *harness { h, _ := raceHarness(t, raceRoom(n, lobby.PhaseRacing), 80, 24); return h })
	}
	for _, run := range runs {
		h := run()
		for w := 38; w <= 47; w++ {
			for ht := 12; ht <= 24; ht++ {
				h.resize(w, ht)
				checkShape(t, h.m.View(), w, ht)
				if !h.m.tooSmall() {
					continue
				}
				needW, needH := h.m.needs()
				h.resize(max(w, needW), max(ht, needH))
				if h.m.tooSmall() {
					t.Errorf("%d×%d asked for %d×%d, which is too small", w, ht, needW, needH)
				}
				checkShape(t, h.m.View(), max(w, needW), max(ht, needH))
			}
		}
	}
}
