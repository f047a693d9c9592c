package tui

import (
	"context"
	"errors"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// The solver's second level: par, the length of a deal's
// shortest winning line, on the win screen, the daily board and race
// results; where a lost game lost its win (lost.go); and the live
// "can no longer be won" check (lost.go).

// Analyst is implemented by a Solver that also answers the solver's
// second-level questions. The model asks a Deps.Solver that implements
// it; without it, par and where the win was lost are not shown. Every
// method may take long and is only ever called from a tea.Cmd, with a
// game the model no longer touches (a clone).
type Analyst interface {
	// Par returns the number of moves of the shortest winning line of
	// deal d under r from its start (draws, redeals and removals each
	// count one), proved shortest. It fails with an error wrapping
	// ErrNoPar when the deal cannot be won or the solver could not prove
	// a line shortest within its budget. Answers are worked out once per
	// rule set and deal and kept for everybody.
	Par(ctx context.Context, r engine.Rules, d engine.Deal) (int, error)
	// WhereLost says where g lost its win: the first of its moves after
	// which the deal could no longer be won, and a move that kept it
	// (engine.WhereLost, within the solver's budget). Its Verdict is
	// what the deal was from its start, as Solve would say it, also when
	// the move is not known (Lost false): the end screen shows it as it
	// shows Solve's answer.
	WhereLost(ctx context.Context, g *engine.Game) (engine.WinLoss, error)
	// StillWinnable reports whether g's position can still be won, with
	// a small budget fit for a check after every move: engine.Unknown
	// when it does not suffice.
	StillWinnable(ctx context.Context, g *engine.Game) (engine.Verdict, error)
}

// ErrNoPar is what Analyst.Par returns (wrapped) when a deal has no par
// the solver knows: it cannot be won, or no line was proved shortest
// within the budget.
var ErrNoPar = errors.New("no par known")

// analyst returns the session's solver as an Analyst, or nil.
func (e *env) analyst() Analyst {
	a, _ := e.solver.(Analyst)
	return a
}

// parTimeout bounds a question for par: the shortest-line search runs
// in the solver's own time, for everybody, and the answer stays in its
// cache for the next asker.
const parTimeout = 20 * time.Second

// parMsg brings the par of a deal to the screen that asked, whether or
// not it shows (see routed), with the key it asked with (the table: its
// game's token): par is 0 when no par is known.
type parMsg struct {
	screen screenID
	key    int
	par    int
	deal   engine.Deal
}

func (p parMsg) to() screenID { return p.screen }

// askPar returns a command that asks the analyst for the par of deal d
// under r, or nil without an analyst. The answer comes to screen to as a
// parMsg with key. This is the race screens' one line to par: ask with
// their screen ID when a race deal is known, take the parMsg in their
// update and show parNote(moves, msg.par) in the results.
func (e *env) askPar(to screenID, key int, r engine.Rules, d engine.Deal) tea.Cmd {
	a := e.analyst()
	if a == nil {
		return nil
	}
	ctx := e.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, parTimeout)
		defer cancel()
		p, err := a.Par(ctx, r, d)
		if err != nil || p <= 0 {
			p = 0
		}
		return parMsg{screen: to, key: key, par: p, deal: d}
	}
}

// parNote is "N moves, par P", or "N moves" when par is unknown (0).
func parNote(moves, par int) string {
	s := strconv.Itoa(moves) + plural(moves, " move", " moves")
	if par > 0 {
		s += ", par " + strconv.Itoa(par)
	}
	return s
}

// askWonPar asks for the par of the table's deal once the game is won;
// the win panel shows it when it comes.
func (t *tableScreen) askWonPar() tea.Cmd {
	if t.par != 0 {
		return nil
	}
	return t.env.askPar(screenTable, t.token, t.game.Rules(), t.game.Deal())
}

// askDailyStartPar asks for the par of the daily deal just seated: the
// message line says it when it comes, and the win panel has it at once.
func (t *tableScreen) askDailyStartPar() tea.Cmd {
	if t.day == "" {
		return nil
	}
	return t.env.askPar(screenTable, t.token, t.game.Rules(), t.game.Deal())
}

// parReply takes the par of the table's deal. Before the first move it
// is said on an empty message line (the daily deal's par), or after the
// daily's rules when they are on it.
func (t *tableScreen) parReply(msg parMsg) {
	if msg.key != t.token || msg.par <= 0 {
		return
	}
	t.par = msg.par
	if t.d.status != engine.Playing || t.game.MovesMade() != 0 {
		return
	}
	switch {
	case t.msg == "":
		t.sayf(sInfo, "par %d: the shortest winning line of this deal", t.par)
	case t.msg == t.rulesNote:
		t.sayf(sInfo, "%s%spar %d", t.rulesNote, t.env.gl.sep, t.par)
	}
}

// movesWithPar is the win panel's moves figure: "N moves, par P" once
// the par is known.
func (t *tableScreen) movesWithPar(moves string) string {
	if t.par <= 0 {
		return moves
	}
	return moves + ", par " + strconv.Itoa(t.par)
}

// boardParMsg brings the par of the daily deal of date (time.DateOnly)
// for the daily board: 0 when it is not known.
type boardParMsg struct {
	date string
	par  int
}

// askDailyPar returns the command that asks for the par of the daily
// deal of rules rulesID on date, or of today (read from the session's
// clock in the command) when date is empty; nil without an analyst.
func (e *env) askDailyPar(rulesID, date string) tea.Cmd {
	a := e.analyst()
	if a == nil {
		return nil
	}
	r, err := engine.ParseRules(rulesID)
	if err != nil {
		return nil
	}
	solver := e.solver
	return func() tea.Msg {
		day := e.now().UTC()
		if date != "" {
			d, err := time.Parse(time.DateOnly, date)
			if err != nil {
				return nil
			}
			day = d
		}
		msg := boardParMsg{date: day.Format(time.DateOnly)}
		ctx, cancel := context.WithTimeout(e.ctx, parTimeout)
		defer cancel()
		n, err := solver.DailyDeal(ctx, r, day)
		if err != nil {
			return msg
		}
		if p, err := a.Par(ctx, r, engine.NewDeal(n, r.Decks)); err == nil {
			msg.par = p
		}
		return msg
	}
}

// joinSub joins two parts of a subtitle, either of which may be empty.
func joinSub(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}
