// Package games writes the games players play, one writer for every kind
// of game (a player's own, a daily's, a racer's and a ghost race's). The
// server decides every result: a game's status and cards removed come from
// replaying its moves in the engine, never from what a screen says. And
// the stored game is the truth: a Writer writes a game only on top of the
// version it last read or wrote, so a copy of a game older than the stored
// one (kept by a server the player left, say) never overwrites it
// (ErrStale).
package games

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"pyramid/engine"
	"pyramid/store"
)

// Errors of a save, besides the store's.
var (
	// ErrTakenOver: another session of the player took the game over;
	// this session's writes of it are refused.
	ErrTakenOver = errors.New("the game continues in another session")
	// ErrAbandoned, beside ErrTakenOver: another session of the player
	// abandoned the game (to start another of its rule set).
	ErrAbandoned = errors.New("your game was abandoned from another session")
	// ErrStale: the stored game is newer than the copy the change was
	// made on (the game was played on elsewhere): the writer reads the
	// stored game again.
	ErrStale = errors.New("your game changed in another session")
)

// UnfinishedError is the error of a new game's first save beside an
// unfinished game of the player's of the same rules that the save does not
// name as the one it replaces (Play.Replace): the player decides.
type UnfinishedError struct{ Game store.Game }

// Error names the game in progress.
func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("game %d of these rules is unfinished", e.Game.ID)
}

// Play is a game as a session sends it to be stored: the line played and
// what only the session knows.
type Play struct {
	// Record is the game: rules, deal, moves and redo stack.
	Record engine.Record
	// Over is set when the player ends the game (abandons it); otherwise
	// it is being played. Won and lost are the position's to say.
	Over bool
	// Started is when the game was first dealt; Played the time played.
	Started time.Time
	Played  time.Duration
	// MoveTimes is when each move was made, from the game's start, as the
	// session kept them (what a race's server clock says, for a racer).
	MoveTimes []time.Duration
	// Hints, Undos and Watched are the assistance the session counted.
	Hints, Undos int
	Watched      bool
	// Daily is the date of the daily deal the game is of, or empty.
	Daily string
	// Chosen is set when the player chose the deal (a number they typed,
	// deal text): the game is practice for records and boards
	// (store.Game.Chosen). Read on the game's first save only.
	Chosen bool
	// Replace is the unfinished game of the same rules that the player
	// agreed to abandon for this new one (0: none); see UnfinishedError.
	Replace int64
}

// Saved is what a save stored.
type Saved struct {
	ID int64
	// Status is the stored status, which can differ from the one sent: a
	// lost position is lost at once, a game whose solution was watched
	// before it was finished is lost, and a sealed game keeps its status.
	Status store.Status
	// Practice: the save changed no record (a practice game, or a game
	// finished already whose later moves are practice).
	Practice bool
	// Hints and Undos are the game's counts; Assisted is either above 0
	// or Fast.
	Hints, Undos int
	Assisted     bool
	// Fast: the game's moves came faster than a person plays (Assisted,
	// the function): it sets no record and is on no board.
	Fast bool
	// Chosen: the player chose the deal, so the game sets no record and
	// is on no board (store.Game.Chosen).
	Chosen bool
	// NewBestTime, NewFewestMoves and FirstWin are set on the save that
	// finished an unassisted win faster, in fewer moves than, or before,
	// every other of the rule set.
	NewBestTime, NewFewestMoves, FirstWin bool
	// DailyRank is the place on the day's board of the save that
	// finished the day's counted attempt (0: not on it, assisted), of
	// DailyPlayers.
	DailyRank, DailyPlayers int
}

// Config is what a Writer needs.
type Config struct {
	Store store.Store
	// Owner is the token of the session the writer writes for: the store
	// refuses its writes of a game another session took over.
	Owner string
	// Taken, when set, is told that this session took game id over from
	// the player's other sessions (reason empty) or abandoned it (reason
	// ErrAbandoned's text), for them to stop showing it.
	Taken func(ctx context.Context, id int64, reason string)
	// DailyFinished, when set, is told that a daily game of these rules
	// and date was finished (the live daily board).
	DailyFinished func(rulesID, day string)
}

// Writer writes one session's games. Its methods are safe for concurrent
// use; a session saves one game at a time.
type Writer struct {
	cfg Config

	mu sync.Mutex
	// versions is the version of each game this session writes, as it
	// last read or wrote it: what its next save builds on.
	versions map[int64]int64
	// practice is the practice games this session created.
	practice map[int64]bool
}

// New returns the writer of a session.
func New(cfg Config) *Writer {
	return &Writer{cfg: cfg, versions: map[int64]int64{}, practice: map[int64]bool{}}
}

