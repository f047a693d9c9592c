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
	h.send(RenamedMsg{Name: "kitty", Why: "an admin renamed you"})
	h.wantScreen("playing as kitty", "your name is kitty now (an admin renamed you)")
	h.open(itemName)
	h.wantScreen("playing as kitty", "name: kitty")

	h.send(RenamedMsg{Name: "cat"})
	h.wantScreen("playing as cat", "name: cat", "your name is cat now (changed in another session)")

	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("quentin")
	h.send(RenamedMsg{Name: "tom"})
	h.wantScreen("playing as tom", "name: quentin")
}
