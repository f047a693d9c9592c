package tui

import (
	"context"
	"time"

	"pyramid/engine"
)

// Ghosts lets a player race a recorded play of a deal: the ghost replays
// its moves at their recorded pace while the player plays their own game
// of the deal (tui/ghost.go). Every method may wait on the store and is
// only ever called from a tea.Cmd. Errors are meant for the player as
// they are (no such game, "finish today's daily first"…).
type Ghosts interface {
	// Ghost returns the recorded game that ref names: "daily" (the best
	// play of today's daily, once the player finished today's) or a game
	// ID. Only games the player may read: their own, another player's
	// daily once that day is over, or one of today's daily board once the
	// player finished today's.
	Ghost(ctx context.Context, ref string) (Ghost, error)
	// Play stores the player's game of a ghost race after a change, as
	// practice: it records no result and no rating. seq goes up with
	// every change; a report older than one already seen is ignored. It
	// returns a note for the player, such as why the game is not stored.
	Play(ctx context.Context, seq int, rec engine.Record, times []time.Duration) (note string, err error)
	// Leave ends the race before the player's game is over: its stored
	// game is finished as abandoned (it was practice), so that it neither
	// waits in the menu's Continue nor stands in the way of the next game
	// of its rules.
	Leave(ctx context.Context) error
}

// Ghost is a recorded game to race.
type Ghost struct {
	// GameID is the stored game's ID; Name its player's display name (the
	// tui cleans it).
	GameID, Name string
	// Record is the game: rules, deal and its moves (no redo).
	Record engine.Record
	// Times is when each move was made (SavedGame.MoveTimes); a game
	// without them is raced at an even pace over Played.
	Times []time.Duration
	// Played is the game's play time.
	Played time.Duration
	// Daily is the date of the daily deal it played, or empty.
	Daily string
}
