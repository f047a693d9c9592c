package tui

import (
	"context"
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

// The menu's replies about races name it (routed): they come while it
// shows or not, and change only its lines.
func (raceSeatedMsg) to() screenID   { return screenMenu }
func (raceBackMsg) to() screenID     { return screenMenu }
func (menuSeatTickMsg) to() screenID { return screenMenu }
func (menuSeatPollMsg) to() screenID { return screenMenu }

// askSeated asks, in a command, for the room the player has a seat in
// (raceSeatedMsg, for the menu).
func (e *env) askSeated() tea.Cmd {
	races := e.races
	if races == nil {
		return nil
	}
	ctx := e.ctx
	return func() tea.Msg { return seatOf(ctx, races) }
}

// seatOf asks for the room the player has a seat in and, with none, for
// the room of the race that ended without them.
func seatOf(ctx context.Context, races Races) raceSeatedMsg {
	if code, ok := races.Seated(); ok {
		return raceSeatedMsg{code: code}
	}
	ctx, cancel := context.WithTimeout(ctx, raceTimeout)
	defer cancel()
	ended, _ := races.Ended(ctx)
	return raceSeatedMsg{ended: ended}
}

// askBack asks once more, when the player chose Back to race code,
// whether they still have a seat in it.
func (m *menuScreen) askBack(code string) tea.Cmd {
	races := m.env.races
	if races == nil {
		return nil
	}
	ctx := m.env.ctx
	return func() tea.Msg {
		s := seatOf(ctx, races)
		return raceBackMsg{want: code, seated: s.code, ended: s.ended}
	}
}

// raceReply takes the answers about the player's races: where the
// player has a seat, or which race ended without them.
func (m *menuScreen) raceReply(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case raceSeatedMsg:
		return m.seated(msg)
	case raceBackMsg:
		if msg.seated == msg.want || msg.seated == "" && msg.ended == msg.want {
			// Back in the race, or at its results: it just ended.
			m.event = menuRaceMsg{code: msg.want}
			return nil
		}
		cmd := m.seated(raceSeatedMsg{code: msg.seated, ended: msg.ended})
		m.say(sWarn, "the race in room "+clean(msg.want, 8)+" is over")
		return cmd
	case menuSeatTickMsg:
		if msg.token != m.seatPoll || m.raceBack == "" && m.raceEnded == "" {
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
		if msg.token != m.seatPoll {
			return nil
		}
		was := m.raceBack
		cmd := m.seated(raceSeatedMsg{code: msg.code, ended: msg.ended})
		if msg.code == "" && was != "" && m.items != nil {
			over := "the race in room " + clean(was, 8) + " is over"
			if m.raceEnded == was {
				over += ": Results of race " + clean(was, 8) + " shows how it ended"
			}
			m.say(sWarn, over)
		}
		switch {
		case cmd != nil:
			return cmd // another room, or new results: a new round of asking
		case msg.code != "":
			return m.env.after(seatPollStep, menuSeatTickMsg{token: msg.token})
		case m.raceEnded != "":
			return m.env.after(resultsPollStep, menuSeatTickMsg{token: msg.token})
		}
	}
	return nil
}

// seated has the menu offer to go back to a race; for a race it did not
// offer before, it returns the command that asks again in a while
// whether the race still runs.
func (mn *menuScreen) seated(msg raceSeatedMsg) tea.Cmd {
	if msg.code != "" {
		mn.seenResults = "" // a seat again: its race's results are news
	}
	ended := msg.ended
	if msg.code != "" || ended == mn.seenResults {
		ended = ""
	}
	if mn.raceBack == msg.code && mn.raceEnded == ended {
		return nil
	}
	back, news := mn.raceBack != msg.code, mn.raceEnded != ended
	mn.raceBack, mn.raceEnded = msg.code, ended
	if mn.items != nil {
		mn.build()
		if i := mn.firstOf(itemRaceBack); i >= 0 {
			mn.cur = i // the race comes first
		} else if i := mn.firstOf(itemRaceResults); i >= 0 {
			mn.cur = i
		}
	}
	switch {
	case back && msg.code != "":
		mn.seatPoll++
		return mn.env.after(seatPollStep, menuSeatTickMsg{token: mn.seatPoll})
	case msg.code == "" && ended != "" && news:
		// The results are offered for a while (Races.Ended): asked
		// again now and then, the line goes once they are not.
		mn.seatPoll++
		return mn.env.after(resultsPollStep, menuSeatTickMsg{token: mn.seatPoll})
	}
	return nil
}

// leftRoom notes that the player left the results of the race in room
// code, which the menu then offers no more.
func (mn *menuScreen) leftRoom(code string) {
	mn.seenResults = code
	if mn.raceEnded == code {
		// Not offered even for the moment the server's answer takes.
		mn.raceEnded = ""
		if mn.items != nil {
			mn.build()
		}
	}
}
