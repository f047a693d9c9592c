package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// The root's side of the player's account: opening its screens, and the
// answers that change more than the screen that asked (a new name shows
// in the menu; a used link code ends the session).

// The account's loads come back to the screen that asked.
func (statsMsg) to() screenID    { return screenStats }
func (leadersMsg) to() screenID  { return screenLeaders }
func (linkCodeMsg) to() screenID { return screenLink }

// openAccount shows a screen of the player's account and starts its
// load. The screens are kept once opened: their request counters tell
// late answers from current ones.
func (m *Model) openAccount(kind itemKind) tea.Cmd {
	if !m.env.accounts() {
		return nil
	}
	e, w, h, name := m.env, m.w, m.h, m.menu().name
	var cmd tea.Cmd
	switch kind {
	case itemStats:
		s, _ := m.screens[screenStats].(*statsScreen)
		if s == nil {
			s = newStatsScreen(e, w, h)
			m.screens[screenStats] = s
		}
		cmd = s.open(name)
		m.show(screenStats)
	case itemLeaders:
		b, _ := m.screens[screenLeaders].(*leadersScreen)
		if b == nil {
			b = newLeadersScreen(e, w, h)
			m.screens[screenLeaders] = b
		}
		cmd = b.open()
		m.show(screenLeaders)
	case itemName:
		f, _ := m.screens[screenName].(*nameScreen)
		if f == nil {
			f = newNameScreen(e, w, h)
			m.screens[screenName] = f
		}
		f.open(name)
		m.show(screenName)
	case itemLink:
		l, _ := m.screens[screenLink].(*linkScreen)
		if l == nil {
			l = newLinkScreen(e, w, h)
			m.screens[screenLink] = l
		}
		cmd = l.open(name)
		m.show(screenLink)
	case itemKeyList:
		s, _ := m.screens[screenKeys].(*keysScreen)
		if s == nil {
			s = newKeysScreen(e, w, h)
			m.screens[screenKeys] = s
		}
		cmd = s.open(name)
		m.show(screenKeys)
	case itemRedeem:
		if m.screens[screenRedeem] == nil {
			m.screens[screenRedeem] = newRedeemScreen(e, name, w, h)
		}
		m.show(screenRedeem)
	}
	return cmd
}

// renamed takes the account's answer to a new name: the menu shows the
// name as stored, even when the player left the form meanwhile; a
// refusal stays in the form with its reason.
func (m *Model) renamed(msg renamedMsg) {
	f, _ := m.screens[screenName].(*nameScreen)
	if f == nil || msg.req != f.req {
		return
	}
	if msg.err != nil {
		f.refused(msg)
		if m.cur != screenName {
			m.menu().say(sErr, clean("name not changed: "+msg.err.Error(), 200))
		}
		return
	}
	f.pending = false
	name := clean(msg.name, maxNameCells)
	mn := m.menu()
	mn.name = name
	mn.say(sOK, "you are "+name+" now")
	if m.cur == screenName {
		m.show(screenMenu)
	}
}

// redeemed takes the account's answer to a link code. Once the key
// plays as another player, the result stays on the screen until the
// session ends: nothing else may show.
func (m *Model) redeemed(msg redeemedMsg) {
	f, _ := m.screens[screenRedeem].(*redeemScreen)
	if f == nil {
		return
	}
	f.answered(msg)
	switch {
	case f.done != "":
		m.show(screenRedeem)
	case msg.err != nil && m.cur != screenRedeem:
		m.menu().say(sErr, clean("key not linked: "+msg.err.Error(), 200))
	}
}

// keepRedeemed holds a session whose key now plays as another player on
// the form that says so, whatever asked for another screen. It runs
// after every message.
func (m *Model) keepRedeemed() {
	if f, _ := m.screens[screenRedeem].(*redeemScreen); f != nil && f.done != "" {
		m.show(screenRedeem)
	}
}
