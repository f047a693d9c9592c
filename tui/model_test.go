package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"pyramid/engine"
	"pyramid/lobby"
)

var testPlayer = Player{ID: "SHA256:Xy3k9Qa1b2c3d4e5f6g7h8i9j0kLmNoPqRsTuVwXyZ012", Name: "alice"}

func TestScreensGolden(t *testing.T) {
	sizes := []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x40", 120, 40}, {"small", 40, 12}}
	cases := []struct {
		name  string
		deps  Deps
		setup func(h *harness)
	}{
		{"menu", Deps{Player: testPlayer, Unicode: true}, nil},
		{"menu_guest_ascii", Deps{Player: Player{Guest: true}}, nil},
		{"classic", Deps{Args: []string{"classic", "42"}, Unicode: true}, nil},
		{"double", Deps{Args: []string{"double", "7"}, Unicode: true}, nil},
		{"classic_ascii", Deps{Args: []string{"classic", "42"}}, nil},
		{"double_ascii", Deps{Args: []string{"double", "7"}}, nil},
		{"selected", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys("enter", "l") }},
		{"prompt", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys(":"); h.typeText("7.1+7.5 d") }},
		{"help", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys("?") }},
		{"custom", Deps{Player: testPlayer, Unicode: true}, func(h *harness) {
			h.keys("down", "down", "down", "down", "down", "down", "down", "down", "enter", "down", "right")
		}},
		{"number", Deps{Player: testPlayer, Unicode: true}, func(h *harness) {
			h.open(itemNumber)
			h.typeText("4711")
		}},
		{"confirm", Deps{Args: []string{"classic", "42"}, Unicode: true}, func(h *harness) { h.keys("d", "q", "down", "enter") }},
	}
	for _, c := range cases {
		for _, sz := range sizes {
			t.Run(c.name+"_"+sz.name, func(t *testing.T) {
				d := c.deps
				d.Width, d.Height = sz.w, sz.h
				h := newHarness(t, d)
				h.resize(80, 24) // drive the forms at a readable size,
				if c.setup != nil {
					c.setup(h)
				}
				h.resize(sz.w, sz.h) // then look at the size under test
				view := h.m.View()
				checkShape(t, view, sz.w, sz.h)
				golden(t, c.name+"_"+sz.name, ansi.Strip(view))
			})
		}
	}
}

func TestDeepLinks(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"classic", "42"}, []string{"Classic · deal 42"}},
		{[]string{"42"}, []string{"Classic · deal 42"}},
		{[]string{"double", "7"}, []string{"Double · deal 7", "0/45 removed"}},
		{[]string{"CLASSIC,passes=2", "9"}, []string{"Easy · deal 9", "pass 1/2"}},
		{[]string{"classic,cover=overlap", "9"}, []string{"Classic, cover=overlap · deal 9", "pass 1/3"}},
		{[]string{"relaxed", "9"}, []string{"Relaxed · deal 9", "pass 1/∞"}},
		{[]string{"double"}, []string{"Double · hidden deal"}},
		{[]string{"daily"}, []string{"Daily · 2026-03-01"}},
		{[]string{"bogus"}, []string{"Pyramid Solitaire", `unknown rule set "bogus"`}},
		{[]string{"classic", "x"}, []string{`deal number "x": want a whole number`}},
		{[]string{"daily", "3"}, []string{"the daily deal takes no deal number"}},
		{[]string{"classic", "1", "2"}, []string{"too many words (3)"}},
		{[]string{"classic,passes=7"}, []string{`bad value "7" for passes`}},
		{[]string{"\x1b]52;c;aGk=\x07evil"}, []string{"rules: unknown"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, "_"), func(t *testing.T) {
			h := newHarness(t, Deps{Args: c.args, Unicode: true})
			h.wantScreen(c.want...)
			if v := h.m.View(); strings.Contains(v, "\x07") || strings.Contains(v, "\x1b]") {
				t.Errorf("a raw control sequence from the args reached the screen: %q", v)
			}
		})
	}
	// The daily deal is the engine's deal of the day.
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true})
	if got, want := h.game().Deal().Number, engine.DailyNumber(nil, epoch); got != want {
		t.Errorf("daily deal %d, want %d", got, want)
	}
}

