package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"pyramid/engine"
)

// view draws the table: header, board, message line (or the open
// prompt) and help bar, exactly as many lines as the window is high. A
// cursor move changes only the lines of the two cards involved, so the
// line renderer sends little.
func (t *tableScreen) view() string {
	keys := t.barKeys()
	var p *Prompt
	if t.promptOpen {
		p = &t.prompt
	}
	return t.render(t, "", p, keys[:], tableBarDrop[:])
}

// panel writes the lines of the end panel: after a win the time, moves
// and passes, what was recorded, the solver's answer about the deal and
// how to go on; after a loss the time, the cards removed and the moves,
// what was recorded and how to go on (the message line says the rest).
func (t *tableScreen) panel(lines []string, moves, passes string, w int) []string {
	gl := t.env.gl
	tm := gl.ell
	if t.wonKnown {
		tm = clock(t.wonIn)
	}
	again := "enter or n: new deal"
	if t.game.Rules().Daily {
		again = "enter or n: replay (practice)"
	}
	if t.d.status == engine.Lost {
		total := t.game.Rules().PyramidSize()
		if t.game.Rules().Goal == engine.GoalAll {
			total = t.game.Rules().DeckSize()
		}
		removed := strconv.Itoa(t.d.removed) + " of " + strconv.Itoa(total) + " cards removed"
		if cells(removed) > w {
			removed = strconv.Itoa(t.d.removed) + "/" + strconv.Itoa(total) + " removed"
		}
		lines = append(lines, "No moves left", "", "time "+tm+gl.sep+moves, removed)
		lines = t.resultLines(lines, w)
		again = "u: undo" + gl.sep + "n: new deal"
		if t.game.Rules().Daily {
			again = "u: undo" + gl.sep + "n: replay (practice)"
		}
		return t.endKeys(lines, again, w)
	}
	title := "You cleared the pyramid!"
	if t.game.Rules().Goal == engine.GoalAll {
		title = "You removed every card!"
	}
	moves = t.movesWithPar(moves) // par.go
	lines = append(lines, title, "")
	if s := "time " + tm + gl.sep + moves + gl.sep + passes; cells(s) <= w {
		lines = append(lines, s)
	} else {
		lines = append(lines, "time "+tm+gl.sep+moves, passes) // too wide: broken between its parts
	}
	lines = t.resultLines(lines, w)
	s := t.answer.sentence(gl)
	if t.answer == answerWinnable {
		s = "watch the solver's line (w)" // the player just won it
	}
	if s != "" {
		lines = append(lines, "")
		lines = appendWrapped(lines, s, w)
	}
	return t.endKeys(lines, again, w)
}

// endKeys ends the panel of a game over with its keys: again, what plays
// on, then the menu, broken in two when too wide (a narrow summary beside
// the pyramid). A challenge's game has one attempt: the menu only.
func (t *tableScreen) endKeys(lines []string, again string, w int) []string {
	if t.challenge != "" {
		return append(lines, "", "q: menu")
	}
	if s := again + t.env.gl.sep + "q: menu"; cells(s) <= w {
		return append(lines, "", s)
	}
	return append(lines, "", again, "q: menu")
}

// barKeys is the table's help bar: the key map's short help with w
// (watch the solver's line) among it, each key shown when it applies.
func (t *tableScreen) barKeys() [barItems]key.Binding {
	k := &t.Keys
	watch := watchKeys
	watch.SetEnabled(t.canWatch() && !t.fetching)
	hint, deal := k.Hint, k.New
	// A challenge's game has no hints and one deal: the bar offers
	// neither (the keys still say so).
	if t.noHints {
		hint.SetEnabled(false)
	}
	if t.challenge != "" {
		deal.SetEnabled(false)
	}
	return [barItems]key.Binding{
		barMove: k.Move, barSelect: k.Select, barDraw: k.Draw, barUndo: k.Undo, barRedo: k.Redo,
		barHint: hint, barPrompt: k.Prompt, barWatch: watch, barHelp: k.Help, barNew: deal, barBack: k.Back,
	}
}

// appendWrapped appends s to lines, broken after its colon when it is
// wider than w cells, then at spaces, and cut when a word still is.
func appendWrapped(lines []string, s string, w int) []string {
	if cells(s) > w {
		if a, b, ok := strings.Cut(s, ": "); ok {
			lines = append(lines, cut(a+":", w, ""))
			s = b
		}
		if cells(s) > w {
			for _, part := range wrapWords(s, w) {
				lines = append(lines, cut(part, w, ""))
			}
			return lines
		}
	}
	return append(lines, cut(s, w, ""))
}

// clock formats a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 0 {
		s = 0
	}
	two := func(n int) string {
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	}
	if s >= 3600 {
		return strconv.Itoa(s/3600) + ":" + two(s/60%60) + ":" + two(s%60)
	}
	return strconv.Itoa(s/60) + ":" + two(s%60)
}

// blanks is a run of spaces for padding.
const blanks = "                                                                "

// pad writes n spaces.
func pad(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(blanks))
		b.WriteString(blanks[:k])
		n -= k
	}
}

// appendBlanks appends n spaces.
func appendBlanks(buf []byte, n int) []byte {
	for n > 0 {
		k := min(n, len(blanks))
		buf = append(buf, blanks[:k]...)
		n -= k
	}
	return buf
}
