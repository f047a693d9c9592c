package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pyramid/engine"
)

// heuristicLine plays the engine's heuristic hint from the start of a
// deal until the game ends and returns the moves and the final status.
func heuristicLine(t *testing.T, spec string, n uint64) ([]string, engine.Status) {
	t.Helper()
	g, err := engine.NewNumbered(engine.MustRules(spec), n)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for g.Status() == engine.Playing && len(moves) < 1000 {
		m, ok := g.Hint()
		if !ok {
			break
		}
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
		moves = append(moves, m.String())
	}
	return moves, g.Status()
}

// cellOf returns the screen cell of the middle of a place's card.
func cellOf(h *harness, p engine.Place) (x, y int) {
	l := &h.m.table().lay
	bx, by := l.placePos(p)
	return l.boardX + bx + l.geo.cardW/2, l.boardY + by + l.geo.cardH/2
}

func TestSelectPairByKeys(t *testing.T) {
	// Classic 42's bottom row: 8♣ 4♠ 9♣ 10♦ 5♠ Q♣ 8♠.
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	if got := h.m.table().cursor; got != engine.Slot(7, 1) {
		t.Fatalf("cursor starts at %s, want 7.1", got)
	}
	h.keys("enter")
	h.wantScreen("8♣ selected: pick a 5 to make 13", "> 8♣*")
	h.keys("l", "l", "right", "right") // to 5♠ at 7.5
	if got := h.m.table().cursor; got != engine.Slot(7, 5) {
		t.Fatalf("cursor at %s, want 7.5", got)
	}
	h.keys("space")
	g := h.game()
	if g.Removed() != 2 || g.MovesMade() != 1 {
		t.Fatalf("removed %d in %d moves, want 2 in 1", g.Removed(), g.MovesMade())
	}
	h.wantScreen("removed 8♣ + 5♠", "2/28 removed", "1 move")
}

func TestIllegalPairSaysWhy(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.keys("l", "l", "enter", "l", "enter") // 9♣ then 10♦
	h.wantScreen("9♣ and 10♦: cards do not sum to 13", "10♦ selected")
	if h.game().MovesMade() != 0 {
		t.Fatal("an illegal pair was played")
	}
	if h.m.table().sel != engine.Slot(7, 4) {
		t.Errorf("selection is %s, want the card just chosen, 10♦ at 7.4", h.m.table().sel)
	}
	h.keys("esc")
	if h.m.table().sel != engine.NoPlace {
		t.Error("esc did not unselect")
	}
}

func TestKingByClick(t *testing.T) {
	// Classic 3 has a King at 7.2.
	for _, size := range [][2]int{{80, 24}, {120, 40}, {70, 18}} {
		h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Width: size[0], Height: size[1]})
		c, _ := h.game().PyramidCard(engine.Slot(7, 2))
		if c.Rank() != 13 {
			t.Fatalf("7.2 of classic 3 is %s, not a King", c)
		}
		x, y := cellOf(h, engine.Slot(7, 2))
		h.click(x, y)
		if _, there := h.game().PyramidCard(engine.Slot(7, 2)); there {
			t.Fatalf("%v: a click at (%d,%d) did not remove the King:\n%s", size, x, y, h.screen())
		}
		h.wantScreen("removed K", "1/28 removed")
	}
}

func TestClickPairAndCovered(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Width: 120, Height: 40})
	// A covered card shows only its top edge. A click on its middle,
	// which the row below hides, does not reach it; a click on its top
	// edge says why it cannot be taken.
	x, y := cellOf(h, engine.Slot(6, 2))
	h.click(x, y)
	if tb := h.m.table(); tb.sel != engine.NoPlace || tb.msg != "" {
		t.Errorf("a click on the hidden middle of 6.2: selection %s, message %q; want neither", tb.sel, tb.msg)
	}
	l := &h.m.table().lay
	_, py := l.slotPos(engine.Slot(6, 2))
	h.click(x, l.boardY+py)
	h.wantScreen("card is covered: 6.2 lies under 7.2 and 7.3")
	// A pair by two clicks.
	x, y = cellOf(h, engine.Slot(7, 2))
	h.click(x, y)
	x, y = cellOf(h, engine.Slot(7, 3))
	h.click(x, y)
	if h.game().Removed() != 2 {
		t.Fatalf("4♠ + 9♣ by clicks: removed %d, want 2\n%s", h.game().Removed(), h.screen())
	}
	// A click on the stock draws.
	x, y = cellOf(h, engine.Stock)
	h.click(x, y)
	if h.game().StockCount() != 23 {
		t.Errorf("a click on the stock left %d cards, want 23", h.game().StockCount())
	}
	// A click on nothing does nothing.
	before := h.game().MovesMade()
	h.click(0, 5)
	if h.game().MovesMade() != before {
		t.Error("a click on the background made a move")
	}
}

