package tui

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pyramid/engine"
)

// Player is who plays a session, as the server identified them.
type Player struct {
	// ID is the SHA256 fingerprint of the player's key ("SHA256:…"), empty
	// for a guest.
	ID string
	// Name is the display name, already cleaned by the keys package. The
	// tui still cuts it and replaces control characters where it shows it.
	Name string
	// Guest is true for a client without a key: nothing is stored for it.
	Guest bool
}

// Deps is what one session's model needs from the world. Only Renderer is
// required; every other field has a working zero value.
type Deps struct {
	// Renderer is the session's lipgloss renderer (bubbletea.MakeRenderer
	// on the server), whose colour profile decides how cards are coloured.
	// Nil means a renderer with no colour at all.
	Renderer *lipgloss.Renderer
	// Player is who plays.
	Player Player
	// Args is the deep link: the words after the host name in
	// `ssh -t host classic 42` (["classic", "42"]). The first word is any
	// rule spec or "daily", the optional second a deal number. Bad args
	// open the menu with a message saying what was wrong.
	Args []string
	// Unicode allows suit symbols and box-drawing glyphs; false draws
	// suits as S H D C and cards without boxes, every screen in ASCII.
	// With it, the menu's Cards item lets the player choose the letters
	// (and back) for the whole session; without it there is no such item.
	Unicode bool
	// Now is the clock. The model calls it only inside tea.Cmds, never in
	// Update. Nil means time.Now.
	Now func() time.Time
	// Rand is where the deals the server picks come from: random bytes
	// nobody can predict, read only inside tea.Cmds. Nil means
	// crypto/rand.
	Rand io.Reader
	// After is how the session waits: a command that brings read's
	// message once d has passed, read at that moment (the server's
	// Session.After: a runtime timer, no goroutine waiting meanwhile).
	// Nil means tea.Tick's way, a goroutine that waits.
	After func(d time.Duration, read func() tea.Msg) tea.Cmd
	// Await is how the session waits for its inbox: a command that brings
	// read's message once notify's ready is called, or at once when
	// notify says it need not wait (the server's Session.Await: nothing
	// waits meanwhile). Nil means a command that waits in read.
	Await func(notify func(ready func()) bool, read func() tea.Msg) tea.Cmd
	// Solver, when not nil, enables "winnable deals only", solver-backed
	// hints, the solver's daily deal and, after a game, whether the deal
	// could be won and a winning line to watch.
	Solver Solver
	// Games, when not nil, keeps the player's games: the model loads the
	// unfinished ones at start and saves the game after every move, and
	// shows a move only once the store has acknowledged it (the screen
	// keeps the position before it meanwhile; a failed save shows it with
	// a warning). Nil keeps games in memory only, shown at once. Guests
	// are never saved.
	Games Games
	// Context is the session's context; calls to Solver and Games derive
	// from it, so they stop when the session ends. Nil means Background.
	Context context.Context
	// Width and Height are the window size at the start; 80×24 when zero.
	Width, Height int
	// Translate, when not nil, maps each message from outside before the
	// model sees it, e.g. the server's own shutdown message to ShutdownMsg.
	// It must be pure and fast: it runs inside Update.
	Translate func(tea.Msg) tea.Msg
	// Inbox, when not nil, carries messages from the server to this
	// session (GameTakenMsg, NoticeMsg, …) without blocking the sender:
	// the model reads it in a tea.Cmd until Context ends.
	Inbox Inbox
	// Account, when not nil, gives a player with a key (not a guest) the
	// menu's Stats, Daily board, Change name, Link another key and Use a
	// link code. Nil hides them.
	Account Account
	// Lobby, when not nil, is the server's shared live state for this
	// session (lobby_deps.go): presence, the Lobby screen, spectating,
	// the live daily board. Nil hides them.
	Lobby Lobby
	// Connect is the command players connect with, e.g.
	// "ssh -p 23234 games.example.org": the link screen shows it with
	// "link CODE" after it. Empty shows "ssh HOST".
	Connect string

	// Races, when not nil, gives the menu's New race… and Join a race…
	// and the race deep links (tui/race*.go). Nil hides them.
	Races Races

	// Ghosts, when not nil, gives ghost races: g on the daily board and
	// the deep link race ghost daily|GAME-ID (tui/ghost*.go).
	Ghosts Ghosts

	// Challenges, when not nil, gives the deep link challenge ID: the
	// player's one game of a challenge (tui/challenge.go).
	Challenges Challenges

	// Arenas, when not nil, gives the menu's Arenas: timed events whose
	// players the server pairs into short races (tui/arena*.go). Its
	// races are played through Races. Nil hides them.
	Arenas Arenas
}