func TestResizeTooSmallAndBack(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"double", "7"}, Unicode: true})
	h.keys("d", "d")
	h.resize(50, 12)
	h.wantScreen("make the window larger", "(need 40×16, now 50×12)")
	checkShape(t, h.m.View(), 50, 12)
	h.keys("d", "enter") // ignored while too small
	if h.game().MovesMade() != 2 {
		t.Errorf("keys played while the window was too small")
	}
	x, y := 10, 5
	h.click(x, y)
	h.resize(80, 24)
	h.wantScreen("Double · deal 7", "2 moves")
	h.resize(200, 60)
	h.wantScreen("Double · deal 7", "2 moves")
	checkShape(t, h.m.View(), 200, 60)
	h.resize(1, 1)
	checkShape(t, h.m.View(), 1, 1)
	h.resize(0, 0)
	if v := h.m.View(); v == "" {
		t.Error("empty view at 0×0")
	}
}

func TestMenuFlow(t *testing.T) {
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true})
	h.wantScreen("playing as alice · SHA256:Xy3k9Qa1b2c3…")
	h.wantNotScreen("Continue", "Winnable deals only")
	h.keys("enter") // Classic, a new deal from the session's secret seed
	want := "Classic · hidden deal"
	h.wantScreen(want)
	if got := h.game().Deal().Number; got != seedDeal(0) {
		t.Errorf("the first new deal is %d, want the seed's first, %d", got, seedDeal(0))
	}
	h.keys("d", "q")
	h.wantScreen("Continue", "Classic · hidden deal")
	h.keys("enter")
	h.wantScreen(want, "1 move")
	// Changing rule set mid-game asks first; no keeps the game.
	h.keys("q", "down", "down", "enter")
	h.wantScreen("You have Classic hidden deal in progress (1 move): abandon it?", "It counts as a game lost.")
	h.keys("n")
	h.wantScreen("Pyramid Solitaire")
	h.keys("up", "up", "enter")
	h.wantScreen(want, "1 move")
	// n asks too, and y deals anew, at once: new deal numbers come from
	// the session's seed and a counter, without a round trip.
	h.keys("n")
	h.wantScreen("You have Classic hidden deal in progress (1 move): abandon it?")
	h.send(keyMsg("y"))
	h.wantScreen("Classic · hidden deal", "0 moves")
	if got := h.game().Deal().Number; got != seedDeal(1) {
		t.Errorf("the second new deal is %d, want the seed's second, %d", got, seedDeal(1))
	}
	// Deal by number, with another rule set.
	h.keys("q")
	for h.m.menu().items[h.m.menu().cur].kind != itemNumber {
		h.keys("down")
	}
	h.keys("enter")
	h.typeText("double 12")
	h.keys("enter")
	h.wantScreen("Double · deal 12")
	// Back from the table, the cursor is on Continue. A bad number
	// stays in the form and says why.
	h.keys("q")
	if it := h.m.menu().items[h.m.menu().cur]; it.kind != itemContinue {
		t.Errorf("back from the table, the cursor is on %q, want Continue", it.label)
	}
	for h.m.menu().items[h.m.menu().cur].kind != itemNumber {
		h.keys("down")
	}
	h.keys("enter")
	h.typeText("x1")
	h.keys("enter")
	h.wantScreen(`deal number "x1"`)
	h.keys("esc")
	// Custom rules: two decks, one pass.
	h.keys("up")
	for h.m.menu().items[h.m.menu().cur].kind != itemCustom {
		h.keys("up")
	}
	h.keys("enter", "down", "left", "left")
	for h.m.menu().knobCur != len(engine.KnobNames()) {
		h.keys("down")
	}
	h.keys("enter") // no question: the Double game had no move yet
	h.wantScreen("Double, passes=1 · hidden deal", "pass 1/1", "0/45 removed")
	// q from the menu asks first: n stays, y quits.
	h.keys("q", "q")
	h.wantScreen("end the session? y: yes")
	h.keys("n")
	if h.quit {
		t.Error("n to the question quit")
	}
	h.keys("esc", "y")
	if !h.quit {
		t.Error("esc, y in the menu did not quit")
	}
}

func TestMenuClick(t *testing.T) {
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true})
	// A click on a tab opens its group; on an item, opens the item.
	tabs := strings.Split(h.screen(), "\n")[menuTabs]
	x := strings.Index(tabs, "Settings")
	if x < 0 {
		t.Fatalf("no Settings tab in %q", tabs)
	}
	h.click(cells(tabs[:x]), menuTabs)
	if m := h.m.menu(); m.groups[m.group(m.cur)].title != "Settings" {
		t.Fatalf("a click on the Settings tab: the cursor is on %q\n%s", m.items[m.cur].label, h.screen())
	}
	h.wantScreen("Keys")
	h.click(cells(tabs[:strings.Index(tabs, "Play")]), menuTabs)
	// Line menuTop+6 is Double, the seventh of the Play group.
	h.click(6, menuTop+6)
	h.wantScreen("Double · hidden deal")
}

