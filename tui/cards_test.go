package tui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// wantASCII fails when a screen holds anything but ASCII.
func wantASCII(t *testing.T, name, s string) {
	t.Helper()
	for i, r := range s {
		if r >= 0x80 {
			t.Errorf("%s: non-ASCII %q at byte %d:\n%s", name, r, i, s)
			return
		}
	}
}

// withoutMessage is a table's screen without its message line, the
// line above the help bar.
func withoutMessage(s string) string {
	ls := strings.Split(s, "\n")
	if len(ls) >= 2 {
		ls[len(ls)-2] = ""
	}
	return strings.Join(ls, "\n")
}

func TestCardsSwitchBeforeAGame(t *testing.T) {
	h := newHarness(t, Deps{Unicode: true})
	h.menuTo(itemCards)
	h.wantScreen("Cards", "♠ ♥ ♦ ♣ symbols", "enter switches the suits between symbols and letters")
	h.keys("enter")
	wantASCII(t, "the menu after choosing letters", h.screen())
	h.wantScreen("S H D C letters", "up/down choose")
	h.keys("right") // from Settings round to Play
	wantASCII(t, "the Play group in letters", h.screen())
	h.wantScreen("Custom rules.", "1 deck - 3 passes")
	h.open(itemNumber)
	h.typeText("42")
	h.keys("enter")
	// The table is the one a client whose locale is not UTF-8 gets.
	golden(t, "classic_ascii_80x24", h.screen())
	h.keys("?")
	wantASCII(t, "the help after choosing letters", h.screen())
	h.wantScreen("arrows hjkl", "up/down scroll")

	// Back to symbols: the table is the one a UTF-8 client gets.
	h.keys("q", "q")
	h.open(itemCards)
	h.wantScreen("♠ ♥ ♦ ♣ symbols", "↑/↓ choose")
	h.keys("right")
	h.wantScreen("Custom rules…", "1 deck · 3 passes")
	h.open(itemContinue)
	golden(t, "classic_80x24", h.screen())
	h.keys("?")
	h.wantScreen("←↑↓→ hjkl", "↑/↓ scroll")
}

func TestCardsSwitchMidGame(t *testing.T) {
	// A card drawn, 8♣ selected and the cursor on 4♠: a game in
	// progress, with a card named on the message line.
	keys := []string{"d", "enter", "l"}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	h.keys(keys...)
	h.wantScreen("* 8♣* > 4♠<", "8♣ selected: pick a 5")
	ascii := newHarness(t, Deps{Args: []string{"classic", "42"}})
	ascii.keys(keys...)

	h.keys("q")
	h.open(itemCards)
	h.open(itemContinue)
	// The game goes on where it was, drawn as a client whose locale is
	// not UTF-8 sees it.
	if got, want := h.screen(), ascii.screen(); got != want {
		t.Errorf("after choosing letters:\n%s\nwant, as an ASCII client sees it:\n%s", got, want)
	}
	h.wantScreen("* 8C* > 4S<", "8C selected: pick a 5")
	if k := h.m.table().Keys.Move.Help().Key; k != "arrows" {
		t.Errorf("letters: the move keys' help is %q, want arrows", k)
	}
	if tb := h.m.table(); tb.sel != engine.Slot(7, 1) || tb.cursor != engine.Slot(7, 2) || h.game().MovesMade() != 1 {
		t.Errorf("selection %s, cursor %s, %d moves; want 7.1, 7.2 and 1", tb.sel, tb.cursor, h.game().MovesMade())
	}
	// Play on in letters: 4♠ selected instead.
	h.keys("esc", "enter")
	wantASCII(t, "a key after choosing letters", h.screen())
	h.wantScreen("4S selected: pick a 9")
	ref := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true})
	ref.keys(append(keys, "esc", "enter")...)

	h.keys("q")
	h.open(itemCards)
	h.keys("right")
	h.wantScreen("Continue              Classic · deal 42 · 1 move")
	h.open(itemContinue)
	// Symbols again: the board, the header and the help bar are those of
	// a session that never left them. The message line keeps the words
	// it was written with until the next one.
	if got, want := withoutMessage(h.screen()), withoutMessage(ref.screen()); got != want {
		t.Errorf("back to symbols:\n%s\nwant:\n%s", got, want)
	}
	h.wantScreen("> 4♠*", "4S selected: pick a 9")
	h.keys("esc", "enter")
	if got, want := h.screen(), ref.screen(); got != want {
		t.Errorf("a key after symbols again:\n%s\nwant:\n%s", got, want)
	}
}

func TestCardsSwitchAtTheEnd(t *testing.T) {
	// A lost game while the solver is asked about its deal: the lost
	// note has the separator and the ellipsis in it. In letters it is an
	// ASCII client's; back in symbols it is as it was.
	deps := func(unicode bool) Deps {
		return Deps{Args: []string{"one-pass", "1"}, Unicode: unicode, Width: 120, Height: 40, Solver: &fakeSolver{deal: engine.Winnable}}
	}
	h := newHarness(t, deps(true))
	h.skip = isSolved
	endGame(t, h, "one-pass", 1, engine.Lost)
	before := h.screen()
	h.wantScreen("(n) · asking the solver…")
	ascii := newHarness(t, deps(false))
	ascii.skip = isSolved
	endGame(t, ascii, "one-pass", 1, engine.Lost)

	h.keys("q")
	h.open(itemCards)
	h.wantScreen("S H D C letters")
	h.keys("right")
	h.wantScreen("Continue              One pass - deal 1 - ")
	h.open(itemContinue)
	if got, want := h.screen(), ascii.screen(); got != want {
		t.Errorf("the lost game in letters:\n%s\nwant, as an ASCII client sees it:\n%s", got, want)
	}
	h.wantScreen("(n) - asking the solver...", " - lost")
	h.keys("q")
	h.open(itemCards)
	h.open(itemContinue)
	if got := h.screen(); got != before {
		t.Errorf("after letters and back:\n%s\nwant as before:\n%s", got, before)
	}
}