// Inbox is a session's queue of messages from the rest of the server
// (other sessions, rooms, the lobby). The server fills it without ever
// waiting on the session; the model reads it in a tea.Cmd.
type Inbox interface {
	// Next waits for the next message. It returns an error once ctx ends
	// or the queue is closed (the server dropped the session from it).
	Next(ctx context.Context) (tea.Msg, error)
	// Notify arranges for ready to be called once, when Next would not
	// wait: a message is in or the inbox closed. When that is so already
	// it returns true and calls nothing. ready must return at once: it
	// is called by whoever fills the inbox.
	Notify(ready func()) bool
}

// InboxBatch is several messages the inbox had waiting at once, as an
// Inbox's Next may return them: the model handles them in order in one
// update, so that a session that fell behind draws one frame for all.
type InboxBatch []tea.Msg

// Solver is the part of the engine's solver the tui uses. Every method may
// take long and is only ever called from a tea.Cmd, with a game the model
// no longer touches (a clone).
type Solver interface {
	// Hint returns a move that keeps g winnable and engine.Winnable, or
	// the verdict without a move (Kind 0) when no winning line is known.
	Hint(ctx context.Context, g *engine.Game) (engine.Move, engine.Verdict, error)
	// NextWinnable returns the first deal number at or after start whose
	// deal the solver proves winnable under r.
	NextWinnable(ctx context.Context, r engine.Rules, start uint64) (uint64, error)
	// DailyDeal returns the daily deal number of r for the UTC date of day.
	DailyDeal(ctx context.Context, r engine.Rules, day time.Time) (uint64, error)
	// Solve returns what the solver knows about g's position and, when it
	// is engine.Winnable, a line of moves that wins from it. The tui asks
	// it about a fresh game of a deal once the deal's game has ended
	// (whether it could be won from the start), and again for the line
	// when the player asks to watch it.
	Solve(ctx context.Context, g *engine.Game) (engine.Verdict, []engine.Move, error)
}

// Game statuses as SavedGame.Status spells them (the store's spelling).
const (
	// StatusPlaying: the game goes on.
	StatusPlaying = "playing"
	// StatusWon: the goal was reached.
	StatusWon = "won"
	// StatusLost: no move was left and the player dealt anew. (While the
	// player looks at a lost position, which undo can leave, the game is
	// saved as StatusPlaying; the server records it as lost all the same,
	// the moment the position is lost: see SaveResult.)
	StatusLost = "lost"
	// StatusAbandoned: the player started another game instead.
	StatusAbandoned = "abandoned"
)

// SavedGame is one game as the store keeps it.
type SavedGame struct {
	// ID is the store's key for the game, empty until its first Save.
	ID string
	// Record is the game: rule set ID, deal, moves and redo stack.
	Record engine.Record
	// Status is StatusPlaying, StatusWon, StatusLost or StatusAbandoned.
	// The store should derive results by replaying Record, not trust it.
	Status string
	// Daily is the UTC date (2006-01-02) of the daily deal this game
	// plays, or empty.
	Daily string
	// Removed is the number of pyramid cards removed, for lists; the store
	// should derive results by replaying Record.
	Removed int
	// Started is when the game was first dealt.
	Started time.Time
	// Played is the time spent in the game so far, over all sessions.
	Played time.Duration
	// MoveTimes is when each move of Record.Moves was made: the Played
	// clock at that move, in the order of the moves. It may be shorter
	// than the moves (a game stored before times were kept), never
	// longer; undo drops the times of the moves it takes back.
	MoveTimes []time.Duration
	// Saved is when this version was written (from Deps.Now).
	Saved time.Time
	// Hints and Undos count the hints shown and the moves undone in this
	// game so far, over all its sessions: the model counts on from the
	// stored figures of a game it resumes. The server keeps the larger
	// of the stored and the sent count, so a count never goes down. A
	// game with either is assisted: its win counts as a win but sets no
	// record (best time, fewest moves) and enters neither the top lists
	// nor the daily board.
	Hints, Undos int
	// Watched is set once the player has watched the solver's line of
	// this game, and stays set. Watching before the game is finished
	// gives it up: the server records it as lost then (sealed, see
	// SaveResult.Practice), so save as soon as the watch screen opens.
	// On a position already won it changes nothing.
	Watched bool
	// Replace, on the first save of a new game (ID empty), is the ID of
	// the player's unfinished game of the same rule set that the player
	// agreed to abandon for it (from an *UnfinishedError); that game is
	// then recorded as abandoned, a loss if it had a move. Without it, or
	// with another ID, such a save fails with an *UnfinishedError.
	Replace string
	// Practice is set by the store on a game that records no result: a
	// replay of a daily deal the player already finished that day (the
	// first finished attempt is the day's result).
	Practice bool
	// Chosen is set when the player chose the deal (a number they typed,
	// or deal text): its number may be shown from the start, and the
	// game counts as played but is practice for records and boards (no
	// best time, fewest moves, streak or top list). A deal the server
	// picked is hidden until the game is over (lobby.DealShown).
	Chosen bool
}

