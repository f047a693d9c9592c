package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// The game's lifecycle: a deal is started (at once for a deal number,
// through a command for a new, winnable or daily deal), seated on the
// table, loaded from the store at the start of the session and resumed
// from it. Saving is save.go's.

// linkMsg starts the deep link that needs a command (a new or daily deal).
type linkMsg struct{}

// handleGame takes the replies about the game's lifecycle: deals, stored
// games and the session's clock. The table's own replies (the solver's,
// its clock's ticks) are routed to it.
func (m *Model) handleGame(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case linkMsg:
		if m.link != nil {
			spec := *m.link
			m.link = nil
			return m.start(spec)
		}
	case unfinishedMsg:
		return m.loaded(msg)
	case dealtMsg:
		return m.dealt(msg)
	case resumedMsg:
		return m.resumed(msg)
	case dealSeedMsg:
		if !m.hasDealSeed {
			m.dealSeed, m.hasDealSeed = msg.seed, true
		}
		return nil
	case clockMsg:
		if msg.what == clockSeed {
			if m.seed.IsZero() {
				m.seed = msg.now
			}
			return nil
		}
		if msg.token == m.token && msg.what == clockStart && m.started.IsZero() {
			m.started = msg.now
		}
		if m.playing {
			return m.table().update(msg)
		}
	}
	return nil
}

// dealingScreen is what shows while a deal or a stored game is on its
// way: q or esc goes back to the menu, and the answer is then ignored.
type dealingScreen struct {
	chrome
	text string
}

// dealCancelMsg: the player gave up waiting for a deal.
type dealCancelMsg struct{}

func (d *dealingScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
	case k.String() == "q" || k.Type == tea.KeyEsc:
		d.event = dealCancelMsg{}
	}
	return nil
}

// needs is the smallest window the dealing screen is readable in.
func (d *dealingScreen) needs() (w, h int) { return minTableWidth, 12 }

func (d *dealingScreen) view() string { return centered(d.w, d.h, d.text, "q: back to the menu") }

// showDealing shows the dealing screen, saying what is on its way.
func (m *Model) showDealing() {
	d := m.screens[screenDealing].(*dealingScreen)
	switch {
	case m.resume != nil:
		d.text = "Fetching your game" + m.env.gl.ell
	case m.menu().Winnable && m.env.solver != nil:
		d.text = "Finding a deal the solver can win" + m.env.gl.ell
	default:
		d.text = "Dealing" + m.env.gl.ell
	}
	m.show(screenDealing)
}

// Replies of the model's commands.
type (
	// dealtMsg brings a new deal's number, read from the clock or the
	// solver in a tea.Cmd.
	dealtMsg struct {
		req    int
		spec   dealSpec
		number uint64
		day    string
		now    time.Time
		note   string
	}
	// unfinishedMsg brings the player's unfinished games from the store.
	unfinishedMsg struct {
		games []SavedGame
		err   error
	}
)

// StatusOf spells a game status as SavedGame.Status does.
func StatusOf(s engine.Status) string {
	switch s {
	case engine.Won:
		return StatusWon
	case engine.Lost:
		return StatusLost
	}
	return StatusPlaying
}

// openHelp shows the help for the table's keys and, with a game, its
// rules.
func (m *Model) openHelp() {
	m.back = m.cur
	var rules *engine.Rules
	if m.playing {
		r := m.table().game.Rules()
		rules = &r
	}
	km := NewTableKeyMap(m.menu().Scheme, m.env.gl)
	if rs := m.race(); m.cur == screenRace && rs != nil && rs.ghost == nil {
		m.screens[screenHelp] = newRaceHelpScreen(m.env, km, rs.watching, rs.inArenaRoom(), m.w, m.h)
		m.show(screenHelp)
		return
	}
	m.screens[screenHelp] = newHelpScreen(m.env, km, rules, m.w, m.h)
	m.show(screenHelp)
}

