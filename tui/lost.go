package tui

import (
	"context"
	"slices"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// Where the win was lost: after a lost game on a
// winnable deal, the end screen names the first move after which the deal
// could no longer be won and a move that would have kept it, and w
// watches the winning line from that point; and the menu's setting "Tell
// me when a deal can no longer be won" checks the position after every
// move, in the background, and says so on the message line.

// Replies of the analyst's commands.
type (
	// lostMsg brings where game token lost its win: moves are the game's
	// moves when it was asked (the answer is about that line of play).
	lostMsg struct {
		token int
		moves []engine.Move
		loss  engine.WinLoss
		err   error
	}
	// liveMsg brings the live check's verdict of game token's position
	// after moves moves, at table version version.
	liveMsg struct {
		token, version, moves int
		verdict               engine.Verdict
	}
	// tellSavedMsg is the store's answer to a change of that setting.
	tellSavedMsg struct{ err error }
	// menuTellMsg: the player switched that setting in the menu.
	menuTellMsg struct{}
)

// loss is where the table's game lost its win, once the analyst said.
type loss struct {
	engine.WinLoss
	// moves are the game's moves the answer is about.
	moves []engine.Move
}

// liveCheck is the state of the table's live check: at most one check is
// in flight; a move made meanwhile is checked when it returns (only the
// latest position counts).
type liveCheck struct {
	// on is the player's setting, copied when the game is seated; a race
	// table never turns it on.
	on bool
	// busy is set while a check is in flight.
	busy bool
	// lostAt is the number of moves after which the position was found
	// lost, 0 while it was not (or is again winnable after an undo).
	lostAt int
	// winAt is the number of moves of the latest position found
	// winnable, -1 when none is: when it is lostAt-1, move lostAt is the
	// one that lost the deal; otherwise a position between was not
	// checked (only the latest is) and the note says "or earlier".
	winAt int
}

// newLiveCheck is the live check of a new table, on or off.
func newLiveCheck(on bool) liveCheck { return liveCheck{on: on, winAt: -1} }

// tellLoaded takes the player's stored setting "Tell me when a deal can
// no longer be won" (with the others: settings.go). It may come after
// moves were made (a slow store): the position on the table is then
// checked at once, not only after the next move, which may never come.
func (m *Model) tellLoaded(on bool) tea.Cmd {
	m.menu().TellLost = on
	if !m.playing {
		return nil
	}
	t := m.table()
	was := t.live.on
	t.setLive(on)
	if t.live.on && !was {
		return t.askLive()
	}
	return nil
}

// setLive turns the live check on or off as the player's setting says;
// never on a challenge's table, whose play the solver does not help.
func (t *tableScreen) setLive(on bool) { t.live.on = on && t.challenge == "" }

// askWhereLost returns the command that asks the analyst where the lost
// game on the table lost its win, or nil when there is no analyst or the
// game is not lost. Its answer also says whether the deal could be won
// from the start, as askDeal's question does.
func (t *tableScreen) askWhereLost() tea.Cmd {
	a := t.env.analyst()
	if a == nil || t.d.status != engine.Lost {
		return nil
	}
	g, ctx, token := t.game.Clone(), t.env.ctx, t.token
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, solveTimeout)
		defer cancel()
		wl, err := a.WhereLost(ctx, g)
		return lostMsg{token: token, moves: g.Moves(), loss: wl, err: err}
	}
}

// lostReply takes where the game lost its win: the table keeps it, then
// the verdict from the start goes where askDeal's answer goes.
func (t *tableScreen) lostReply(msg lostMsg) {
	known := msg.err == nil && msg.loss.Lost && msg.loss.Index < len(msg.moves) && len(msg.loss.Line) > 0
	switch {
	case msg.token == t.token && known:
		t.lost = &loss{WinLoss: msg.loss, moves: msg.moves}
	case msg.token == t.after && msg.token != 0 && known:
		// The player dealt anew meanwhile: this table tells of it.
		t.after = 0
		if t.sel == engine.NoPlace && !t.promptOpen {
			t.say(sInfo, lossAfterNote(&msg.loss))
		}
		return
	}
	t.solvedReply(solvedMsg{token: msg.token, verdict: msg.loss.Verdict, err: msg.err})
}

// afterNote is what the table of the next deal says of this lost game:
// the solver's answer and, when known, the move that lost the win.
func (t *tableScreen) afterNote() string {
	if l := t.lossNow(); l != nil {
		return lossAfterNote(&l.WinLoss)
	}
	return t.answer.afterNote()
}

// lossAfterNote says where the game the player left lost its win.
func lossAfterNote(l *engine.WinLoss) string {
	return "the deal you left could have been won: move " + strconv.Itoa(l.Index+1) + ", " +
		l.Move.String() + ", lost it (" + l.Kept.String() + " kept it)"
}

// lossNow returns where the win was lost when that still describes the
// game on the table: the player may have undone the losing move since.
func (t *tableScreen) lossNow() *loss {
	l := t.lost
	if l == nil || t.d.status == engine.Playing {
		return nil
	}
	moves := t.game.Moves()
	if len(moves) <= l.Index || !slices.Equal(moves[:l.Index+1], l.moves[:l.Index+1]) {
		return nil
	}
	return l
}

