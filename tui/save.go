package tui

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// queueSave queues a save of the table's game with a status and returns
// the command that sends it, if nothing else is in flight. Saves of one
// game waiting in the queue are merged: only the newest version matters.
func (m *Model) queueSave(status string) tea.Cmd {
	if !m.env.persist() || !m.playing {
		return nil
	}
	t := m.table
	g := t.game
	ps := pendingSave{
		token: m.token,
		game: SavedGame{
			Record:  g.Record(),
			Status:  status,
			Daily:   m.day,
			Removed: g.Removed(),
			Started: m.started,
		},
		played: t.played,
		since:  t.since,
	}
	if t.wonKnown {
		ps.played, ps.since = t.wonIn, time.Time{}
	}
	if n := len(m.queue); n > 0 && m.queue[n-1].token == ps.token {
		m.queue[n-1] = ps
	} else {
		m.queue = append(m.queue, ps)
	}
	return m.nextSave()
}

// nextSave sends the first queued save when none is in flight.
func (m *Model) nextSave() tea.Cmd {
	if m.inFlight || len(m.queue) == 0 {
		return nil
	}
	ps := m.queue[0]
	m.queue = append(m.queue[:0], m.queue[1:]...)
	m.inFlight = true
	if ps.game.ID == "" {
		ps.game.ID = m.ids[ps.token]
	}
	games, player, e := m.env.games, m.env.player.ID, m.env
	return func() tea.Msg {
		now := e.now()
		sg := ps.game
		sg.Saved = now
		if sg.Started.IsZero() {
			sg.Started = now
		}
		sg.Played = ps.played
		if !ps.since.IsZero() {
			sg.Played += now.Sub(ps.since)
		}
		// Not cancelled with the session: a move typed just before the
		// connection dropped is still kept.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), saveTimeout)
		defer cancel()
		id, err := games.Save(ctx, player, sg)
		return savedMsg{token: ps.token, id: id, err: err}
	}
}

// savedReply takes the store's answer and sends the next save. A failed
// save loses nothing: the game stays in memory and the next move saves
// it all again.
//
// The held table (see Model.hold) goes once the store has acknowledged
// every move made so far, that is when no save of the game is left in
// the queue; a failed save lets it go at once, with the warning, since
// the game goes on in memory whatever the store does.
func (m *Model) savedReply(msg savedMsg) tea.Cmd {
	m.inFlight = false
	if errors.Is(msg.err, ErrTakenOver) {
		m.dropSaves(msg.token)
		if msg.token == m.token && m.playing {
			m.dropGame()
		}
		return m.afterSave()
	}
	if m.hold != nil && msg.token == m.hold.token && (msg.err != nil || !m.queued(msg.token)) {
		m.hold = nil
	}
	if msg.err != nil {
		text := clean("not saved: "+msg.err.Error()+" (your game goes on; the next move saves again)", 200)
		if msg.token == m.token && m.screen == screenTable {
			m.tbl().say(sWarn, "%s", text)
		} else {
			m.editMenu().say(sWarn, text)
		}
	} else if msg.id != "" {
		m.ids[msg.token] = msg.id
	}
	return m.afterSave()
}

// afterSave sends the next save, or ends a quitting session when none is
// left.
func (m *Model) afterSave() tea.Cmd {
	cmd := m.nextSave()
	if cmd == nil && m.quitting {
		return tea.Quit
	}
	return cmd
}

// queued reports whether a save of the game token waits in the queue.
func (m *Model) queued(token int) bool {
	for _, ps := range m.queue {
		if ps.token == token {
			return true
		}
	}
	return false
}

// dropSaves forgets the queued saves of a game.
func (m *Model) dropSaves(token int) {
	q := m.queue[:0]
	for _, ps := range m.queue {
		if ps.token != token {
			q = append(q, ps)
		}
	}
	m.queue = q
}

// dropGame takes the game off the table without saving it: another
// session of the player goes on with it.
func (m *Model) dropGame() {
	m.dropSaves(m.token)
	m.hold = nil
	m.playing = false
	m.saved = 0
	m.screen = screenMenu
	mn := m.editMenu()
	mn.setContinue("")
	mn.say(sWarn, "your game continues in another session")
}

// abandonStored queues the save that abandons a stored game the player
// chose not to continue.
func (m *Model) abandonStored(sg SavedGame) tea.Cmd {
	if !m.env.persist() || sg.ID == "" {
		return nil
	}
	sg.Status = StatusAbandoned
	m.queue = append(m.queue, pendingSave{token: -1, game: sg, played: sg.Played})
	return m.nextSave()
}
