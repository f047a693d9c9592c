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

// insertResult stores res, taking player, rules, daily date, finish time,
// assistance and chosen deal from the game row so that they cannot
// disagree with it; whether its moves came too fast is the result's own
// (store.Result.Fast).
// A second result for the same game is ignored; a practice game, or a
// daily game of a day the player already has a result for, gets none.
func insertResult(ctx context.Context, tx *sql.Tx, res store.Result) error {
	var playerID, rulesID, daily string
	var started, finished int64
	var hints, undos int
	var practice, chosen bool
	err := tx.QueryRowContext(ctx, `SELECT player_id, rules_id, daily, started_at, finished_at, hints, undos, practice, chosen FROM games WHERE id = $1`, res.GameID).
		Scan(&playerID, &rulesID, &daily, &started, &finished, &hints, &undos, &practice, &chosen)
	if err != nil {
		return err
	}
	if practice {
		return nil
	}
	if daily != "" {
		var other int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM results
			WHERE player_id = $1 AND rules_id = $2 AND daily = $3 AND game_id <> $4`,
			playerID, rulesID, daily, res.GameID).Scan(&other)
		if err != nil || other > 0 {
			return err
		}
		if res.Won {
			// The daily board's clock runs from the deal, on screen or
			// not: a player who saw the deal and closed the terminal to
			// solve it elsewhere finds that time counted.
			res.Elapsed = max(res.Elapsed, time.Duration(finished-started)*time.Millisecond)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO results
		(game_id, player_id, rules_id, daily, won, removed, moves, elapsed_ms, finished_at, hints, undos, chosen, fast)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (game_id) DO NOTHING`,
		res.GameID, playerID, rulesID, daily, res.Won, res.Removed, res.Moves, res.Elapsed.Milliseconds(), finished, hints, undos,
		chosen, res.Fast)
	return err
}

