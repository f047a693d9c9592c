package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"pyramid/arena"
	"pyramid/rating"
	"pyramid/store"
)

var _ store.Arenas = (*Store)(nil)

// maxArenaLines bounds one read of an arena's standings.
const maxArenaLines = 1000

// arenaCols are the columns scanArena reads.
const arenaCols = `id, name, rules_id, start_at, duration_ms, game_ms, every, series, created_by, cancelled`

// scanArena reads one row of arenaCols.
func scanArena(row interface{ Scan(...any) error }) (arena.Event, error) {
	var e arena.Event
	var startAt, duration, game int64
	var every string
	if err := row.Scan(&e.ID, &e.Name, &e.RulesID, &startAt, &duration, &game, &every, &e.Series,
		&e.CreatedBy, &e.Cancelled); err != nil {
		return arena.Event{}, err
	}
	e.Start = fromMS(startAt)
	e.Duration = time.Duration(duration) * time.Millisecond
	e.GameTime = time.Duration(game) * time.Millisecond
	e.Every = arena.Recurrence(every)
	return e, nil
}

// arenaIn reads an arena through q.
func arenaIn(ctx context.Context, q querier, id int64) (arena.Event, error) {
	return scanArena(q.QueryRowContext(ctx, `SELECT `+arenaCols+` FROM arenas WHERE id = $1`, id))
}

// checkArena refuses settings that arena.Event.Check refuses at now, or
// that the store cannot keep: an unknown recurrence, a rules ID or
// creator out of bounds. The error wraps store.ErrInvalid and, where
// there is one, package arena's error, which says what is wrong in words
// an organiser reads.
func checkArena(e arena.Event, now time.Time) error {
	if r, err := arena.ParseRecurrence(string(e.Every)); err != nil || r != e.Every {
		return fmt.Errorf("%w: recurrence %q", store.ErrInvalid, e.Every)
	}
	if err := e.Check(now); err != nil {
		return fmt.Errorf("%w: %w", store.ErrInvalid, err)
	}
	return errors.Join(checkID("rules ID", e.RulesID), checkID("creator", e.CreatedBy))
}

// seriesClash refuses a start that another occurrence of the same series
// has: each occurrence of a series starts at a time of its own.
func seriesClash(ctx context.Context, tx *sql.Tx, e arena.Event) error {
	if e.Series == 0 {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM arenas WHERE series = $1 AND start_at = $2 AND id <> $3`,
		e.Series, ms(e.Start), e.ID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%w: another occurrence of arena %d starts at %s", store.ErrInvalid, e.Series, e.Start.Format(time.RFC3339))
	}
	return nil
}

// CreateArena implements store.Arenas.
func (s *Store) CreateArena(ctx context.Context, e arena.Event) (arena.Event, error) {
	e.Name = strings.TrimSpace(e.Name)
	e.ID, e.Series, e.Cancelled = 0, 0, false
	var out arena.Event
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		if err := checkArena(e, now); err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO arenas
			(name, rules_id, start_at, duration_ms, end_at, game_ms, every, series, created_by, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9) RETURNING id`,
			e.Name, e.RulesID, ms(e.Start), e.Duration.Milliseconds(), ms(e.End()), e.GameTime.Milliseconds(),
			string(e.Every), e.CreatedBy, ms(now)).Scan(&id); err != nil {
			return err
		}
		if e.Every != arena.Once {
			// The first occurrence names its series.
			if _, err := tx.ExecContext(ctx, `UPDATE arenas SET series = id WHERE id = $1`, id); err != nil {
				return err
			}
		}
		var err error
		out, err = arenaIn(ctx, tx, id)
		return err
	})
	if err != nil {
		return arena.Event{}, fmt.Errorf("store: create arena %q by %s: %w", e.Name, e.CreatedBy, err)
	}
	return out, nil
}

