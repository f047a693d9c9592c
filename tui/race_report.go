package tui

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// The way of a racer's game to the room: every change is reported
// (Races.Play), one report in flight at a time, and held on the screen
// until the server has it (hold.go).

// toTable hands a key or a click to the player's game. A change is held
// (hold.go) until the server has it: reported to the room at once, or
// in a ghost race stored at the next reading of the clock, which times
// it (ghost.go).
func (rs *raceScreen) toTable(msg tea.Msg) tea.Cmd {
	t := rs.table
	v, said := t.version, t.msg
	rs.held.arm(t, true)
	cmd := t.update(msg)
	rs.held.take(t, t.version != v)
	switch t.takeEvent().(type) {
	case quitMsg:
		rs.event = quitMsg{}
	case helpMsg:
		rs.event = helpMsg{}
	}
	if t.version == v {
		rs.held.follow(t, t.msg != said)
		return cmd
	}
	if t.d.status == engine.Lost {
		t.say(sWarn, "no moves left: your race is over")
	}
	rs.seq++
	if rs.ghost != nil {
		return tea.Batch(cmd, rs.ghost.readClock(rs.env))
	}
	rep := raceReport{code: rs.snap.Code, round: rs.round, seq: rs.seq, rec: t.game.Record()}
	if rs.sending {
		rs.next = &rep // sent when the one in flight returns
		return cmd
	}
	return tea.Batch(cmd, rs.report(rep))
}

// reporting reports whether a change of the player's game is on its way
// to the server, or waits to go: a session that quits waits for it.
func (rs *raceScreen) reporting() bool {
	if rs.ghost != nil {
		return rs.ghost.sending || rs.ghost.sent < rs.seq
	}
	return rs.sending || rs.next != nil
}

// raceReport is a report of the racer's game to the room (Races.Play).
type raceReport struct {
	code       string
	round, seq int
	rec        engine.Record
}

// report sends a report of the racer's game.
func (rs *raceScreen) report(rep raceReport) tea.Cmd {
	rs.sending = true
	races, ctx := rs.races, rs.env.ctx
	return func() tea.Msg {
		// Not cancelled with the session: a move typed just before the
		// connection dropped is still kept, as at the table.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), raceTimeout)
		defer cancel()
		note, err := races.Play(ctx, rep.code, rep.round, rep.seq, rep.rec)
		return raceDoneMsg{what: "move", note: note, err: err, play: true, seq: rep.seq, round: rep.round}
	}
}

// reported takes the answer to a report: the next one goes, the held
// table goes once the server has every change, and a report the server
// could not store takes the board back to the held table, the last
// position it has.
func (rs *raceScreen) reported(msg raceDoneMsg) tea.Cmd {
	rs.sending = false
	if msg.round != rs.round && !errors.Is(msg.err, ErrTakenOver) {
		// The answer about a round before this one (a rematch dealt
		// meanwhile): it says nothing of this round's game.
		msg = raceDoneMsg{play: true, seq: msg.seq, round: rs.round}
	}
	var stale *StaleError
	switch {
	case errors.Is(msg.err, ErrTakenOver):
		rs.next = nil
		rs.held.drop()
		rs.event = raceLeftMsg{st: sWarn, text: "your race continues in another session"}
		return nil
	case errors.As(msg.err, &stale):
		// The racer's stored game moved on without this session (it
		// was played in another): the board is the stored one now.
		rs.next = nil
		rs.held.drop()
		rs.deal(rs.snap, &stale.Record)
		rs.say(sWarn, staleNote(len(stale.Record.Moves)))
		return nil
	case msg.err != nil && (errors.Is(msg.err, lobby.ErrNotRacing) || errors.Is(msg.err, lobby.ErrRaceOver)):
		// The race ended while the move was on its way: the results say
		// what counted.
		rs.next = nil
		rs.held.drop()
		return nil
	case msg.err != nil:
		rs.next = nil
		rs.rollBack(msg.err)
		return nil
	}
	if msg.note != "" {
		rs.say(sWarn, clean(msg.note, 300))
	}
	if rs.next != nil {
		rep := *rs.next
		rs.next = nil
		return rs.report(rep)
	}
	if msg.seq == rs.seq {
		rs.held.release(rs.table) // the server has every change
	}
	return nil
}

// rollBack takes the board back to the held table, the last position the
// server has, after it refused a change (err), and says so.
func (rs *raceScreen) rollBack(err error) {
	back, text := rs.held.rollBack(rs.table, rs.scheme, err)
	if back == nil {
		rs.say(sErr, text)
		return
	}
	rs.table = back
	rs.say(sWarn, text)
}

// showMine shows the player's own line as the room told it while a change
// was on its way, once the board shows every change (or the round it was
// of is over).
func (rs *raceScreen) showMine() {
	p := rs.mineHeld
	if p == nil || rs.held.shown != nil && p.Round == rs.snap.Round && p.Code == rs.snap.Code {
		return
	}
	rs.mineHeld = nil
	if p.Round != rs.snap.Round || p.Code != rs.snap.Code {
		return
	}
	for i := range rs.racers {
		if rs.racers[i].ID == p.Racer.ID {
			rs.racers[i] = p.Racer
		}
	}
}
