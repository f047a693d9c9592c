package arcade

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"pyramid/engine"
	"pyramid/store"
	"pyramid/tui"
)

// abandonedReason is what a session is told when another session of its
// player abandoned the game it shows.
const abandonedReason = "your game was abandoned from another session"

// seen is what one session knows of the games it created: which are
// practice (replays of a daily deal, a few a day at most, so the set stays
// small). The zero value is ready.
type seen struct {
	mu       sync.Mutex
	practice map[int64]struct{}
}

// created notes a game this session created.
func (s *seen) created(g store.Game) {
	if !g.Practice {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.practice == nil {
		s.practice = map[int64]struct{}{}
	}
	s.practice[g.ID] = struct{}{}
}

// isPractice reports whether the game, created here, is a practice game.
func (s *seen) isPractice(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.practice[id]
	return ok
}

// replayLine replays a record; replayed, when not nil, is rec replayed
// already (the caller's own replay, not done twice). When the position is
// not over but redoing the whole redo stack reaches a lost position, the
// player has been there and undone it (the model's queue can merge that
// save away): the record returned is then that line, lost, with no redo
// stack.
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

// recordsBefore returns the player's figures for the rules before a win is
// recorded, to tell a new record; nil when they cannot be read (the win is
// stored all the same, without the news).
func (g *games) recordsBefore(ctx context.Context, player, rulesID string) *store.Stats {
	st, err := g.st.Stats(ctx, player, rulesID)
	if err != nil {
		return nil
	}
	return &st
}

// finished fills in what the save that finished a game recorded: the
// stored assistance, a new record, the day's rank.
func (g *games) finished(ctx context.Context, player string, id int64, before *store.Stats, out *tui.SaveResult) {
	sg, err := g.st.Game(ctx, id)
	if err != nil {
		return // stored; only the news is missing
	}
	out.Hints, out.Undos, out.Assisted, out.Practice = sg.Hints, sg.Undos, sg.Assisted(), sg.Practice
	if sg.Practice {
		return
	}
	if sg.Status == store.StatusWon && !sg.Assisted() && before != nil {
		moves := len(sg.Moves)
		out.FirstWin = before.BestTime == 0
		out.NewBestTime = out.FirstWin || sg.Elapsed < before.BestTime
		out.NewFewestMoves = out.FirstWin || moves < before.FewestMoves
	}
	if sg.Daily != "" {
		if ds, err := g.st.DailyStanding(ctx, player, sg.RulesID, sg.Daily); err == nil && ds.GameID == id {
			out.DailyRank, out.DailyPlayers = ds.Rank, ds.Players
		}
	}
}

// sealed answers a save of a game the store says is finished. When this
// session finished it (a loss, a watched solution, a win), the save is
// practice: nothing is stored and the sealed result stands. Otherwise
// another session took the game, or abandoned it.
func (g *games) sealed(ctx context.Context, player string, id int64) (tui.SaveResult, error) {
	sg, err := g.st.Game(ctx, id)
	switch {
	case err != nil:
		return tui.SaveResult{}, fmt.Errorf("save game %d: %w", id, err)
	case sg.PlayerID != player:
		return tui.SaveResult{}, fmt.Errorf("save game %d: %w", id, tui.ErrTakenOver)
	case sg.Owner != g.owner && sg.Status == store.StatusAbandoned:
		return tui.SaveResult{}, fmt.Errorf("save game %d: %w (%w)", id, tui.ErrAbandonedElsewhere, tui.ErrTakenOver)
	case sg.Owner != g.owner:
		return tui.SaveResult{}, fmt.Errorf("save game %d: %w", id, tui.ErrTakenOver)
	}
	return tui.SaveResult{ID: strconv.FormatInt(id, 10), Status: string(sg.Status), Practice: true,
		Hints: sg.Hints, Undos: sg.Undos, Assisted: sg.Assisted()}, nil
}

// withRecords adds to a rule set's figures what the win screen, the
// stats screen and the menu say beside them: assisted wins, the daily
// days in a row (0 once a day was missed) and today's daily result with
// its rank.
func (a *account) withRecords(ctx context.Context, player string, s store.Stats, rs tui.RulesStats) tui.RulesStats {
	rs.AssistedWins, rs.DailyWon, rs.BestDailyStreak = s.AssistedWins, s.DailyWon, s.BestDailyStreak
	now := a.now().UTC()
	today, yesterday := now.Format(store.DateFormat), now.AddDate(0, 0, -1).Format(store.DateFormat)
	if s.LastDaily == today || s.LastDaily == yesterday {
		rs.DailyStreak = s.DailyStreak
	}
	if s.LastDaily == today {
		rs.DailyToday = true
		if ds, err := a.st.DailyStanding(ctx, player, s.RulesID, today); err == nil {
			rs.TodayRank, rs.TodayPlayers = ds.Rank, ds.Players
		}
	}
	return rs
}

// DailyToday reports whether the player has finished today's (UTC) daily
// deal of a rule set, for the menu's "done today", and that result's
// place on today's board (0 when it is not on it: assisted) of how many.
func (a *account) DailyToday(ctx context.Context, player, rulesID string) (done bool, rank, players int, err error) {
	ds, err := a.st.DailyStanding(ctx, player, rulesID, a.now().UTC().Format(store.DateFormat))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, 0, 0, nil
	case err != nil:
		return false, 0, 0, fmt.Errorf("today's daily: %w", err)
	}
	return true, ds.Rank, ds.Players, nil
}
