package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// The menu's "Back to race CODE" asks once more, when chosen, whether the
// player still has a seat in a race that runs: the menu learned it when it
// last showed, and the race may have ended since (its end often comes just
// after the player left it). A race that is over is never joined again:
// the menu drops the line and says so. While the line shows, the menu
// also asks again every seatPollStep, so that the line goes by itself
// once the race ends (the player's seat gets no events after they left
// the race screen). A race that ended without the player turns the line
// into "Results of race CODE" (Races.Ended), which shows its results
// while the server offers them: the menu asks again every
// resultsPollStep, and the line goes when they are no longer offered.
type (
	// menuBackMsg: the player chose Back to race code.
	menuBackMsg struct{ code string }
	// raceBackMsg brings the room the player has a seat in now ("" for
	// none) and, with none, the room of a race that ended without them,
	// for the choice of want.
	raceBackMsg struct{ want, seated, ended string }
	// menuSeatTickMsg: time to ask again whether the race the menu
	// offers still runs; token tells the menu's current round of asking
	// from an old one.
	menuSeatTickMsg struct{ token int }
	// menuSeatPollMsg brings the answer: the room the player has a seat
	// in now ("" for none).
	menuSeatPollMsg struct {
		token       int
		code, ended string
	}
)

// seatPollStep is the time between two questions of the menu about the
// race it offers to go back to; resultsPollStep the time between two
// about the results it offers of a race that ended without the player.
const (
	seatPollStep    = 2 * time.Second
	resultsPollStep = 30 * time.Second
)

// raceBack takes the menu's Back to race and the answer to its question.
func (m *Model) raceBack(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case menuBackMsg:
		races := m.env.races
		if races == nil {
			return nil
		}
		want, ctx := msg.code, m.env.ctx
		return func() tea.Msg {
			s := seatOf(ctx, races)
			return raceBackMsg{want: want, seated: s.code, ended: s.ended}
		}
	case raceBackMsg:
		if msg.seated == msg.want || msg.seated == "" && msg.ended == msg.want {
			// Back in the race, or at its results: it just ended.
			return m.handleRace(menuRaceMsg{code: msg.want})
		}
		cmd := m.seatedReply(raceSeatedMsg{code: msg.seated, ended: msg.ended})
		m.menu().say(sWarn, "the race in room "+clean(msg.want, 8)+" is over")
		return cmd
	case menuSeatTickMsg:
		mn := m.menu()
		if msg.token != mn.seatPoll || mn.raceBack == "" && mn.raceEnded == "" {
			return nil // an old round, or nothing to offer any more
		}
		races, token, ctx := m.env.races, msg.token, m.env.ctx
		if races == nil {
			return nil
		}
		return func() tea.Msg {
			s := seatOf(ctx, races)
			return menuSeatPollMsg{token: token, code: s.code, ended: s.ended}
		}
	case menuSeatPollMsg:
		mn := m.menu()
		if msg.token != mn.seatPoll {
			return nil
		}
		was := mn.raceBack
		cmd := m.seatedReply(raceSeatedMsg{code: msg.code, ended: msg.ended})
		if msg.code == "" && was != "" && m.cur == screenMenu {
			over := "the race in room " + clean(was, 8) + " is over"
			if mn.raceEnded == was {
				over += ": Results of race " + clean(was, 8) + " shows how it ended"
			}
			mn.say(sWarn, over)
		}
		switch {
		case cmd != nil:
			return cmd // another room, or new results: a new round of asking
		case msg.code != "":
			return m.env.after(seatPollStep, menuSeatTickMsg{token: msg.token})
		case mn.raceEnded != "":
			return m.env.after(resultsPollStep, menuSeatTickMsg{token: msg.token})
		}
		return nil
	}
	return nil
}