// lossNote is the lost note's sentence about where the win was lost, for
// a window w cells wide, or "" when it is not known.
func (t *tableScreen) lossNote(w int) string {
	l := t.lossNow()
	if l == nil {
		return ""
	}
	n := strconv.Itoa(l.Index + 1)
	s := "move " + n + ", " + l.Move.String() + ", lost the win: " + l.Kept.String() + " kept it"
	if long := s + t.env.gl.sep + "w: watch from there"; cells(long) <= w-2 {
		return long
	}
	return s
}

// watchLoss opens the watch screen (the root's watchLineMsg) on the
// winning line from the position before the move that lost the win, when
// that is known; it reports whether it did.
func (t *tableScreen) watchLoss() bool {
	l := t.lossNow()
	if l == nil {
		return false
	}
	start, err := engine.NewGame(t.game.Rules(), t.game.Deal())
	if err != nil {
		return false
	}
	for _, mv := range l.moves[:l.Index] {
		if start.Apply(mv) != nil {
			return false
		}
	}
	if wins(start, l.Line) != nil {
		return false
	}
	t.event = watchLineMsg{start: start, line: slices.Clone(l.Line)}
	return true
}

// askLive starts the live check of the table's position when the setting
// is on and no check is in flight; a check in flight is followed by one
// of the latest position when it returns.
func (t *tableScreen) askLive() tea.Cmd {
	a := t.env.analyst()
	if a == nil || !t.live.on || t.live.busy || t.d.status != engine.Playing {
		return nil
	}
	t.live.busy = true
	token, version, moves := t.token, t.version, t.game.MovesMade()
	if t.live.lostAt > 0 && moves >= t.live.lostAt {
		// Nothing is won back by playing on (only an undo can change
		// it): no need to ask, but the note comes back after the move's
		// own message, as an answer would.
		return func() tea.Msg {
			return liveMsg{token: token, version: version, moves: moves, verdict: engine.Unwinnable}
		}
	}
	g, ctx := t.game.Clone(), t.env.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, hintTimeout)
		defer cancel()
		v, err := a.StillWinnable(ctx, g)
		if err != nil {
			v = engine.Unknown
		}
		return liveMsg{token: token, version: version, moves: moves, verdict: v}
	}
}

// liveReply takes the live check's verdict and checks the latest position
// if the game changed meanwhile.
func (t *tableScreen) liveReply(msg liveMsg) tea.Cmd {
	t.live.busy = false
	if !t.live.on {
		return nil // turned off meanwhile
	}
	if msg.version == t.version {
		switch msg.verdict {
		case engine.Unwinnable:
			if t.live.lostAt == 0 || msg.moves < t.live.lostAt {
				t.live.lostAt = msg.moves
			}
			if t.d.status == engine.Playing && t.sel == engine.NoPlace && !t.promptOpen {
				t.say(sWarn, t.liveNote())
			}
		case engine.Winnable:
			t.live.lostAt, t.live.winAt = 0, msg.moves
		}
		return nil
	}
	t.live.forget(t.game.MovesMade())
	return t.askLive()
}

// forget drops what the live check knows of positions beyond the first
// moves moves, the ones the game left by undoing; the positions up to
// there are those of the line checked.
func (c *liveCheck) forget(moves int) {
	if c.lostAt > moves {
		c.lostAt = 0
	}
	c.winAt = min(c.winAt, moves)
}

// liveNote is what the live check says once the deal is lost.
func (t *tableScreen) liveNote() string {
	n := strconv.Itoa(t.live.lostAt)
	if t.live.winAt != t.live.lostAt-1 {
		return "this deal can no longer be won (since move " + n + " or earlier)"
	}
	return "this deal can no longer be won (since move " + n + ")"
}

// liveChanged is the live check's part of a change of the game: an undo
// before the move that lost the deal forgets it, and the new position is
// checked.
func (t *tableScreen) liveChanged() tea.Cmd {
	if !t.live.on {
		return nil
	}
	t.live.forget(t.game.MovesMade())
	return t.askLive()
}

// tellKeeper is implemented by an Account that keeps the player's
// settings (arcade's account does).
type tellKeeper interface {
	Settings(ctx context.Context, player string) (map[string]string, error)
	SetSetting(ctx context.Context, player, name, value string) error
}

// settingTellLost is the stored name of the setting "Tell me when a deal
// can no longer be won" (store.SettingTellUnwinnable).
const settingTellLost = "tell-unwinnable"

// saveTell returns the command that keeps the setting, or nil when the
// account keeps no settings.
func (e *env) saveTell(on bool) tea.Cmd {
	k, ok := e.account.(tellKeeper)
	if !ok || !e.accounts() {
		return nil
	}
	ctx, player := e.ctx, e.player.ID
	value := "off"
	if on {
		value = "on"
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, saveTimeout)
		defer cancel()
		return tellSavedMsg{err: k.SetSetting(ctx, player, settingTellLost, value)}
	}
}

// tellChanged applies the menu's setting to the game on the table and
// keeps it for the player.
func (m *Model) tellChanged() tea.Cmd {
	on := m.menu().TellLost
	var cmd tea.Cmd
	if m.playing {
		t := m.table()
		t.setLive(on)
		if t.live.on {
			cmd = t.askLive()
		}
	}
	return tea.Batch(cmd, m.env.saveTell(on))
}
