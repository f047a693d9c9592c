package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestRenamedElsewhere: a name changed by an admin or in another session
// shows in the menu's identity line and in the Change name form, but a
// name the player is typing there is left alone.
func TestRenamedElsewhere(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.wantScreen("playing as alice")
	h.send(RenamedMsg{Name: "kitty"})
	h.wantScreen("playing as kitty", "your name is kitty now")
	h.open(itemName)
	h.wantScreen("playing as kitty", "name: kitty")

	h.send(RenamedMsg{Name: "cat"})
	h.wantScreen("playing as cat", "name: cat")

	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("quentin")
	h.send(RenamedMsg{Name: "tom"})
	h.wantScreen("playing as tom", "name: quentin")
}
