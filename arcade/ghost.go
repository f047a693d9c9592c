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
	"pyramid/games"
	"pyramid/keys"
	"pyramid/store"
	"pyramid/tui"
)

// ghosts is one session's way to race recorded games (tui.Ghosts): it
// finds the ghost by the read rule of replay and stores the player's
// game of the race as practice.
type ghosts struct {
	a      *App
	player string        // empty for a guest
	w      *games.Writer // nil for a player whose games are not stored
	// spoilers is the session's rule for today's daily (spoilers.go).
	spoilers *spoilers

	mu     sync.Mutex // held across a report and its save, so they stay in order
	seq    int
	gameID int64
	// unstored: the store refused the game (an unfinished game of these
	// rules keeps its place); the race runs, the game is not kept.
	unstored bool
}

var _ tui.Ghosts = (*ghosts)(nil)

// newGhosts binds ghost races to a session of p; nil when the server
// keeps no games.
func (a *App) newGhosts(p tui.Player, w *games.Writer) *ghosts {
	if a.cfg.Store == nil {
		return nil
	}
	gh := &ghosts{a: a, w: w, seq: -1, spoilers: a.newSpoilers(p)}
	if !p.Guest {
		gh.player = p.ID
	}
	return gh
}

// Ghost finds the recorded game ref names: "daily", the best of today's
// daily board, or a game ID the player may read. The session's ghost
// race starts with it: the reports that follow make a new game.
func (gh *ghosts) Ghost(ctx context.Context, ref string) (tui.Ghost, error) {
	st := gh.a.cfg.Store
	today := gh.a.cfg.Now().UTC().Format(time.DateOnly)
	daily, err := engine.ParseRules("daily")
	if err != nil {
		return tui.Ghost{}, fmt.Errorf("ghost: %w", err)
	}
	var id int64
	if strings.EqualFold(ref, "daily") {
		if gh.spoilers.spoils(ctx, daily.ID(), today) {
			return tui.Ghost{}, errNoSpoilers
		}
		board, err := st.Leaderboard(ctx, daily.ID(), today, 1)
		if err != nil {
			return tui.Ghost{}, fmt.Errorf("ghost: today's daily board: %w", err)
		}
		if len(board) == 0 {
			return tui.Ghost{}, errors.New("nobody is on today's daily board yet")
		}
		id = board[0].GameID
	} else if id, err = strconv.ParseInt(ref, 10, 64); err != nil || id <= 0 {
		return tui.Ghost{}, fmt.Errorf("race ghost takes daily or a game ID, not %q", keys.Clean(ref, 20))
	}
	sg, err := st.Game(ctx, id)
	notFound := fmt.Errorf("game %d not found: %w of yours, nor a past day's daily", id, errNoSuchGame)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return tui.Ghost{}, notFound
	case err != nil:
		return tui.Ghost{}, fmt.Errorf("ghost: %w", err)
	}
	if sg.PlayerID != gh.player || gh.player == "" {
		switch {
		case gh.a.opponentsGame(ctx, gh.player, sg): // challenge.go
		case sg.Daily == "" || sg.Daily > today:
			return tui.Ghost{}, notFound
		case gh.spoilers.spoils(ctx, sg.RulesID, sg.Daily):
			return tui.Ghost{}, errNoSpoilers
		}
	}
	if len(sg.Moves) == 0 {
		return tui.Ghost{}, fmt.Errorf("game %d has no move to race", id)
	}
	name := "a player"
	if p, err := st.Player(ctx, sg.PlayerID); err == nil {
		name = keys.Clean(p.Name, keys.MaxNameWidth)
	}
	rec := games.RecordOf(sg)
	rec.Redo = nil
	// A new race: its reports start from seq 1 and make a game of their own.
	gh.mu.Lock()
	gh.gameID, gh.unstored, gh.seq = 0, false, -1
	gh.mu.Unlock()
	return tui.Ghost{GameID: strconv.FormatInt(sg.ID, 10), Name: name, Record: rec, Times: sg.MoveTimes,
		Played: sg.Elapsed, Daily: sg.Daily}, nil
}

// Leave finishes the race's stored game, if it is still being played,
// as abandoned: a practice game that ends with its race.
func (gh *ghosts) Leave(ctx context.Context) error {
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if gh.gameID == 0 || gh.w == nil {
		return nil
	}
	id := gh.gameID
	gh.gameID, gh.unstored, gh.seq = 0, false, -1 // a next race starts afresh
	if err := gh.w.Abandon(ctx, gh.player, id); err != nil {
		return fmt.Errorf("leave the ghost race: %w", err)
	}
	return nil
}

// Play stores the player's game of the ghost race as a practice game: no
// result, no rating, and the day's first daily attempt stays the one
// that counts.
func (gh *ghosts) Play(ctx context.Context, seq int, rec engine.Record, times []time.Duration) (string, error) {
	if gh.w == nil || gh.player == "" {
		return "", nil // a guest: nothing is kept
	}
	g, err := engine.Replay(rec)
	if err != nil {
		return "", fmt.Errorf("ghost race game: %w", err)
	}
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if seq <= gh.seq {
		return "", nil // a later report came first
	}
	gh.seq = seq
	if gh.unstored {
		return "", nil
	}
	if gh.gameID == 0 {
		created, err := gh.w.Create(ctx, store.NewGame{PlayerID: gh.player, RulesID: rec.Rules,
			DealNumber: rec.Deal, DealText: rec.DealText, Practice: true, Kind: store.KindGhost})
		switch {
		case errors.Is(err, store.ErrInProgress):
			gh.unstored = true
			return "your unfinished game of these rules keeps its place: this ghost race is not stored", nil
		case err != nil:
			gh.unstored = true
			logHidden(gh.a.cfg.Logger, "ghost race not stored", err, "player", gh.player)
			return "this ghost race is not stored: " + tui.Reason(err), nil
		}
		gh.gameID = created.ID
	}
	// Still being played as far as the player says: the writer records
	// a loss from the position.
	play := games.Play{Record: rec, MoveTimes: times}
	if n := len(times); n > 0 {
		play.Played = times[n-1]
	}
	if _, err := gh.w.Save(ctx, gh.player, gh.gameID, play, g); err != nil {
		if errors.Is(err, games.ErrTakenOver) {
			return "", fmt.Errorf("ghost race: %w", tui.ErrTakenOver)
		}
		logHidden(gh.a.cfg.Logger, "ghost race game not saved", err, "player", gh.player)
		return "your ghost race game was not saved: " + tui.Reason(err), nil
	}
	return "", nil
}
