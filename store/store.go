// Package store declares how the arcade keeps players, their keys, games and
// results, as small interfaces split by domain with sentinel errors. The
// database/sql implementation for SQLite and PostgreSQL lives in
// store/sqlstore; store/storetest holds the suite every implementation must
// pass.
//
// The store only stores. Names are validated by package keys, and a game's
// result is computed by replaying its moves in the engine, before they get
// here.
package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/rating"
)

// Player is a person, identified by their keys.
type Player struct {
	// ID is the fingerprint of the first key the player was seen with. It
	// never changes, even if that key is later unlinked. (Should an
	// unlinked key come back as a new player, that player's ID is the
	// fingerprint with a "~2", "~3", … suffix, the plain one being taken.)
	ID      string
	Name    string // display name, unique case-insensitively
	Created time.Time
	Banned  bool
	// BannedUntil is when a timed ban ends; zero for a ban for good (or
	// no ban). BanReason is the admin's reason, told to the player.
	BannedUntil time.Time
	BanReason   string
}

// BannedAt reports whether the player is banned at t: banned for good,
// or until after t.
func (p Player) BannedAt(t time.Time) bool {
	return p.Banned && (p.BannedUntil.IsZero() || t.Before(p.BannedUntil))
}

// Key is a public key of a player, by fingerprint.
type Key struct {
	Fingerprint string
	PlayerID    string
	Added       time.Time
	// Type is the key's type as last seen (ssh-ed25519, …); empty for a
	// key not seen since the store kept it.
	Type string
	// Label is what its owner calls it ("laptop"); empty for none.
	Label string
	// LastUsed is when it was last used to connect (to the minute); zero
	// for not since the store kept it.
	LastUsed time.Time
}

// MaxKeyLabel is the most bytes a key's label may have.
const MaxKeyLabel = 64

// Players keeps players and their keys.
type Players interface {
	// GetOrCreatePlayer returns the player the key with this fingerprint
	// belongs to, creating one (with ID = fingerprint) for a key not seen
	// before. A new player is named defaultName when that is free (nobody
	// has it or a name that looks like it, keys.LookAlike), else
	// "player-" and a few hex digits derived from the fingerprint. created
	// reports whether the player was created by this call. A banned player is
	// returned as such (Banned set, with the ban's terms), not as an error;
	// a timed ban that has ended is lifted here, so a player is seen
	// unbanned from the first connection after it. defaultName must be
	// empty or valid (keys.NormalizeName, which refuses reserved names).
	GetOrCreatePlayer(ctx context.Context, fingerprint, defaultName string) (p Player, created bool, err error)
	// Player returns the player with this ID.
	Player(ctx context.Context, id string) (Player, error)
	// PlayerByKey returns the player the key with this fingerprint belongs to.
	PlayerByKey(ctx context.Context, fingerprint string) (Player, error)
	// PlayerByName returns the player with this display name, compared
	// case-insensitively, never by look: a look-alike of a name finds
	// nobody (ErrNotFound), so a name finds one player at most.
	PlayerByName(ctx context.Context, name string) (Player, error)
	// RenamePlayer sets a player's display name (ErrNameTaken if another
	// player has it, or a name that looks like it: keys.LookAlike). The
	// name must already be valid (keys.NormalizeName). The name the
	// player had is held for them for NameHold: anyone else asking for
	// it, or for a name that looks like it, gets a *NameHeldError
	// (ErrNameHeld), and no new player is given it; the player may take
	// it back.
	RenamePlayer(ctx context.Context, id, name string) error
	// SetBanned bans a player for good, with no reason given, or lifts a
	// ban (its terms too).
	SetBanned(ctx context.Context, id string, banned bool) error
	// Ban bans a player until until (zero: for good) for reason (may be
	// empty), replacing the terms of a ban they already had.
	Ban(ctx context.Context, id string, until time.Time, reason string) error
	// Keys lists a player's keys, oldest first.
	Keys(ctx context.Context, playerID string) ([]Key, error)
	// TouchKey notes that the key with this fingerprint was used to
	// connect now, with its type; the time is written at most once a
	// minute. An unknown key is no error.
	TouchKey(ctx context.Context, fingerprint, keyType string) error
	// LabelKey gives one of the player's keys a label (empty: none);
	// ErrNotFound for a key that is not theirs, ErrInvalid for a label
	// over MaxKeyLabel bytes.
	LabelKey(ctx context.Context, playerID, fingerprint, label string) error
	// UnlinkKey removes a key from a player (ErrLastKey for the only one).
	UnlinkKey(ctx context.Context, playerID, fingerprint string) error
}

// NameHold is how long a name a player gave up stays held for them
// (Players.RenamePlayer). A rename reaches the open sessions of every
// server over the bus within a second or two (a server whose bus
// connection dropped catches up when it is back: pgbus pings every 5
// seconds and reconnects within a second); until then those sessions,
// the rooms and the rosters still show the old name, so nobody else may
// take it, lest two players be shown by one name.
const NameHold = 10 * time.Second

// NameHeldError is the refusal of a name given up less than NameHold
// ago by another player (ErrNameHeld): Left is how long it is held yet.
type NameHeldError struct {
	Left time.Duration
}

// Error says the name is held, and for how long yet.
func (e *NameHeldError) Error() string {
	return fmt.Sprintf("%v for %v more", ErrNameHeld, e.Left.Round(time.Millisecond))
}

// Unwrap makes errors.Is(err, ErrNameHeld) hold.
func (e *NameHeldError) Unwrap() error { return ErrNameHeld }

