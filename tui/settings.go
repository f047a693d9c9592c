package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// The menu's settings (keys, cards, winnable deals only) are the
// player's, kept through the account: loaded at the start of the
// session, and each change kept at once. A guest's last for the session.

// The settings the tui keeps, by their account names, and their values.
const (
	settingKeys     = "keys"          // "arrows" or "wasd"
	settingCards    = "cards"         // "symbols" or "letters"
	settingWinnable = "winnable-only" // "off" or "on"
)

// settingsMsg brings the player's settings from the account.
type settingsMsg struct{ values map[string]string }

// settingKeptMsg is the account's answer to a kept setting.
type settingKeptMsg struct{ err error }

// loadSettings asks the account for the player's settings, lost.go's
// "Tell me when a deal can no longer be won" among them: one question at
// the start of the session. Nil without an account.
func (m *Model) loadSettings() tea.Cmd {
	if !m.env.accounts() {
		return nil
	}
	acc, player, ctx := m.env.account, m.env.player.ID, m.env.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		v, err := acc.Settings(ctx, player)
		if err != nil {
			return nil // the defaults stay
		}
		return settingsMsg{values: v}
	}
}

// settingValues are the menu's settings as the account spells them.
func (mn *menuScreen) settingValues() map[string]string {
	v := map[string]string{settingKeys: "arrows", settingCards: "symbols", settingWinnable: "off"}
	if mn.Scheme == SchemeWASD {
		v[settingKeys] = "wasd"
	}
	if mn.ASCII {
		v[settingCards] = "letters"
	}
	if mn.Winnable {
		v[settingWinnable] = "on"
	}
	return v
}

// applySettings sets the menu's settings from the account's, unless the
// player changed one meanwhile, and redraws the session with them.
func (m *Model) applySettings(msg settingsMsg) tea.Cmd {
	mn := m.menu()
	var live tea.Cmd
	if m.env.analyst() != nil {
		// lost.go's setting comes with the others, in the same question:
		// it may start the live check of the table's position.
		live = m.tellLoaded(msg.values[settingTellLost] == "on")
	}
	if mn.settingsChanged {
		return live
	}
	mn.Scheme = SchemeVi
	if msg.values[settingKeys] == "wasd" {
		mn.Scheme = SchemeWASD
	}
	mn.ASCII = msg.values[settingCards] == "letters"
	mn.Winnable = msg.values[settingWinnable] == "on"
	mn.kept = mn.settingValues()
	m.settingsChanged()
	return live
}

// keepSettings keeps, through the account, the settings that changed
// since they were last kept.
func (m *Model) keepSettings() tea.Cmd {
	mn := m.menu()
	if !m.env.accounts() {
		return nil
	}
	now := mn.settingValues()
	var cmds []tea.Cmd
	acc, player, ctx := m.env.account, m.env.player.ID, m.env.ctx
	for name, v := range now {
		if mn.kept[name] == v {
			continue
		}
		cmds = append(cmds, func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, saveTimeout)
			defer cancel()
			return settingKeptMsg{err: acc.SetSetting(ctx, player, name, v)}
		})
	}
	mn.kept = now
	return tea.Batch(cmds...)
}

// settingsChanged redraws the session with the menu's settings.
func (m *Model) settingsChanged() {
	mn := m.menu()
	if m.playing {
		m.table().setScheme(mn.Scheme)
	}
	if rs := m.race(); rs != nil {
		rs.setScheme(mn.Scheme) // a race a deep link opened before they came
	}
	if gl := glyphsFor(mn.unicode()); gl != m.env.gl {
		m.setGlyphs(gl)
	}
}