// UpdateArena implements store.Arenas. The update names the upcoming
// state it checked, so a change racing the arena's start or its
// cancelling is refused rather than applied to an arena under way.
func (s *Store) UpdateArena(ctx context.Context, e arena.Event) (arena.Event, error) {
	var out arena.Event
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		old, err := arenaIn(ctx, tx, e.ID)
		if err != nil {
			return err
		}
		if old.Cancelled || !now.Before(old.Start) {
			return store.ErrClosed
		}
		n := old
		n.Name, n.RulesID, n.Start = strings.TrimSpace(e.Name), e.RulesID, e.Start
		n.Duration, n.GameTime, n.Every = e.Duration, e.GameTime, e.Every
		switch {
		case n.Every == arena.Once:
			n.Series = 0
		case n.Series == 0:
			n.Series = n.ID
		}
		if err := checkArena(n, now); err != nil {
			return err
		}
		if err := seriesClash(ctx, tx, n); err != nil {
			return err
		}
		if err := oneRow(tx.ExecContext(ctx, `UPDATE arenas SET name = $1, rules_id = $2, start_at = $3,
			duration_ms = $4, end_at = $5, game_ms = $6, every = $7, series = $8
			WHERE id = $9 AND NOT cancelled AND start_at > $10`,
			n.Name, n.RulesID, ms(n.Start), n.Duration.Milliseconds(), ms(n.End()), n.GameTime.Milliseconds(),
			string(n.Every), n.Series, n.ID, ms(now))); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return store.ErrClosed
			}
			return err
		}
		out, err = arenaIn(ctx, tx, n.ID)
		return err
	})
	if err != nil {
		return arena.Event{}, fmt.Errorf("store: update arena %d: %w", e.ID, err)
	}
	return out, nil
}

// CancelArena implements store.Arenas. The update names the state it
// cancels, so of two admins cancelling at once one does it.
func (s *Store) CancelArena(ctx context.Context, id int64) (arena.Event, error) {
	var out arena.Event
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE arenas SET cancelled = TRUE WHERE id = $1 AND NOT cancelled AND end_at > $2`,
			id, ms(s.now()))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if out, err = arenaIn(ctx, tx, id); err != nil {
			return err
		}
		if n == 0 {
			return store.ErrClosed
		}
		return nil
	})
	if err != nil {
		return arena.Event{}, fmt.Errorf("store: cancel arena %d: %w", id, err)
	}
	return out, nil
}

// Arena implements store.Arenas.
func (s *Store) Arena(ctx context.Context, id int64) (arena.Event, error) {
	var e arena.Event
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		e, err = arenaIn(ctx, db, id)
		return err
	})
	if err != nil {
		return arena.Event{}, fmt.Errorf("store: arena %d: %w", id, err)
	}
	return e, nil
}

// Arenas implements store.Arenas.
func (s *Store) Arenas(ctx context.Context, since time.Time, limit int) ([]arena.Event, error) {
	if limit <= 0 || limit > store.MaxListLimit {
		limit = store.MaxListLimit
	}
	var out []arena.Event
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		out = out[:0]
		rows, err := db.QueryContext(ctx, `SELECT `+arenaCols+` FROM arenas
			WHERE NOT cancelled AND end_at >= $1 ORDER BY start_at, id LIMIT $2`, ms(since), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanArena(rows)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: arenas since %s: %w", since.Format(time.RFC3339), err)
	}
	return out, nil
}

// ArenasCreated implements store.Arenas.
func (s *Store) ArenasCreated(ctx context.Context, playerID string, since time.Time) (int, error) {
	var n int
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT COUNT(*) FROM arenas WHERE created_by = $1 AND created_at >= $2`,
			playerID, ms(since)).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("store: arenas created by %s: %w", playerID, err)
	}
	return n, nil
}

// ScheduleNextArena implements store.Arenas. An occurrence of the series
// starting after this one is the next one, stored already (perhaps moved
// by an edit since); otherwise the next is inserted, and the unique
// series and start make a second server's insert, at the same moment,
// find the first one's instead.
func (s *Store) ScheduleNextArena(ctx context.Context, id int64) (arena.Event, error) {
	var out arena.Event
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		e, err := arenaIn(ctx, tx, id)
		if err != nil {
			return err
		}
		if e.Cancelled {
			return fmt.Errorf("%w: arena %d was cancelled", store.ErrInvalid, id)
		}
		n, ok := e.Next()
		if !ok {
			return fmt.Errorf("%w: arena %d does not repeat", store.ErrInvalid, id)
		}
		var next int64
		err = tx.QueryRowContext(ctx, `SELECT id FROM arenas WHERE series = $1 AND start_at > $2
			ORDER BY start_at, id LIMIT 1`, n.Series, ms(e.Start)).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, `INSERT INTO arenas
				(name, rules_id, start_at, duration_ms, end_at, game_ms, every, series, created_by, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
				ON CONFLICT (series, start_at) WHERE series <> 0 DO NOTHING RETURNING id`,
				n.Name, n.RulesID, ms(n.Start), n.Duration.Milliseconds(), ms(n.End()), n.GameTime.Milliseconds(),
				string(n.Every), n.Series, n.CreatedBy, ms(s.now())).Scan(&next)
			if errors.Is(err, sql.ErrNoRows) {
				// Another server stored it between the two statements.
				err = tx.QueryRowContext(ctx, `SELECT id FROM arenas WHERE series = $1 AND start_at = $2`,
					n.Series, ms(n.Start)).Scan(&next)
			}
		}
		if err != nil {
			return err
		}
		out, err = arenaIn(ctx, tx, next)
		return err
	})
	if err != nil {
		return arena.Event{}, fmt.Errorf("store: schedule the arena after %d: %w", id, err)
	}
	return out, nil
}