// SaveResult is what a save recorded, as the server decided it by
// replaying the game's moves. The model shows it on the end screens.
type SaveResult struct {
	// ID is the stored game's ID, as Games.Save returns it.
	ID string
	// Status is the game's stored status, which can differ from the one
	// sent: a lost position is recorded as StatusLost at once (the model
	// still saves it as StatusPlaying, since undo can leave it), a game
	// whose solution was watched before it was finished is StatusLost,
	// and a sealed game keeps the status it was sealed with.
	Status string
	// Practice: this save changed no record. Either the game was already
	// finished (sealed) when it was sent, so the moves after that are
	// practice (undo after a loss, the solver's line typed in, a win
	// after a loss) and are not stored; or the game is a practice game
	// (SavedGame.Practice). The end screen should say "practice".
	Practice bool
	// Hints and Undos are the game's counts: the stored ones on a save
	// that finished the game or was practice, the sent ones otherwise.
	// Assisted is either above 0.
	Hints, Undos int
	Assisted     bool
	// Fast: the moves came faster than a person plays (games.Assisted):
	// the game is assisted, sets no record and is on no board. It is
	// also Assisted.
	Fast bool
	// Chosen: the player chose the deal, so the game sets no record and
	// is on no board: "practice: chosen deal".
	Chosen bool
	// NewBestTime and NewFewestMoves are set on the save that finished an
	// unassisted win faster, or in fewer moves, than every earlier
	// unassisted win of the rule set; FirstWin when it is the first
	// unassisted win of the rule set (which also sets both).
	NewBestTime, NewFewestMoves, FirstWin bool
	// DailyRank is the place (1 = best) of the day's result on the daily
	// board, set on the save that finished the day's first attempt at a
	// daily deal; 0 when the result is not on the board (assisted).
	// DailyPlayers is the number of players on that board then.
	DailyRank, DailyPlayers int
	// Challenge is what became of the challenge whose game this save
	// finished, in the words of its notice, when that game was the last
	// of the two to end ("challenge 3 is over: you won …"); empty before.
	Challenge string
}

// Recorder is implemented by a Games that says what each save recorded.
// A model whose Games implements it should call SaveRecord instead of
// Games.Save: both store the game alike, and Save returns SaveRecord's
// ID.
type Recorder interface {
	SaveRecord(ctx context.Context, player string, g SavedGame) (SaveResult, error)
}

// ErrUnfinishedExists is what an *UnfinishedError matches with errors.Is:
// the player has an unfinished game of the rule set of a new game.
var ErrUnfinishedExists = errors.New("an unfinished game of these rules exists")

// UnfinishedError is the error Games.Save returns (wrapped) for the first
// save of a new game when the player has an unfinished game of the same
// rule set, in any session of the account, that SavedGame.Replace does
// not name. Nothing was stored. Ask the player; to go on, save again with
// Replace set to Game.ID (that game is then recorded as abandoned), or
// resume Game instead.
type UnfinishedError struct {
	// Game is the unfinished game, as Games.Unfinished lists it.
	Game SavedGame
}

// Error names the game.
func (e *UnfinishedError) Error() string {
	deal := "a custom deal"
	if e.Game.Record.DealText == "" {
		deal = dealLabel(e.Game.Record.Deal, e.Game.Chosen) // never over: it is unfinished
	}
	n := len(e.Game.Record.Moves)
	moves := strconv.Itoa(n) + " moves"
	if n == 1 {
		moves = "1 move"
	}
	return "your " + e.Game.Record.Rules + " game " + e.Game.ID + " (" + deal + ", " + moves + ") is unfinished"
}

// Unwrap returns ErrUnfinishedExists.
func (e *UnfinishedError) Unwrap() error { return ErrUnfinishedExists }