// AuditEntry is one line of the audit log: an admin action, or a change
// of an account's keys or name.
type AuditEntry struct {
	ID int64 // set when stored
	At time.Time
	// Actor is the player ID of who did it; empty for none.
	Actor string
	// Action is what was done: AuditBan, AuditUnban, AuditKick, …
	Action string
	// Target is the player ID it concerns; empty for a room.
	Target string
	// Subject is what else it names: a room code, a key's fingerprint, a
	// name, a ban's end.
	Subject string
	Reason  string
	// ActorName and TargetName are the players' names when read (empty
	// for a player no longer kept).
	ActorName, TargetName string
}

// The actions of the audit log.
const (
	AuditBan       = "ban"
	AuditUnban     = "unban"
	AuditKick      = "kick"
	AuditRename    = "rename"     // an admin renamed a player
	AuditName      = "name"       // a player changed their own name
	AuditCloseRoom = "close-room" // Subject: the room's code
	AuditLink      = "link"       // Subject: the key linked
	AuditUnlink    = "unlink"     // Subject: the key unlinked
	// AuditVoid: an admin voided a race (Races.VoidRace); one entry for
	// each racer placed in it, so that each reads it. Subject: "race ID".
	AuditVoid = "void"
	// AuditCloseReport: an admin closed a report (Reports.CloseReport).
	// Subject: "report ID"; no Target, so that the reported player's
	// audit log does not show reports.
	AuditCloseReport = "close-report"
	// AuditArenaNew, AuditArenaEdit and AuditArenaCancel: an arena set
	// up, changed or cancelled (by an admin, or by its creator on a
	// server without admins). Subject: "arena ID"; Reason: its settings.
	AuditArenaNew    = "arena-new"
	AuditArenaEdit   = "arena-edit"
	AuditArenaCancel = "arena-cancel"
)

// Audit keeps the audit log.
type Audit interface {
	// AddAudit stores an entry (ErrInvalid for one without an action or
	// with fields past their bounds) and returns its ID. A zero At is
	// the store's now.
	AddAudit(ctx context.Context, e AuditEntry) (int64, error)
	// AuditLog returns at most limit entries, newest first: every entry,
	// or (player set) those the player did or that concern them.
	AuditLog(ctx context.Context, player string, limit int) ([]AuditEntry, error)
}

// Report is a player's report of another player, for the admins.
type Report struct {
	ID       int64 // set when stored
	At       time.Time
	Reporter string // player IDs
	Reported string
	Reason   string
	// ReporterName and ReportedName are the players' names when read.
	ReporterName, ReportedName string
	// Closed is when an admin closed the report (dealt with it), by
	// ClosedBy (a player ID; ClosedByName their name when read); zero
	// while it is open.
	Closed                 time.Time
	ClosedBy, ClosedByName string
}

// Reports keeps players' reports of other players.
type Reports interface {
	// AddReport stores a report, at the store's now, and returns its ID:
	// ErrLimit when its reporter made perDay reports or more in the 24
	// hours before, ErrInvalid for one without a reason or a player, or
	// with a reason over 1000 bytes.
	AddReport(ctx context.Context, r Report, perDay int) (int64, error)
	// Reports returns at most limit reports, newest first: the open
	// ones, or (all) the closed ones too.
	Reports(ctx context.Context, limit int, all bool) ([]Report, error)
	// CloseReport closes an open report, in one transaction with an
	// AuditCloseReport entry by actor with reason: ErrNotFound for no
	// such report, ErrClosed for one closed already.
	CloseReport(ctx context.Context, id int64, actor, reason string) error
}

// Links keeps the one-time codes that link a new key to a player.
type Links interface {
	// CreateLinkCode stores a code (canonical form, keys.NormalizeLinkCode)
	// for the player, valid until expires. Expired codes are swept.
	CreateLinkCode(ctx context.Context, playerID, code string, expires time.Time) error
	// RedeemLinkCode uses a code: the key with this fingerprint now belongs
	// to the code's player, which is returned. A code works once
	// (ErrNotFound after that) and not after it expired (ErrExpired). A key
	// already in use by another player is moved only if that player has
	// nothing else: no other key, no game, no result; otherwise ErrKeyInUse.
	// A banned player's code yields ErrBanned. A key that already belongs
	// to the code's player links nothing and leaves the code unused.
	RedeemLinkCode(ctx context.Context, code, fingerprint string) (Player, error)
}

// Status is where a game stands.
type Status string

// The statuses of a game. Only StatusPlaying is unfinished.
const (
	StatusPlaying   Status = "playing"
	StatusWon       Status = "won"
	StatusLost      Status = "lost"
	StatusAbandoned Status = "abandoned"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusPlaying, StatusWon, StatusLost, StatusAbandoned:
		return true
	}
	return false
}

// Finished reports whether s is a final status.
func (s Status) Finished() bool { return s.Valid() && s != StatusPlaying }

// Limits on what a game may hold, far above any real game and well below
// what would hurt the database.
const (
	MaxMoves      = 4096 // entries in the move log, and in the redo stack
	MaxMoveLen    = 16   // bytes in one move in notation
	MaxIDLen      = 128  // bytes of a rules ID, owner token or player ID
	MaxListLimit  = 100  // games per page of ListGames
	MaxBoardLimit = 100  // entries of a leaderboard
)

// MaxDealText bounds the deal text of a game: the engine's own bound, so
// that every deal the engine reads can be kept.
const MaxDealText = engine.MaxDealText

// DateFormat is the layout of a daily deal's date: its UTC calendar day.
const DateFormat = time.DateOnly