func TestCardsSwitchHeldAndAccount(t *testing.T) {
	// A stored game shows the table as it was until the store has a
	// move, whatever the screen; it too follows the switch, and so do
	// the account's screens the session keeps.
	store := &fakeGames{}
	d := accountDeps(newFakeAccount())
	d.Args, d.Games = []string{"classic", "42"}, store
	h := newHarness(t, d)
	h.keys("q")
	h.open(itemStats)
	h.wantScreen("↑/↓ rule set")
	h.keys("esc")
	h.open(itemContinue)
	var held []tea.Msg
	h.skip = func(msg tea.Msg) bool {
		if _, ok := msg.(savedMsg); ok {
			held = append(held, msg)
			return true
		}
		return false
	}
	h.keys("d", "q")
	if h.m.saves.held.shown == nil {
		t.Fatal("no held table while the save is in flight")
	}
	h.open(itemCards)
	wantASCII(t, "the held table after choosing letters", h.screen())
	h.wantScreen("0 moves", "[###]")
	h.skip = nil
	for _, msg := range held {
		h.send(msg)
	}
	h.open(itemContinue)
	wantASCII(t, "the table once stored", h.screen())
	h.wantScreen("1 move")
	h.keys("q")
	h.open(itemStats)
	wantASCII(t, "the stats after choosing letters", h.screen())
	h.wantScreen("up/down rule set")
	h.keys("esc")
	h.open(itemLeaders)
	wantASCII(t, "the board after choosing letters", h.screen())
	h.wantScreen("left day before")
	h.keys("esc")
	h.open(itemName)
	h.wantScreen("enter save - esc back")
	h.keys("esc")
	// The help bars drawn in letters are drawn anew in symbols.
	h.open(itemCards)
	h.open(itemName)
	h.wantScreen("enter save · esc back")
	h.keys("esc")
	h.open(itemLeaders)
	h.wantScreen("← day before")
}

func TestCardsNeedUnicode(t *testing.T) {
	// A client whose locale is not UTF-8 is not offered symbols it may
	// not show: no Cards item, and no way to them through the knob.
	h := newHarness(t, Deps{Player: testPlayer})
	h.wantNotScreen("Cards", "symbols", "letters")
	for _, it := range h.m.menu().items {
		if it.kind == itemCards {
			t.Fatal("the menu of an ASCII client has a Cards item")
		}
	}
	h.m.menu().ASCII = false
	h.send(menuSettingsMsg{})
	if h.m.env.gl.unicode {
		t.Error("an ASCII client switched to Unicode glyphs")
	}
	h.keys("enter")
	wantASCII(t, "the table", h.screen())
}

func TestCardsIn(t *testing.T) {
	tests := []struct {
		in, symbols, letters string
	}{
		{"pair does not make 13: KD + 4S = 17", "pair does not make 13: K♦ + 4♠ = 17", "pair does not make 13: KD + 4S = 17"},
		{"7.1 is TH", "7.1 is 10♥", "7.1 is 10H"},
		{"7.1+w and 6.2: no card here", "7.1+w and 6.2: no card here", "7.1+w and 6.2: no card here"},
		{"KDX AS2 QH.", "KDX AS2 Q♥.", "KDX AS2 QH."},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := glyphsFor(true).cardsIn(tt.in); got != tt.symbols {
				t.Errorf("symbols: got %q, want %q", got, tt.symbols)
			}
			if got := glyphsFor(false).cardsIn(tt.in); got != tt.letters {
				t.Errorf("letters: got %q, want %q", got, tt.letters)
			}
		})
	}
}

// TestNotationErrorsShowCardsAsDrawn: a typed pair that does not make 13
// names its cards as the board draws them.
func TestNotationErrorsShowCardsAsDrawn(t *testing.T) {
	g, err := engine.NewNumbered(engine.Classic(), 42)
	if err != nil {
		t.Fatal(err)
	}
	var pair engine.Move
	for c := 1; c < 7 && pair.Kind == 0; c++ {
		m := engine.PairMove(engine.Slot(7, c), engine.Slot(7, c+1))
		if errors.Is(g.Check(m), engine.ErrNotThirteen) {
			pair = m
		}
	}
	if pair.Kind == 0 {
		t.Fatal("no pair of the bottom row fails to make 13 in classic 42: pick another deal")
	}
	for _, uni := range []bool{true, false} {
		h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: uni})
		h.keys(":")
		h.typeText(pair.String())
		h.keys("enter")
		a, _ := g.PyramidCard(pair.A)
		b, _ := g.PyramidCard(pair.B)
		gl := glyphsFor(uni)
		h.wantScreen(gl.cardName(a) + " + " + gl.cardName(b) + " = ")
	}
}

// TestASCIISessionFoldsNames: a client whose terminal shows only ASCII
// reads a player's name without its accents (dån: dan) and every other
// text in ASCII, the menu's "…" as "...".
func TestASCIISessionFoldsNames(t *testing.T) {
	p := testPlayer
	p.Name = "dån"
	h := newHarness(t, Deps{Player: p})
	view := h.m.View()
	wantASCII(t, "the menu of an ASCII session", view)
	h.wantScreen("playing as dan", "Custom rules...", "Deal by number...")
	h.wantNotScreen("rules. ")
}