func TestNeverSuspends(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	_, cmd := h.m.Update(keyMsg("ctrl+z"))
	if cmd != nil {
		if _, ok := cmd().(tea.SuspendMsg); ok {
			t.Fatal("ctrl+z suspends")
		}
	}
	h.keys("ctrl+l")
	h.wantScreen("Classic · deal 42")
}

func TestProfiles(t *testing.T) {
	var texts []string
	names := map[termenv.Profile]string{termenv.Ascii: "ascii", termenv.ANSI: "16", termenv.ANSI256: "256", termenv.TrueColor: "true colour"}
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor} {
		h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Renderer: renderer(p)})
		h.keys("H", "enter", "l", "l") // hint, select its first card, move past the second
		v := h.m.View()
		texts = append(texts, ansi.Strip(v))
		colour := strings.Contains(v, "\x1b[1;91m") || strings.Contains(v, "91m")
		if p == termenv.Ascii {
			if colour || strings.Contains(v, "38;") || strings.Contains(v, "48;") {
				t.Errorf("colour sequences in the Ascii profile: %q", v)
			}
			if strings.Contains(v, "\x1b[") {
				t.Error("escape sequences in the Ascii profile")
			}
			for _, mark := range []string{"*", ">", "+"} {
				if !strings.Contains(v, mark) {
					t.Errorf("no %q mark in the Ascii profile:\n%s", mark, v)
				}
			}
		} else if !colour {
			t.Errorf("profile %s: no red cards", names[p])
		}
	}
	for i := 1; i < len(texts); i++ {
		if texts[i] != texts[0] {
			t.Errorf("profile %d draws other text than the Ascii profile", i)
		}
	}
}

func TestHostileName(t *testing.T) {
	evil := "bob\x1b]52;c;aGk=\x07\u202e\x9b31m" + strings.Repeat("x", 100)
	h := newHarness(t, Deps{Player: Player{ID: "SHA256:abc", Name: evil}, Unicode: true})
	v := h.m.View()
	for _, bad := range []string{"\x07", "\u202e", "\x9b", "]52;"} {
		if strings.Contains(v, bad) {
			t.Errorf("view holds %q", bad)
		}
	}
	h.send(NoticeMsg{Text: "restart\x1b[2J in 10 s"})
	if v := h.m.View(); strings.Contains(v, "\x1b[2J") {
		t.Error("a notice's escape sequence reached the screen")
	}
	h.wantScreen("restart in 10 s")
}

// cursorBytes estimates what Bubble Tea v1's line renderer sends between
// two frames: every changed line in full, plus a line break and an erase.
func cursorBytes(before, after string) int {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	n := 0
	for i := range b {
		if i >= len(a) || a[i] != b[i] {
			n += len(b[i]) + len(ansi.EraseLineRight) + 2
		} else {
			n++
		}
	}
	return n + len(ansi.CursorPosition(0, len(b)))
}

func TestCursorMoveIsCheap(t *testing.T) {
	for _, c := range []struct {
		args []string
		w, h int
	}{{[]string{"classic", "42"}, 80, 24}, {[]string{"double", "7"}, 80, 24}, {[]string{"double", "7"}, 160, 50}} {
		for _, p := range []termenv.Profile{termenv.ANSI, termenv.TrueColor} {
			names := map[termenv.Profile]string{termenv.ANSI: "16", termenv.TrueColor: "true colour"}
			h := newHarness(t, Deps{Args: c.args, Unicode: true, Width: c.w, Height: c.h, Renderer: renderer(p)})
			worst, total, moves := 0, 0, 0
			prev := h.m.View()
			for _, k := range []string{"l", "l", "l", "l", "h", "h", "j", "k", "l", "l", "h"} {
				h.keys(k)
				v := h.m.View()
				n := cursorBytes(prev, v)
				worst, total, moves = max(worst, n), total+n, moves+1
				prev = v
			}
			t.Logf("%v %dx%d profile %s: worst %d B, mean %d B per cursor move", c.args, c.w, c.h, names[p], worst, total/moves)
			// The aim is 300 bytes at 80×24; large boxed cards in a wide
			// window cost more (long lines, wide margins).
			limit := 300
			if c.w > 80 {
				limit = 400
			}
			if total/moves > limit {
				t.Errorf("%v %dx%d: %d bytes per cursor move on average, want < %d", c.args, c.w, c.h, total/moves, limit)
			}
		}
	}
}

