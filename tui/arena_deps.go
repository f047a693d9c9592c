package tui

import (
	"context"

	"pyramid/arena"
	"pyramid/lobby"
)

// Arenas is the session's way into the server's arenas; their events
// come back through Deps.Inbox as ArenaEventMsg (lobby.ArenaChanged,
// ArenaPaired, ArenaEnded). Every method may wait and is only called
// from a tea.Cmd.
type Arenas interface {
	// List returns the arenas to show in the menu: running ones and
	// upcoming ones (package arena's Event), soonest first.
	List(ctx context.Context) ([]arena.Event, error)
	// Join puts the player in the arena (or back, after a drop: their
	// points stay) and returns the view. Errors are for the player as
	// they are ("the arena has not started", "arenas need a key: guests
	// may watch").
	Join(ctx context.Context, id int64) (lobby.ArenaView, error)
	// View returns the arena as it stands now, for the player (no store
	// call: what the server's rooms know), after an ArenaChanged.
	View(ctx context.Context, id int64) (lobby.ArenaView, error)
	// Pause stops (or, false, resumes) pairing the player.
	Pause(id int64, paused bool) error
	// Leave takes the player out of the arena's pairing (their points
	// stay).
	Leave(id int64) error
	// Berserk gives up undo for the player's arena race in this room,
	// before it starts, for a bonus point on a clear.
	Berserk(code string) error
}

// ArenaEventMsg brings one event of the player's arena.
type ArenaEventMsg struct{ Event lobby.Event }