// Game is a game as stored: where it came from, every move made, the redo
// stack, and where it stands.
type Game struct {
	ID         int64
	PlayerID   string
	RulesID    string // the engine's canonical rules ID
	DealNumber uint64 // the deal, when DealText is empty
	DealText   string // a custom deal in deal text format, or empty
	Daily      string // the UTC date (DateFormat) of the daily deal this is, or empty
	State             // moves, redo, status, removed, elapsed
	Started    time.Time
	Updated    time.Time
	Finished   time.Time // zero while playing
	// Version counts the writes to the game (1 when created); it goes up
	// by one with each save and each claim. A write names the version it
	// builds on, and the store refuses one built on an older version
	// (ErrStale): the stored game is the truth.
	Version int64
	// Owner is the token of the session that may write the game.
	Owner string
	// Practice marks a game that does not count: a replay of a daily deal
	// the player already finished that day (the first finished attempt is
	// the result), a race's game or a ghost race's. It is set by
	// CreateGame; finishing it records no result.
	Practice bool
	// Kind says what the game is: which practice, if any.
	Kind Kind
	// Race is the key of the race this is a racer's game of (KindRace),
	// empty for any other game: a player has one game per race.
	Race string
	// Chosen is set when the player chose the deal (a number they typed,
	// or deal text): they may have solved it offline, so the game counts
	// as played but sets no record and is on no board.
	Chosen bool
}

// Kind is what a game is: the player's own, or one of the kinds of
// practice game, which record no solo result.
type Kind string

// The kinds of game.
const (
	// KindSolo is a game of the player's own, the day's first attempt at
	// a daily deal included.
	KindSolo Kind = "solo"
	// KindReplay is a later attempt at a daily deal the player already
	// finished that day: practice.
	KindReplay Kind = "replay"
	// KindRace is a racer's game of a race room: practice (the race's
	// record is its placing).
	KindRace Kind = "race"
	// KindGhost is a game raced against a recorded one: practice.
	KindGhost Kind = "ghost"
)

// Valid reports whether k is one of the kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindSolo, KindReplay, KindRace, KindGhost:
		return true
	}
	return false
}

// Practice reports whether games of the kind record no solo result.
func (k Kind) Practice() bool { return k != KindSolo }

// OnePerRules reports whether a player may have only one unfinished game
// of the kind per rules ID, among the kinds that share the rule (solo and
// replay: the player's own attempts at a deal, whose results count). A
// race's or a ghost race's game is practice that records no result, and
// lives beside them: a player racing while a solo game of the race's rules
// waits keeps both stored.
func (k Kind) OnePerRules() bool { return k == KindSolo || k == KindReplay }

// State is the part of a game that changes as it is played, written in one
// statement by SaveGame.
type State struct {
	Moves []string // the move log, in notation
	// MoveTimes is when each move of Moves was made: the play time since
	// the game's start (Elapsed's clock), in the order of Moves. It may
	// be shorter than Moves (a game stored before times were kept, or a
	// client that sends none), never longer; it is kept to the
	// millisecond. Undo drops the times of the moves it takes back.
	MoveTimes []time.Duration
	Redo      []string // the redo stack, in notation, most recent undo last
	Status    Status
	Removed   int           // pyramid cards removed
	Elapsed   time.Duration // play time
	// Hints and Undos count the hints shown and the moves undone, over
	// all the game's sessions. A save never lowers them: the store keeps
	// the larger of the stored and the written count. A game with either
	// is assisted.
	Hints, Undos int
	// Watched is set once the player watched the solver's line of the
	// game; a save never clears it.
	Watched bool
}

// Assisted reports whether the game used hints or undo.
func (s State) Assisted() bool { return s.Hints > 0 || s.Undos > 0 }

// MaxAssists is the most hints, or undos, counted in one game.
const MaxAssists = 1 << 20

// NewGame is what it takes to start a game.
type NewGame struct {
	PlayerID   string
	RulesID    string
	DealNumber uint64
	DealText   string
	Daily      string // the UTC date (DateFormat) for the daily deal, or empty
	Owner      string // the session token of the session starting it
	// Practice asks for a game that records no result. CreateGame also
	// makes every daily game practice once the player has a result for
	// that day's deal with these rules.
	Practice bool
	// Kind is what the game is; empty means KindSolo, or KindGhost for
	// a practice game (the callers of before kinds). CreateGame makes a
	// daily game a KindReplay when it makes it practice; any kind but
	// KindSolo is practice.
	Kind Kind
	// Race is the key of the race of a KindRace game (the same on every
	// server of a cluster): a player has one game per race, and a second
	// CreateGame of the same race fails with ErrExists. Empty for other
	// kinds.
	Race string
	// State is the play the game starts with, stored with it as a
	// SaveGame right after would store it (a race's first move creates
	// the racer's game with the move: one write instead of two); the
	// zero State is a game with no move. Its Status is StatusPlaying or
	// empty.
	State State
	// Chosen: the player chose the deal (Game.Chosen).
	Chosen bool
}

// Page selects a page of a list, newest first: at most Limit items
// (MaxListLimit when 0 or more) with IDs below Before (no bound when 0).
type Page struct {
	Limit  int
	Before int64
}

