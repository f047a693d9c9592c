package tui

import "pyramid/server"

// The session's renderer (server/frame.go) draws the model's view in
// parts and paces the frames of the messages that ask for it. tui
// imports no server, so the contract is checked here, at compile time:
// a method renamed on either side breaks the build of these tests
// rather than the pacing, silently.
var (
	_ server.PartsViewer  = (*Model)(nil)
	_ server.FrameGapper  = inboxMsg{}     // env.go: a room's events
	_ server.FrameSlacker = clockMsg{}     // clock.go: the table's clock
	_ server.FrameSlacker = raceClockMsg{} // race.go: the race's clock
)
