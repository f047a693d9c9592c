package tui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/share"
)

// The race screen's keys. key hands each mode (raceMode) to its own
// method, after the keys every mode shares: the chat line or the join
// form, open, takes every key; then help, leave and chat.

// key handles a key.
func (rs *raceScreen) key(k tea.KeyMsg) tea.Cmd {
	rs.clearChatErr()
	if rs.inputOpen {
		return rs.inputKey(k)
	}
	mode := rs.mode()
	switch {
	case mode == modeJoining || mode == modeCode:
		if key.Matches(k, rs.keys.Leave) {
			rs.event = raceLeftMsg{}
		}
		return nil
	case rs.promptOpen():
		return rs.raceKey(k) // the move prompt takes every key, esc closing it
	}
	km := &rs.keys
	if k.String() != "q" && k.String() != "esc" {
		rs.leaving = false
	}
	switch {
	case key.Matches(k, km.Help):
		rs.event = helpMsg{}
		return nil
	case key.Matches(k, km.Leave):
		return rs.leave()
	case key.Matches(k, km.Chat):
		rs.openChat() // race_chat.go
		return nil
	case isChatScroll(k):
		rs.scrollChat(k)
		return nil
	}
	switch mode {
	case modeWaiting:
		return rs.waitingKey(k)
	case modeRacing:
		return rs.raceKey(k)
	case modeSpectating:
		return rs.watchKey(k)
	case modeResults:
		return rs.resultsKey(k)
	}
	return nil
}

// leave leaves the room; in the waiting room and during the race, q or
// esc asks to be pressed again (a racer who leaves the waiting room gives
// up their place and ready mark; a spectator just goes).
func (rs *raceScreen) leave() tea.Cmd {
	if rs.mode() == modeWaiting && !rs.watching && rs.snap.Code != "" && !rs.leaving {
		rs.leaving = true
		rs.say(sWarn, "q or esc again leaves room "+rs.snap.Code+"; any other key stays")
		return nil
	}
	if rs.racing() && !rs.leaving {
		rs.leaving = true
		if rs.ghost != nil {
			rs.say(sWarn, "q again leaves the ghost race")
		} else {
			rs.say(sWarn, "q again leaves the race (race "+rs.snap.Code+" brings you back while it runs)")
		}
		return nil
	}
	code, races := rs.snap.Code, rs.races
	if rs.ghost != nil || code == "" {
		rs.event = raceLeftMsg{}
		if rs.ghost != nil {
			return rs.ghostLeave() // ghost.go
		}
		return nil
	}
	// The menu's question about a seat comes after the leave: asked
	// apart, it could run first and offer Back to a room just left.
	rs.event = raceLeftMsg{asked: true}
	over, ctx := rs.over, rs.env.ctx
	return func() tea.Msg {
		if !over {
			_ = races.Leave(code)
		}
		return seatOf(ctx, races)
	}
}

// waitingKey handles a key in the waiting room: ready, and the host's
// start. The countdown takes neither.
func (rs *raceScreen) waitingKey(k tea.KeyMsg) tea.Cmd {
	if rs.inArenaRoom() {
		return rs.arenaWaitingKey(k) // race_arena.go
	}
	if rs.snap.Phase != lobby.PhaseWaiting {
		return nil
	}
	code, races := rs.snap.Code, rs.races
	switch {
	case key.Matches(k, rs.keys.Start):
		if rs.snap.Host != rs.you {
			rs.say(sErr, "only the host starts the race")
			return nil
		}
		return rs.call("start", func() error { return races.Start(code) })
	case key.Matches(k, rs.keys.Ready):
		ready := !rs.mine().Ready
		return rs.call("ready", func() error { return races.Ready(code, ready) })
	case key.Matches(k, copyKeys):
		rs.say(sInfo, "room code "+copied)
		return copyText(code)
	}
	return nil
}