// start deals spec: at once for a deal number, through a command for a
// new or daily deal (the clock and the solver live outside Update).
func (m *Model) start(spec dealSpec) tea.Cmd {
	var cmds []tea.Cmd
	if t := m.table(); m.endsTable(spec) {
		// A new deal of the same rules: the game on the table ends
		// (saved before the new one, so the store never sees two).
		if t.d.status != engine.Won && (t.game.MovesMade() > 0 || m.saves.ids[m.token] != "") {
			st := StatusAbandoned
			if t.d.status == engine.Lost {
				st = StatusLost
			}
			cmds = append(cmds, m.queueSave(st))
		}
	} else {
		cmds = append(cmds, m.leaveTable())
	}
	m.resume = nil
	m.menu().rules = spec.rules
	winnable := m.menu().Winnable && m.env.solver != nil
	if !spec.hasNumber && !spec.daily && !winnable && m.hasDealSeed {
		g, err := engine.NewNumbered(spec.rules, seededDeal(m.dealSeed, m.dealCount))
		if err == nil {
			m.dealCount++
			m.seat(g, "", time.Time{}, 0, "")
			m.saves.replace[m.token] = spec.replace
			return tea.Batch(append(cmds, m.env.readClock(m.token, clockStart))...)
		}
	}
	if spec.hasNumber {
		// A number the player typed: theirs to see, practice for records.
		g, err := engine.NewNumbered(spec.rules, spec.number)
		if err != nil {
			m.menu().say(sErr, clean(err.Error(), 200))
			m.show(screenMenu)
			return tea.Batch(cmds...)
		}
		m.seat(g, "", time.Time{}, 0, "")
		m.table().setChosen(true)
		m.saves.replace[m.token] = spec.replace
		return tea.Batch(append(cmds, m.env.readClock(m.token, clockStart))...)
	}
	m.dealReq++
	req := m.dealReq
	m.showDealing()
	e := m.env
	cmds = append(cmds, func() tea.Msg {
		now := e.now()
		msg := dealtMsg{req: req, spec: spec, now: now}
		switch {
		case spec.daily:
			msg.day = now.UTC().Format(time.DateOnly)
			msg.number = engine.DailyNumber(nil, now) // a session without a solver: tests
			if e.solver != nil {
				ctx, cancel := context.WithTimeout(e.ctx, dailyTimeout)
				defer cancel()
				n, err := e.solver.DailyDeal(ctx, spec.rules, now)
				msg.number = n
				if err != nil {
					// Never another deal instead: the day's comes from
					// the server's secret, the same for everybody.
					msg.number, msg.note = 0, "the daily deal is not ready yet: try again in a moment"
				}
			}
		case winnable:
			start := e.drawDeal()
			msg.number = start
			ctx, cancel := context.WithTimeout(e.ctx, dealTimeout)
			defer cancel()
			n, err := e.solver.NextWinnable(ctx, spec.rules, start)
			if err != nil {
				msg.note = "the solver found no winnable deal in time: this one may not be winnable"
			} else {
				msg.number = n
				msg.note = "the solver can win this deal"
			}
		default:
			msg.number = e.drawDeal()
		}
		return msg
	})
	return tea.Batch(cmds...)
}

// dealt seats the deal a command found.
func (m *Model) dealt(msg dealtMsg) tea.Cmd {
	if msg.req != m.dealReq || m.cur != screenDealing {
		return nil
	}
	if msg.spec.daily && msg.number == 0 {
		m.show(screenMenu)
		m.menu().say(sErr, msg.note)
		return nil
	}
	if msg.spec.daily {
		for i, sg := range m.unfinished {
			if sg.Daily == msg.day && sg.Record.Rules == msg.spec.rules.ID() {
				return m.resumeStored(i)
			}
		}
	}
	g, err := engine.NewNumbered(msg.spec.rules, msg.number)
	if err != nil {
		m.show(screenMenu)
		m.menu().say(sErr, clean(err.Error(), 200))
		return nil
	}
	m.seat(g, msg.day, msg.now, 0, "")
	m.saves.replace[m.token] = msg.spec.replace
	t := m.table()
	// The clock starts when the deal was found, and shows in the header
	// as it does for a deal the session knew at once.
	tick := t.clocked(clockMsg{token: t.token, what: clockStart, now: msg.now})
	if msg.note != "" {
		t.say(sInfo, msg.note)
	}
	return tea.Batch(tick, t.askDailyStartPar()) // par.go
}

// seat puts a game on the table and shows it. After a lost game, the
// new table says what the solver found about the deal left behind.
func (m *Model) seat(g *engine.Game, day string, started time.Time, played time.Duration, id string) {
	var left *tableScreen
	if t := m.table(); m.playing && t.d.status == engine.Lost && t.answer != answerNone {
		left = t
	}
	m.token++
	m.started = started
	t := newTable(m.env, m.menu().Scheme, g, m.token, day, played, m.w, m.h)
	t.live = newLiveCheck(m.menu().TellLost) // lost.go
	m.screens[screenTable] = t
	m.saves.seated(m.token, id, t.version, g.MovesMade())
	if left != nil {
		if left.answer.decided() {
			t.say(sInfo, left.afterNote()) // lost.go: with where the win was lost
		} else {
			t.after = left.token // the answer is on its way
		}
	}
	if day != "" && day == m.today() && g.MovesMade() == 0 && left == nil {
		t.rulesNote = m.dailyRules(t)
		t.say(sInfo, t.rulesNote)
	}
	m.playing = true
	m.resume = nil
	m.forgetUnfinished(id)
	m.show(screenTable)
	m.menu().rules = g.Rules()
}