// Games keeps games. A player has at most one unfinished game of their
// own (solo or replay, Kind.OnePerRules) per rules ID, and any number of
// race and ghost games beside it.
type Games interface {
	// CreateGame starts a game owned by ng.Owner (ErrInProgress if the
	// game is of a kind that is one per rules and the player has an
	// unfinished one of those kinds with these rules; ErrBanned for a
	// banned player).
	CreateGame(ctx context.Context, ng NewGame) (Game, error)
	// Game returns a game.
	Game(ctx context.Context, id int64) (Game, error)
	// RaceGame returns the player's game of the race with this key
	// (NewGame.Race), finished or not; ErrNotFound if there is none.
	RaceGame(ctx context.Context, playerID, race string) (Game, error)
	// UnfinishedGame returns the player's unfinished game of their own
	// (Kind.OnePerRules) with these rules and this deal (ErrNotFound if
	// none).
	UnfinishedGame(ctx context.Context, playerID, rulesID string, dealNumber uint64, dealText string) (Game, error)
	// GameInProgress returns the player's unfinished game of their own
	// (Kind.OnePerRules) with these rules, whatever its deal (ErrNotFound
	// if none): the one CreateGame refuses to start another beside.
	GameInProgress(ctx context.Context, playerID, rulesID string) (Game, error)
	// LatestUnfinishedGame returns the player's most recently played
	// unfinished game (ErrNotFound if none).
	LatestUnfinishedGame(ctx context.Context, playerID string) (Game, error)
	// UnfinishedGames lists all of the player's unfinished games (status
	// playing), of every kind, most recently played first. Unlike a page
	// of ListGames it misses none, however many finished games are newer:
	// there are few (one of their own per rules ID, and the race games of
	// races that run), and an index answers it.
	UnfinishedGames(ctx context.Context, playerID string) ([]Game, error)
	// ListGames lists the player's games, newest first.
	ListGames(ctx context.Context, playerID string, page Page) ([]Game, error)
	// ClaimGame makes owner the game's owner and returns the game as it now
	// is (its Version is what the new owner's first write builds on); the
	// previous owner's writes fail with ErrConflict from then on.
	// ErrNotFound if the game is not the player's, ErrFinished if it is over.
	ClaimGame(ctx context.Context, gameID int64, playerID, owner string) (Game, error)
	// SaveGame writes the game's state in one statement, provided owner
	// still owns it (ErrConflict otherwise), it is unfinished
	// (ErrFinished), and its stored version is version, the one the state
	// was made on (ErrStale otherwise: the stored game is newer than the
	// writer's copy). The game's version is then version+1. A final
	// status finishes the game. The write is durable when SaveGame returns
	// nil; writing the same state on the same version again (a retry after
	// a lost answer) changes nothing and succeeds.
	SaveGame(ctx context.Context, gameID int64, owner string, version int64, st State) error
	// FinishGame writes the final state of a game (the status must be a
	// final one) and, when res is not nil, its result, in one transaction,
	// with SaveGame's conditions (owner, unfinished, version). A practice
	// game gets no result, nor does a daily game when the player already
	// has a result for that day's deal with these rules.
	FinishGame(ctx context.Context, gameID int64, owner string, version int64, st State, res *Result) error
}

// Result is the outcome of a finished game, computed by the caller by
// replaying the game's moves in the engine. Its assistance (hints, undos)
// is the game's, copied from the game's state when it is recorded.
type Result struct {
	GameID  int64
	Won     bool
	Removed int // pyramid cards removed
	Moves   int
	Elapsed time.Duration
	// Fast is set when the game's moves came faster than a person plays
	// (games.Assisted): like hints or undo, it sets no record and keeps
	// the result off the boards.
	Fast bool
}

// Stats are a player's figures for one rules ID, derived from their results.
type Stats struct {
	RulesID       string
	Played        int
	Won           int // assisted wins included
	CurrentStreak int // wins since the last game not won
	BestStreak    int
	// AssistedWins counts the wins with hints, undo or moves faster than
	// play (Result.Fast). They count as wins but set no record: BestTime
	// and FewestMoves are unassisted wins of deals the server dealt
	// (Game.Chosen), and so are the streaks.
	AssistedWins int
	BestTime     time.Duration // fastest unassisted win; 0 when none
	FewestMoves  int           // among unassisted wins; 0 when none
	// AvgRemoved is the mean number of pyramid cards removed per game.
	AvgRemoved float64
	// DailyPlayed is the number of days whose daily deal the player
	// finished; only the first finished attempt of a day counts.
	DailyPlayed int
	// BestDailyRemoved and BestDailyTime are the best counted daily
	// attempt: most cards removed, then least time.
	BestDailyRemoved int
	BestDailyTime    time.Duration
	// DailyWon counts the days whose counted attempt was won.
	DailyWon int
	// LastDaily is the date (DateFormat) of the last day with a counted
	// daily attempt, empty when none. DailyStreak is the number of
	// consecutive days with one ending at LastDaily (the caller, who knows
	// today's date, shows 0 when LastDaily is before yesterday);
	// BestDailyStreak the longest such run.
	LastDaily       string
	DailyStreak     int
	BestDailyStreak int
}

// WinRate is the share of games won, 0 when none was played.
func (s Stats) WinRate() float64 {
	if s.Played == 0 {
		return 0
	}
	return float64(s.Won) / float64(s.Played)
}

// DailyEntry is a line of a daily leaderboard: the player's first
// finished attempt at the day's deal. Assisted attempts (hints or undo)
// are not on the board.
type DailyEntry struct {
	Rank       int // equal for equal scores
	PlayerID   string
	PlayerName string
	GameID     int64
	Won        bool
	Removed    int
	Moves      int
	Elapsed    time.Duration
	Finished   time.Time
}

// TopOrder says how a top list is ranked.
type TopOrder int

// The orders of a top list.
const (
	// TopWins ranks by wins, then fewer games played, then best time.
	TopWins TopOrder = iota
	// TopTime ranks players with a win by their fastest win.
	TopTime
)

// TopEntry is a line of a top list. Assisted wins are left out of it:
// Won counts unassisted wins and BestTime is the fastest of them; Played
// counts every result.
type TopEntry struct {
	Rank       int
	PlayerID   string
	PlayerName string
	Won        int
	Played     int
	BestTime   time.Duration // 0 when no win
}