// fakeGames is a Games in memory that records the calls.
type fakeGames struct {
	mu     sync.Mutex
	games  map[string]SavedGame
	saves  []SavedGame
	fail   error
	nextID int
	claims int
}

func (f *fakeGames) Unfinished(ctx context.Context, player string) ([]SavedGame, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []SavedGame
	for _, g := range f.games {
		if g.Status == StatusPlaying {
			out = append(out, g)
		}
	}
	return out, nil
}

func (f *fakeGames) Resume(ctx context.Context, player, id string) (SavedGame, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.games[id]
	if !ok {
		return SavedGame{}, errors.New("no such game")
	}
	f.claims++
	return g, nil
}

func (f *fakeGames) Save(ctx context.Context, player string, g SavedGame) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return "", f.fail
	}
	if g.ID == "" {
		// One game in progress per rule set, as the server keeps it: a
		// new one needs the player's word to replace the other.
		for id, old := range f.games {
			if old.Status != StatusPlaying || old.Record.Rules != g.Record.Rules {
				continue
			}
			if g.Replace != id {
				return "", fmt.Errorf("create game: %w", &UnfinishedError{Game: old})
			}
			old.Status = StatusAbandoned
			f.games[id] = old
		}
		f.nextID++
		g.ID = fmt.Sprintf("g%d", f.nextID)
	}
	if f.games == nil {
		f.games = map[string]SavedGame{}
	}
	f.games[g.ID] = g
	f.saves = append(f.saves, g)
	return g.ID, nil
}

func TestSavesEveryMove(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.clock.advance(30 * time.Second)
	h.keys("enter", "l", "l", "l", "l", "enter", "d", "u")
	if len(store.saves) != 3 {
		t.Fatalf("%d saves, want 3 (pair, draw, undo)", len(store.saves))
	}
	last := store.saves[2]
	if last.ID != "g1" || store.saves[0].ID != "g1" {
		t.Errorf("saves went to %q and %q, want one game g1", store.saves[0].ID, last.ID)
	}
	if got := strings.Join(last.Record.Moves, " "); got != "7.1+7.5" {
		t.Errorf("saved moves %q, want 7.1+7.5", got)
	}
	if got := strings.Join(last.Record.Redo, " "); got != "d" {
		t.Errorf("saved redo %q, want d", got)
	}
	if last.Status != StatusPlaying || last.Record.Rules != "classic" || last.Record.Deal != 42 {
		t.Errorf("saved %+v", last)
	}
	if last.Played != 30*time.Second || !last.Started.Equal(epoch) {
		t.Errorf("played %v started %v, want 30s from %v", last.Played, last.Started, epoch)
	}
	// A failed save says so and goes back to the stored position: what
	// the screen shows is what the store has. The next move saves again.
	store.fail = errors.New("disk full")
	h.keys("r")
	h.wantScreen("not saved: disk full: back to your last saved position (1 move)", "1 move")
	if h.game().MovesMade() != 1 || !h.game().CanRedo() {
		t.Errorf("after a failed save: %d moves, redo %v; want the stored 1 move and its redo", h.game().MovesMade(), h.game().CanRedo())
	}
	store.fail = nil
	h.keys("d")
	if got := strings.Join(store.games["g1"].Record.Moves, " "); got != "7.1+7.5 d" {
		t.Errorf("stored moves %q after the failure, want 7.1+7.5 d", got)
	}
	// A guest is never saved.
	guestStore := &fakeGames{}
	g := newHarness(t, Deps{Args: []string{"classic", "42"}, Player: Player{Guest: true}, Games: guestStore})
	g.keys("d", "d")
	if len(guestStore.saves) != 0 {
		t.Error("a guest's game was saved")
	}
}