// Games keeps a player's games. The model calls it only from tea.Cmds and
// never has two saves of one session in flight at once, so a store sees a
// session's saves in order. A store with owners and versions (the store
// package) fits behind it with a thin adapter: Resume claims the game for
// the session, and a save refused because another session claimed it since
// returns an error wrapping ErrTakenOver.
type Games interface {
	// Unfinished returns the player's games still being played (status
	// StatusPlaying), the most recently saved first.
	Unfinished(ctx context.Context, player string) ([]SavedGame, error)
	// Resume takes over the unfinished game id for this session (saves of
	// it from other sessions fail from now on) and returns it as stored.
	Resume(ctx context.Context, player, id string) (SavedGame, error)
	// Save stores g for player: a new game when g.ID is empty, otherwise
	// it replaces the stored version of g.ID. It returns the game's ID.
	// A status other than StatusPlaying finishes the game. The server
	// decides the result by replaying g.Record: a lost position, or a
	// game whose solution was watched first, is finished as lost at once,
	// and the saves of a finished game succeed but store nothing (they
	// are practice: see SaveResult). The first save of a new game fails
	// with an *UnfinishedError when another game of its rule set is
	// unfinished and g.Replace does not name it.
	Save(ctx context.Context, player string, g SavedGame) (id string, err error)
}

// ErrTakenOver is what Games.Save returns (wrapped) when another session
// of the player took the game over: the model drops the game and returns
// to the menu, as for GameTakenMsg.
var ErrTakenOver = errors.New("the game continues in another session")

// ErrStale is what Games.Save and Races.Play return (wrapped) when the
// stored game is newer than the copy the change was made on (the game was
// played on elsewhere meanwhile): the change is not stored, and the model
// shows the stored game instead, saying so.
var ErrStale = errors.New("your game changed in another session")

// StaleError is the error of a race move refused because the racer's
// stored game is newer than the board it was made on (ErrStale): Record
// is the game as stored, which the race screen shows instead.
type StaleError struct{ Record engine.Record }

// Error says what happened.
func (e *StaleError) Error() string { return ErrStale.Error() }

// Unwrap returns ErrStale.
func (e *StaleError) Unwrap() error { return ErrStale }

// ErrAbandonedElsewhere is wrapped, beside ErrTakenOver, by the error of
// a save refused because another session of the player abandoned the
// game (to start another of its rule set): the model drops the game as
// for ErrTakenOver, but tells the player this instead.
var ErrAbandonedElsewhere = errors.New("your game was abandoned from another session")

// NoticeMsg is a line the server shows a player, such as "server restarts
// in 10 s". Send it with Program.Send.
type NoticeMsg struct {
	// Text is shown on the message line, cleaned and cut to fit.
	Text string
}

// ShutdownMsg asks the model to save its game and quit, telling the player
// why. The program quits once the last save has returned.
type ShutdownMsg struct {
	// Text says why, e.g. "the server is restarting".
	Text string
	// Wait is how long the model may wait for its saves before it quits
	// all the same, telling the player which moves were not saved; zero
	// means 7 s, within the server's default shutdown grace.
	Wait time.Duration
}

// GameTakenMsg tells a session that another session of the same player
// took over its game: the model drops the game without saving it and
// returns to the menu.
type GameTakenMsg struct {
	// ID is the stored game's ID; a message about another game is ignored.
	ID string
	// Reason, when not empty, is what became of the game, in words for
	// the player ("your game was abandoned from another session"); empty
	// means another session continues it.
	Reason string
}

// Account is the player's account on the server: records, the daily board, the display name and linking keys.
type Account interface {
	// Stats returns the player's figures for every rule set they finished a game of, most played first.
	Stats(ctx context.Context, player string) ([]RulesStats, error)
	// Board returns the daily board of a rule set for a UTC date (2006-01-02), best first.
	Board(ctx context.Context, rulesID, date string, limit int) ([]BoardEntry, error)
	// Rename changes the player's display name and returns it as stored; the error says why a name is refused (taken, bad characters…) in words fit for the player.
	Rename(ctx context.Context, player, name string) (string, error)
	// LinkCode returns a one-time code that links another SSH key to this player when that key connects and enters it (`ssh -p PORT host link CODE`, or the menu's Use a link code), and when it expires.
	LinkCode(ctx context.Context, player string) (code string, expires time.Time, err error)
	// Redeem uses a link code made by another player's LinkCode with the session's own key (the adapter knows it): from now on that key plays as the code's player, whose display name it returns. The code is as the player typed it; the account reads it as the server's link command does. The session itself still plays as the player it started as, so the tui ends it once the player has read the result. The error says why a code is refused (no such code, expired, the key has games of its own, banned) in words fit for the player.
	Redeem(ctx context.Context, code string) (name string, err error)
	// Settings returns the player's settings by name, the default where
	// none is kept: "keys" ("arrows" or "wasd"), "cards" ("symbols" or
	// "letters") and "winnable-only" ("off" or "on"), among others the
	// tui ignores.
	Settings(ctx context.Context, player string) (map[string]string, error)
	// SetSetting keeps one of the player's settings; the error says why
	// a name or value is refused in words fit for the player.
	SetSetting(ctx context.Context, player, name, value string) error
	// Keys lists the player's SSH keys, oldest first, the session's own
	// marked.
	Keys(ctx context.Context, player string) ([]KeyInfo, error)
	// Unlink removes one of the player's keys by fingerprint and returns
	// it in full; the error says why a key is refused (the session's
	// own, not the player's) in words fit for the player.
	Unlink(ctx context.Context, player, fingerprint string) (string, error)
	// NameRefusal says in a sentence why a display name cannot be one
	// (a character, its width), or returns "" for a name that can; a
	// taken name is Rename's to refuse. It is pure and fast: the name
	// field asks it at every key.
	NameRefusal(name string) string
}

