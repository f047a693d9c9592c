package tui

import (
	"context"

	"pyramid/lobby"
)

// Lobby is the server's shared live state as one session sees it: who
// is online and what each does, the public race rooms, spectating and
// the live daily board. It is bound to the session (the server knows
// which lobby session is this one). The methods other than Watchable
// and SetWatchable only take a lock and never wait on another session;
// the model still calls every one of them from a tea.Cmd.
//
// The lobby's events reach the model through Deps.Inbox as the lobby
// package's own values: lobby.PresenceChanged, lobby.Watched,
// lobby.WatchEnded, lobby.Spectators and lobby.DailyChanged.
type Lobby interface {
	// SetDoing tells the lobby what the session does now.
	SetDoing(d lobby.Doing)
	// WatchPresence asks for lobby.PresenceChanged (on) or not: the
	// menu, the Lobby screen and the daily board want it.
	WatchPresence(on bool)
	// Who is who is online, by name, with every change made before
	// the call.
	Who() []lobby.Presence
	// Listed is Who as the viewers of presence were last told of it
	// (lobby.PresenceChanged; at most lobby.PresenceEvery old), shared
	// by all of them: what the Lobby screen shows. Neither slice may be
	// changed.
	Listed() []lobby.Presence
	// Online is how many are online.
	Online() int
	// PublicRooms lists the public race rooms waiting for players.
	PublicRooms() []lobby.RoomInfo
	// Watch makes the session a spectator of the player called name and
	// returns what it shows now; the error says why not in words fit
	// for the player (lobby.ErrNotOnline, ErrNotWatchable…).
	Watch(name string) (lobby.Watched, error)
	// Unwatch stops watching.
	Unwatch()
	// Publish sends the session's game to its spectators.
	Publish(b lobby.Board)
	// WatchDaily asks for lobby.DailyChanged (on) or not.
	WatchDaily(on bool)
	// PlayingRules is how many play a game of a rule set now.
	PlayingRules(rulesID string) int
	// Watchable reports whether the player lets others watch (the
	// setting "Others may watch me", kept per player; on by default).
	Watchable(ctx context.Context) (bool, error)
	// SetWatchable keeps that setting and applies it at once: turning it
	// off ends the session's spectators. The error is in words fit for
	// the player.
	SetWatchable(ctx context.Context, on bool) error
}
