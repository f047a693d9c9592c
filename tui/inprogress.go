package tui

import (
	"errors"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// Games in progress. A player has at most one unfinished game per rule
// set, in any session of the account (the server keeps it so). The menu
// offers a Continue for each: the game on the table and every stored
// one. Starting a rule set that has a game in progress asks first, and
// the new game's first save then names the game it replaces
// (SavedGame.Replace); a save the server refuses because another session
// made such a game since (an *UnfinishedError) asks the same question.

// storedGame is a game in progress that is not on the table: loaded from
// the store at the start, or left on the table for another rule set in
// this session (token is then that table's, whose first save may not
// have returned its ID yet).
type storedGame struct {
	SavedGame
	token int
}

// id is the game's stored ID, as far as the session knows it.
func (m *Model) storedID(sg storedGame) string {
	if sg.ID == "" && sg.token != 0 {
		return m.saves.ids[sg.token]
	}
	return sg.ID
}

// replaceRef names the game a new game replaces: by ID, or by the token
// of a table left in this session whose first save has not returned.
type replaceRef struct {
	id    string
	token int
}

// tableContinues reports whether the game on the table is one Continue
// goes back to: any game not won (a lost one can still be undone).
func (m *Model) tableContinues() bool {
	return m.playing && m.table().d.status != engine.Won
}

// continueNotes describes every game a Continue goes back to, in the
// menu's order: the table's, then the stored ones.
func (m *Model) continueNotes() []string {
	var notes []string
	if m.tableContinues() {
		notes = append(notes, m.table().continueNote())
	}
	for _, sg := range m.unfinished {
		if note := storedTitle(sg.SavedGame, m.env.gl); note != "" {
			notes = append(notes, note)
		}
	}
	return notes
}

// setContinue has the menu list a Continue for every game in progress.
func (m *Model) setContinue() {
	m.menu().setContinues(m.continueNotes())
}

// continueAt goes back to the i-th game of continueNotes.
func (m *Model) continueAt(i int) tea.Cmd {
	if m.tableContinues() {
		if i == 0 {
			return m.resumeGame()
		}
		i--
	}
	n := 0
	for j, sg := range m.unfinished {
		if storedTitle(sg.SavedGame, m.env.gl) == "" {
			continue
		}
		if n == i {
			return m.resumeStored(j)
		}
		n++
	}
	return nil
}

// resumeStored leaves the table, if a game is on it, and takes the
// stored game unfinished[i] over.
func (m *Model) resumeStored(i int) tea.Cmd {
	sg := m.unfinished[i]
	id := m.storedID(sg)
	if id == "" {
		m.menu().say(sInfo, "that game is still being saved: try again in a moment")
		return nil
	}
	cmd := m.leaveTable()
	sg.ID = id
	m.resume = &sg.SavedGame
	return tea.Batch(cmd, m.resumeGame())
}

// findUnfinished returns the index in m.unfinished of the stored game in
// progress of a rule set, or -1.
func (m *Model) findUnfinished(rulesID string) int {
	for i, sg := range m.unfinished {
		if sg.Record.Rules == rulesID {
			return i
		}
	}
	return -1
}

// forgetUnfinished drops a game from the stored games in progress: it
// is on the table now, abandoned or taken by another session.
func (m *Model) forgetUnfinished(id string) {
	if id == "" {
		return
	}
	kept := m.unfinished[:0]
	for _, sg := range m.unfinished {
		if m.storedID(sg) != id {
			kept = append(kept, sg)
		}
	}
	m.unfinished = kept
}

// endsTable reports whether starting spec ends the game on the table:
// a game of the same rules, or any game when games are not stored (a
// game left then could never be continued).
func (m *Model) endsTable(spec dealSpec) bool {
	return m.playing && (m.table().game.Rules().ID() == spec.rules.ID() || !m.env.persist())
}

// leaveTable takes the game on the table off it for another game of
// another rule set: a game in progress stays in progress (a Continue
// goes back to it), a lost one is finished as lost.
func (m *Model) leaveTable() tea.Cmd {
	if !m.playing {
		return nil
	}
	t := m.table()
	var cmd tea.Cmd
	switch t.d.status {
	case engine.Lost:
		cmd = m.queueSave(StatusLost)
	case engine.Playing:
		id := m.saves.ids[m.token]
		if id != "" || t.game.MovesMade() > 0 {
			sg := storedGame{SavedGame: m.tableGame(StatusPlaying), token: m.token}
			sg.ID = id
			m.unfinished = append([]storedGame{sg}, m.unfinished...)
		}
	}
	m.playing = false
	m.saves.held.drop()
	return cmd
}

// today is the UTC date of the session's start, for the daily's words.
func (m *Model) today() string {
	if m.seed.IsZero() {
		return ""
	}
	return m.seed.UTC().Format(time.DateOnly)
}

// abandonQuestion is the question before a game in progress is given up
// for a new one, and what that means for the player's record; assisted:
// the game used a hint or an undo (a daily game so never reaches its
// board).
func (m *Model) abandonQuestion(title string, moves int, day string, assisted, elsewhere bool) (q, detail string) {
	where := ""
	if elsewhere {
		where = " in another session"
	}
	q = "You have " + title + " in progress" + where + " (" + strconv.Itoa(moves) + plural(moves, " move", " moves") + "): abandon it?"
	board := "the board of " + day
	if day == m.today() {
		board = "today's board"
	}
	switch {
	case day != "" && assisted:
		detail = "It used a hint or an undo, so it will not be on " + board +
			": abandoning it ends your attempt, and later games of this deal are practice."
	case day != "":
		detail = "This will be your result on " + board + "."
	case moves > 0:
		detail = "It counts as a game lost."
	default:
		detail = "It has no move yet: nothing counts."
	}
	return q, detail
}

// storedQuestionTitle names a stored game in the abandon question:
// "Classic deal 42", "Daily 2026-03-01".
func storedQuestionTitle(sg SavedGame) string {
	r, err := engine.ParseRules(sg.Record.Rules)
	if err != nil {
		return "a game"
	}
	return savedTitleOf(r, sg, " ")
}

// savedTitleOf is titleOf of a stored game, without the deal's number
// unless lobby.DealShown says it may be shown.
func savedTitleOf(r engine.Rules, sg SavedGame, sep string) string {
	d := engine.Deal{Number: sg.Record.Deal, Numbered: sg.Record.DealText == ""}
	if !lobby.DealShown(sg.Chosen || !d.Numbered, sg.Status != StatusPlaying) {
		return hiddenTitleOf(r, sg.Daily, sep)
	}
	return titleOf(r, d, sg.Daily, sep)
}

// askStart starts spec, after the player's word when it would abandon a
// game in progress of its rule set: the one on the table (a new deal)
// or a stored one (from the menu, a deep link, another session's). A
// stored game of the very deal asked for is continued instead.
func (m *Model) askStart(spec dealSpec) tea.Cmd {
	id := spec.rules.ID()
	if t := m.table(); m.playing && m.endsTable(spec) {
		g := t.game
		if t.d.status != engine.Playing || g.MovesMade() == 0 {
			return m.start(spec)
		}
		hints, undos := t.assists()
		title := titleOf(g.Rules(), g.Deal(), t.day, " ")
		if !t.chosen {
			title = hiddenTitleOf(g.Rules(), t.day, " ")
		}
		q, detail := m.abandonQuestion(title, g.MovesMade(), t.day, hints > 0 || undos > 0, false)
		m.confirm(q, detail, spec, nil)
		return nil
	}
	i := m.findUnfinished(id)
	if i < 0 {
		return m.start(spec)
	}
	sg := m.unfinished[i]
	sameDeal := spec.hasNumber && sg.Record.DealText == "" && sg.Record.Deal == spec.number
	if sameDeal || spec.daily && sg.Daily != "" && sg.Daily == m.today() {
		return m.resumeStored(i)
	}
	spec.replace = replaceRef{id: sg.ID, token: sg.token}
	if len(sg.Record.Moves) == 0 {
		m.unfinished = append(m.unfinished[:i], m.unfinished[i+1:]...)
		return m.start(spec) // nothing to lose
	}
	q, detail := m.abandonQuestion(storedQuestionTitle(sg.SavedGame), len(sg.Record.Moves), sg.Daily, sg.Hints > 0 || sg.Undos > 0, false)
	m.confirm(q, detail, spec, nil)
	return nil
}

// confirm shows the abandon question; retry is the other session's game
// a refused save named, or nil for a question before a start.
func (m *Model) confirm(q, detail string, spec dealSpec, retry *SavedGame) {
	if m.cur != screenConfirm && m.cur != screenHelp {
		m.back = m.cur
	}
	m.screens[screenConfirm] = newConfirm(m.env, q, detail, spec, retry, m.w, m.h)
	m.show(screenConfirm)
}

// confirmed takes the answer to the abandon question.
func (m *Model) confirmed(yes bool) tea.Cmd {
	c, ok := m.screens[screenConfirm].(*confirmScreen)
	if !ok {
		m.show(m.back)
		return nil
	}
	if c.retry != nil {
		return m.retried(*c.retry, yes)
	}
	m.show(m.back)
	if !yes {
		// Keeping a stored game of the rule set asked for plays it:
		// the player came to play that rule set.
		if ref := c.spec.replace; ref.id != "" || ref.token != 0 {
			if i := m.findUnfinished(c.spec.rules.ID()); i >= 0 {
				return m.resumeStored(i)
			}
		}
		return nil
	}
	if ref := c.spec.replace; ref.id != "" || ref.token != 0 {
		m.forgetUnfinished(m.storedID(storedGame{SavedGame: SavedGame{ID: ref.id}, token: ref.token}))
	}
	return m.start(c.spec)
}

// askReplace asks, after the server refused the first save of the game
// on the table because of another session's game of its rule set,
// whether to abandon that one.
func (m *Model) askReplace(other SavedGame) {
	q, detail := m.abandonQuestion(storedQuestionTitle(other), len(other.Record.Moves), other.Daily, other.Hints > 0 || other.Undos > 0, true)
	m.confirm(q, detail, dealSpec{}, &other)
	m.back = screenTable
}

// retried takes the answer about another session's game: yes saves the
// table's game again, replacing that one; no drops the new game, which
// the store never had, and keeps the other (a Continue goes back to it).
func (m *Model) retried(other SavedGame, yes bool) tea.Cmd {
	if !m.playing {
		m.show(screenMenu)
		return nil
	}
	if yes {
		m.saves.replace[m.token] = replaceRef{id: other.ID}
		m.show(screenTable)
		m.saves.saved = -1 // handle saves the table as it is, whatever its version
		return nil
	}
	m.saves.dropSaves(m.token)
	m.saves.held.drop()
	m.playing = false
	m.saves.saved = 0
	m.forgetUnfinished(other.ID)
	m.unfinished = append([]storedGame{{SavedGame: other}}, m.unfinished...)
	m.show(screenMenu)
	m.setContinue()
	m.menu().say(sInfo, "kept your game in progress: Continue goes back to it")
	return nil
}

// unfinishedOf returns the *UnfinishedError in err, or nil.
func unfinishedOf(err error) *UnfinishedError {
	var ue *UnfinishedError
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}