// Owner is the session's token.
func (w *Writer) Owner() string { return w.cfg.Owner }

// Read notes that the session read game g as it is stored (a claim, a
// creation): its next save builds on g's version.
func (w *Writer) Read(g store.Game) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.versions[g.ID] = g.Version
	if g.Practice {
		w.practice[g.ID] = true
	}
}

// version returns the version the session last read or wrote of a game.
func (w *Writer) version(id int64) (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, ok := w.versions[id]
	return v, ok
}

// Create starts a game for this session (ng.Owner is the session's).
func (w *Writer) Create(ctx context.Context, ng store.NewGame) (store.Game, error) {
	ng.Owner = w.cfg.Owner
	g, err := w.cfg.Store.CreateGame(ctx, ng)
	if err != nil {
		return store.Game{}, err
	}
	w.Read(g)
	return g, nil
}

// Claim makes the player's unfinished game id this session's to write and
// returns it as stored: another session's writes of it are refused from
// now on (a racer's seat taken over says so to that session already).
func (w *Writer) Claim(ctx context.Context, player string, id int64) (store.Game, error) {
	g, err := w.cfg.Store.ClaimGame(ctx, id, player, w.cfg.Owner)
	if err != nil {
		return store.Game{}, fmt.Errorf("take game %d: %w", id, err)
	}
	w.Read(g)
	return g, nil
}

// TakeOver is Claim, and the player's other sessions are told (Taken):
// one that shows the game stops.
func (w *Writer) TakeOver(ctx context.Context, player string, id int64) (store.Game, error) {
	g, err := w.Claim(ctx, player, id)
	if err == nil {
		w.taken(ctx, id, "")
	}
	return g, err
}

// taken tells the player's other sessions.
func (w *Writer) taken(ctx context.Context, id int64, reason string) {
	if w.cfg.Taken != nil {
		w.cfg.Taken(ctx, id, reason)
	}
}

// Save stores a game: a new one when id is 0, otherwise game id on top of
// the version the session last read or wrote (ErrStale when the stored
// game is newer). The state stored is decided by replaying p.Record
// (replayed, when not nil, is it replayed already by the caller, which is
// not done again): a lost position is recorded as lost at once, whatever
// the screen says and whatever the player does next, and so is a game
// whose solution the player watched before finishing it; from then on the
// game is sealed and its later saves are practice, stored nowhere. A new
// game beside an unfinished one of the same rules needs the player's word
// (Play.Replace; *UnfinishedError otherwise).
func (w *Writer) Save(ctx context.Context, player string, id int64, p Play, replayed *engine.Game) (Saved, error) {
	rec, replayed, st, err := p.state(replayed)
	if err != nil {
		return Saved{}, err
	}
	if id == 0 {
		if id, err = w.create(ctx, player, p); err != nil {
			return Saved{}, err
		}
	}
	version, known := w.version(id)
	if !known {
		// A game this session neither made nor took over: the stored
		// one, if this session owns it (the store refuses the save
		// otherwise).
		sg, err := w.cfg.Store.Game(ctx, id)
		if err != nil {
			return Saved{}, fmt.Errorf("save game %d: %w", id, err)
		}
		version = sg.Version
	}
	fast := Assisted(st.Moves, st.MoveTimes)
	var before *store.Stats
	if st.Status == store.StatusPlaying {
		err = w.cfg.Store.SaveGame(ctx, id, w.cfg.Owner, version, st)
	} else {
		if st.Status == store.StatusWon {
			before = w.recordsBefore(ctx, player, rec.Rules)
		}
		err = w.cfg.Store.FinishGame(ctx, id, w.cfg.Owner, version, st, result(id, replayed, st, fast))
	}
	switch {
	case errors.Is(err, store.ErrFinished):
		return w.sealed(ctx, player, id)
	case errors.Is(err, store.ErrConflict):
		return Saved{}, fmt.Errorf("save game %d: %w", id, ErrTakenOver)
	case errors.Is(err, store.ErrStale):
		return Saved{}, fmt.Errorf("save game %d: %w", id, ErrStale)
	case err != nil:
		return Saved{}, err // the store's error names the game already
	}
	w.mu.Lock()
	w.versions[id] = version + 1
	practice := w.practice[id]
	w.mu.Unlock()
	out := Saved{ID: id, Status: st.Status, Hints: st.Hints, Undos: st.Undos, Assisted: st.Assisted() || fast, Practice: practice, Fast: fast}
	if st.Status.Finished() {
		w.finished(ctx, player, id, before, &out)
		if p.Daily != "" && w.cfg.DailyFinished != nil {
			w.cfg.DailyFinished(rec.Rules, p.Daily)
		}
	}
	return out, nil
}

