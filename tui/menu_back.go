package tui

import tea "github.com/charmbracelet/bubbletea"

// The menu's "Back to race CODE" asks once more, when chosen, whether the
// player still has a seat in a race that runs: the menu learned it when it
// last showed, and the race may have ended since (its end often comes just
// after the player left it). A race that is over is never joined again:
// the menu drops the line and says so.
type (
	// menuBackMsg: the player chose Back to race code.
	menuBackMsg struct{ code string }
	// raceBackMsg brings the room the player has a seat in now ("" for
	// none), for the choice of want.
	raceBackMsg struct{ want, seated string }
)

// raceBack takes the menu's Back to race and the answer to its question.
func (m *Model) raceBack(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case menuBackMsg:
		races := m.env.races
		if races == nil {
			return nil
		}
		want := msg.code
		return func() tea.Msg {
			code, _ := races.Seated()
			return raceBackMsg{want: want, seated: code}
		}
	case raceBackMsg:
		if msg.seated == msg.want {
			return m.handleRace(menuRaceMsg{code: msg.want})
		}
		m.seatedReply(raceSeatedMsg{code: msg.seated})
		m.menu().say(sWarn, "the race in room "+clean(msg.want, 8)+" is over")
	}
	return nil
}