// KeyInfo is one of the player's SSH keys.
type KeyInfo struct {
	// Fingerprint is the key's SHA256 fingerprint ("SHA256:…").
	Fingerprint string
	// Added is when the key was linked to the player.
	Added time.Time
	// This is set on the key of the session that asks.
	This bool
	// Type is the key's type (ssh-ed25519, …), Label what its owner
	// calls it, LastUsed when it last connected; each empty or zero when
	// unknown.
	Type     string
	Label    string
	LastUsed time.Time
}

// RulesStats is a player's record under one rule set, derived by the
// server from the stored games.
type RulesStats struct {
	// RulesID is the rule set's ID; Title its name for people (the tui
	// cleans and cuts it).
	RulesID, Title string
	// Played and Won count finished games.
	Played, Won int
	// CurrentStreak and BestStreak count games won in a row.
	CurrentStreak, BestStreak int
	// BestTime is the fastest win.
	BestTime time.Duration // 0 = none
	// FewestMoves is the shortest win.
	FewestMoves int // 0 = none
	// AvgRemoved is the mean of pyramid cards removed per finished game.
	AvgRemoved float64 // pyramid cards removed per game
	// DailyPlayed counts the daily deals played (the first finished
	// attempt of each day).
	DailyPlayed int
	// BestDaily is the best daily result, in pyramid cards removed.
	BestDaily int // most pyramid cards removed in a daily deal, -1 = none
	// BestDailyTime is the time the best daily result took.
	BestDailyTime time.Duration
	// AssistedWins counts the wins (in Won) that used hints or undo:
	// BestTime and FewestMoves come from the other wins only.
	AssistedWins int
	// DailyWon counts the days whose daily result was a win.
	DailyWon int
	// DailyStreak is the number of consecutive UTC days, up to today or
	// yesterday, with a finished daily deal (0 when the last was before
	// yesterday); BestDailyStreak the longest such run.
	DailyStreak, BestDailyStreak int
	// DailyToday is set when the player has finished today's (UTC) daily
	// deal of the rule set: the menu's "done today". TodayRank is that
	// result's place on today's board (0 when it is not on the board:
	// assisted) and TodayPlayers the number of players on the board.
	DailyToday              bool
	TodayRank, TodayPlayers int
	// Race is the player's race figures in the rule set; nil when they
	// never raced it.
	Race *RaceStats
}

// RaceStats is a player's race figures in one rule set, as the races'
// policy counted them (docs/races.md, "What counts").
type RaceStats struct {
	// Rated counts the races rated for the player, Wins and Podiums
	// among them; Unrated the races they raced that did not count.
	Rated, Wins, Podiums, Unrated int
	// Rating is the player's rating on the display scale (around 1500);
	// Provisional while it is (shown with "?").
	Rating      float64
	Provisional bool
	// History is the rating after each of the last rated races, oldest
	// first.
	History []float64
}

// BoardEntry is one line of a daily board.
type BoardEntry struct {
	// Rank is the place on the board, 1 for the best; equal results
	// share a rank.
	Rank int
	// Name is the player's display name.
	Name string // already cleaned by the server; still never print control characters
	// Removed is the number of pyramid cards removed.
	Removed int
	// Time is the time the game took.
	Time time.Duration
	// Won is true for a game won.
	Won bool
	// You is true for the asking player's own entry.
	You bool // this entry is the asking player
	// GameID is the stored game of the entry, which g on the board races
	// as a ghost (Ghosts), or empty.
	GameID string
	// Champion is set for a player who won an arena in the last 7 days:
	// the board marks their name.
	Champion bool
}
