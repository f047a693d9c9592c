package arcade

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// games keeps one session's games in the store: tui.Games for a player
// whose session writes as owner.
type games struct {
	st    store.Store
	owner string         // this session's token: the store refuses writes of games another session took over
	lobby *lobby.Lobby   // to tell the player's other sessions when this one takes a game from them
	self  *lobby.Session // this session in the lobby; nil: tell nobody
	seen  seen           // the games this session created
	// versions is the version of each game this session writes, as it
	// last read (created, claimed) or wrote it: what its next save builds
	// on. The store refuses a save built on an older version than the
	// stored one (store.ErrStale).
	versions versions
	// racing reports whether a stored game is a racer's game of a race
	// still running (arcade/race.go): it is not the player's to continue
	// alone. Nil: none is.
	racing func(id int64) bool
}

// taken tells the player's other sessions that this session took game id
// from them (reason empty) or abandoned it (abandonedReason).
func (g *games) taken(ctx context.Context, id int64, reason string) {
	if g.lobby != nil && g.self != nil {
		// Only a lobby bridged to other servers can fail to tell them; the
		// sessions here are told regardless, the lobby tries again while
		// this session lasts, and one elsewhere learns it at its next
		// save at the latest, as the store refuses that save.
		_ = g.lobby.TakeOver(ctx, g.self, strconv.FormatInt(id, 10), reason)
	}
}

var _ tui.Games = (*games)(nil)

// sessionGames is the stored games of a session of player.
func (a *App) sessionGames(player string, sess *lobby.Session) *games {
	racing := func(id int64) bool { return a.racingGame(player, id) }
	return &games{st: a.cfg.Store, owner: sessionToken(), lobby: a.lobby, self: sess, racing: racing}
}

// racingGame reports whether a stored game of the player is their game
// of a race that runs: one this server keeps, or the one their seat holds
// in a room of the cluster, when they raced on another server (it died,
// or they reconnected here). The menu offers it as Back to race, never as
// Continue, which would play it at the solo table.
func (a *App) racingGame(player string, id int64) bool {
	if a.book.racing(id) {
		return true
	}
	r, ok := a.rooms.Seated(player)
	if !ok {
		return false
	}
	snap := r.Snapshot()
	m, ok := snap.Member(player)
	return ok && m.GameID == id && (snap.Phase == lobby.PhaseRacing || snap.Phase == lobby.PhaseCountdown)
}

// Unfinished lists the player's unfinished games of their own (solo and
// replays: the ones the menu continues), most recent first.
func (g *games) Unfinished(ctx context.Context, player string) ([]tui.SavedGame, error) {
	list, err := g.st.UnfinishedGames(ctx, player)
	if err != nil {
		return nil, fmt.Errorf("list unfinished games: %w", err)
	}
	out := make([]tui.SavedGame, 0, len(list))
	for _, sg := range list {
		if !sg.Kind.OnePerRules() || g.racing != nil && g.racing(sg.ID) {
			// A race's or a ghost race's game: the race brings it back
			// (Back to race CODE) while it runs, and it ends with it.
			continue
		}
		out = append(out, savedGame(sg))
	}
	return out, nil
}

// Resume takes a game over for this session.
func (g *games) Resume(ctx context.Context, player, id string) (tui.SavedGame, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return tui.SavedGame{}, fmt.Errorf("resume game %q: bad id", id)
	}
	sg, err := g.st.ClaimGame(ctx, n, player, g.owner)
	if err != nil {
		return tui.SavedGame{}, fmt.Errorf("resume game %d: %w", n, err)
	}
	g.versions.set(sg.ID, sg.Version)
	g.taken(ctx, n, "")
	return savedGame(sg), nil
}

// Save stores a game: SaveRecord's ID.
func (g *games) Save(ctx context.Context, player string, sg tui.SavedGame) (string, error) {
	r, err := g.SaveRecord(ctx, player, sg)
	return r.ID, err
}

var _ tui.Recorder = (*games)(nil)

// SaveRecord stores a game and says what it recorded. The server decides
// the result: status and cards removed come from replaying the moves in
// the engine, never from the screen. A position that is lost is recorded
// as lost at once, whatever the screen says and whatever the player does
// next, and so is a game whose solution the player watched before
// finishing it; from then on the game is sealed and its later saves are
// practice, stored nowhere. A new game beside an unfinished one of the
// same rules needs the player's word (SavedGame.Replace).
func (g *games) SaveRecord(ctx context.Context, player string, sg tui.SavedGame) (tui.SaveResult, error) {
	return g.saveReplayed(ctx, player, sg, nil)
}