// raceKey handles a key during the race: the table's, but no hints, no
// new deal, and undo never takes back a draw or a redeal.
func (rs *raceScreen) raceKey(k tea.KeyMsg) tea.Cmd {
	t := rs.table
	if !rs.racing() {
		if t.d.status != engine.Playing {
			rs.say(sInfo, "your race is over: the others are still racing")
		}
		return nil
	}
	switch {
	case t.promptOpen:
		// Moves typed in notation: the table reads the line.
	case key.Matches(k, t.Keys.Hint):
		rs.say(sWarn, "no hints in a race")
		return nil
	case rs.berserk() && bound(k, t.Keys.Undo): // bound: an undo with nothing to take back says so too
		rs.say(sWarn, "berserk: no undo in this race")
		return nil
	case bound(k, t.Keys.New):
		rs.say(sWarn, "no new deal in a race: everybody plays this one")
		return nil
	case key.Matches(k, watchKeys):
		return nil
	}
	// Undo takes back removals only: the table's rule (tableScreen.undo).
	return rs.toTable(k)
}

// resultsKey handles a key on the results: the host's rematch, and
// enter, which leaves the room.
func (rs *raceScreen) resultsKey(k tea.KeyMsg) tea.Cmd {
	switch {
	case k.Type == tea.KeyEnter:
		return rs.leave()
	case key.Matches(k, copyKeys):
		if line := raceShareLine(rs.snap, rs.you, share.Sep); line != "" {
			rs.say(sInfo, "share line "+copied)
			return copyText(line)
		}
		return nil
	case rs.ghost != nil || !key.Matches(k, rs.keys.Rematch):
		return nil
	case rs.inArenaRoom():
		rs.say(sInfo, "the arena pairs your next race: enter goes back to it")
	case rs.over:
		rs.say(sInfo, "room "+rs.snap.Code+" has closed: no rematch or chat there")
	case rs.snap.Host != rs.you:
		// The server would refuse: say whom to ask (the host's part may
		// have passed to another racer since the race began).
		if name := rs.hostName(); name != "" {
			rs.say(sInfo, "ask "+name+", the host, for a rematch")
		} else {
			rs.say(sInfo, "only the room's host can start a rematch")
		}
	default:
		code, races, ctx := rs.snap.Code, rs.races, rs.env.ctx
		rs.say(sInfo, "dealing a new race"+rs.env.gl.ell)
		return rs.call("rematch", func() error {
			ctx, cancel := context.WithTimeout(ctx, raceTimeout)
			defer cancel()
			return races.Rematch(ctx, code)
		})
	}
	return nil
}

// inputKey edits the chat line (race_chat.go) or the join form's code.
func (rs *raceScreen) inputKey(k tea.KeyMsg) tea.Cmd {
	if rs.mode() != modeCode {
		return rs.chatInputKey(k)
	}
	switch k.Type {
	case tea.KeyEsc:
		rs.inputOpen = false
		rs.event = raceLeftMsg{}
		return nil
	case tea.KeyEnter:
		rs.inputOpen = false
		return rs.ask(raceReq{kind: raceJoin, code: rs.input.Value()})
	}
	var cmd tea.Cmd
	rs.input, cmd = rs.input.Update(k)
	return cmd
}

// racing reports whether the player is racing: the race runs and their
// game goes on.
func (rs *raceScreen) racing() bool {
	return rs.mode() == modeRacing && rs.table.d.status == engine.Playing && rs.mine().State != lobby.RacerLeft
}

// promptOpen reports whether the racer's move prompt is open: it takes
// every key, esc closing it, as at the table (t, q and ? are typed, not
// the room's).
func (rs *raceScreen) promptOpen() bool {
	return rs.racing() && rs.table.promptOpen
}

// mine is the player's line of the panel.
func (rs *raceScreen) mine() lobby.Racer {
	for _, r := range rs.racers {
		if r.ID == rs.you {
			return r
		}
	}
	return lobby.Racer{}
}
