package tui

import (
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// arenaLink reads the deep link `arena ID` (ssh -t HOST arena ID): ok
// when the words are one, with the arena's ID, 0 when it is no number.
// With a terminal it opens the arena and joins it; without one the
// arcade prints its standings. `arena` alone (ID -1) opens the list of
// arenas.
func arenaLink(args []string) (id int64, ok bool) {
	if len(args) == 1 && strings.EqualFold(strings.TrimSpace(args[0]), "arena") {
		return -1, true
	}
	if len(args) != 2 || !strings.EqualFold(strings.TrimSpace(args[0]), "arena") {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(args[1]), "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, true
	}
	return id, true
}

// arenaLinkOpen opens the arena screen for the deep link's arena, joining
// it, or the list of arenas for `arena` alone, at the session's start
// (Init).
func (m *Model) arenaLinkOpen() tea.Cmd {
	id := m.arenaRef
	if id == 0 {
		return nil
	}
	m.arenaRef = 0
	if m.env.arenas == nil {
		m.menu().say(sErr, "this server runs no arenas")
		return nil
	}
	if id < 0 {
		return m.openArenas()
	}
	a := newArenaScreen(m.env, m.w, m.h)
	m.screens[screenArena] = a
	m.show(screenArena)
	a.shown = true
	return a.join(id)
}
