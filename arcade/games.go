package arcade

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/log"

	"pyramid/games"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// sessionGames is one session's stored games as its tui sees them
// (tui.Games): the games writer of the session (package games) in the
// tui's words.
type sessionGames struct {
	st  store.Store
	w   *games.Writer
	log *log.Logger // where a save's failure is told in full; nil: nowhere
	// racing reports whether a stored game is a racer's game of a race
	// still running (arcade/race.go): it is not the player's to continue
	// alone. Nil: none is.
	racing func(id int64) bool
	// challenges are the session's challenges (challenge.go): the save
	// of a challenge's game is refused past its deadline, and the one
	// that ends it decides the challenge when it is due. Nil: none.
	challenges *challengeGames
}

var (
	_ tui.Games    = (*sessionGames)(nil)
	_ tui.Recorder = (*sessionGames)(nil)
)

// newWriter is the games writer of a session of the lobby: the player's
// other sessions, on this server and the others, are told of the games
// it takes from them, and the live daily board of the dailies it
// finishes. sess nil: nobody is told.
func (a *App) newWriter(sess *lobby.Session) *games.Writer {
	return a.newWriterAs(sess, sessionToken())
}

// newWriterAs is newWriter with the session's token given.
func (a *App) newWriterAs(sess *lobby.Session, owner string) *games.Writer {
	cfg := games.Config{Store: a.cfg.Store, Owner: owner}
	if sess != nil {
		cfg.Taken = func(ctx context.Context, id int64, reason string) {
			// Only a lobby bridged to other servers can fail to tell
			// them; the sessions here are told regardless, the lobby
			// tries again while this session lasts, and one elsewhere
			// learns it at its next save at the latest, as the store
			// refuses that save.
			_ = a.lobby.TakeOver(ctx, sess, strconv.FormatInt(id, 10), reason)
		}
		cfg.DailyFinished = a.lobby.DailyFinished
	}
	return games.New(cfg)
}

// sessionGames is the stored games of a session of player.
func (a *App) sessionGames(player string, w *games.Writer) *sessionGames {
	return &sessionGames{st: a.cfg.Store, w: w, log: a.cfg.Logger, racing: func(id int64) bool { return a.racingGame(player, id) }}
}