func TestOneSaveInFlight(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	var held []tea.Msg
	h.skip = func(msg tea.Msg) bool {
		if _, ok := msg.(savedMsg); ok {
			held = append(held, msg)
			return true
		}
		return false
	}
	h.keys("d", "d", "d")
	if len(store.saves) != 1 {
		t.Fatalf("%d saves in flight, want 1", len(store.saves))
	}
	h.skip = nil
	for len(held) > 0 {
		msg := held[0]
		held = held[1:]
		h.send(msg)
	}
	if len(store.saves) != 2 {
		t.Fatalf("%d saves, want 2: the first and one with the three draws", len(store.saves))
	}
	if got := len(store.saves[1].Record.Moves); got != 3 || store.saves[1].ID != "g1" {
		t.Errorf("second save has %d moves, id %q", got, store.saves[1].ID)
	}
	// Abandoning a game saves it as abandoned before the new one.
	h.keys("n", "y")
	if s := store.games["g1"].Status; s != StatusAbandoned {
		t.Errorf("abandoned game stored as %q", s)
	}
	// A shutdown waits for nothing when no save is in flight.
	h.send(ShutdownMsg{Text: "restarting"})
	if !h.quit {
		t.Error("shutdown did not quit")
	}
	// The server's own shutdown message, translated.
	type serverShutdown struct{}
	h = newHarness(t, Deps{Args: []string{"classic", "42"}, Translate: func(msg tea.Msg) tea.Msg {
		if _, ok := msg.(serverShutdown); ok {
			return ShutdownMsg{Text: "the server is restarting"}
		}
		return msg
	}})
	h.send(serverShutdown{})
	if !h.quit {
		t.Error("shutdown did not quit")
	}
}

func TestResume(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.keys("enter", "l", "l", "l", "l", "enter", "d", "d", "u")
	// A new session of the same player: Continue brings the game back.
	h2 := newHarness(t, Deps{Unicode: true, Player: testPlayer, Games: store})
	h2.wantScreen("Continue", "Classic · deal 42 · 2 moves")
	h2.keys("enter")
	h2.wantScreen("Classic · deal 42", "2/28 removed", "welcome back")
	g := h2.game()
	if g.MovesMade() != 2 || !g.CanRedo() {
		t.Fatalf("resumed with %d moves, redo %v", g.MovesMade(), g.CanRedo())
	}
	h2.keys("u", "u")
	if g.MovesMade() != 0 {
		t.Error("undo does not reach the start of the resumed game")
	}
	h2.keys("r", "r", "r")
	if g.MovesMade() != 3 {
		t.Error("redo does not walk forward through the resumed game")
	}
	if len(store.games) != 1 {
		t.Errorf("%d stored games, want the one resumed", len(store.games))
	}
	// A deep link to the same deal continues it too.
	h3 := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h3.wantScreen("3 moves", "welcome back")
	if store.claims != 2 {
		t.Errorf("%d claims, want one per resume", store.claims)
	}
	// Another session took the game over (the server tells through the
	// inbox): back to the menu.
	h3.send(inboxMsg{GameTakenMsg{ID: "g1"}})
	h3.wantScreen("your game continues in another session")
	h3.wantNotScreen("Continue")
	// The cursor goes back to the top, not round to Quit.
	if mn := h3.m.menu(); mn.items[mn.cur].kind != itemPreset {
		t.Errorf("after the takeover the menu's cursor is on %q, want the first rule set", mn.items[mn.cur].label)
	}
	// The store refuses a save because another session took over.
	store.fail = fmt.Errorf("save: %w", ErrTakenOver)
	h2.keys("d")
	h2.wantScreen("your game continues in another session")
	if h2.m.playing {
		t.Error("the game stayed on the table after it was taken over")
	}
	store.fail = nil
	// Choosing the stored game's rule set asks before abandoning it.
	h4 := newHarness(t, Deps{Unicode: true, Player: testPlayer, Games: store})
	h4.wantScreen("Continue")
	h4.keys("down", "enter")
	h4.wantScreen("You have Classic deal 42 in progress (3 moves): abandon it?", "It counts as a game lost.")
	h4.keys("y")
	if s := store.games["g1"].Status; s != StatusPlaying {
		t.Errorf("the stored game is %q before the new game's first save, want playing", s)
	}
	h4.keys("d")
	if s := store.games["g1"].Status; s != StatusAbandoned {
		t.Errorf("the stored game is %q after a confirmed new game, want abandoned", s)
	}
	if sg := store.saves[len(store.saves)-1]; sg.Replace != "g1" {
		t.Errorf("the new game's first save replaces %q, want g1", sg.Replace)
	}
}

