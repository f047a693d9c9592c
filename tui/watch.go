package tui

import (
	"context"
	"errors"
	"fmt"
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

// Watch is the watch screen: the deal of a game that ended, from its
// start, stepping through the solver's winning line. It draws the
// table's board, read-only: no cursor, no selection, the move about to
// be played highlighted as a hint, and the header says how far the line
// is. Nothing is stored: the player's game stays on the table, as it
// was, behind it.
//
// A Watch lives only while it shows (the model drops it when the player
// leaves), and so does the line. It is changed in place: the model that
// Bubble Tea keeps from the start of the session never has one.
type Watch struct {
	// Keys is the watch screen's key map.
	Keys WatchKeyMap

	env   *env
	board *Table // its game is the line's position; it is the table of no stored game
	line  []engine.Move
	right string // the header's right side
	auto  bool   // playing by itself
	run   int    // counts the starts of auto-play
	// event is what the screen asks of its owner after an Update.
	event tea.Msg
}

// newWatch builds the watch screen of line, which wins from start, a
// fresh game of the deal.
func newWatch(e *env, start *engine.Game, line []engine.Move, title string, w, h int) *Watch {
	board := newTable(e, SchemeVi, start, 0, title, 0, w, h)
	board.watching = true
	board.cursor, board.sel = engine.NoPlace, engine.NoPlace
	wt := &Watch{Keys: NewWatchKeyMap(e.gl), env: e, board: board, line: line}
	wt.shown()
	return wt
}

// Pos is the number of the line's moves played on the board.
func (w *Watch) Pos() int { return w.board.game.MovesMade() }

// Len is the number of moves of the line.
func (w *Watch) Len() int { return len(w.line) }

// Board is the board's game: the line's position.
func (w *Watch) Board() *engine.Game { return w.board.game }

// setSize lays the board out for a window size.
func (w *Watch) setSize(width, height int) { w.board.setSize(width, height) }

// update handles a key or an auto-play tick, in place.
func (w *Watch) update(msg tea.Msg) tea.Cmd {
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
func (w *Watch) key(k tea.KeyMsg) tea.Cmd {
	km := &w.Keys
	switch {
	case key.Matches(k, km.Quit):
		w.event = quitMsg{}
	case key.Matches(k, km.Redraw):
		return tea.ClearScreen
	case key.Matches(k, km.Back):
		w.pause()
		w.event = watchDoneMsg{}
	case key.Matches(k, km.Help):
		w.pause() // no tick runs while the help shows
		w.event = helpMsg{}
	case key.Matches(k, km.Auto):
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
	case key.Matches(k, km.Next):
		w.pause()
		w.seek(w.Pos() + 1)
	case key.Matches(k, km.Prev):
		w.pause()
		w.seek(w.Pos() - 1)
	case key.Matches(k, km.Start):
		w.pause()
		w.seek(0)
	case key.Matches(k, km.End):
		w.pause()
		w.seek(len(w.line))
	}
	return nil
}

// tick returns the command that brings auto-play's next move.
func (w *Watch) tick() tea.Cmd {
	run := w.run
	return tea.Tick(w.env.watchStep, func(time.Time) tea.Msg { return watchTickMsg{run: run} })
}

// pause stops auto-play; a tick already on its way is dropped.
func (w *Watch) pause() {
	if w.auto {
		w.auto = false
		w.shown()
	}
}

// seek plays or takes back the line's moves until pos of them are
// played.
func (w *Watch) seek(pos int) {
	pos = max(0, min(pos, len(w.line)))
	g := w.board.game
	if pos == g.MovesMade() {
		return
	}
	for g.MovesMade() < pos {
		if err := g.Apply(w.line[g.MovesMade()]); err != nil {
			// The command checked the line; a line that does not play
			// stops where it breaks.
			w.line = w.line[:g.MovesMade()]
			break
		}
	}
	for g.MovesMade() > pos {
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
func (w *Watch) shown() {
	t := w.board
	pos, n := w.Pos(), len(w.line)
	w.right = "watching the solver" + w.env.gl.sep + "move " + strconv.Itoa(pos) + "/" + strconv.Itoa(n)
	t.hint = engine.Move{}
	switch {
	case pos < n:
		t.hint = w.line[pos]
		t.say(sInfo, "next: %s", t.describe(t.hint))
	case t.d.status == engine.Won:
		t.say(sOK, "the solver's line wins in %d %s", n, plural(n, "move", "moves"))
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
func (w *Watch) view() string {
	return w.board.render(w.right, w.Keys.ShortHelp(), watchBarDrop[:])
}

// needs is the smallest window the watch screen fits.
func (w *Watch) needs() (width, height int) { return w.board.needs() }

// askLine asks the solver, in a command, for its winning line of the
// deal on the table, for the watch screen; the screen opens when the
// line comes (lineReply). The line was not kept from the first answer:
// a session holds a line only while it is watched.
func (m *Model) askLine() tea.Cmd {
	if !m.playing || m.env.solver == nil || m.table.fetching || !m.table.canWatch() {
		return nil
	}
	t := m.tbl()
	t.fetching = true
	t.say(sInfo, "asking the solver for its winning line%s", m.env.gl.ell)
	solver, ctx, token := m.env.solver, m.env.ctx, m.token
	r, d := t.game.Rules(), t.game.Deal()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, solveTimeout)
		defer cancel()
		msg := lineMsg{token: token}
		start, err := engine.NewGame(r, d)
		if err != nil {
			msg.err = err
			return msg
		}
		v, line, err := solver.Solve(ctx, start)
		switch {
		case err != nil:
			msg.err = err
		case v != engine.Winnable || len(line) == 0:
			msg.err = errNoLine
		default:
			msg.err = wins(start, line)
			if msg.err == nil {
				msg.start, msg.line = start, line
			}
		}
		return msg
	}
}

// wins checks that line wins when played from g, which it leaves as it
// is.
func wins(g *engine.Game, line []engine.Move) error {
	c := g.Clone()
	for i, m := range line {
		if err := c.Apply(m); err != nil {
			return fmt.Errorf("the solver's move %d (%s): %w", i+1, m, err)
		}
	}
	if c.Status() != engine.Won {
		return errors.New("the solver's line does not win")
	}
	return nil
}

// lineReply opens the watch screen with the solver's line, if the player
// is still at the end of that game.
func (m *Model) lineReply(msg lineMsg) tea.Cmd {
	if !m.playing || msg.token != m.token || !m.table.fetching {
		return nil
	}
	t := m.tbl()
	t.fetching = false
	t.endMessage()
	if m.screen != screenTable || t.d.status == engine.Playing {
		return nil
	}
	if msg.err != nil {
		t.say(sWarn, "%s", clean("no line to watch: "+msg.err.Error(), 200))
		return nil
	}
	m.watch = newWatch(m.env, msg.start, msg.line, t.title, m.w, m.h)
	m.screen = screenWatch
	return nil
}