// racingGame reports whether a stored game of the player is their game
// of a race that runs: one this server keeps, or the one their seat holds
// in a room of the cluster, when they raced on another server (it died,
// or they reconnected here). The menu offers it as Back to race, never as
// Continue, which would play it at the solo table.
func (a *App) racingGame(player string, id int64) bool {
	if a.race.Racing(id) {
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
func (g *sessionGames) Unfinished(ctx context.Context, player string) ([]tui.SavedGame, error) {
	list, err := g.st.UnfinishedGames(ctx, player)
	if err != nil {
		logHidden(g.log, "unfinished games not listed", err, "player", player)
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
func (g *sessionGames) Resume(ctx context.Context, player, id string) (tui.SavedGame, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return tui.SavedGame{}, fmt.Errorf("resume game %q: bad id", id)
	}
	sg, err := g.w.TakeOver(ctx, player, n)
	if err != nil {
		logHidden(g.log, "game not resumed", err, "player", player, "game", id)
		return tui.SavedGame{}, fmt.Errorf("resume: %w", err)
	}
	return savedGame(sg), nil
}

// Save stores a game: SaveRecord's ID.
func (g *sessionGames) Save(ctx context.Context, player string, sg tui.SavedGame) (string, error) {
	r, err := g.SaveRecord(ctx, player, sg)
	return r.ID, err
}

// SaveRecord stores a game through the session's writer (games.Writer.Save:
// the server decides the result) and says what it recorded.
func (g *sessionGames) SaveRecord(ctx context.Context, player string, sg tui.SavedGame) (tui.SaveResult, error) {
	var id, replace int64
	var err error
	if sg.ID != "" {
		if id, err = strconv.ParseInt(sg.ID, 10, 64); err != nil {
			return tui.SaveResult{}, fmt.Errorf("save game %q: bad id", sg.ID)
		}
	}
	if sg.Replace != "" {
		replace, _ = strconv.ParseInt(sg.Replace, 10, 64) // not a number: replaces nothing
	}
	c, isChallenge := g.challenges.of(id)
	if isChallenge && !g.challenges.a.cfg.Now().Before(c.Deadline) {
		return tui.SaveResult{}, fmt.Errorf("challenge %d: %w", c.ID, errChallengeTimeUp)
	}
	saved, err := g.w.Save(ctx, player, id, playOf(sg, replace), nil)
	if err != nil {
		logHidden(g.log, "game not saved", err, "player", player, "game", sg.ID)
		return tui.SaveResult{}, tuiError(err)
	}
	outcome := ""
	if isChallenge && saved.Status.Finished() {
		if c, ok := g.challenges.decide(ctx, c.ID); ok && !c.State.Open() {
			outcome = resultWords(c, player)
		}
	}
	return tui.SaveResult{ID: strconv.FormatInt(saved.ID, 10), Status: string(saved.Status), Practice: saved.Practice,
		Hints: saved.Hints, Undos: saved.Undos, Assisted: saved.Assisted, NewBestTime: saved.NewBestTime,
		NewFewestMoves: saved.NewFewestMoves, FirstWin: saved.FirstWin, DailyRank: saved.DailyRank,
		DailyPlayers: saved.DailyPlayers, Fast: saved.Fast, Chosen: saved.Chosen, Challenge: outcome}, nil
}

// playOf is a game as the tui sends it, in the writer's words.
func playOf(sg tui.SavedGame, replace int64) games.Play {
	return games.Play{Record: sg.Record, Over: sg.Status != tui.StatusPlaying,
		Started: sg.Started, Played: sg.Played, MoveTimes: sg.MoveTimes, Hints: sg.Hints, Undos: sg.Undos,
		Watched: sg.Watched, Daily: sg.Daily, Replace: replace, Chosen: sg.Chosen}
}

// logHidden logs err with msg and the key-value pairs kv when the player
// reads less of it than its text (tui.Reason: a database's or a
// network's words): what the player is not told, the log keeps.
func logHidden(l *log.Logger, msg string, err error, kv ...any) {
	if l == nil || err == nil || tui.Reason(err) == err.Error() {
		return
	}
	l.Warn(msg, append(kv, "err", err)...)
}

// tuiError is a writer's error as the tui knows it.
func tuiError(err error) error {
	var ue *games.UnfinishedError
	switch {
	case errors.As(err, &ue):
		return fmt.Errorf("create game: %w", &tui.UnfinishedError{Game: savedGame(ue.Game)})
	case errors.Is(err, games.ErrAbandoned):
		return fmt.Errorf("%w (%w)", tui.ErrAbandonedElsewhere, tui.ErrTakenOver)
	case errors.Is(err, games.ErrTakenOver):
		return fmt.Errorf("%w", tui.ErrTakenOver)
	case errors.Is(err, games.ErrStale):
		return fmt.Errorf("%w", tui.ErrStale)
	}
	return err
}

// savedGame is a stored game as the tui sees it.
func savedGame(sg store.Game) tui.SavedGame {
	return tui.SavedGame{
		ID:        strconv.FormatInt(sg.ID, 10),
		Record:    games.RecordOf(sg),
		Status:    string(sg.Status),
		Daily:     sg.Daily,
		Removed:   sg.Removed,
		Started:   sg.Started,
		Played:    sg.Elapsed,
		MoveTimes: sg.MoveTimes,
		Chosen:    sg.Chosen,
		Saved:     sg.Updated,
		Hints:     sg.Hints,
		Undos:     sg.Undos,
		Watched:   sg.Watched,
		Practice:  sg.Practice,
	}
}

// dealShown reports whether a stored game's deal number may be shown
// (lobby.DealShown) on the UTC date today: a chosen deal's always, the
// server's once the game is over (a race game's once its race is:
// raceOver), and a daily deal's once its day is (a player who finished
// it early would tell it to the others).
func dealShown(sg store.Game, today string, raceOver bool) bool {
	over := sg.Status.Finished() && raceOver
	if sg.Daily != "" {
		over = sg.Daily < today
	}
	return lobby.DealShown(sg.Chosen || sg.DealText != "", over)
}

// dealName is how a game's deal is shown: its number, "custom", or
// "hidden" (not shown: dealShown).
func dealName(sg store.Game, shown bool) string {
	switch {
	case sg.DealText != "":
		return "custom"
	case !shown:
		return "hidden"
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
