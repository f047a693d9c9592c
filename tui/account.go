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
		cmd = kept(m, screenStats, func() *statsScreen { return newStatsScreen(e, w, h) }).open(name)
		m.show(screenStats)
	case itemLeaders:
		b := kept(m, screenLeaders, func() *leadersScreen { return newLeadersScreen(e, w, h) })
		b.dailyDone = m.menu().daily.done
		cmd = b.open()
		m.show(screenLeaders)
	case itemName:
		kept(m, screenName, func() *nameScreen { return newNameScreen(e, w, h) }).open(name)
		m.show(screenName)
	case itemLink:
		cmd = kept(m, screenLink, func() *linkScreen { return newLinkScreen(e, w, h) }).open(name)
		m.show(screenLink)
	case itemKeyList:
		cmd = kept(m, screenKeys, func() *keysScreen { return newKeysScreen(e, w, h) }).open(name)
		m.show(screenKeys)
	case itemRedeem:
		if m.screens[screenRedeem] == nil {
			m.screens[screenRedeem] = newRedeemScreen(e, name, w, h)
		}
		m.show(screenRedeem)
	}
	return cmd
}

// accountReply takes the account's answers that change more than the
// screen that asked.
func (m *Model) accountReply(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case renamedMsg:
		m.renamed(msg)
	case redeemedMsg:
		m.redeemed(msg)
	case RenamedMsg:
		m.renamedElsewhere(msg) // renamed.go
	}
	return nil
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
			m.menu().say(sErr, clean("name not changed: "+Reason(msg.err), 200))
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
		m.menu().say(sErr, clean("key not linked: "+Reason(msg.err), 200))
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