func TestDailyResumesToday(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store})
	h.keys("d", "d")
	if sg := store.games["g1"]; sg.Daily != "2026-03-01" || sg.Record.Rules != "daily" {
		t.Fatalf("daily game stored as %+v", sg)
	}
	h2 := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store})
	h2.wantScreen("Daily · 2026-03-01", "2 moves", "welcome back")
}

// fakeSolver answers with the heuristic's move and counts the calls.
type fakeSolver struct {
	mu                              sync.Mutex
	hints, winnable, dailys, solves int
	verdict                         engine.Verdict
	// deal is what Solve says of any position, with line as the winning
	// line when it is engine.Winnable, or err.
	deal engine.Verdict
	line []engine.Move
	err  error
}

func (f *fakeSolver) Solve(ctx context.Context, g *engine.Game) (engine.Verdict, []engine.Move, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.solves++
	if f.err != nil {
		return engine.Unknown, nil, f.err
	}
	if f.deal != engine.Winnable {
		return f.deal, nil, nil
	}
	return engine.Winnable, slices.Clone(f.line), nil
}

func (f *fakeSolver) Hint(ctx context.Context, g *engine.Game) (engine.Move, engine.Verdict, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hints++
	if f.verdict != engine.Winnable {
		return engine.Move{}, f.verdict, nil
	}
	m := g.Legal()
	return m[len(m)-1], engine.Winnable, nil
}

func (f *fakeSolver) NextWinnable(ctx context.Context, r engine.Rules, start uint64) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.winnable++
	return start + 1000000, nil
}

func (f *fakeSolver) DailyDeal(ctx context.Context, r engine.Rules, day time.Time) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dailys++
	return 77, nil
}

func TestSolver(t *testing.T) {
	s := &fakeSolver{verdict: engine.Winnable}
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true, Solver: s})
	h.menuTo(itemWinnable)
	h.wantScreen("Winnable deals only", "[ ] off")
	h.keys("enter")
	h.wantScreen("[x] on")
	h.keys("up")
	for h.m.menu().items[h.m.menu().cur].kind != itemPreset || h.m.menu().items[h.m.menu().cur].preset != "classic" {
		h.keys("up")
	}
	h.keys("enter")
	h.wantScreen("Classic · hidden deal", "the solver can win this deal")
	if got, want := h.game().Deal().Number, engine.DealOf([8]byte{})+1000000; got != want {
		t.Errorf("the winnable deal is %d, want the solver's answer %d", got, want)
	}
	h.keys("H")
	if s.hints != 1 {
		t.Fatalf("%d solver hints, want 1", s.hints)
	}
	legal := h.game().Legal()
	if h.m.table().hint != legal[len(legal)-1] {
		t.Errorf("hint %v is not the solver's", h.m.table().hint)
	}
	h.wantScreen("keeps the deal winnable")
	s.verdict = engine.Unwinnable
	h.keys("H")
	h.wantScreen("this deal can never be won: n deals a new one")
	h.wantNotScreen("undo to find")
	h.keys("d", "H")
	h.wantScreen("the deal can no longer be won")
	// A reply for an older position is dropped.
	h.send(hintMsg{token: h.m.token, version: h.m.table().Version() - 1, move: engine.DrawMove, verdict: engine.Winnable})
	h.wantNotScreen("keeps the deal winnable")
	// The daily deal comes from the solver.
	h2 := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Solver: s})
	if got := h2.game().Deal().Number; got != 77 {
		t.Errorf("daily deal %d, want the solver's 77", got)
	}
}

func TestASCIIOnly(t *testing.T) {
	// A client whose locale is not UTF-8 gets nothing but ASCII, on every
	// screen; so does a player who chose suit letters in the menu.
	views := map[string]func(h *harness){
		"menu":    func(h *harness) {},
		"custom":  func(h *harness) { h.open(itemCustom) },
		"number":  func(h *harness) { h.open(itemNumber) },
		"help":    func(h *harness) { h.keys("?") },
		"table":   func(h *harness) { h.keys("enter", "enter", "l", "H") },
		"double":  func(h *harness) { h.keys("down", "down", "down", "down", "down", "down", "enter") },
		"confirm": func(h *harness) { h.keys("enter", "d", "n") },
		"prompt":  func(h *harness) { h.keys("enter", ":"); h.typeText("7.1+7.4") },
		"small":   func(h *harness) { h.keys("enter"); h.resize(30, 10) },
	}
	for _, chosen := range []bool{false, true} {
		for name, setup := range views {
			for _, size := range [][2]int{{80, 24}, {120, 40}} {
				h := newHarness(t, Deps{Player: testPlayer, Unicode: chosen, Width: size[0], Height: size[1]})
				if chosen {
					h.open(itemCards)
					h.menuTo(itemPreset) // Classic, where the views start
				}
				setup(h)
				wantASCII(t, fmt.Sprintf("%s at %dx%d (letters chosen: %v)", name, size[0], size[1], chosen), h.screen())
			}
		}
	}
}