// create starts the stored game of a new Play. A player has one unfinished
// game of their own per rule set (a race's game is apart:
// store.Kind.OnePerRules). Beside one this session owns (one it left)
// the new game replaces it; beside one of another session only when the
// player said so (p.Replace): otherwise the error is an *UnfinishedError
// naming it. The replaced game is recorded as abandoned, a loss if it had
// a move.
func (w *Writer) create(ctx context.Context, player string, p Play) (int64, error) {
	ng := store.NewGame{
		PlayerID: player, RulesID: p.Record.Rules, DealNumber: p.Record.Deal,
		DealText: p.Record.DealText, Daily: p.Daily, Chosen: p.Chosen || p.Record.DealText != "",
	}
	for attempt := 0; ; attempt++ {
		created, err := w.Create(ctx, ng)
		if err == nil {
			return created.ID, nil
		}
		if !errors.Is(err, store.ErrInProgress) || attempt > 0 {
			return 0, fmt.Errorf("create game: %w", err)
		}
		old, err := w.cfg.Store.GameInProgress(ctx, player, p.Record.Rules)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // it finished meanwhile
		case err != nil:
			return 0, fmt.Errorf("create game: %w", err)
		case old.Owner != w.cfg.Owner && p.Replace != old.ID:
			return 0, fmt.Errorf("create game: %w", &UnfinishedError{Game: old})
		}
		if err := w.Abandon(ctx, player, old.ID); err != nil {
			return 0, err
		}
	}
}

// Abandon finishes one of the player's unfinished games as abandoned (as
// lost when its position is lost), and tells the session that shows it.
func (w *Writer) Abandon(ctx context.Context, player string, id int64) error {
	claimed, err := w.cfg.Store.ClaimGame(ctx, id, player, w.cfg.Owner)
	if errors.Is(err, store.ErrFinished) {
		return nil // over already
	}
	if err != nil {
		return fmt.Errorf("abandon game %d: %w", id, err)
	}
	w.taken(ctx, id, ErrAbandoned.Error())
	st := claimed.State
	st.Status = store.StatusAbandoned
	var res *store.Result
	if replayed, err := engine.Replay(RecordOf(claimed)); err == nil {
		if replayed.Status() == engine.Lost {
			st.Status = store.StatusLost
		}
		res = result(claimed.ID, replayed, st, Assisted(st.Moves, st.MoveTimes))
	}
	if err := w.cfg.Store.FinishGame(ctx, claimed.ID, w.cfg.Owner, claimed.Version, st, res); err != nil {
		return fmt.Errorf("abandon game %d: %w", id, err)
	}
	return nil
}

// state is what a save stores of p: its line, the game replayed, and the
// state decided from them. replayed is p's record replayed already, or
// nil.
func (p Play) state(replayed *engine.Game) (engine.Record, *engine.Game, store.State, error) {
	rec, replayed, err := replayLine(p.Record, replayed)
	if err != nil {
		return engine.Record{}, nil, store.State{}, fmt.Errorf("save game: %w", err)
	}
	return rec, replayed, store.State{
		Moves:     rec.Moves,
		MoveTimes: moveTimes(p.MoveTimes, len(rec.Moves)),
		Redo:      rec.Redo,
		Status:    finalStatus(replayed, p),
		Removed:   replayed.Removed(),
		Elapsed:   p.Played,
		Hints:     min(max(p.Hints, 0), store.MaxAssists),
		Undos:     min(max(p.Undos, 0), store.MaxAssists),
		Watched:   p.Watched,
	}, nil
}

// Playing reports whether a save of p would store a game still being
// played (not won, lost or abandoned): a racer's first move may then make
// their game with the move in it (store.NewGame.State).
func (p Play) Playing(replayed *engine.Game) (store.State, bool) {
	_, _, st, err := p.state(replayed)
	return st, err == nil && st.Status == store.StatusPlaying
}

// replayLine replays a record; replayed, when not nil, is rec replayed
// already (the caller's own replay, not done twice). When the position is
// not over but redoing the whole redo stack reaches a lost position, the
// player has been there and undone it (a session's save queue can merge
// that save away): the record returned is then that line, lost, with no
// redo stack.
func replayLine(rec engine.Record, replayed *engine.Game) (engine.Record, *engine.Game, error) {
	g, err := replayed, error(nil)
	if g == nil {
		g, err = engine.Replay(rec)
	}
	if err != nil || g.Status() != engine.Playing || len(rec.Redo) == 0 {
		return rec, g, err
	}
	line := rec
	line.Moves, line.Redo = slices.Concat(rec.Moves, rec.Redo), nil
	if end, err := engine.Replay(line); err == nil && end.Status() == engine.Lost {
		return line, end, nil
	}
	return rec, g, nil
}