// Results keeps the results of finished games and derives statistics and
// leaderboards from them. Banned players are left off leaderboards.
type Results interface {
	// RecordResult stores the result of a finished game. Recording a game's
	// result again is a no-op, so a retry after a lost reply is safe.
	RecordResult(ctx context.Context, res Result) error
	// Stats returns the player's figures for the rules ID (zero figures if
	// none).
	Stats(ctx context.Context, playerID, rulesID string) (Stats, error)
	// AllStats returns the player's figures for every rules ID they played,
	// ordered by rules ID.
	AllStats(ctx context.Context, playerID string) ([]Stats, error)
	// Leaderboard ranks the first finished attempt of each player at the
	// daily deal of date (DateFormat) with these rules: most pyramid cards
	// removed, then least time.
	Leaderboard(ctx context.Context, rulesID, date string, limit int) ([]DailyEntry, error)
	// Top ranks the players of a rules ID over all their results.
	Top(ctx context.Context, rulesID string, order TopOrder, limit int) ([]TopEntry, error)
	// DailyStanding returns the player's counted attempt (the first
	// finished one) at the daily deal of date with these rules, with its
	// rank on the day's board (Rank 0 when it is not on the board: an
	// assisted attempt, or a banned player), and the number of players
	// on that board. ErrNotFound if the player has not finished that
	// day's deal.
	DailyStanding(ctx context.Context, playerID, rulesID, date string) (DailyStanding, error)
}

// DailyStanding is a player's counted attempt at a day's deal and where
// it stands on the board.
type DailyStanding struct {
	DailyEntry
	// Assisted: the attempt used hints or undo, or its moves came faster
	// than play, so it is not on the board.
	Assisted bool
	// Players is the number of players on the day's board.
	Players int
}

// Setting names. A setting's value is short text; a missing setting
// means the default. The store keeps any name of lower-case letters,
// digits and '-'; these are the ones the arcade uses.
const (
	SettingKeys           = "keys"            // "arrows" or "wasd"
	SettingCards          = "cards"           // "symbols" or "letters"
	SettingWinnableOnly   = "winnable-only"   // "on" or "off": deal only winnable deals
	SettingWatchable      = "watchable"       // "on" or "off": others may watch my games
	SettingTellUnwinnable = "tell-unwinnable" // "on" or "off": tell me when a deal can no longer be won
)

// Limits of a setting.
const (
	MaxSettingName  = 32  // bytes of a setting's name: lower-case letters, digits and '-'
	MaxSettingValue = 256 // bytes of a setting's value
	MaxSettings     = 64  // settings per player
)

// Settings keeps each player's settings.
type Settings interface {
	// Settings returns the player's settings by name (empty, not nil,
	// when none is set).
	Settings(ctx context.Context, playerID string) (map[string]string, error)
	// SetSetting sets one setting of the player; an empty value deletes
	// it (back to the default). ErrInvalid for a malformed name or value
	// or past MaxSettings; ErrNotFound for an unknown player.
	SetSetting(ctx context.Context, playerID, name, value string) error
}

// Secrets keeps the database's secrets.
type Secrets interface {
	// DailySecret returns the secret the daily deals derive from
	// (engine.DailyNumber): DailySecretLen random bytes made on the first
	// call, by whichever server asks first, and the same for every caller
	// on the database ever after, so that every server of a cluster deals
	// the same daily.
	DailySecret(ctx context.Context) ([]byte, error)
}

// DailySecretLen is the length of the daily deals' secret in bytes.
const DailySecretLen = 32

// Store is everything the arcade keeps.
type Store interface {
	Players
	Links
	Races
	Games
	Results
	Settings
	Secrets
	Audit
	Reports
	Challenges
	Arenas
	// Close releases the database.
	Close() error
}

// MaxRacePlacings is the most placings one race may store: a room holds
// eight racers.
const MaxRacePlacings = 8

// RacePlacing is one racer's line of a finished race.
type RacePlacing struct {
	PlayerID   string
	PlayerName string // filled in when read
	// Place is 1 for the winner; ties share a place. Places need not be
	// consecutive: a guest's place is not stored but still taken.
	Place   int
	Cleared bool
	Removed int // pyramid cards removed
	Moves   int
	// Time is the finish time for a racer who cleared, else the time of
	// the last removal, from the start of the race.
	Time time.Duration
	// GameID is the racer's stored game of the race, 0 when none.
	GameID int64
	// Outcome is how the racer's race ended; "" in races stored before
	// outcomes were.
	Outcome Outcome
	// Assisted is set for a racer whose moves came faster than a person
	// plays (games.Assisted): their placing stays, unrated for them.
	Assisted bool
	// Rating is the racer's rating in the race's rules after the race
	// (filled in when read; zero when the race was not rated).
	Rating Rating

	// What the race was for the racer, as the store decided it when it
	// recorded the race (rating.Decide), filled in when read: Standing
	// rating.Rated with Win and Podium, or why it was not (Reason).
	Standing    rating.Standing
	Reason      rating.Reason
	Win, Podium bool
	// Before is the racer's rating in the race's rules before the race
	// (zero unless Standing is rating.Rated, and in races stored before
	// it was kept).
	Before Rating
}

// Outcome is how a racer's race ended.
type Outcome string

// The outcomes of a racer's race.
const (
	OutcomeCleared Outcome = "cleared" // they cleared the pyramid
	OutcomeStuck   Outcome = "stuck"   // no move was left: their game was lost
	OutcomeLeft    Outcome = "left"    // they left the race, or were dropped
	OutcomeTimeUp  Outcome = "time"    // still playing when the time limit came
)