// RecordArenaRace implements store.Arenas. The race's row in arena_races
// is written first: a second call, from this server or another at the
// same moment, finds it (on PostgreSQL waiting for the first to commit)
// and scores nothing. The lines of the race's players are then made sure
// to exist and read, locked on PostgreSQL in player ID order, so that two
// races of one arena scored at once do not lose each other's points.
func (s *Store) RecordArenaRace(ctx context.Context, arenaID, raceID int64, berserk []string) ([]store.ArenaLine, error) {
	var lines []store.ArenaLine
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		a, err := arenaIn(ctx, tx, arenaID)
		if err != nil {
			return err
		}
		race, err := s.raceIn(ctx, tx, raceID)
		if err != nil {
			return err
		}
		if race.RulesID != a.RulesID {
			return fmt.Errorf("%w: race %d is of rules %s, the arena of %s", store.ErrInvalid, raceID, race.RulesID, a.RulesID)
		}
		ids := make([]string, 0, len(race.Placings))
		for _, p := range race.Placings {
			ids = append(ids, p.PlayerID)
		}
		slices.Sort(ids)
		var in int64
		err = tx.QueryRowContext(ctx, `INSERT INTO arena_races (race_id, arena_id, scored_at) VALUES ($1, $2, $3)
			ON CONFLICT (race_id) DO NOTHING RETURNING arena_id`, raceID, arenaID, ms(s.now())).Scan(&in)
		if errors.Is(err, sql.ErrNoRows) {
			// Scored already: in this arena, the lines as they are.
			if err := tx.QueryRowContext(ctx, `SELECT arena_id FROM arena_races WHERE race_id = $1`, raceID).Scan(&in); err != nil {
				return err
			}
			if in != arenaID {
				return fmt.Errorf("%w: race %d was scored in arena %d", store.ErrInvalid, raceID, in)
			}
			lines, err = arenaLines(ctx, tx, arenaID, ids, 0, false)
			return err
		} else if err != nil {
			return err
		}
		if a.Cancelled {
			return store.ErrClosed
		}
		before, err := s.lockArenaLines(ctx, tx, arenaID, ids)
		if err != nil {
			return err
		}
		for _, p := range race.Placings {
			l := before[p.PlayerID]
			g := arenaGame(race, p, slices.Contains(berserk, p.PlayerID))
			points, after := arena.Score(l.Line, g)
			reached := l.Reached
			if points > 0 || l.Games == 0 {
				reached = race.Ended
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO arena_games
				(arena_id, race_id, player_id, points, streak, racers, place, cleared, berserk, void, at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				arenaID, raceID, p.PlayerID, points, l.OnStreak() && !g.Void, g.Racers, g.Place, g.Cleared,
				g.Berserk, g.Void, ms(race.Ended)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE arena_lines SET points = $1, streak = $2, games = $3, wins = $4,
				berserks = $5, reached_at = $6 WHERE arena_id = $7 AND player_id = $8`,
				after.Points, after.Streak, after.Games, after.Wins, after.Berserks, ms(reached), arenaID, p.PlayerID); err != nil {
				return err
			}
		}
		lines, err = arenaLines(ctx, tx, arenaID, ids, 0, false)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: score race %d in arena %d: %w", raceID, arenaID, err)
	}
	return lines, nil
}

// arenaGame is what a stored placing is as an arena game: placed among
// the racers who played (arena.PlacingGame); void for a racer who was
// assisted or left, and for everybody in a race that counts for nobody.
func arenaGame(race store.Race, p store.RacePlacing, berserk bool) arena.Game {
	ps := make([]arena.Placing, len(race.Placings))
	me := 0
	for i, o := range race.Placings {
		ps[i] = arena.Placing{Place: o.Place, Removed: o.Removed, Cleared: o.Cleared}
		if o.PlayerID == p.PlayerID {
			me = i
		}
	}
	g := arena.PlacingGame(race.Racers, ps, me)
	g.Berserk = berserk
	g.Void = p.Assisted || p.Outcome == store.OutcomeLeft || race.Unrated != rating.ReasonNone
	return g
}

// lockArenaLines makes sure the players (sorted by ID) have a line in the
// arena and returns their lines, the rows locked on PostgreSQL.
func (s *Store) lockArenaLines(ctx context.Context, tx *sql.Tx, arenaID int64, ids []string) (map[string]store.ArenaLine, error) {
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO arena_lines (arena_id, player_id) VALUES ($1, $2)
			ON CONFLICT (arena_id, player_id) DO NOTHING`, arenaID, id); err != nil {
			return nil, err
		}
	}
	args := []any{arenaID}
	for _, id := range ids {
		args = append(args, id)
	}
	q := `SELECT player_id, points, streak, games, wins, berserks, reached_at FROM arena_lines
		WHERE arena_id = $1 AND player_id IN (` + inList(2, len(ids)) + `) ORDER BY player_id`
	if s.dialect == dialectPostgres {
		q += ` FOR UPDATE`
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]store.ArenaLine, len(ids))
	for rows.Next() {
		var l store.ArenaLine
		var reached int64
		if err := rows.Scan(&l.PlayerID, &l.Points, &l.Streak, &l.Games, &l.Wins, &l.Berserks, &reached); err != nil {
			return nil, err
		}
		if l.Games > 0 {
			l.Reached = fromMS(reached)
		}
		out[l.PlayerID] = l
	}
	return out, rows.Err()
}

