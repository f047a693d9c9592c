package tui

import (
	"errors"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// Replies and events of the watch screen.
type (
	// lineMsg brings the solver's winning line of the deal of game
	// token: start is a fresh game of the deal and line wins from it
	// (checked in the command), or err says why there is none.
	lineMsg struct {
		token int
		start *engine.Game
		line  []engine.Move
		err   error
	}
	// watchTickMsg is auto-play's next move; run tells a tick of the
	// current run from the late tick of one paused since.
	watchTickMsg struct{ run int }
	// watchDoneMsg: the player leaves the watch screen for the end of
	// their game.
	watchDoneMsg struct{}
)

// errNoLine is what the watch says when the solver, asked again for its
// line, has none (it ran out of time, or its slots were taken).
var errNoLine = errors.New("the solver found no winning line in time")

// watchScreen is the watch screen: the deal of a game that ended, from
// its start, stepping through the solver's winning line. It draws
// through a board of its own, read-only: no cursor, no selection, the
// move about to be played highlighted as a hint, and the header says how
// far the line is. Nothing is stored: the player's game stays on the
// table, as it was, behind it.
//
// A watchScreen lives only while it shows (the model drops it when the
// player leaves), and so does the line.
type watchScreen struct {
	// board is the line's position; it is the board of no stored game.
	board
	// Keys is the watch screen's key map.
	Keys WatchKeyMap

	line  []engine.Move
	base  int    // moves of start before the line (lost.go: from where the win was lost)
	right string // the header's right side
	auto  bool   // playing by itself
	run   int    // counts the starts of auto-play
}

// newWatch builds the watch screen of line, which wins from start: a
// fresh game of the deal, or one with the moves of the player's game up
// to where the line takes over.
func newWatch(e *env, start *engine.Game, line []engine.Move, title string, w, h int) *watchScreen {
	wt := &watchScreen{board: newBoard(e, start, title, w, h), Keys: NewWatchKeyMap(e.gl), line: line, base: start.MovesMade()}
	wt.cursor = engine.NoPlace
	wt.refreshTargets()
	wt.shown()
	return wt
}

// Pos is the number of the line's moves played on the board.
func (w *watchScreen) Pos() int { return w.board.game.MovesMade() - w.base }

// Board is the board's game: the line's position.
func (w *watchScreen) Board() *engine.Game { return w.board.game }

// setSize lays the board out for a window size.
func (w *watchScreen) setSize(width, height int) { w.layOut(width, height) }

// setEnv draws the screen with the glyphs of e.
func (w *watchScreen) setEnv(e *env) {
	w.env, w.cache = e, &viewCache{}
	w.Keys = NewWatchKeyMap(e.gl)
	w.layOut(w.w, w.h)
	w.shown()
}

// update handles a key or an auto-play tick, in place.
func (w *watchScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case watchTickMsg:
		if !w.auto || msg.run != w.run {
			return nil
		}
		w.seek(w.Pos() + 1)
		if w.Pos() >= len(w.line) {
			w.auto = false
			w.shown()
			return nil
		}
		return w.tick()
	case tea.KeyMsg:
		return w.key(msg)
	}
	return nil
}

// key handles a key press.
func (w *watchScreen) key(k tea.KeyMsg) tea.Cmd {
	km, kn := &w.Keys, nameOf(k)
	switch {
	case key.Matches(kn, km.Back):
		w.pause()
		w.event = watchDoneMsg{}
	case key.Matches(kn, km.Help):
		w.pause() // no tick runs while the help shows
		w.event = helpMsg{}
	case key.Matches(kn, km.Auto):
		if w.auto {
			w.pause()
			return nil
		}
		if w.Pos() >= len(w.line) {
			w.seek(0) // from the end, auto-play starts over
		}
		w.auto = true
		w.run++
		w.shown()
		return w.tick()
	case key.Matches(kn, km.Next):
		w.pause()
		w.seek(w.Pos() + 1)
	case key.Matches(kn, km.Prev):
		w.pause()
		w.seek(w.Pos() - 1)
	case key.Matches(kn, km.Start):
		w.pause()
		w.seek(0)
	case key.Matches(kn, km.End):
		w.pause()
		w.seek(len(w.line))
	}
	return nil
}

// tick returns the command that brings auto-play's next move.
func (w *watchScreen) tick() tea.Cmd {
	run := w.run
	return tea.Tick(w.env.watchStep, func(time.Time) tea.Msg { return watchTickMsg{run: run} })
}

// pause stops auto-play; a tick already on its way is dropped.
func (w *watchScreen) pause() {
	if w.auto {
		w.auto = false
		w.shown()
	}
}

// seek plays or takes back the line's moves until pos of them are
// played.
func (w *watchScreen) seek(pos int) {
	pos = max(0, min(pos, len(w.line)))
	g := w.board.game
	if pos == w.Pos() {
		return
	}
	for w.Pos() < pos {
		if err := g.Apply(w.line[w.Pos()]); err != nil {
			// The command checked the line; a line that does not play
			// stops where it breaks.
			w.line = w.line[:w.Pos()]
			break
		}
	}
	for w.Pos() > pos {
		if g.Undo() != nil {
			break
		}
	}
	w.board.version++
	w.board.refresh()
	w.shown()
}

// shown sets what the screen says of the line's position: the header,
// the hinted next move, the message line and which keys apply.
func (w *watchScreen) shown() {
	t := &w.board
	pos, n := w.Pos(), len(w.line)
	w.right = "watching the solver" + w.env.gl.sep + "move " + strconv.Itoa(pos) + "/" + strconv.Itoa(n)
	if w.base > 0 {
		w.right = "the solver from move " + strconv.Itoa(w.base+1) + w.env.gl.sep + strconv.Itoa(pos) + "/" + strconv.Itoa(n)
	}
	t.hint = engine.Move{}
	switch {
	case pos < n:
		t.hint = w.line[pos]
		t.sayf(sInfo, "next: %s", t.describe(t.hint))
	case t.d.status == engine.Won:
		t.sayf(sOK, "the solver's line wins in %d %s", n, plural(n, "move", "moves"))
	default:
		t.say(sErr, "the solver's line stops here without a win")
	}
	km := &w.Keys
	km.Next.SetEnabled(pos < n)
	km.End.SetEnabled(pos < n)
	km.Prev.SetEnabled(pos > 0)
	km.Start.SetEnabled(pos > 0)
	if w.auto {
		km.Auto.SetHelp("a", "pause")
	} else {
		km.Auto.SetHelp("a", "auto-play")
	}
}

// view draws the watch screen, exactly as many lines as the window is
// high.
func (w *watchScreen) view() string {
	return w.render(w, w.right, nil, w.Keys.ShortHelp(), watchBarDrop[:])
}

// panel writes the lines of the panel over the cleared pyramid: the
// solver's line won.
func (w *watchScreen) panel(lines []string, moves, passes string, _ int) []string {
	gl := w.env.gl
	title := "The solver cleared the pyramid"
	if w.game.Rules().Goal == engine.GoalAll {
		title = "The solver removed every card"
	}
	prev := "h"
	if gl.unicode {
		prev = "←"
	}
	return append(lines, title, "", moves+gl.sep+passes, "", prev+": step back"+gl.sep+"q: back")
}