// saveReplayed is SaveRecord with sg's record replayed already by the
// caller (replayed; nil: not yet), which the server then does not do
// again.
func (g *games) saveReplayed(ctx context.Context, player string, sg tui.SavedGame, replayed *engine.Game) (tui.SaveResult, error) {
	rec, replayed, st, err := savedState(sg, replayed)
	if err != nil {
		return tui.SaveResult{}, err
	}
	id := int64(0)
	if sg.ID != "" {
		if id, err = strconv.ParseInt(sg.ID, 10, 64); err != nil {
			return tui.SaveResult{}, fmt.Errorf("save game %q: bad id", sg.ID)
		}
	} else if id, err = g.create(ctx, player, sg); err != nil {
		return tui.SaveResult{}, err
	}
	version, known := g.versions.get(id)
	if !known {
		// A game this session did not make nor take over here: the
		// stored one, if this session owns it (the store refuses the
		// save otherwise).
		sg, err := g.st.Game(ctx, id)
		if err != nil {
			return tui.SaveResult{}, fmt.Errorf("save game %d: %w", id, err)
		}
		version = sg.Version
	}
	var before *store.Stats
	if st.Status == store.StatusPlaying {
		err = g.st.SaveGame(ctx, id, g.owner, version, st)
	} else {
		if st.Status == store.StatusWon {
			before = g.recordsBefore(ctx, player, rec.Rules)
		}
		err = g.st.FinishGame(ctx, id, g.owner, version, st, result(id, replayed, st))
	}
	switch {
	case errors.Is(err, store.ErrFinished):
		return g.sealed(ctx, player, id)
	case errors.Is(err, store.ErrConflict):
		return tui.SaveResult{}, fmt.Errorf("save game %d: %w", id, tui.ErrTakenOver)
	case errors.Is(err, store.ErrStale):
		return tui.SaveResult{}, fmt.Errorf("save game %d: %w", id, tui.ErrStale)
	case err != nil:
		return tui.SaveResult{}, err // the store's error names the game already
	}
	g.versions.set(id, version+1)
	out := tui.SaveResult{ID: strconv.FormatInt(id, 10), Status: string(st.Status), Hints: st.Hints, Undos: st.Undos,
		Assisted: st.Assisted(), Practice: g.seen.isPractice(id)}
	if st.Status.Finished() {
		g.finished(ctx, player, id, before, &out)
		if sg.Daily != "" && g.lobby != nil {
			g.lobby.DailyFinished(rec.Rules, sg.Daily) // the live daily board
		}
	}
	return out, nil
}

// savedState is what SaveRecord stores of sg: its line, the game
// replayed, and the state decided from them. replayed is sg's record
// replayed already, or nil.
func savedState(sg tui.SavedGame, replayed *engine.Game) (engine.Record, *engine.Game, store.State, error) {
	rec, replayed, err := replayLine(sg.Record, replayed)
	if err != nil {
		return engine.Record{}, nil, store.State{}, fmt.Errorf("save game: %w", err)
	}
	return rec, replayed, store.State{
		Moves:     rec.Moves,
		MoveTimes: moveTimes(sg.MoveTimes, len(rec.Moves)),
		Redo:      rec.Redo,
		Status:    finalStatus(replayed, sg),
		Removed:   replayed.Removed(),
		Elapsed:   sg.Played,
		Hints:     min(max(sg.Hints, 0), store.MaxAssists),
		Undos:     min(max(sg.Undos, 0), store.MaxAssists),
		Watched:   sg.Watched,
	}, nil
}

// create starts a stored game. A player has one unfinished game of their
// own per rule set (a race's game is apart: store.Kind.OnePerRules, so a
// solo game never replaces a race game that runs). Beside one this
// session owns (one it left: the model asks the
// player when that game has moves) the new game replaces it; beside one
// of another session (a live one, or one before a reconnect) only when the
// player said so (sg.Replace): otherwise the error is a
// *tui.UnfinishedError naming it.
// The replaced game is recorded as abandoned, a loss if it had a move.
func (g *games) create(ctx context.Context, player string, sg tui.SavedGame) (int64, error) {
	ng := store.NewGame{
		PlayerID: player, RulesID: sg.Record.Rules, DealNumber: sg.Record.Deal,
		DealText: sg.Record.DealText, Daily: sg.Daily, Owner: g.owner,
	}
	for attempt := 0; ; attempt++ {
		created, err := g.st.CreateGame(ctx, ng)
		if err == nil {
			g.created(created)
			return created.ID, nil
		}
		if !errors.Is(err, store.ErrInProgress) || attempt > 0 {
			return 0, fmt.Errorf("create game: %w", err)
		}
		old, err := g.st.GameInProgress(ctx, player, sg.Record.Rules)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // it finished meanwhile
		case err != nil:
			return 0, fmt.Errorf("create game: %w", err)
		case old.Owner != g.owner && sg.Replace != strconv.FormatInt(old.ID, 10):
			return 0, fmt.Errorf("create game: %w", &tui.UnfinishedError{Game: savedGame(old)})
		}
		if err := g.abandon(ctx, player, old.ID); err != nil {
			return 0, err
		}
	}
}