// linesOf is the lines of arena $1 as a subquery (aliased x), with rank
// as their rank (rk).
func linesOf(rank string) string {
	return `(SELECT l.player_id, COALESCE(p.name, '') AS name, l.points, l.streak, l.games, l.wins,
	l.berserks, l.reached_at, ` + rank + ` AS rk
	FROM arena_lines l LEFT JOIN players p ON p.id = l.player_id
	WHERE l.arena_id = $1) x`
}

// The ranks of the lines: equal points, games and reaching time share
// one; or none (0), which takes no sort of the whole arena (scoring a
// race reads its players' lines alone).
const (
	rankedBy = `RANK() OVER (ORDER BY l.points DESC, l.games, l.reached_at)`
	unranked = `0`
)

// arenaLines reads the lines of the arena, ranked or not (Rank 0): the
// players' in ids (all when nil), at most limit (no bound when 0), by
// rank then player ID.
func arenaLines(ctx context.Context, q querier, arenaID int64, ids []string, limit int, ranked bool) ([]store.ArenaLine, error) {
	rank := rankedBy
	if !ranked {
		rank = unranked
	}
	query := `SELECT x.player_id, x.name, x.points, x.streak, x.games, x.wins, x.berserks, x.reached_at, x.rk
		FROM ` + linesOf(rank)
	args := []any{arenaID}
	if ids != nil {
		if len(ids) == 0 {
			return nil, nil
		}
		query += ` WHERE x.player_id IN (` + inList(2, len(ids)) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	query += ` ORDER BY x.rk, x.player_id`
	if limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, limit)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ArenaLine
	for rows.Next() {
		var l store.ArenaLine
		var reached int64
		if err := rows.Scan(&l.PlayerID, &l.PlayerName, &l.Points, &l.Streak, &l.Games, &l.Wins, &l.Berserks,
			&reached, &l.Rank); err != nil {
			return nil, err
		}
		l.Reached = fromMS(reached)
		out = append(out, l)
	}
	return out, rows.Err()
}

// ArenaStandings implements store.Arenas.
func (s *Store) ArenaStandings(ctx context.Context, arenaID int64, limit int) ([]store.ArenaLine, error) {
	if limit <= 0 || limit > maxArenaLines {
		limit = maxArenaLines
	}
	var out []store.ArenaLine
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		out, err = arenaLines(ctx, db, arenaID, nil, limit, true)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: standings of arena %d: %w", arenaID, err)
	}
	return out, nil
}