func TestDrawRedealUndoRedo(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.wantNotScreen("u undo", "r redo")
	for range 24 {
		h.keys("d")
	}
	if n := h.game().StockCount(); n != 0 {
		t.Fatalf("stock has %d after 24 draws", n)
	}
	h.wantScreen("d redeal")
	h.keys("d")
	h.wantScreen("pass 2/3", "pass 2/3: the waste is the stock again")
	h.keys("u")
	h.wantScreen("pass 1/3", "undid r")
	if !h.m.table().Keys.Redo.Enabled() {
		t.Error("redo is not enabled after an undo")
	}
	checkShape(t, h.m.View(), 80, 24) // the help bar with undo and redo fits
	h.keys("r")
	h.wantScreen("pass 2/3", "redid r")
	for range 25 {
		h.keys("u")
	}
	if h.game().MovesMade() != 0 {
		t.Fatalf("%d moves left after undoing all", h.game().MovesMade())
	}
	h.keys("u")
	h.wantScreen("nothing to undo")
	h.wantNotScreen("u undo")
	h.keys("ctrl+r")
	if h.game().MovesMade() != 1 {
		t.Error("ctrl+r did not redo")
	}
}

func TestLastPassSaysWhy(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"one-pass", "42"}, Unicode: true})
	for range 24 {
		h.keys("d")
	}
	h.wantNotScreen("d draw", "d redeal")
	h.keys("d")
	h.wantScreen("no redeal left: pass 1 of 1 is the last")
}

func TestPrompt(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.keys(":")
	h.wantScreen(": ")
	h.typeText("7.2+7.3 d 1.1+w 7.1+7.5")
	h.wantScreen(": 7.2+7.3 d 1.1+w 7.1+7.5")
	h.keys("enter")
	g := h.game()
	if g.MovesMade() != 2 || g.Removed() != 2 {
		t.Fatalf("moves %d removed %d, want the first two moves played", g.MovesMade(), g.Removed())
	}
	h.wantScreen("played 2, then move 3 (1.1+w): card is covered: 1.1 lies under 2.1 and 2.2")
	// A line that cannot be read stops at the bad word.
	h.keys(":")
	h.typeText("7.1+7.5 zz")
	h.keys("enter")
	h.wantScreen("played 1, then move 2: bad move notation")
	// Esc closes without playing; the history brings a line back.
	h.keys(":")
	h.typeText("d")
	h.keys("esc")
	if g.MovesMade() != 3 {
		t.Errorf("esc played the prompt's line")
	}
	h.keys(":", "up")
	h.wantScreen(": 7.1+7.5 zz")
	h.keys("ctrl+c")
	if !h.quit {
		t.Error("ctrl+c in the prompt did not quit")
	}
}

func TestHintHighlights(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.keys("H")
	want, _ := h.game().Hint()
	if h.m.table().hint != want {
		t.Fatalf("hint is %v, want %v", h.m.table().hint, want)
	}
	h.wantScreen("hint: ", want.String())
	// The hinted cards carry the hint's marks in the compact layout.
	h.resize(80, 20)
	if !strings.Contains(h.screen(), "+") {
		t.Errorf("no hint mark on screen:\n%s", h.screen())
	}
	h.keys("enter") // the cursor sits on the hint's first card
	h.keys("H")
	h.wantScreen("hint")
}