// Valid reports whether o is one of the outcomes, or "" (not known).
func (o Outcome) Valid() bool {
	switch o {
	case "", OutcomeCleared, OutcomeStuck, OutcomeLeft, OutcomeTimeUp:
		return true
	}
	return false
}

// NewRace is a finished race to store.
type NewRace struct {
	// Key makes the write idempotent: a race with a key already stored is
	// not stored again (the server uses instance, room code, round and
	// start).
	Key        string
	Code       string // the room's code, for the record
	RulesID    string
	DealNumber uint64
	Started    time.Time
	Ended      time.Time
	// Racers is how many raced, guests included (at least the placings).
	Racers int
	// Rated races may update the placed players' ratings and count in
	// their race records, as the races' policy decides for each
	// (rating.Decide). An unrated race (its deal was chosen, not dealt at
	// random) keeps its placings and changes nothing else: no rating, no
	// race, win or podium; RaceRecord.Unrated counts it for those who
	// raced. The zero value is unrated.
	Rated bool
	// Void is set for a race in which a racer was lost with their server,
	// or that a racer's server could not reach the database during:
	// unrated (rating.ReasonVoid), whatever Rated says.
	Void bool
	// Verdict is what the solver said of the deal (engine.Unknown when it
	// did not decide in time).
	Verdict  engine.Verdict
	Placings []RacePlacing
}

// Race is a stored race.
type Race struct {
	ID         int64
	Code       string
	RulesID    string
	DealNumber uint64
	Started    time.Time
	Ended      time.Time
	Racers     int
	Rated      bool // NewRace.Rated
	// Unrated is why the race counts for nobody: rating.ReasonNone for
	// a race that may rate its racers, rating.ReasonChosenDeal,
	// rating.ReasonVoid (a racer lost with their server) or
	// rating.ReasonVoided (an admin voided it: VoidRace).
	Unrated  rating.Reason
	Verdict  engine.Verdict // NewRace.Verdict; engine.Unknown for races stored before it was
	Placings []RacePlacing  // by place, then player ID
}

// Rating is a player's race rating for one rules ID (package rating: a
// Weng–Lin Plackett–Luce estimate).
type Rating struct {
	Mu, Sigma float64
	// Ordinal is μ − 3σ, the conservative estimate.
	Ordinal float64
	// Display is the rating on the scale players see, around 1500
	// (rating.Model.Display of the store's model): the value shown and
	// ranked by.
	Display float64
	// Races is the number of rated races; 0 for a player not yet rated,
	// whose μ and σ are then the new-player defaults. Opponents is the
	// number of different players they were rated against.
	Races, Opponents int
	// Provisional is rating.Provisional(Races, Opponents): the rating is
	// shown with "?" and kept off the rating lists.
	Provisional bool
}

// RaceRecord is a player's race figures for one rules ID, as the races'
// policy decided each race for them (rating.Decide): Races, Wins and
// Podiums count the races rated for them, Unrated the races they raced
// that did not count for them; an aborted race counts in neither.
type RaceRecord struct {
	RulesID string
	Races   int
	Wins    int // rating.Decision.Win
	Podiums int // rating.Decision.Podium
	Unrated int
	Rating  Rating
}

// RatingPoint is a player's rating after one rated race.
type RatingPoint struct {
	At     time.Time // when the race ended
	Rating Rating
}

// RatingEntry is a line of a race rating list.
type RatingEntry struct {
	Rank       int // equal for equal display ratings
	PlayerID   string
	PlayerName string
	Rating
	Wins int
}

// Races keeps finished races and the race ratings they make.
type Races interface {
	// RecordRace stores a race and its placings, decides for each placed
	// player how the race counts for them (rating.Decide, with the pairs
	// of players rated against each other in the last rating.PairWindow
	// counted in the same transaction, whatever the rules), and updates
	// the ratings of those it rates, all in one transaction. It returns
	// the race's ID; for a key already stored, that race's ID and nothing
	// is written.
	RecordRace(ctx context.Context, race NewRace) (int64, error)
	// Race returns a stored race with its placings.
	Race(ctx context.Context, id int64) (Race, error)
	// RaceOfGame returns the stored race a game was the player's game of
	// (a KindRace game placed in it), with its placings; ErrNotFound when
	// there is none (the race is not over, or the game is no race's).
	RaceOfGame(ctx context.Context, gameID int64) (Race, error)
	// RaceInRoom returns the player's newest stored race in the room with
	// this code that ended at since or later, with its placings;
	// ErrNotFound when there is none (room codes are reused once a room
	// closes: since bounds how far back a code still means that room).
	RaceInRoom(ctx context.Context, playerID, code string, since time.Time) (Race, error)
	// RaceRecord returns the player's race figures for the rules ID (zero
	// figures and a new player's rating if none).
	RaceRecord(ctx context.Context, playerID, rulesID string) (RaceRecord, error)
	// RaceRecords returns the player's race figures for every rules ID
	// they raced, rated or not, ordered by rules ID.
	RaceRecords(ctx context.Context, playerID string) ([]RaceRecord, error)
	// TopRatings ranks the rated players of a rules ID by their display
	// rating, highest first; banned players and provisional ratings are
	// left off.
	TopRatings(ctx context.Context, rulesID string, limit int) ([]RatingEntry, error)
	// RatingHistory returns the player's rating after each of their last
	// limit rated races in the rules ID (all for limit <= 0), oldest
	// first.
	RatingHistory(ctx context.Context, playerID, rulesID string, limit int) ([]RatingPoint, error)
	// RatedRaces returns the player's newest races (at most limit) that
	// rated somebody, the player or others: the races VoidRace would
	// change, newest first, with their placings.
	RatedRaces(ctx context.Context, playerID string, limit int) ([]Race, error)
	// VoidRace voids a stored race, in one transaction: the race counts
	// for nobody from then on (each placing is decided again as a race
	// unrated for all, rating.ReasonVoided), and the ratings it changed
	// are computed again from the race before it on: every race recorded
	// after it that one of its rated racers moved in, and then every race
	// one of those races' racers moved in, is decided again by the races'
	// policy (rating.Decide, the pair limit counted without the voided
	// race) and rated again, in the order they were recorded. It stores
	// an AuditVoid entry by v.Actor for each placed racer, and returns
	// the IDs of the players whose ratings were computed again, sorted.
	// ErrNotFound for no such race, ErrVoided for one voided already.
	VoidRace(ctx context.Context, v RaceVoid) ([]string, error)
}

