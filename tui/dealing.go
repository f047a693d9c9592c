package tui

import tea "github.com/charmbracelet/bubbletea"

var _ screen = (*dealingScreen)(nil)

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
	case k.Type == tea.KeyCtrlC:
		d.event = quitMsg{}
	case k.String() == "q" || k.Type == tea.KeyEsc:
		d.event = dealCancelMsg{}
	}
	return nil
}

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
