package store

// Sentinel errors. Implementations wrap them with context
// ("store: save game 12: %w"); callers test them with errors.Is. The text
// of a wrapped one is for the log (it may carry the driver's words); each
// sentinel's Plain is its own text alone, what a player may read of it
// (tui.PlainError).
var (
	// ErrNotFound: no such player, key, game or link code.
	ErrNotFound = plain("not found")
	// ErrNameTaken: another player has this display name (compared
	// case-insensitively), or one that looks like it (keys.LookAlike).
	ErrNameTaken = plain("name is taken")
	// ErrConflict: the game is owned by another session now (it was claimed
	// from somewhere else), so this session's write was refused.
	ErrConflict = plain("the game was taken over by another session")
	// ErrStale: the write builds on an older version of the game than
	// the stored one (another write came first: the copy it was made
	// from is behind). The writer should read the stored game again.
	ErrStale = plain("the stored game is newer than the copy this change was made on")
	// ErrBanned: the player is banned.
	ErrBanned = plain("player is banned")
	// ErrExpired: the link code expired.
	ErrExpired = plain("link code expired")
	// ErrInProgress: the player already has an unfinished game with these
	// rules; finish or abandon it first.
	ErrInProgress = plain("an unfinished game with these rules exists")
	// ErrExists: the player has a game of this race already
	// (NewGame.Race): Games.RaceGame returns it.
	ErrExists = plain("the player has a game of this race already")
	// ErrFinished: the game is over and can no longer be changed or claimed.
	ErrFinished = plain("the game is finished")
	// ErrKeyInUse: the key already belongs to a player with games, results
	// or other keys, so it cannot be linked to another.
	ErrKeyInUse = plain("key belongs to another player")
	// ErrLastKey: a player's only key cannot be unlinked.
	ErrLastKey = plain("cannot unlink a player's last key")
	// ErrInvalid: the request itself is malformed (an empty ID, an unknown
	// status, a move log over the size limit, …).
	ErrInvalid = plain("invalid request")
	// ErrNameHeld: another player gave the name up a moment ago, and
	// it is held for them until every session stops showing it
	// (NameHold); a NameHeldError says for how long yet.
	ErrNameHeld = plain("name was just freed")
	// ErrClosed: the report or challenge was closed already (a challenge:
	// answered, decided or past its deadline).
	ErrClosed = plain("closed already")
	// ErrVoided: the race was voided already.
	ErrVoided = plain("the race is void already")
	// ErrUnavailable: the database could not be reached (refused, dropped
	// or shutting down the connection): nothing of the request is known
	// to be done, and trying again once the database is back may work.
	ErrUnavailable = plain("the database is unreachable for now")
	// ErrLimit: a budget of the player's is spent for now (e.g. reports
	// a day).
	ErrLimit = plain("limit reached")
)

// sentinel is a store error whose text is meant for players too.
type sentinel struct{ text string }

func plain(text string) error { return &sentinel{text} }

func (e *sentinel) Error() string { return e.text }

// Plain is what a player reads of the error: its text, without the
// context and the cause it was wrapped with.
func (e *sentinel) Plain() string { return e.text }