// moveTimes is what is stored of the move times a session sent for n
// moves: at most n, up to the first negative one (a client's mistake).
func moveTimes(ts []time.Duration, n int) []time.Duration {
	ts = ts[:min(len(ts), n)]
	for i, d := range ts {
		if d < 0 {
			return ts[:i]
		}
	}
	return ts
}

// finalStatus is the stored status of a game, decided by its replayed
// position: won when it is won, lost when it is lost (whatever the screen
// says: undo can leave a lost position, the result stays) or when the
// player watched the solution first; otherwise playing, or abandoned when
// the player ended it.
func finalStatus(g *engine.Game, p Play) store.Status {
	switch {
	case g.Status() == engine.Won:
		return store.StatusWon
	case g.Status() == engine.Lost, p.Watched:
		return store.StatusLost
	case !p.Over:
		return store.StatusPlaying
	}
	return store.StatusAbandoned
}

// result is the result of a finished game (fast: its moves came faster
// than play), or nil for a game abandoned before its first move, which
// does not count as played.
func result(id int64, g *engine.Game, st store.State, fast bool) *store.Result {
	if st.Status == store.StatusAbandoned && g.MovesMade() == 0 {
		return nil
	}
	return &store.Result{GameID: id, Won: st.Status == store.StatusWon, Removed: g.Removed(), Moves: g.MovesMade(), Elapsed: st.Elapsed, Fast: fast}
}

// RecordOf is a stored game as an engine record.
func RecordOf(sg store.Game) engine.Record {
	return engine.Record{Rules: sg.RulesID, Deal: sg.DealNumber, DealText: sg.DealText, Moves: sg.Moves, Redo: sg.Redo}
}

// recordsBefore returns the player's figures for the rules before a win is
// recorded, to tell a new record; nil when they cannot be read (the win is
// stored all the same, without the news).
func (w *Writer) recordsBefore(ctx context.Context, player, rulesID string) *store.Stats {
	st, err := w.cfg.Store.Stats(ctx, player, rulesID)
	if err != nil {
		return nil
	}
	return &st
}

// finished fills in what the save that finished a game recorded: the
// stored assistance, a new record, the day's rank.
func (w *Writer) finished(ctx context.Context, player string, id int64, before *store.Stats, out *Saved) {
	sg, err := w.cfg.Store.Game(ctx, id)
	if err != nil {
		return // stored; only the news is missing
	}
	out.Hints, out.Undos, out.Practice, out.Chosen = sg.Hints, sg.Undos, sg.Practice, sg.Chosen
	out.Assisted = sg.Assisted() || out.Fast
	if sg.Practice {
		return
	}
	if sg.Status == store.StatusWon && !out.Assisted && !sg.Chosen && before != nil {
		moves := len(sg.Moves)
		out.FirstWin = before.BestTime == 0
		out.NewBestTime = out.FirstWin || sg.Elapsed < before.BestTime
		out.NewFewestMoves = out.FirstWin || moves < before.FewestMoves
	}
	if sg.Daily != "" {
		if ds, err := w.cfg.Store.DailyStanding(ctx, player, sg.RulesID, sg.Daily); err == nil && ds.GameID == id {
			out.DailyRank, out.DailyPlayers = ds.Rank, ds.Players
		}
	}
}

// sealed answers a save of a game the store says is finished. When this
// session finished it (a loss, a watched solution, a win), the save is
// practice: nothing is stored and the sealed result stands. Otherwise
// another session took the game, or abandoned it.
func (w *Writer) sealed(ctx context.Context, player string, id int64) (Saved, error) {
	sg, err := w.cfg.Store.Game(ctx, id)
	switch {
	case err != nil:
		return Saved{}, fmt.Errorf("save game %d: %w", id, err)
	case sg.PlayerID != player:
		return Saved{}, fmt.Errorf("save game %d: %w", id, ErrTakenOver)
	case sg.Owner != w.cfg.Owner && sg.Status == store.StatusAbandoned:
		return Saved{}, fmt.Errorf("save game %d: %w (%w)", id, ErrAbandoned, ErrTakenOver)
	case sg.Owner != w.cfg.Owner:
		return Saved{}, fmt.Errorf("save game %d: %w", id, ErrTakenOver)
	}
	fast := Assisted(sg.Moves, sg.MoveTimes)
	return Saved{ID: id, Status: sg.Status, Practice: true, Hints: sg.Hints, Undos: sg.Undos, Assisted: sg.Assisted() || fast,
		Fast: fast, Chosen: sg.Chosen}, nil
}
