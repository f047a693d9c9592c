package store

import "errors"

// Sentinel errors. Implementations wrap them with context
// ("store: save game 12: %w"); callers test them with errors.Is.
var (
	// ErrNotFound: no such player, key, game or link code.
	ErrNotFound = errors.New("not found")
	// ErrNameTaken: another player has this display name (compared
	// case-insensitively), or one that looks like it (keys.LookAlike).
	ErrNameTaken = errors.New("name is taken")
	// ErrConflict: the game is owned by another session now (it was claimed
	// from somewhere else), so this session's write was refused.
	ErrConflict = errors.New("the game was taken over by another session")
	// ErrStale: the write builds on an older version of the game than
	// the stored one (another write came first: the copy it was made
	// from is behind). The writer should read the stored game again.
	ErrStale = errors.New("the stored game is newer than the copy this change was made on")
	// ErrBanned: the player is banned.
	ErrBanned = errors.New("player is banned")
	// ErrExpired: the link code expired.
	ErrExpired = errors.New("link code expired")
	// ErrInProgress: the player already has an unfinished game with these
	// rules; finish or abandon it first.
	ErrInProgress = errors.New("an unfinished game with these rules exists")
	// ErrExists: the player has a game of this race already
	// (NewGame.Race): Games.RaceGame returns it.
	ErrExists = errors.New("the player has a game of this race already")
	// ErrFinished: the game is over and can no longer be changed or claimed.
	ErrFinished = errors.New("the game is finished")
	// ErrKeyInUse: the key already belongs to a player with games, results
	// or other keys, so it cannot be linked to another.
	ErrKeyInUse = errors.New("key belongs to another player")
	// ErrLastKey: a player's only key cannot be unlinked.
	ErrLastKey = errors.New("cannot unlink a player's last key")
	// ErrInvalid: the request itself is malformed (an empty ID, an unknown
	// status, a move log over the size limit, …).
	ErrInvalid = errors.New("invalid request")
	// ErrNameHeld: another player gave the name up a moment ago, and
	// it is held for them until every session stops showing it
	// (NameHold); a NameHeldError says for how long yet.
	ErrNameHeld = errors.New("name was just freed")
	// ErrClosed: the report was closed already.
	ErrClosed = errors.New("the report is closed already")
	// ErrVoided: the race was voided already.
	ErrVoided = errors.New("the race is void already")
	// ErrLimit: a budget of the player's is spent for now (e.g. reports
	// a day).
	ErrLimit = errors.New("limit reached")
)