func TestHelpScrollsAndKeysToggle(t *testing.T) {
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true})
	h.keys("?")
	h.wantScreen("How to play", "arrows and hjkl"[:0])
	first := h.screen()
	h.keys("down", "down")
	if h.screen() == first {
		t.Error("down does not scroll the help at 80x24")
	}
	h.wantNotScreen("How to play")
	for range 50 {
		h.keys("down")
	}
	h.wantScreen("the line and says why")
	h.keys("q")
	h.wantScreen("Pyramid Solitaire")
	for h.m.menu().items[h.m.menu().cur].kind != itemKeys {
		h.keys("down")
	}
	h.keys("enter")
	h.wantScreen("arrows, hjkl and wasd move · x draws")
	h.keys("up", "up", "up", "up", "up", "up", "enter") // a rule set
	h.wantScreen("x draw")
	h.keys("?")
	h.wantScreen("x             draw; when the stock is empty")
}

func TestShutdownWaitsForTheSave(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	var held []tea.Msg
	h.skip = func(msg tea.Msg) bool {
		if _, ok := msg.(savedMsg); ok {
			held = append(held, msg)
			return true
		}
		return false
	}
	h.keys("d", "d")
	h.send(ShutdownMsg{Text: "the server is restarting"})
	if h.quit {
		t.Fatal("quit with a save in flight")
	}
	h.wantScreen("the server is restarting")
	h.skip = nil
	for len(held) > 0 {
		msg := held[0]
		held = held[1:]
		h.send(msg)
	}
	if !h.quit {
		t.Error("did not quit once the saves were done")
	}
	if got := len(store.games["g1"].Record.Moves); got != 2 {
		t.Errorf("stored %d moves before quitting, want 2", got)
	}
}

func TestZeroDeps(t *testing.T) {
	m := New(Deps{})
	v := m.View()
	checkShape(t, v, 80, 24)
	if strings.Contains(v, "\x1b[") {
		t.Error("escape sequences without a renderer")
	}
	// Without the seed (Init was not run) a new deal is drawn by a
	// command.
	next, cmd := m.Update(keyMsg("enter"))
	if s := ansi.Strip(next.(*Model).View()); !strings.Contains(s, "Dealing") {
		t.Errorf("enter on Classic does not deal:\n%s", s)
	}
	next, _ = next.Update(cmd())
	if s := ansi.Strip(next.(*Model).View()); !strings.Contains(s, "Classic · hidden deal") && !strings.Contains(s, "Classic - hidden deal") {
		t.Errorf("the dealt game is not on the table:\n%s", s)
	}
}

func TestKeysRightAfterAChoice(t *testing.T) {
	// Keys typed right after a menu choice meet the table, even before
	// any command has run: the choice is handled within Update.
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true})
	h.keys("q")
	m := h.m
	for _, k := range []string{"enter", "l", "enter"} { // Continue, then the King at 7.2
		next, _ := m.Update(keyMsg(k))
		m = next.(*Model)
	}
	if !m.playing || m.table().Game().Removed() != 1 {
		t.Errorf("keys after a choice were lost:\n%s", ansi.Strip(m.View()))
	}
}

func TestKeysInOneRead(t *testing.T) {
	// Several keys read at once arrive as one KeyMsg; each still counts.
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true})
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ll")})
	if got := h.m.table().cursor; got != engine.Slot(7, 3) {
		t.Errorf("cursor at %s after \"ll\", want 7.3", got)
	}
	// A paste into the prompt stays one piece of text.
	h.keys(":")
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("7.2 d"), Paste: true})
	h.wantScreen(": 7.2 d")
}

