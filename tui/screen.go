package tui

import tea "github.com/charmbracelet/bubbletea"

// screen is what every screen of a session implements, in the spirit of
// soft-serve's page components: the root model (Model) keeps its screens
// in a registry (Model.screens, indexed by screenID), hands each message
// meant for the screen that shows to that one, and loops over all of
// them to lay them out, restyle them, show a notice, quit or shut down.
// Screens are changed in place, through pointer receivers.
//
// Adding a screen is its own file (a type that embeds chrome and has
// update and view) and one line in the registry below.
type screen interface {
	// update handles a message while the screen shows. What the screen
	// asks of the root (leave, open the help, quit…) it leaves for
	// takeEvent: the root handles it at once, in the same Update, so the
	// next key already meets the screen it leads to.
	update(msg tea.Msg) tea.Cmd
	// view draws the screen, exactly as many lines as the window is high.
	view() string
	// setSize lays the screen out for a window size.
	setSize(w, h int)
	// setEnv has the screen draw with another env: the player switched
	// between suit symbols and letters.
	setEnv(e *env)
	// say sets the screen's message line (a notice from the server, a
	// save's result).
	say(st styleID, text string)
	// takeEvent returns the event the last update raised, and forgets it.
	takeEvent() event
	// needs is the smallest window the screen is readable in.
	needs() (w, h int)
}

// screenID names a screen in the registry.
type screenID uint8

// The registry: one line per screen. Screens marked "built when shown"
// are let go of when another screen shows (see Model.dropHidden), the
// others are kept once built.
const (
	screenMenu     screenID = iota // menu.go: the first screen
	screenTable                    // table.go: the player's own game
	screenHelp                     // screens.go: built when shown
	screenConfirm                  // screens.go: built when shown
	screenDealing                  // game.go: a deal or a stored game on its way (drawn by the root)
	screenStats                    // stats.go
	screenLeaders                  // leaders.go: the daily board
	screenName                     // name.go
	screenLink                     // link.go
	screenWatch                    // watch.go: built when shown
	screenRedeem                   // redeem.go: built when shown
	screenLobby                    // lobby.go: who is online, public rooms
	screenSpectate                 // spectate.go: another player's game
	screenRace                     // race.go: built when the player asks for a race, let go of when they leave
	screenKeys                     // keyslist.go
	screenArena                    // arena.go: built when the player opens Arenas, let go of back at the menu
	numScreens
)

// transient reports whether a screen is built each time it shows and let
// go of once it stops showing (a session at the table keeps none of them).
func (id screenID) transient() bool {
	switch id {
	case screenHelp, screenConfirm, screenWatch, screenRedeem, screenLobby, screenSpectate:
		return true
	}
	return false
}

// chrome is what every screen has: the session's env, the window size,
// the message line and the event raised for the root. Embedding it gives
// a screen the protocol's setSize, setEnv, say, takeEvent and needs;
// a screen overrides those it must do more in.
type chrome struct {
	env   *env
	event event
	msg   string
	msgSt styleID
	w, h  int
}

func (c *chrome) setSize(w, h int)            { c.w, c.h = w, h }
func (c *chrome) setEnv(e *env)               { c.env = e }
func (c *chrome) say(st styleID, text string) { c.msg, c.msgSt = text, st }
func (c *chrome) needs() (w, h int)           { return minScreenWidth, 16 }

func (c *chrome) takeEvent() event {
	ev := c.event
	c.event = nil
	return ev
}

// kept returns the screen id of the registry, built by build and kept
// there when the session has none yet.
func kept[T screen](m *Model, id screenID, build func() T) T {
	s, ok := m.screens[id].(T)
	if !ok {
		s = build()
		m.screens[id] = s
	}
	return s
}