// loaded takes the player's unfinished games: each gets a Continue in
// the menu, and a deep link starts as the menu would (continuing the
// stored game of its very deal, asking before abandoning another).
func (m *Model) loaded(msg unfinishedMsg) tea.Cmd {
	m.loading = false
	for _, sg := range msg.games {
		if m.playing && sg.ID == m.saves.ids[m.token] {
			continue
		}
		m.unfinished = append(m.unfinished, storedGame{SavedGame: sg})
	}
	if msg.err != nil {
		m.menu().say(sWarn, clean("could not load your games: "+Reason(msg.err), 200))
	}
	m.setContinue()
	if m.link != nil {
		spec := *m.link
		m.link = nil
		return m.askStart(spec)
	}
	return nil
}

// resumedMsg brings a stored game the session took over.
type resumedMsg struct {
	req  int
	game SavedGame
	err  error
	// challenge is the number of the challenge the game is the
	// player's game of (tui/challenge.go), or empty.
	challenge string
}

// resumeGame goes back to the game on the table, or takes the stored one
// over (through a command) and seats it.
func (m *Model) resumeGame() tea.Cmd {
	if m.playing {
		m.show(screenTable)
		return m.table().back()
	}
	if m.resume == nil || !m.env.persist() {
		return nil
	}
	m.dealReq++
	req, id := m.dealReq, m.resume.ID
	games, player, ctx := m.env.games, m.env.player.ID, m.env.ctx
	m.showDealing()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		sg, err := games.Resume(ctx, player, id)
		return resumedMsg{req: req, game: sg, err: err}
	}
}

// resumed seats a stored game the session took over.
func (m *Model) resumed(msg resumedMsg) tea.Cmd {
	if msg.req != m.dealReq || m.cur != screenDealing {
		return nil
	}
	m.resume = nil
	var g *engine.Game
	err := msg.err
	if err == nil {
		g, err = engine.Replay(msg.game.Record)
	}
	if err != nil {
		m.reloaded = false
		m.show(screenMenu)
		m.setContinue()
		if msg.challenge != "" {
			m.menu().say(sErr, clean("challenge "+msg.challenge+": "+Reason(err), 200))
			return nil
		}
		m.menu().say(sErr, clean("could not restore your game: "+Reason(err), 200))
		return nil
	}
	sg := msg.game
	m.seat(g, sg.Daily, sg.Started, sg.Played, sg.ID)
	m.table().setChosen(sg.Chosen)
	m.table().resumeTimes(sg.MoveTimes) // movetimes.go
	t := m.table()
	t.hints, t.undos, t.watched = sg.Hints, sg.Undos, sg.Watched
	if msg.challenge != "" {
		t.challengeTable(msg.challenge) // challenge.go
	} else if m.reloaded {
		m.reloaded = false
		t.say(sWarn, staleNote(g.MovesMade()))
	} else {
		t.say(sInfo, "welcome back: your game is as you left it (undo goes back to the start)")
	}
	// A game stored at a lost position ended there: ask about its deal
	// as the lost screen does.
	return tea.Batch(m.env.readClock(m.token, clockStart), t.askDeal())
}

// staleNote is what the table and the race board say when they show the
// stored game again after a change refused as stale (ErrStale): it had n
// moves.
func staleNote(n int) string {
	return ErrStale.Error() + ": back to it as stored (" + strconv.Itoa(n) + plural(n, " move", " moves") + ")"
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

// watchLineMsg: the table has the solver's winning line of its deal, or
// from where its game lost the win, for the watch screen to show.
type watchLineMsg struct {
	start *engine.Game
	line  []engine.Move
	// givesUp: watching the deal's line gives the game up (its record
	// says so); a line from where a lost game lost its win does not.
	givesUp bool
}

// openWatch opens the watch screen with the solver's line, if the player
// is still at the end of that game.
func (m *Model) openWatch(msg watchLineMsg) {
	t := m.table()
	if m.cur != screenTable || !m.playing || t.d.status == engine.Playing {
		return
	}
	m.screens[screenWatch] = newWatch(m.env, msg.start, msg.line, t.shownTitle(), m.w, m.h)
	m.show(screenWatch)
	if msg.givesUp && !t.watched && t.d.status != engine.Won {
		// Watching the solution gives the game up: saved at once, so
		// that the record says so whatever the player does next.
		t.watched = true
		t.version++
	}
}

// continueNote describes the game on the table, for its Continue.
func (t *tableScreen) continueNote() string {
	n := t.game.MovesMade()
	return fmt.Sprintf("%s%s%d %s", t.shownTitle(), t.env.gl.sep, n, plural(n, "move", "moves"))
}

// storedTitle describes a stored game: rule set, deal and moves.
func storedTitle(sg SavedGame, gl *glyphs) string {
	r, err := engine.ParseRules(sg.Record.Rules)
	if err != nil {
		return ""
	}
	n := len(sg.Record.Moves)
	return fmt.Sprintf("%s%s%d %s", savedTitleOf(r, sg, gl.sep), gl.sep, n, plural(n, "move", "moves"))
}