// RaceVoid is an admin's void of a race (Races.VoidRace).
type RaceVoid struct {
	RaceID int64
	Actor  string // the admin's player ID
	Reason string
}

// ChallengeState is where a challenge stands.
type ChallengeState string

// The states of a challenge. Offered and accepted are open; the others
// are final.
const (
	// ChallengeOffered: the challenged player has not answered yet.
	ChallengeOffered ChallengeState = "offered"
	// ChallengeAccepted: both may play the deal, once, until the deadline.
	ChallengeAccepted ChallengeState = "accepted"
	// ChallengeDeclined: the challenged player said no.
	ChallengeDeclined ChallengeState = "declined"
	// ChallengeFinished: decided; its result is a stored race of two.
	ChallengeFinished ChallengeState = "finished"
	// ChallengeExpired: the deadline passed before it was accepted, or
	// with neither side having played: no result.
	ChallengeExpired ChallengeState = "expired"
)

// Open reports whether the challenge is still waiting for an answer or
// for play.
func (s ChallengeState) Open() bool { return s == ChallengeOffered || s == ChallengeAccepted }

// ChallengeTime is how long an offer waits for its answer, and how long
// both sides have to play once it is accepted.
const ChallengeTime = 24 * time.Hour

// NewChallenge is a challenge to offer.
type NewChallenge struct {
	Challenger, Challenged string // player IDs
	RulesID                string
	// DealNumber is the hidden deal both will play, picked by the server
	// and proven winnable by the solver.
	DealNumber uint64
}

// Challenge is a stored challenge.
type Challenge struct {
	ID                             int64
	Challenger, Challenged         string // player IDs
	ChallengerName, ChallengedName string // filled in when read
	RulesID                        string
	DealNumber                     uint64
	State                          ChallengeState
	// Offered is when it was offered, Accepted when it was accepted (zero
	// before), Deadline when the open state ends (an offer's answer, or
	// the play of an accepted one), Ended when it was closed (zero while
	// open).
	Offered, Accepted, Deadline, Ended time.Time
	// ChallengerGame and ChallengedGame are each side's game of the deal
	// (a KindRace game whose Race is ChallengeRaceKey), 0 before they
	// started it.
	ChallengerGame, ChallengedGame int64
	// RaceID is the stored race of the result (Races.RecordRace), 0 for
	// none; Winner the winner's player ID, empty for none.
	RaceID int64
	Winner string
}

// ChallengeRaceKey is the race key of a challenge: the Race of both
// sides' games and the Key of the race its result is stored as, so that
// a player has one game of a challenge and the result is stored once.
func ChallengeRaceKey(id int64) string { return challengeKeyPrefix + strconv.FormatInt(id, 10) }

const challengeKeyPrefix = "challenge-"

// ChallengeOfRaceKey is ChallengeRaceKey's inverse: ok is false for a
// key that names no challenge (a race room's).
func ChallengeOfRaceKey(key string) (id int64, ok bool) {
	n, found := strings.CutPrefix(key, challengeKeyPrefix)
	if !found {
		return 0, false
	}
	id, err := strconv.ParseInt(n, 10, 64)
	return id, err == nil && id > 0
}

// Challenges keeps challenges: asynchronous duels of two players on one
// hidden deal.
type Challenges interface {
	// OfferChallenge stores a new offer at the store's now, open until
	// ChallengeTime later. ErrInvalid for a challenge of oneself or a
	// missing field.
	OfferChallenge(ctx context.Context, c NewChallenge) (Challenge, error)
	// Challenge returns a stored challenge (ErrNotFound for none).
	Challenge(ctx context.Context, id int64) (Challenge, error)
	// PlayerChallenges returns the player's challenges, on either side,
	// newest first, at most limit: the open ones and those that ended at
	// since or later.
	PlayerChallenges(ctx context.Context, playerID string, since time.Time, limit int) ([]Challenge, error)
	// AnswerChallenge is the challenged player's answer to an offer: an
	// accepted one is open for play until ChallengeTime from now, a
	// declined one ends. ErrNotFound when it is no offer to playerID,
	// ErrClosed when it was answered already or its deadline passed.
	AnswerChallenge(ctx context.Context, id int64, playerID string, accept bool) (Challenge, error)
	// SetChallengeGame notes gameID as the player's game of an accepted
	// challenge before its deadline. Noting the same game again is no
	// error; ErrExists when the player has another game of it,
	// ErrNotFound when the player is neither side, ErrClosed when it is
	// not open for play.
	SetChallengeGame(ctx context.Context, id int64, playerID string, gameID int64) error
	// EndChallenge closes an open challenge as ChallengeFinished (its
	// result stored as race raceID, won by winner, or by nobody when
	// empty) or ChallengeExpired, and returns it. Closing one closed
	// already changes nothing and returns it with ErrClosed, so that two
	// servers deciding the same challenge end it once.
	EndChallenge(ctx context.Context, id int64, state ChallengeState, raceID int64, winner string) (Challenge, error)
}