func TestWinScreen(t *testing.T) {
	moves, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s); pick another deal", status)
	}
	h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true})
	h.clock.advance(4*time.Minute + 12*time.Second)
	h.keys(":")
	h.typeText(strings.Join(moves, " "))
	h.keys("enter")
	if h.game().Status() != engine.Won {
		t.Fatalf("not won:\n%s", h.screen())
	}
	h.wantScreen("You cleared the pyramid!", "time 4:12", "74 moves", "enter or n: new deal", "won")
	golden(t, "win_80x24", h.screen())
	h.resize(120, 40)
	golden(t, "win_120x40", h.screen())
	h.keys("u") // no undo after a win
	if h.game().Status() != engine.Won {
		t.Error("u undid a won game")
	}
	h.keys("enter")
	if h.m.cur != screenDealing && !(h.m.playing && h.game().MovesMade() == 0) {
		t.Errorf("enter on the win screen did not deal anew:\n%s", h.screen())
	}
	h.wantScreen("Classic · hidden deal", "0/28 removed")
}

func TestLostScreen(t *testing.T) {
	moves, status := heuristicLine(t, "one-pass", 1)
	if status != engine.Lost {
		t.Fatalf("the heuristic does not lose one-pass 1 any more (%s); pick another deal", status)
	}
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true})
	h.keys(":")
	h.typeText(strings.Join(moves, " "))
	h.keys("enter")
	h.wantScreen("no moves left: undo (u) or start a new deal (n)", "lost", "u undo")
	h.wantNotScreen("d draw", "H hint")
	golden(t, "lost_80x24", h.screen())
	h.keys("u")
	if h.game().Status() == engine.Lost {
		t.Error("undo did not leave the lost position")
	}
	h.wantNotScreen("no moves left")
}

func TestNavigation(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	tb := h.m.table()
	h.keys("down") // from the bottom row to the piles
	if tb := h.m.table(); tb.cursor != engine.Stock {
		t.Fatalf("down from 7.1 went to %s, want the stock", tb.cursor)
	}
	h.keys("right") // the empty waste is not a stop
	if h.m.table().cursor != engine.Stock {
		t.Errorf("right from the stock went to %s with an empty waste", h.m.table().cursor)
	}
	h.keys("enter") // the stock draws
	h.keys("right")
	if h.m.table().cursor != engine.Waste {
		t.Errorf("right from the stock went to %s, want the waste", h.m.table().cursor)
	}
	h.keys("up")
	if c := h.m.table().cursor; !c.IsPyramid() {
		t.Errorf("up from the waste went to %s", c)
	} else if r, _ := c.RowCol(); r != 7 {
		t.Errorf("up from the waste went to row %d", r)
	}
	// WASD: w a s d move, x draws.
	h.m.menu().Scheme = SchemeWASD
	h.send(menuSettingsMsg{})
	_ = tb
	h.keys("k")
	before := h.m.table().cursor
	h.keys("a")
	if h.m.table().cursor == before {
		t.Error("a did not move left in the WASD scheme")
	}
	stock := h.game().StockCount()
	h.keys("x")
	if h.game().StockCount() != stock-1 {
		t.Error("x did not draw in the WASD scheme")
	}
	h.wantScreen("x draw")
}

func TestOverlapTargets(t *testing.T) {
	// Under the overlap rule a card may pair with the one card still
	// covering it: after 7.2+7.3 (4♠ 9♣) in classic 42, 6.3 (3♠) is
	// covered by 7.4 (10♦) alone, and 3 + 10 = 13.
	h := newHarness(t, Deps{Args: []string{"classic,cover=overlap", "42"}, Unicode: true})
	h.keys(":")
	h.typeText("7.2+7.3")
	h.keys("enter")
	if !h.m.table().d.target[engine.Slot(6, 3)] {
		t.Fatal("6.3 is not a stop under the overlap rule")
	}
	if h.m.table().d.target[engine.Slot(6, 1)] {
		t.Error("6.1 (Q♠, half covered by 8♣, which it does not pair with) is a stop")
	}
	x, y := cellOf(h, engine.Slot(6, 3))
	h.click(x, y)
	x, y = cellOf(h, engine.Slot(7, 4))
	h.click(x, y)
	if h.game().Removed() != 4 {
		t.Errorf("3♠ + 10♦ under overlap: removed %d, want 4\n%s", h.game().Removed(), h.screen())
	}
	h2 := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h2.keys(":")
	h2.typeText("7.2+7.3")
	h2.keys("enter")
	if h2.m.table().d.target[engine.Slot(6, 3)] {
		t.Error("6.3 is a stop under the strict rule")
	}
}