// abandon finishes one of the player's unfinished games as abandoned (as
// lost when its position is lost), and tells the session that shows it.
func (g *games) abandon(ctx context.Context, player string, id int64) error {
	claimed, err := g.st.ClaimGame(ctx, id, player, g.owner)
	if errors.Is(err, store.ErrFinished) {
		return nil // over already
	}
	if err != nil {
		return fmt.Errorf("abandon game %d: %w", id, err)
	}
	g.taken(ctx, id, abandonedReason)
	st := claimed.State
	st.Status = store.StatusAbandoned
	var res *store.Result
	if replayed, err := engine.Replay(record(claimed)); err == nil {
		if replayed.Status() == engine.Lost {
			st.Status = store.StatusLost
		}
		res = result(claimed.ID, replayed, st)
	}
	if err := g.st.FinishGame(ctx, claimed.ID, g.owner, claimed.Version, st, res); err != nil {
		return fmt.Errorf("abandon game %d: %w", id, err)
	}
	return nil
}

// created notes a game this session created: whether it is practice, and
// its version.
func (g *games) created(sg store.Game) {
	g.seen.created(sg)
	g.versions.set(sg.ID, sg.Version)
}

// versions is the version of each game a session writes (games.versions).
// The zero value is ready.
type versions struct {
	mu sync.Mutex
	of map[int64]int64
}

// set notes the version a game is at, as read or written.
func (v *versions) set(id, version int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.of == nil {
		v.of = map[int64]int64{}
	}
	v.of[id] = version
}

// get returns the version a game was last read or written at.
func (v *versions) get(id int64) (int64, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	version, ok := v.of[id]
	return version, ok
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
// player watched the solution first; otherwise the screen's playing, or
// abandoned when the screen finishes the game.
func finalStatus(g *engine.Game, sg tui.SavedGame) store.Status {
	switch {
	case g.Status() == engine.Won:
		return store.StatusWon
	case g.Status() == engine.Lost, sg.Watched:
		return store.StatusLost
	case sg.Status == tui.StatusPlaying:
		return store.StatusPlaying
	}
	return store.StatusAbandoned
}

// result is the result of a finished game, or nil for a game abandoned
// before its first move, which does not count as played.
func result(id int64, g *engine.Game, st store.State) *store.Result {
	if st.Status == store.StatusAbandoned && g.MovesMade() == 0 {
		return nil
	}
	return &store.Result{GameID: id, Won: st.Status == store.StatusWon, Removed: g.Removed(), Moves: g.MovesMade(), Elapsed: st.Elapsed}
}

// record is a stored game as an engine record.
func record(sg store.Game) engine.Record {
	return engine.Record{Rules: sg.RulesID, Deal: sg.DealNumber, DealText: sg.DealText, Moves: sg.Moves, Redo: sg.Redo}
}

// savedGame is a stored game as the tui sees it.
func savedGame(sg store.Game) tui.SavedGame {
	return tui.SavedGame{
		ID:        strconv.FormatInt(sg.ID, 10),
		Record:    record(sg),
		Status:    string(sg.Status),
		Daily:     sg.Daily,
		Removed:   sg.Removed,
		Started:   sg.Started,
		Played:    sg.Elapsed,
		MoveTimes: sg.MoveTimes,
		Saved:     sg.Updated,
		Hints:     sg.Hints,
		Undos:     sg.Undos,
		Watched:   sg.Watched,
		Practice:  sg.Practice,
	}
}

// dealName is how a game's deal is shown: its number, or "custom".
func dealName(sg store.Game) string {
	if sg.DealText != "" {
		return "custom"
	}
	return strconv.FormatUint(sg.DealNumber, 10)
}

// joinMoves prints a move list, or "(none)".
func joinMoves(ms []string) string {
	if len(ms) == 0 {
		return "(none)"
	}
	return strings.Join(ms, " ")
}
