package tui

import (
	"encoding/base64"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// clipboardMsg asks the player's terminal to put text on its clipboard
// (OSC 52). The session's renderer writes its TerminalSequence with the
// next frame (server.TerminalWriter); terminals that do not allow it
// ignore it, some ask the player first.
type clipboardMsg struct{ text string }

// TerminalSequence is the OSC 52 sequence: the text in base64, so that
// nothing in it reaches the terminal as a control.
func (m clipboardMsg) TerminalSequence() string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(m.text)) + "\a"
}

// copyKeys copies what a screen offers to copy (a share line, a room
// code) to the player's clipboard.
var copyKeys = key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy"))

// copied is what the player is told after a copy: whether it reached the
// clipboard is the terminal's to decide, and nothing tells the server.
const copied = "copied, if your terminal lets programs set its clipboard (OSC 52)"

// copyText returns the command that copies text to the clipboard.
func copyText(text string) tea.Cmd {
	return func() tea.Msg { return clipboardMsg{text: text} }
}
