package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"pyramid/store"
)

// checkResult refuses a result that cannot be right for a game that ended
// with status.
func checkResult(gameID int64, status store.Status, res *store.Result) error {
	switch {
	case res.GameID != gameID:
		return fmt.Errorf("%w: result is for game %d", store.ErrInvalid, res.GameID)
	case res.Won != (status == store.StatusWon):
		return fmt.Errorf("%w: result says won=%v but the game is %s", store.ErrInvalid, res.Won, status)
	case res.Removed < 0 || res.Moves < 0 || res.Elapsed < 0:
		return fmt.Errorf("%w: negative figure in result", store.ErrInvalid)
	}
	return nil
}

// insertResult stores res, taking player, rules, daily date and finish time
// from the game row so that they cannot disagree with it. A second result
// for the same game is ignored.
func insertResult(ctx context.Context, tx *sql.Tx, res store.Result) error {
	var playerID, rulesID, daily string
	var finished int64
	err := tx.QueryRowContext(ctx, `SELECT player_id, rules_id, daily, finished_at FROM games WHERE id = $1`, res.GameID).
		Scan(&playerID, &rulesID, &daily, &finished)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO results
		(game_id, player_id, rules_id, daily, won, removed, moves, elapsed_ms, finished_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (game_id) DO NOTHING`,
		res.GameID, playerID, rulesID, daily, res.Won, res.Removed, res.Moves, res.Elapsed.Milliseconds(), finished)
	return err
}

// RecordResult implements store.Results.
func (s *Store) RecordResult(ctx context.Context, res store.Result) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM games WHERE id = $1`, res.GameID).Scan(&status); err != nil {
			return err
		}
		st := store.Status(status)
		if !st.Finished() {
			return fmt.Errorf("%w: the game is not finished", store.ErrInvalid)
		}
		if err := checkResult(res.GameID, st, &res); err != nil {
			return err
		}
		return insertResult(ctx, tx, res)
	})
	if err != nil {
		return fmt.Errorf("store: record result of game %d: %w", res.GameID, err)
	}
	return nil
}

// statsSQL derives a player's figures for one rules ID from their results.
// Streaks: grp counts the games not won up to each result, so the wins in a
// streak share a grp; the current streak is the group of the last loss.
// Daily: the first finished attempt of each day counts.
const statsSQL = `WITH r AS (
	SELECT won, removed, moves, elapsed_ms, daily, finished_at, game_id,
	       SUM(CASE WHEN won THEN 0 ELSE 1 END)
	           OVER (ORDER BY finished_at, game_id ROWS UNBOUNDED PRECEDING) AS grp
	FROM results
	WHERE player_id = $1 AND rules_id = $2
), streaks AS (
	SELECT grp, COUNT(*) AS run FROM r WHERE won GROUP BY grp
), firsts AS (
	SELECT removed, elapsed_ms,
	       ROW_NUMBER() OVER (PARTITION BY daily ORDER BY finished_at, game_id) AS n
	FROM r WHERE daily <> ''
), best_daily AS (
	SELECT removed, elapsed_ms FROM firsts WHERE n = 1 ORDER BY removed DESC, elapsed_ms ASC LIMIT 1
)
SELECT
	(SELECT COUNT(*) FROM r),
	(SELECT COUNT(*) FROM r WHERE won),
	(SELECT COALESCE(SUM(removed), 0) FROM r),
	(SELECT COALESCE(MIN(elapsed_ms), 0) FROM r WHERE won),
	(SELECT COALESCE(MIN(moves), 0) FROM r WHERE won),
	(SELECT COALESCE(MAX(run), 0) FROM streaks),
	(SELECT COALESCE(MAX(run), 0) FROM streaks WHERE grp = (SELECT MAX(grp) FROM r)),
	(SELECT COUNT(*) FROM firsts WHERE n = 1),
	COALESCE((SELECT removed FROM best_daily), 0),
	COALESCE((SELECT elapsed_ms FROM best_daily), 0)`

func stats(ctx context.Context, q querier, playerID, rulesID string) (store.Stats, error) {
	st := store.Stats{RulesID: rulesID}
	var removed, bestTime, bestDailyTime int64
	err := q.QueryRowContext(ctx, statsSQL, playerID, rulesID).Scan(
		&st.Played, &st.Won, &removed, &bestTime, &st.FewestMoves, &st.BestStreak, &st.CurrentStreak,
		&st.DailyPlayed, &st.BestDailyRemoved, &bestDailyTime)
	if err != nil {
		return store.Stats{}, err
	}
	if st.Played > 0 {
		st.AvgRemoved = float64(removed) / float64(st.Played)
	}
	st.BestTime = time.Duration(bestTime) * time.Millisecond
	st.BestDailyTime = time.Duration(bestDailyTime) * time.Millisecond
	return st, nil
}