// ArenaPlayer implements store.Arenas.
func (s *Store) ArenaPlayer(ctx context.Context, arenaID int64, playerID string) (store.ArenaLine, error) {
	var out []store.ArenaLine
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		out, err = arenaLines(ctx, db, arenaID, []string{playerID}, 0, true)
		return err
	})
	if err != nil {
		return store.ArenaLine{}, fmt.Errorf("store: %s's line in arena %d: %w", playerID, arenaID, err)
	}
	if len(out) == 0 {
		return store.ArenaLine{PlayerID: playerID}, nil
	}
	return out[0], nil
}

// ArenaGames implements store.Arenas.
func (s *Store) ArenaGames(ctx context.Context, arenaID int64, playerID string) ([]store.ArenaGame, error) {
	var out []store.ArenaGame
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		out = out[:0]
		rows, err := db.QueryContext(ctx, `SELECT race_id, points, streak, racers, place, cleared, berserk, void, at
			FROM arena_games WHERE arena_id = $1 AND player_id = $2 ORDER BY at, race_id`, arenaID, playerID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var g store.ArenaGame
			var at int64
			if err := rows.Scan(&g.RaceID, &g.Points, &g.Streak, &g.Racers, &g.Place, &g.Cleared, &g.Berserk,
				&g.Void, &at); err != nil {
				return err
			}
			g.At = fromMS(at)
			out = append(out, g)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s's games in arena %d: %w", playerID, arenaID, err)
	}
	return out, nil
}

// finishedRanks ranks the lines of the arenas that match where (an
// expression of arenas a, arguments from $1), per arena, with the number
// of players each arena has: a subquery aliased x, joined to a.
func finishedRanks(where string) string {
	return `(SELECT l.arena_id, l.player_id, l.points,
		RANK() OVER (PARTITION BY l.arena_id ORDER BY l.points DESC, l.games, l.reached_at) AS rk,
		COUNT(*) OVER (PARTITION BY l.arena_id) AS n
		FROM arena_lines l WHERE l.arena_id IN (SELECT a.id FROM arenas a WHERE ` + where + `)) x
		JOIN arenas a ON a.id = x.arena_id`
}

// scanTrophy reads arena ID, name, rules ID, end, rank, points, players.
func scanTrophy(row interface{ Scan(...any) error }) (store.Trophy, error) {
	var t store.Trophy
	var end int64
	err := row.Scan(&t.ArenaID, &t.Name, &t.RulesID, &end, &t.Rank, &t.Points, &t.Players)
	t.Ended = fromMS(end)
	return t, err
}

// Trophies implements store.Arenas.
func (s *Store) Trophies(ctx context.Context, playerID string, now time.Time, limit int) ([]store.Trophy, error) {
	if limit <= 0 || limit > store.MaxListLimit {
		limit = store.MaxListLimit
	}
	var out []store.Trophy
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		out = out[:0]
		rows, err := db.QueryContext(ctx, `SELECT a.id, a.name, a.rules_id, a.end_at, x.rk, x.points, x.n FROM `+
			finishedRanks(`NOT a.cancelled AND a.end_at <= $2
				AND a.id IN (SELECT arena_id FROM arena_lines WHERE player_id = $1)`)+`
			WHERE x.player_id = $1 AND x.rk <= 3 AND x.points > 0
			ORDER BY a.end_at DESC, a.id DESC LIMIT $3`, playerID, ms(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanTrophy(rows)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s's arena trophies: %w", playerID, err)
	}
	return out, nil
}

// ArenaWinners implements store.Arenas.
func (s *Store) ArenaWinners(ctx context.Context, since, now time.Time) (map[string]store.Trophy, error) {
	out := map[string]store.Trophy{}
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		clear(out)
		// Oldest first: a player who won several keeps the newest.
		rows, err := db.QueryContext(ctx, `SELECT x.player_id, a.id, a.name, a.rules_id, a.end_at, x.rk, x.points, x.n FROM `+
			finishedRanks(`NOT a.cancelled AND a.end_at >= $1 AND a.end_at <= $2`)+`
			WHERE x.rk = 1 AND x.points > 0 ORDER BY a.end_at, a.id`, ms(since), ms(now))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var t store.Trophy
			var end int64
			if err := rows.Scan(&id, &t.ArenaID, &t.Name, &t.RulesID, &end, &t.Rank, &t.Points, &t.Players); err != nil {
				return err
			}
			t.Ended = fromMS(end)
			out[id] = t
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: arena winners since %s: %w", since.Format(time.RFC3339), err)
	}
	return out, nil
}
