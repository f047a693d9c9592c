package tui

import (
	"context"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// Races is the session's way into the server's race rooms, bound to the
// session (its player, its queue): the room's events come back through
// Deps.Inbox as RaceEventMsg. Every method may wait on the store or the
// solver and is only ever called from a tea.Cmd. Errors are meant for the
// player as they are (a wrong code, a full room, "only the host…").
type Races interface {
	// Create opens a room the player hosts. Without a deal (HasDeal
	// false) the server picks one the solver proves winnable.
	Create(ctx context.Context, opt RoomOptions) (RaceSeat, error)
	// Join puts the player in the room with this code (as typed), or back
	// in their seat: a racer who dropped out of a race gets their game
	// back in RaceSeat.Resume. The code of the player's last race, once
	// its room is gone, brings that race's results (RaceSeat.Over).
	Join(ctx context.Context, code string) (RaceSeat, error)
	// Quick is quick match: the oldest public room of the default rules
	// waiting for players, or a new public one the player hosts.
	Quick(ctx context.Context) (RaceSeat, error)
	// Watch puts the player among the room's spectators: they see every
	// racer's progress and the chat, and take no part. RaceSeat.You is
	// empty.
	Watch(ctx context.Context, code string) (RaceSeat, error)
	// Board returns a racer's game of the race as it stands, for a
	// spectator switching between boards.
	Board(ctx context.Context, code, playerID string) (engine.Record, error)
	// Seated returns the code of a room the player has a seat in, for the
	// menu's Continue.
	Seated() (code string, ok bool)
	// Ended returns the code of the room of the player's last race when
	// that race ended without them in the room (they left it, or
	// dropped) a few minutes ago at most and they took no seat since:
	// the menu offers "Results of race CODE", which Join brings.
	Ended(ctx context.Context) (code string, ok bool)
	// Ready sets the player's ready mark in the waiting room.
	Ready(code string, ready bool) error
	// Start starts the countdown (the host).
	Start(code string) error
	// Rematch takes the room back to the waiting room with a new deal
	// (the host, after a race).
	Rematch(ctx context.Context, code string) error
	// Say says a line in the room's chat, a racer's or, for a session
	// that watches the room, a spectator's (lobby.ChatLine.Watching).
	// The line is at most lobby.MaxChatLen characters.
	Say(code, text string) error
	// Mute mutes or unmutes the member or spectator with this player ID
	// in the room's chat (the host).
	Mute(code, playerID string, muted bool) error
	// Remove takes the member with this player ID out of the room for
	// good (the host): in a race that runs they count as left.
	Remove(code, playerID string) error
	// Leave takes the session out of the room (a spectator too); during
	// a race a racer's seat stays until it ends.
	Leave(code string) error
	// Play reports the racer's game after a change: the server replays
	// rec, stores it as the player's game of the race, shows the progress
	// to the room and keeps it for a comeback. seq goes up with every
	// change of the session's game; a report older than one already seen
	// is ignored, so reports may overtake each other. It returns a note
	// for the player, such as why the game is not stored, or "".
	Play(ctx context.Context, code string, round int, seq int, rec engine.Record) (note string, err error)
}

// RoomOptions is a new room as `race new` asks for it.
type RoomOptions struct {
	Rules     engine.Rules
	Deal      uint64
	HasDeal   bool
	Public    bool
	TimeLimit time.Duration // 0: lobby.DefaultTimeLimit
	Max       int           // 0: lobby.MaxRacers
}

// RaceSeat is the player's seat in a room: the room as it stands and,
// for a racer back in a race they dropped out of, their game.
type RaceSeat struct {
	// You is the player's ID in the room (a guest has one there too).
	You      string
	Snapshot lobby.Snapshot
	// Resume is the racer's game of the current round, or nil; Seq is
	// the seq of its last report, which the session's reports go on from.
	Resume *engine.Record
	Seq    int
	// Over: the room is gone, and Snapshot is its last race's results as
	// stored (PhaseResults), to read: no rematch, no chat.
	Over bool
	// Guests is, for a seat that is Over, how many guests raced too: the
	// store keeps no placing of theirs, so their places are gaps.
	Guests int
}

// RaceEventMsg brings one event of the player's room (a lobby.RoomChanged,
// RacerProgress, CountdownStarted, RaceStarted, RaceEnded, ChatLine,
// HostPassed, SeatTakenOver, RoomClosed, Missed or RaceVoided). The server sends it through the
// session's Inbox.
type RaceEventMsg struct {
	Event lobby.Event
}