// Stats implements store.Results.
func (s *Store) Stats(ctx context.Context, playerID, rulesID string) (store.Stats, error) {
	var st store.Stats
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		st, err = stats(ctx, db, playerID, rulesID)
		return err
	})
	if err != nil {
		return store.Stats{}, fmt.Errorf("store: %s stats of player %s: %w", rulesID, playerID, err)
	}
	return st, nil
}

// AllStats implements store.Results. The figures come from one read
// transaction, so they agree with each other.
func (s *Store) AllStats(ctx context.Context, playerID string) ([]store.Stats, error) {
	var all []store.Stats
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT rules_id FROM results WHERE player_id = $1 ORDER BY rules_id`, playerID)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		all = all[:0]
		for _, id := range ids {
			st, err := stats(ctx, tx, playerID, id)
			if err != nil {
				return err
			}
			all = append(all, st)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: stats of player %s: %w", playerID, err)
	}
	return all, nil
}

func boardLimit(limit int) int {
	if limit <= 0 || limit > store.MaxBoardLimit {
		return store.MaxBoardLimit
	}
	return limit
}

// leaderboardSQL ranks each player's first finished attempt at a day's
// daily deal.
const leaderboardSQL = `WITH firsts AS (
	SELECT game_id, player_id, won, removed, moves, elapsed_ms, finished_at,
	       ROW_NUMBER() OVER (PARTITION BY player_id ORDER BY finished_at, game_id) AS n
	FROM results
	WHERE rules_id = $1 AND daily = $2
)
SELECT RANK() OVER (ORDER BY f.removed DESC, f.elapsed_ms ASC) AS place,
       f.player_id, p.name, f.game_id, f.won, f.removed, f.moves, f.elapsed_ms, f.finished_at
FROM firsts f JOIN players p ON p.id = f.player_id
WHERE f.n = 1 AND NOT p.banned
ORDER BY place, f.finished_at, f.game_id
LIMIT $3`

// Leaderboard implements store.Results.
func (s *Store) Leaderboard(ctx context.Context, rulesID, date string, limit int) ([]store.DailyEntry, error) {
	if err := checkDaily(date); date == "" || err != nil {
		return nil, fmt.Errorf("store: %s daily leaderboard: %w: date %q is not YYYY-MM-DD", rulesID, store.ErrInvalid, date)
	}
	var board []store.DailyEntry
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, leaderboardSQL, rulesID, date, boardLimit(limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		board = board[:0]
		for rows.Next() {
			var e store.DailyEntry
			var elapsed, finished int64
			if err := rows.Scan(&e.Rank, &e.PlayerID, &e.PlayerName, &e.GameID, &e.Won, &e.Removed, &e.Moves,
				&elapsed, &finished); err != nil {
				return err
			}
			e.Elapsed = time.Duration(elapsed) * time.Millisecond
			e.Finished = fromMS(finished)
			board = append(board, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s daily leaderboard of %s: %w", rulesID, date, err)
	}
	return board, nil
}

// topSQL aggregates each player's results for a rules ID and ranks them;
// %[1]s is the ranking order. Equal figures share a rank.
const topSQL = `WITH t AS (
	SELECT r.player_id, p.name,
	       SUM(CASE WHEN r.won THEN 1 ELSE 0 END) AS wins,
	       COUNT(*) AS played,
	       MIN(CASE WHEN r.won THEN r.elapsed_ms END) AS best
	FROM results r JOIN players p ON p.id = r.player_id
	WHERE r.rules_id = $1 AND NOT p.banned
	GROUP BY r.player_id, p.name
	HAVING SUM(CASE WHEN r.won THEN 1 ELSE 0 END) > 0
)
SELECT RANK() OVER (ORDER BY %[1]s) AS place, player_id, name, wins, played, best
FROM t
ORDER BY %[1]s, player_id
LIMIT $2`

// Top implements store.Results. Only players with at least one win are
// listed.
func (s *Store) Top(ctx context.Context, rulesID string, order store.TopOrder, limit int) ([]store.TopEntry, error) {
	var q string
	switch order {
	case store.TopWins:
		q = fmt.Sprintf(topSQL, "wins DESC, played ASC, best ASC")
	case store.TopTime:
		q = fmt.Sprintf(topSQL, "best ASC, wins DESC")
	default:
		return nil, fmt.Errorf("store: %s top list: %w: unknown order %d", rulesID, store.ErrInvalid, order)
	}
	var top []store.TopEntry
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, q, rulesID, boardLimit(limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		top = top[:0]
		for rows.Next() {
			var e store.TopEntry
			var best int64
			if err := rows.Scan(&e.Rank, &e.PlayerID, &e.PlayerName, &e.Won, &e.Played, &best); err != nil {
				return err
			}
			e.BestTime = time.Duration(best) * time.Millisecond
			top = append(top, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s top list: %w", rulesID, err)
	}
	return top, nil
}