// Arenas keeps arena events (package arena) and their scores. An arena's
// points are the store's: the lease holder scores each arena race as it
// stores it (RecordArenaRace), so an instance that dies loses none.
type Arenas interface {
	// CreateArena stores a new arena and returns it with its ID (and, for
	// a recurring one, Series set to that ID). ErrInvalid when
	// arena.Event.Check refuses it at the store's now.
	CreateArena(ctx context.Context, e arena.Event) (arena.Event, error)
	// UpdateArena changes an upcoming arena's name, rules, start,
	// duration, game time and recurrence (by e.ID); its creator stays,
	// and its Series follows the recurrence (0 for a one-off, kept or
	// its own ID for a recurring one). ErrNotFound for no such arena,
	// ErrClosed once it started or was cancelled, ErrInvalid as
	// CreateArena or for the start of another occurrence of its series.
	UpdateArena(ctx context.Context, e arena.Event) (arena.Event, error)
	// CancelArena cancels an arena that has not finished; a recurring
	// one then has no next occurrence. ErrNotFound, or ErrClosed when it
	// finished or was cancelled already.
	CancelArena(ctx context.Context, id int64) (arena.Event, error)
	// Arena returns a stored arena (ErrNotFound for none).
	Arena(ctx context.Context, id int64) (arena.Event, error)
	// Arenas returns the arenas not cancelled that end at since or later
	// (upcoming, running, and finished since), by start then ID, at most
	// limit (MaxListLimit for 0 or less, and at most).
	Arenas(ctx context.Context, since time.Time, limit int) ([]arena.Event, error)
	// ArenasCreated counts the arenas the player created at since or
	// later, cancelled ones too: the limit of arenas per player on a
	// server without admins.
	ArenasCreated(ctx context.Context, playerID string, since time.Time) (int, error)
	// ScheduleNextArena stores the next occurrence (arena.Event.Next) of
	// the recurring arena with this ID, once: a second call, from this or
	// another server, returns the one stored (the occurrence of the
	// series that starts after this one, wherever an edit moved it).
	// ErrNotFound for no such arena; ErrInvalid for a one-off or a
	// cancelled one.
	ScheduleNextArena(ctx context.Context, id int64) (arena.Event, error)
	// RecordArenaRace scores the stored race raceID in the arena, once
	// per race (a second call, from this or another server, changes
	// nothing and returns the race's players' lines as they are then).
	// Each placed player with a key gets a game scored by arena.Score
	// from their line before it: arena.Game from their placing among
	// the race's (arena.PlacingGame: Racers, Place and Shared counted
	// among the racers who played, a walkover when none but them did,
	// Cleared), Berserk when their ID is in berserk, and Void
	// when they were assisted, left, or the race is unrated for
	// everybody (void, voided, or a chosen deal: an arena's races and
	// solo deals are recorded Rated, their deals dealt at random). It
	// returns the race's players' lines after it, unranked (Rank 0:
	// ranking them sorts the whole arena; ArenaStandings and
	// ArenaPlayer rank).
	// ErrNotFound for no such arena or race; ErrInvalid for a race of
	// other rules than the arena's, or scored in another arena;
	// ErrClosed for a cancelled arena.
	RecordArenaRace(ctx context.Context, arenaID, raceID int64, berserk []string) ([]ArenaLine, error)
	// ArenaStandings returns the arena's standings, at most limit lines
	// (1,000 for 0 or less, and at most): by points (most first), then fewer games,
	// then the one who reached their points first, then player ID; equal
	// points, games and time share a rank (the next rank after a shared
	// one skips the places taken: 1, 2, 2, 4).
	ArenaStandings(ctx context.Context, arenaID int64, limit int) ([]ArenaLine, error)
	// ArenaPlayer returns one player's line in the arena with their rank
	// (a zero line with only PlayerID set, and rank 0, when they have no
	// game in it).
	ArenaPlayer(ctx context.Context, arenaID int64, playerID string) (ArenaLine, error)
	// ArenaGames returns the player's scored games of the arena, oldest
	// first.
	ArenaGames(ctx context.Context, arenaID int64, playerID string) ([]ArenaGame, error)
	// Trophies returns the player's top-three finishes (with a point or
	// more) in arenas not cancelled that finished at or before now,
	// newest first, at most limit (MaxListLimit for 0 or less, and at
	// most).
	Trophies(ctx context.Context, playerID string, now time.Time, limit int) ([]Trophy, error)
	// ArenaWinners returns the winners (rank 1, with a point or more;
	// a shared first place makes several) of the arenas not cancelled
	// that finished between since and now, both included, by player ID,
	// each with their newest such win: the boards mark their names.
	ArenaWinners(ctx context.Context, since, now time.Time) (map[string]Trophy, error)
}

// ArenaLine is a player's line of an arena's standings.
type ArenaLine struct {
	PlayerID   string
	PlayerName string // filled in when read
	Rank       int
	arena.Line
	// Reached is when the player's points last went up (the end of the
	// race that raised them; their first game's until then): the
	// tie-break.
	Reached time.Time
}

// ArenaGame is one scored game of a player in an arena.
type ArenaGame struct {
	RaceID  int64
	Points  int
	Streak  bool // it counted double
	Racers  int
	Place   int
	Cleared bool
	Berserk bool
	Void    bool
	At      time.Time // when the race ended
}

// Trophy is a player's finish in the top three of an arena.
type Trophy struct {
	ArenaID int64
	Name    string
	RulesID string
	Ended   time.Time
	Rank    int
	Points  int
	Players int // how many scored in the arena
}
