package tui

// RenamedMsg tells the session that its player's name changed elsewhere:
// by an admin, or by the player in another session. The menu's identity
// line shows the new name, and the Change name form offers it.
type RenamedMsg struct {
	Name string
	// Why says who changed it ("an admin renamed you"); empty: the
	// player, in another session.
	Why string
}

// renamedElsewhere takes a name changed outside this session. A name
// being edited in the form is left to the player, who is told.
func (m *Model) renamedElsewhere(msg RenamedMsg) {
	name := clean(msg.Name, maxNameCells)
	mn := m.menu()
	if name == "" || name == mn.name {
		return
	}
	mn.name = name
	m.env.player.Name = name
	if f, _ := m.screens[screenName].(*nameScreen); f != nil {
		editing := m.cur == screenName && f.input.Value() != f.current
		f.current = name
		if !editing {
			f.input.SetValue(name)
			f.input.CursorEnd()
		}
	}
	why := "changed in another session"
	if msg.Why != "" {
		why = clean(msg.Why, 60)
	}
	m.say(sInfo, "your name is "+name+" now ("+why+")")
}
