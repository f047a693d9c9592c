package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// A spectator of a race room (modeSpectating) sees the room's pages as a
// racer does and, while the race runs, one racer's board at a time,
// fetched from the server when that racer moves.

// watchKey handles a spectator's key: tab (or → l) shows the next racer's
// board, shift+tab (or ← h) the one before.
func (rs *raceScreen) watchKey(k tea.KeyMsg) tea.Cmd {
	step := 0
	switch k.String() {
	case "tab", "right", "l":
		step = 1
	case "shift+tab", "left", "h":
		step = -1
	case "enter":
		if rs.snap.Phase == lobby.PhaseResults {
			return rs.leave()
		}
	}
	if step == 0 || len(rs.racers) == 0 {
		return nil
	}
	i := 0
	for j, r := range rs.racers {
		if r.ID == rs.watched {
			i = j
		}
	}
	rs.watched = rs.racers[(i+step+len(rs.racers))%len(rs.racers)].ID
	return rs.fetchBoard()
}

// fetchBoard asks for the watched racer's game (the first racer's when
// none is watched yet) while the race runs.
func (rs *raceScreen) fetchBoard() tea.Cmd {
	if !rs.watching || rs.snap.Phase != lobby.PhaseRacing || len(rs.racers) == 0 {
		return nil
	}
	if _, ok := rs.snap.Member(rs.watched); !ok {
		rs.watched = rs.racers[0].ID
	}
	code, id, races, ctx := rs.snap.Code, rs.watched, rs.races, rs.env.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, raceTimeout)
		defer cancel()
		rec, err := races.Board(ctx, code, id)
		return raceBoardMsg{id: id, rec: rec, err: err}
	}
}

// board shows the watched racer's game.
func (rs *raceScreen) board(msg raceBoardMsg) {
	if !rs.watching || msg.id != rs.watched {
		return
	}
	if msg.err != nil && rs.snap.Phase != lobby.PhaseRacing {
		// Asked while the race ran (a racer's last move, or leave), it
		// came back after the end, which took the seats of those who
		// left: the results show now.
		return
	}
	if msg.err != nil {
		rs.say(sErr, clean("their board: "+Reason(msg.err), 200))
		return
	}
	g, err := engine.Replay(msg.rec)
	if err != nil {
		rs.say(sErr, clean("their board: "+err.Error(), 200))
		return
	}
	name := ""
	for _, r := range rs.racers {
		if r.ID == msg.id {
			name = clean(r.Name, 16)
		}
	}
	t := rs.newRaceTable(g, rs.snap, "watching "+name+rs.env.gl.sep+"room "+rs.snap.Code)
	t.cursor = engine.NoPlace
	t.msg, t.msgSt = rs.msg, rs.msgSt
	rs.table, rs.round = t, rs.snap.Round
	rs.layOut()
}
