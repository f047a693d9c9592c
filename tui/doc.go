// Package tui is the game as a player sees it over SSH: one Bubble Tea
// model per session (New). A session has a menu; the table, where the
// player plays their own game; help, confirmations and the end-of-game
// screens; with a solver, whether a deal could be won and the watch
// screen that steps through a winning line; for a player with a key,
// the screens of the account (stats, the daily board, the display name,
// linking keys); and, with the server's lobby, the Lobby (who is online,
// public rooms), spectating another player's game, race rooms (a waiting
// room, the race with a panel of every racer, the results, the room's
// chat, spectators) and races against a ghost, a recorded game replayed
// at its own pace.
//
// The model is built from Deps: the session's lipgloss renderer (styles
// are never global), the player, the deep link, whether the client shows
// Unicode (else suits are S H D C and every screen is ASCII, which a
// player may also choose in the menu), the clock, and optional
// interfaces the server wires to the engine's solver, the store, the
// lobby and the race rooms: Solver, Games, Account, Lobby, Races, Ghosts
// and the session's Inbox. Update is pure: the clock, the solver, the
// store and the lobby are reached only in tea.Cmds.
//
// # What the player sees is what the server has
//
// A move shows only once the server has it: the table's once the store
// saved it, a race's once the room took the report, a ghost race's once
// it is stored. Until then the screen draws the position before the
// first move the server has not taken; if the server refuses one, the
// screen goes back to that position and says so in one wording. One
// component holds that position for all three (hold.go). The session
// ends only after its last save; a shutdown waits for it as long as the
// server allows and then tells the player, on a last frame that stays
// on their terminal, exactly what is stored.
//
// # The root routes
//
// The root model (model.go) only routes. Every screen implements one
// small protocol (screen.go: update, view, setSize, setEnv, say,
// takeEvent, needs) and the root keeps the screens in a registry it
// loops over, so adding a screen is its file and one registry line.
// Update hands each message to one place: input to the screen that
// shows, after the keys every screen shares (ctrl+c quits, ctrl+l
// redraws: handled once, by the root); a reply of a command to the
// screen it names (routed), whether or not that screen shows; an event,
// what a screen asks of the root (events.go: show another screen, deal,
// quit), at once in the same Update; and the session's own messages to
// their parts of the root: the server's notices and shutdown, the game's
// lifecycle (game.go: deal, seat, load, resume), the save queue
// (save.go), the settings, the account's answers and the lobby's events
// (presence.go).
//
// The race screen (race*.go, ghost.go) is in one of a few explicit
// modes (raceMode): joining, the join form, the waiting room, racing,
// spectating, the results. Its keys go to one method per mode.
//
// A board (board.go, drawn by board_draw.go) is a game on the screen —
// layout, marks and the state derived from the game, with no saving and
// no solver — that the table (a racer's too), the watch screen and the
// spectate screen draw through.
//
// # Rendering
//
// Rendering is most of a TUI server's CPU and its sessions most of its
// memory. Styles are computed once per colour profile and shared by the
// sessions of that profile. A session keeps the derived state of the
// game between frames but no drawing: each frame draws the board into a
// cell grid borrowed from a pool all sessions share, and writes each
// line with as few escape sequences as the colour profile allows. The
// screens a session seldom shows are built when they show. A cursor move
// changes only the lines of the two cards involved. The session's
// renderer (package server) asks Model.ViewParts for a race's frame in
// the parts it keeps from frame to frame, and paces the frames of the
// room's events and the clocks' ticks by their FrameGap and FrameSlack:
// the contract is server.PartsViewer, server.FrameGapper and
// server.FrameSlacker, checked at compile time in frame_test.go.
package tui