func TestDrawThreeAndOpenStock(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"draw-three", "5"}, Unicode: true})
	h.keys("d")
	g := h.game()
	for i := range 3 {
		if _, ok := g.WasteTop(i); !ok {
			t.Errorf("pile %d is empty after a draw", i+1)
		}
	}
	golden(t, "drawthree_80x24", h.screen())
	h2 := newHarness(t, Deps{Args: []string{"open-stock", "5"}, Unicode: true})
	top, _ := h2.game().StockTop()
	h2.wantScreen(ansi.Strip(string(h2.m.env.gl.faces[top][1:])))
	golden(t, "openstock_80x24", h2.screen())
	// Enter on the open stock selects its card rather than drawing.
	h2.keys("down", "enter")
	if h2.game().MovesMade() != 0 && top.Rank() != 13 {
		t.Error("enter on the open stock drew")
	}
}

func TestLongMessagesWrap(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	long := "move 1 (w+s): card is not available: the stock is face down in these rules (draw it onto the waste first)"
	h.m.table().say(sErr, long)
	s := h.screen()
	checkShape(t, h.m.View(), 80, 24)
	if strings.Contains(s, "…") {
		t.Errorf("the message is cut at 80 columns:\n%s", s)
	}
	for _, w := range []string{"move 1 (w+s)", "(draw it onto the waste first)"} {
		if !strings.Contains(s, w) {
			t.Errorf("the screen lacks %q:\n%s", w, s)
		}
	}
}

func TestCursorStaysInThePyramidAfterAKing(t *testing.T) {
	// Find a deal whose bottom row has a King in the middle.
	for n := uint64(1); n < 500; n++ {
		g, err := engine.NewNumbered(engine.Classic(), n)
		if err != nil {
			t.Fatal(err)
		}
		var king engine.Place = engine.NoPlace
		for c := 3; c <= 5; c++ {
			if card, _ := g.PyramidCard(engine.Slot(7, c)); card.Rank() == 13 {
				king = engine.Slot(7, c)
			}
		}
		if king == engine.NoPlace {
			continue
		}
		h := newHarness(t, Deps{Args: []string{"classic", itoa(int(n))}, Unicode: true})
		h.m.table().cursor = king
		h.keys("enter")
		if h.game().MovesMade() != 1 {
			t.Fatalf("deal %d: the King at %s was not removed", n, king)
		}
		if c := h.m.table().cursor; !c.IsPyramid() {
			t.Errorf("deal %d: after the King at %s the cursor is on %s, want a card of the pyramid", n, king, c)
		}
		return
	}
	t.Fatal("no deal with a King in the middle of the bottom row")
}

func TestEmptyStockShowsARedeal(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	for h.game().StockCount() > 0 {
		h.keys("d")
	}
	h.wantScreen("│ ↻ │ 0")
	h = newHarness(t, Deps{Args: []string{"one-pass", "42"}, Unicode: true})
	for h.game().StockCount() > 0 {
		h.keys("d")
	}
	h.wantNotScreen("↻")
}

func TestPhoneWidthPlays(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.resize(46, 20)
	h.wantNotScreen("make the window larger")
	h.wantScreen("Classic · deal 42")
	checkShape(t, h.m.View(), 46, 20)
	h.keys("d")
	if h.game().MovesMade() != 1 {
		t.Error("a draw at 46 columns was not played")
	}
	h.keys("q")
	h.wantNotScreen("make the window larger")
	checkShape(t, h.m.View(), 46, 20)
	h.open(itemContinue)
	h.resize(39, 20)
	h.wantScreen("need 40×14")
}

func TestNoPromptAfterTheEnd(t *testing.T) {
	h := newHarness(t, Deps{Args: []string{"one-pass", "1"}, Unicode: true})
	endGame(t, h, "one-pass", 1, engine.Lost)
	h.keys(":")
	if h.m.table().promptOpen {
		t.Error("':' opened the prompt on a lost game")
	}
}

func TestDealByNumberTakesARuleSetAlone(t *testing.T) {
	h := newHarness(t, Deps{Player: testPlayer, Unicode: true})
	h.open(itemNumber)
	h.typeText("double")
	h.keys("enter")
	h.wantScreen("Double · hidden deal")
}