// hasDailyResult reports whether the player has a result for the daily
// deal of date with these rules.
func hasDailyResult(ctx context.Context, q querier, playerID, rulesID, date string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM results WHERE player_id = $1 AND rules_id = $2 AND daily = $3`,
		playerID, rulesID, date).Scan(&n)
	return n > 0, err
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

// countedSQL is a player's results for one rules ID that count: all but
// the later attempts at a daily deal (stores from before the first
// finished attempt became the only result may hold some).
const countedSQL = `SELECT * FROM (
	SELECT won, removed, moves, elapsed_ms, daily, finished_at, game_id, hints, undos, chosen, fast,
	       ROW_NUMBER() OVER (PARTITION BY daily ORDER BY finished_at, game_id) AS dn
	FROM results
	WHERE player_id = $1 AND rules_id = $2
) c WHERE daily = '' OR dn = 1`

// statsSQL derives a player's figures for one rules ID from their counted
// results. Streaks: grp counts the games not won up to each result, so the
// wins in a streak share a grp; the current streak is the group of the
// last loss. Records (best time, fewest moves) come from unassisted wins
// (no hints, no undo, no moves faster than play) of deals the server
// dealt; a chosen deal's game counts as played but is left out of the
// records and the streaks.
const statsSQL = `WITH r AS (
	SELECT won, removed, moves, elapsed_ms, daily, chosen, hints + undos > 0 OR fast AS assisted
	FROM (` + countedSQL + `) counted
), s AS (
	SELECT won, SUM(CASE WHEN won THEN 0 ELSE 1 END)
	           OVER (ORDER BY finished_at, game_id ROWS UNBOUNDED PRECEDING) AS grp
	FROM (` + countedSQL + `) counted WHERE NOT chosen
), streaks AS (
	SELECT grp, COUNT(*) AS run FROM s WHERE won GROUP BY grp
), firsts AS (
	SELECT won, removed, elapsed_ms FROM r WHERE daily <> ''
), best_daily AS (
	SELECT removed, elapsed_ms FROM firsts ORDER BY removed DESC, elapsed_ms ASC LIMIT 1
)
SELECT
	(SELECT COUNT(*) FROM r),
	(SELECT COUNT(*) FROM r WHERE won),
	(SELECT COUNT(*) FROM r WHERE won AND assisted),
	(SELECT COALESCE(SUM(removed), 0) FROM r),
	(SELECT COALESCE(MIN(elapsed_ms), 0) FROM r WHERE won AND NOT assisted AND NOT chosen),
	(SELECT COALESCE(MIN(moves), 0) FROM r WHERE won AND NOT assisted AND NOT chosen),
	(SELECT COALESCE(MAX(run), 0) FROM streaks),
	(SELECT COALESCE(MAX(run), 0) FROM streaks WHERE grp = (SELECT MAX(grp) FROM s)),
	(SELECT COUNT(*) FROM firsts),
	(SELECT COUNT(*) FROM firsts WHERE won),
	COALESCE((SELECT removed FROM best_daily), 0),
	COALESCE((SELECT elapsed_ms FROM best_daily), 0)`

func stats(ctx context.Context, q querier, playerID, rulesID string) (store.Stats, error) {
	st := store.Stats{RulesID: rulesID}
	var removed, bestTime, bestDailyTime int64
	err := q.QueryRowContext(ctx, statsSQL, playerID, rulesID).Scan(
		&st.Played, &st.Won, &st.AssistedWins, &removed, &bestTime, &st.FewestMoves, &st.BestStreak, &st.CurrentStreak,
		&st.DailyPlayed, &st.DailyWon, &st.BestDailyRemoved, &bestDailyTime)
	if err != nil {
		return store.Stats{}, err
	}
	if st.DailyPlayed > 0 {
		if err := dailyStreaks(ctx, q, playerID, rulesID, &st); err != nil {
			return store.Stats{}, err
		}
	}
	if st.Played > 0 {
		st.AvgRemoved = float64(removed) / float64(st.Played)
	}
	st.BestTime = time.Duration(bestTime) * time.Millisecond
	st.BestDailyTime = time.Duration(bestDailyTime) * time.Millisecond
	return st, nil
}

// dailyStreaks fills in the runs of consecutive days with a counted daily
// attempt. The dates are few (one a day), so the runs are counted here
// rather than in each dialect's date arithmetic.
func dailyStreaks(ctx context.Context, q querier, playerID, rulesID string, st *store.Stats) error {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT daily FROM results
		WHERE player_id = $1 AND rules_id = $2 AND daily <> '' ORDER BY daily`, playerID, rulesID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var prev time.Time
	run := 0
	for rows.Next() {
		var date string
		if err := rows.Scan(&date); err != nil {
			return err
		}
		day, err := time.Parse(store.DateFormat, date)
		if err != nil {
			continue // checkDaily lets no such date in
		}
		if !prev.IsZero() && day.Equal(prev.AddDate(0, 0, 1)) {
			run++
		} else {
			run = 1
		}
		prev = day
		st.LastDaily, st.DailyStreak = date, run
		st.BestDailyStreak = max(st.BestDailyStreak, run)
	}
	return rows.Err()
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
// An assisted attempt (hints, undo, or moves faster than play) stays the
// player's result but is not on the board.
var leaderboardSQL = `WITH firsts AS (
	SELECT game_id, player_id, won, removed, moves, elapsed_ms, finished_at, hints, undos, fast, chosen,
	       ROW_NUMBER() OVER (PARTITION BY player_id ORDER BY finished_at, game_id) AS n
	FROM results
	WHERE rules_id = $1 AND daily = $2
)
SELECT RANK() OVER (ORDER BY f.removed DESC, f.elapsed_ms ASC) AS place,
       f.player_id, p.name, f.game_id, f.won, f.removed, f.moves, f.elapsed_ms, f.finished_at
FROM firsts f JOIN players p ON p.id = f.player_id
WHERE f.n = 1 AND f.hints = 0 AND f.undos = 0 AND NOT f.fast AND NOT f.chosen AND NOT ` + bannedAt("p", "$4") + `
ORDER BY place, f.finished_at, f.game_id
LIMIT $3`

// bannedAt is the SQL condition that the player of table alias p is
// banned at the time in milliseconds of parameter now: a ban for good,
// or a timed one not over then. A timed ban is lifted in the store
// lazily (liftEnded), so that the boards show its player again as
// soon as it ends, not only from their next connection.
func bannedAt(p, now string) string {
	return "(" + p + ".banned AND (" + p + ".banned_until = 0 OR " + p + ".banned_until > " + now + "))"
}

// Leaderboard implements store.Results.
func (s *Store) Leaderboard(ctx context.Context, rulesID, date string, limit int) ([]store.DailyEntry, error) {
	if err := checkDaily(date); date == "" || err != nil {
		return nil, fmt.Errorf("store: %s daily leaderboard: %w: date %q is not YYYY-MM-DD", rulesID, store.ErrInvalid, date)
	}
	var board []store.DailyEntry
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, leaderboardSQL, rulesID, date, boardLimit(limit), ms(s.now()))
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

// topSQL aggregates each player's counted results for a rules ID (all but
// later attempts at a day's daily deal) and ranks them by their
// unassisted wins of deals the server dealt (record: no hints, no undo,
// no moves faster than play, no chosen deal); %[1]s is the ranking
// order. Equal figures share a rank.
var topSQL = `WITH t AS (
	SELECT r.player_id, p.name,
	       SUM(CASE WHEN r.record THEN 1 ELSE 0 END) AS wins,
	       COUNT(*) AS played,
	       MIN(CASE WHEN r.record THEN r.elapsed_ms END) AS best
	FROM (
		SELECT player_id, elapsed_ms, daily,
		       won AND hints = 0 AND undos = 0 AND NOT fast AND NOT chosen AS record,
		       ROW_NUMBER() OVER (PARTITION BY player_id, daily ORDER BY finished_at, game_id) AS dn
		FROM results WHERE rules_id = $1
	) r JOIN players p ON p.id = r.player_id
	WHERE (r.daily = '' OR r.dn = 1) AND NOT ` + bannedAt("p", "$3") + `
	GROUP BY r.player_id, p.name
	HAVING SUM(CASE WHEN r.record THEN 1 ELSE 0 END) > 0
)
SELECT RANK() OVER (ORDER BY %[1]s) AS place, player_id, name, wins, played, best
FROM t
ORDER BY %[1]s, player_id
LIMIT $2`

// Top implements store.Results. Only players with at least one unassisted
// win are listed.
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
		rows, err := db.QueryContext(ctx, q, rulesID, boardLimit(limit), ms(s.now()))
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

// standingSQL is a player's counted attempt at a day's deal, its place
// among the board's entries (0 when off the board) and the board's size.
var standingSQL = `WITH firsts AS (
	SELECT r.game_id, r.player_id, r.won, r.removed, r.moves, r.elapsed_ms, r.finished_at,
	       r.hints + r.undos > 0 OR r.fast OR r.chosen AS assisted, p.name, ` + bannedAt("p", "$4") + ` AS banned,
	       ROW_NUMBER() OVER (PARTITION BY r.player_id ORDER BY r.finished_at, r.game_id) AS n
	FROM results r JOIN players p ON p.id = r.player_id
	WHERE r.rules_id = $1 AND r.daily = $2
), board AS (
	SELECT player_id, RANK() OVER (ORDER BY removed DESC, elapsed_ms ASC) AS place
	FROM firsts WHERE n = 1 AND NOT assisted AND NOT banned
)
SELECT COALESCE((SELECT place FROM board WHERE player_id = f.player_id), 0),
       f.player_id, f.name, f.game_id, f.won, f.removed, f.moves, f.elapsed_ms, f.finished_at,
       f.assisted, (SELECT COUNT(*) FROM board)
FROM firsts f WHERE f.n = 1 AND f.player_id = $3`

// DailyStanding implements store.Results.
func (s *Store) DailyStanding(ctx context.Context, playerID, rulesID, date string) (store.DailyStanding, error) {
	if err := checkDaily(date); date == "" || err != nil {
		return store.DailyStanding{}, fmt.Errorf("store: %s daily standing: %w: date %q is not YYYY-MM-DD", rulesID, store.ErrInvalid, date)
	}
	var ds store.DailyStanding
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		var elapsed, finished int64
		err := db.QueryRowContext(ctx, standingSQL, rulesID, date, playerID, ms(s.now())).Scan(&ds.Rank, &ds.PlayerID, &ds.PlayerName,
			&ds.GameID, &ds.Won, &ds.Removed, &ds.Moves, &elapsed, &finished, &ds.Assisted, &ds.Players)
		ds.Elapsed = time.Duration(elapsed) * time.Millisecond
		ds.Finished = fromMS(finished)
		return err
	})
	if err != nil {
		return store.DailyStanding{}, fmt.Errorf("store: %s daily standing of player %s on %s: %w", rulesID, playerID, date, err)
	}
	return ds, nil
}