func TestLostIsStoredWhenThePlayerMovesOn(t *testing.T) {
	moves, status := heuristicLine(t, "one-pass", 1)
	if status != engine.Lost {
		t.Fatalf("one-pass 1 is not lost by the heuristic any more")
	}
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true, Player: testPlayer, Games: store})
	h.keys(":")
	h.typeText(strings.Join(moves, " "))
	h.keys("enter")
	if s := store.games["g1"].Status; s != StatusPlaying {
		t.Errorf("a lost position is stored as %q, want playing (undo may leave it)", s)
	}
	h.keys("n") // no question: the game is over
	h.wantScreen("One pass · hidden deal", "0 moves")
	if s := store.games["g1"].Status; s != StatusLost {
		t.Errorf("the lost game is stored as %q after a new deal, want lost", s)
	}
}

// chanInbox is an Inbox over a channel; a closed channel is a closed queue.
type chanInbox chan tea.Msg

// Notify says there is no need to wait: the command waits in Next.
func (c chanInbox) Notify(func()) bool { return true }

func (c chanInbox) Next(ctx context.Context) (tea.Msg, error) {
	select {
	case msg, ok := <-c:
		if !ok {
			return nil, errors.New("inbox closed")
		}
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestInbox: the inbox command delivers what the server sends, and stops
// when the inbox closes or the session ends.
func TestInbox(t *testing.T) {
	if cmd := (&env{ctx: context.Background()}).waitInbox(); cmd != nil {
		t.Fatal("a session without an inbox waits on one")
	}
	in := make(chanInbox, 1)
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{ctx: ctx, inbox: in, await: waitIn}
	in <- NoticeMsg{Text: "hello"}
	if got := e.waitInbox()(); got != (inboxMsg{NoticeMsg{Text: "hello"}}) {
		t.Fatalf("got %v, want the notice", got)
	}
	cancel()
	if got := e.waitInbox()(); got != nil {
		t.Fatalf("after the session ended: got %v, want nothing", got)
	}
	close(in)
	e.ctx = context.Background()
	if got := e.waitInbox()(); got != nil {
		t.Fatalf("closed inbox: got %v, want nothing", got)
	}
}

// TestSessionKeysOnEveryScreen: ctrl+c and ctrl+l are the root's, handled
// once before any screen sees them: ctrl+c quits and ctrl+l redraws
// wherever the player is, an open prompt, a chat line and a window too
// small to read included.
func TestSessionKeysOnEveryScreen(t *testing.T) {
	race := func() Deps {
		return Deps{Races: &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: raceRoom(2, lobby.PhaseWaiting)}}, Args: []string{"race", "KMTX"}, Unicode: true}
	}
	table := func() Deps { return Deps{Args: []string{"classic", "42"}, Unicode: true} }
	for _, tt := range []struct {
		name string
		deps func() Deps
		open tea.Msg // sent first, when set
		keys []string
		want string
	}{
		{"menu", func() Deps { return Deps{Unicode: true} }, nil, nil, "Pyramid Solitaire"},
		{"table", table, nil, nil, "Classic · deal 42"},
		{"move prompt", table, nil, []string{":", "7"}, ": 7"},
		{"help", table, nil, []string{"?"}, "How to play"},
		{"race chat", race, nil, []string{"t", "h"}, "say: h"},
		{"join form", func() Deps { return Deps{Races: &fakeRaces{}, Unicode: true} }, menuRaceMsg{join: true}, nil, "room code:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.deps())
			if tt.open != nil {
				h.send(tt.open)
			}
			h.keys(tt.keys...)
			h.wantScreen(tt.want)
			screen, cur := h.screen(), h.m.cur
			_, cmd := h.m.Update(keyMsg("ctrl+l"))
			if !clears(cmd) {
				t.Error("ctrl+l does not redraw")
			}
			if h.m.cur != cur || h.screen() != screen {
				t.Errorf("ctrl+l changed the screen:\n%s", h.screen())
			}
			h.keys("ctrl+c")
			if !h.quit {
				t.Errorf("ctrl+c did not quit:\n%s", h.screen())
			}
		})
	}
	t.Run("window too small", func(t *testing.T) {
		h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
		h.send(tea.WindowSizeMsg{Width: 20, Height: 5})
		_, cmd := h.m.Update(keyMsg("ctrl+l"))
		if !clears(cmd) {
			t.Error("ctrl+l does not redraw")
		}
		h.keys("ctrl+c")
		if !h.quit {
			t.Error("ctrl+c did not quit")
		}
	})
}

// clears reports whether cmd, run with its batches, asks for a cleared
// screen.
func clears(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			if clears(c) {
				return true
			}
		}
		return false
	default:
		return msg == tea.ClearScreen()
	}
}
