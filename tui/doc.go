// Package tui is the game as a player sees it over SSH: one Bubble Tea
// model per session (New), with a menu, the table, help, confirmations,
// the end-of-game screens and, for a player with a key, the screens of the
// account: stats, the daily board, the display name and linking keys.
// With a solver, the end of a game says whether its deal could be won
// from the start, and the watch screen steps through the solver's
// winning line of it.
//
// The model is built from Deps: the session's lipgloss renderer (styles are
// never global), the player, the deep link, whether the client shows
// Unicode (else suits are S H D C and every screen is ASCII, which a
// player may also choose in the menu), the clock, and optional
// Solver, Games and Account interfaces that the server wires to the
// engine's solver and the store. Update is pure: the clock, the solver and
// the store are reached only in tea.Cmds.
//
// A stored game never shows a position the store does not have: after a
// move the screen keeps the position before it until the save of every
// move made so far returns, so whatever the player saw survives a crash
// of the server, and a save that fails takes the screen back to the
// stored position. The session ends only after its last save; a shutdown
// waits for it as long as the server allows and then tells the player,
// on a last frame that stays on their terminal, exactly what is stored.
//
// The code is laid out by concern. The root model (model.go) routes
// messages: a short dispatcher hands input, server messages, the game's
// replies, the store's answers and the screens' events each to its own
// method. Every screen implements one small protocol (screen.go: update,
// view, setSize, setEnv, say) and the root keeps them in a registry it
// loops over, so adding a screen is its file and one registry line. The
// game's lifecycle (start, deal, seat, load, resume) is game.go, the save
// queue and its hold rule save.go. A board (board.go) is a game on the
// screen — layout, marks, drawing, with no saving and no solver — that
// the table (the player's own game) and the watch screen draw through.
//
// Rendering is most of a TUI server's CPU and its sessions most of its
// memory. Styles are computed once per colour profile and shared by the
// sessions of that profile. A session keeps the derived state of the game
// between frames but no drawing: each frame draws the board into a cell
// grid borrowed from a pool all sessions share, and writes each line with
// as few escape sequences as the colour profile allows. The screens a
// session seldom shows are built when they show. A cursor move changes
// only the lines of the two cards involved, which is what Bubble Tea v1's
// line renderer sends.
package tui
