package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"pyramid/engine"
	"pyramid/rating"
	"pyramid/store"
)

var _ store.Races = (*Store)(nil)

// newRating is a player's rating before their first rated race.
func (s *Store) newRating() store.Rating {
	r := s.rating.New()
	return store.Rating{Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal()}
}

// checkRace refuses a race that cannot be right.
func checkRace(nr store.NewRace) error {
	err := errors.Join(checkID("race key", nr.Key), checkID("rules ID", nr.RulesID))
	if len(nr.Code) > store.MaxIDLen {
		err = errors.Join(err, fmt.Errorf("%w: room code over %d bytes", store.ErrInvalid, store.MaxIDLen))
	}
	switch n := len(nr.Placings); {
	case n == 0 || n > store.MaxRacePlacings:
		err = errors.Join(err, fmt.Errorf("%w: %d placings, want 1 to %d", store.ErrInvalid, n, store.MaxRacePlacings))
	case nr.Racers < n || nr.Racers > store.MaxRacePlacings:
		err = errors.Join(err, fmt.Errorf("%w: %d racers for %d placings", store.ErrInvalid, nr.Racers, n))
	}
	if nr.Started.IsZero() || nr.Ended.Before(nr.Started) {
		err = errors.Join(err, fmt.Errorf("%w: race ends before it starts", store.ErrInvalid))
	}
	seen := make(map[string]bool, len(nr.Placings))
	for i, p := range nr.Placings {
		if e := checkID("player ID", p.PlayerID); e != nil {
			err = errors.Join(err, e)
		}
		if seen[p.PlayerID] {
			err = errors.Join(err, fmt.Errorf("%w: player %s placed twice", store.ErrInvalid, p.PlayerID))
		}
		seen[p.PlayerID] = true
		if p.Place < 1 || p.Place > nr.Racers || p.Removed < 0 || p.Moves < 0 || p.Time < 0 || p.GameID < 0 {
			err = errors.Join(err, fmt.Errorf("%w: placing %d has a figure out of range", store.ErrInvalid, i+1))
		}
		if !p.Outcome.Valid() || p.Cleared != (p.Outcome == store.OutcomeCleared) && p.Outcome != "" {
			err = errors.Join(err, fmt.Errorf("%w: placing %d has outcome %q", store.ErrInvalid, i+1, p.Outcome))
		}
	}
	if nr.Verdict > engine.Unwinnable {
		err = errors.Join(err, fmt.Errorf("%w: verdict %d", store.ErrInvalid, nr.Verdict))
	}
	return err
}

// RecordRace implements store.Races. On PostgreSQL the ratings are read
// with SELECT … FOR UPDATE, in player ID order, after making sure each
// row exists, so two races ending at once that share a player update that
// player's rating one after the other; on SQLite the write transaction
// alone serialises them.
func (s *Store) RecordRace(ctx context.Context, nr store.NewRace) (int64, error) {
	if err := checkRace(nr); err != nil {
		return 0, fmt.Errorf("store: record race: %w", err)
	}
	var id int64
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO races (race_key, code, rules_id, deal_number, started_at, ended_at, racers, rated, verdict)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (race_key) DO NOTHING RETURNING id`,
			nr.Key, nr.Code, nr.RulesID, int64(nr.DealNumber), ms(nr.Started), ms(nr.Ended), nr.Racers, nr.Rated,
			nr.Verdict.String()).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			// Stored already: a retry after a lost reply.
			return tx.QueryRowContext(ctx, `SELECT id FROM races WHERE race_key = $1`, nr.Key).Scan(&id)
		} else if err != nil {
			return err
		}
		for _, p := range nr.Placings {
			if err := s.checkRaceGame(ctx, tx, p, nr.RulesID); err != nil {
				return err
			}
		}
		after, err := s.rateRace(ctx, tx, nr)
		if err != nil {
			return err
		}
		for i, p := range nr.Placings {
			var mu, sigma sql.NullFloat64
			if after != nil {
				mu = sql.NullFloat64{Float64: after[i].Mu, Valid: true}
				sigma = sql.NullFloat64{Float64: after[i].Sigma, Valid: true}
			}
			var game sql.NullInt64
			if p.GameID != 0 {
				game = sql.NullInt64{Int64: p.GameID, Valid: true}
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO race_placings
				(race_id, player_id, rules_id, place, cleared, removed, moves, time_ms, game_id, mu, sigma, outcome)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
				id, p.PlayerID, nr.RulesID, p.Place, p.Cleared, p.Removed, p.Moves, p.Time.Milliseconds(), game, mu, sigma,
				string(p.Outcome))
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: record %s race %s: %w", nr.RulesID, nr.Key, err)
	}
	return id, nil
}

// checkRaceGame refuses a placing whose game is not the player's game of
// these rules.
func (s *Store) checkRaceGame(ctx context.Context, tx *sql.Tx, p store.RacePlacing, rulesID string) error {
	if p.GameID == 0 {
		return nil
	}
	var player, rules string
	err := tx.QueryRowContext(ctx, `SELECT player_id, rules_id FROM games WHERE id = $1`, p.GameID).Scan(&player, &rules)
	if errors.Is(err, sql.ErrNoRows) || err == nil && (player != p.PlayerID || rules != rulesID) {
		return fmt.Errorf("%w: game %d is not %s's %s game", store.ErrInvalid, p.GameID, p.PlayerID, rulesID)
	}
	return err
}

// rateRace updates the ratings of the race's placed players and returns
// them in placing order, or nil for an unrated race or one of fewer than
// two placings.
func (s *Store) rateRace(ctx context.Context, tx *sql.Tx, nr store.NewRace) ([]rating.Rating, error) {
	if !nr.Rated || len(nr.Placings) < 2 {
		return nil, nil
	}
	ids := make([]string, len(nr.Placings))
	for i, p := range nr.Placings {
		ids[i] = p.PlayerID
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	now := ms(s.now())
	def := s.newRating()
	for _, id := range sorted {
		if _, err := tx.ExecContext(ctx, `INSERT INTO race_ratings (player_id, rules_id, mu, sigma, ordinal, races, updated_at)
			VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (player_id, rules_id) DO NOTHING`,
			id, nr.RulesID, def.Mu, def.Sigma, def.Ordinal, now); err != nil {
			return nil, err
		}
	}
	marks := make([]string, len(sorted))
	args := []any{nr.RulesID}
	for i, id := range sorted {
		marks[i] = fmt.Sprintf("$%d", i+2)
		args = append(args, id)
	}
	q := `SELECT player_id, mu, sigma FROM race_ratings WHERE rules_id = $1 AND player_id IN (` +
		strings.Join(marks, ", ") + `) ORDER BY player_id`
	if s.dialect == dialectPostgres {
		q += ` FOR UPDATE`
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	cur := make(map[string]rating.Rating, len(ids))
	for rows.Next() {
		var id string
		var r rating.Rating
		if err := rows.Scan(&id, &r.Mu, &r.Sigma); err != nil {
			rows.Close()
			return nil, err
		}
		cur[id] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	before := make([]rating.Rating, len(ids))
	ranks := make([]int, len(ids))
	for i, p := range nr.Placings {
		r, ok := cur[p.PlayerID]
		if !ok {
			return nil, fmt.Errorf("rating of %s vanished", p.PlayerID)
		}
		before[i], ranks[i] = r, p.Place
	}
	after, err := s.rating.Rate(before, ranks)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", store.ErrInvalid, err)
	}
	for i, id := range ids {
		r := after[i]
		if math.IsNaN(r.Mu) || math.IsNaN(r.Sigma) {
			return nil, fmt.Errorf("rating of %s is not a number", id)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE race_ratings SET mu = $1, sigma = $2, ordinal = $3, races = races + 1,
			updated_at = $4 WHERE player_id = $5 AND rules_id = $6`, r.Mu, r.Sigma, r.Ordinal(), now, id, nr.RulesID); err != nil {
			return nil, err
		}
	}
	return after, nil
}

// Race implements store.Races.
func (s *Store) Race(ctx context.Context, id int64) (store.Race, error) {
	var race store.Race
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var deal, started, ended int64
		var verdict string
		race = store.Race{ID: id}
		if err := tx.QueryRowContext(ctx, `SELECT code, rules_id, deal_number, started_at, ended_at, racers, rated, verdict
			FROM races WHERE id = $1`, id).
			Scan(&race.Code, &race.RulesID, &deal, &started, &ended, &race.Racers, &race.Rated, &verdict); err != nil {
			return err
		}
		race.DealNumber = uint64(deal)
		race.Verdict = verdictOf(verdict)
		race.Started, race.Ended = fromMS(started), fromMS(ended)
		rows, err := tx.QueryContext(ctx, `SELECT rp.player_id, p.name, rp.place, rp.cleared, rp.removed, rp.moves, rp.time_ms,
			rp.game_id, rp.mu, rp.sigma, rp.outcome
			FROM race_placings rp JOIN players p ON p.id = rp.player_id
			WHERE rp.race_id = $1 ORDER BY rp.place, rp.player_id`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p store.RacePlacing
			var t int64
			var game sql.NullInt64
			var mu, sigma sql.NullFloat64
			if err := rows.Scan(&p.PlayerID, &p.PlayerName, &p.Place, &p.Cleared, &p.Removed, &p.Moves, &t,
				&game, &mu, &sigma, &p.Outcome); err != nil {
				return err
			}
			p.Time = time.Duration(t) * time.Millisecond
			p.GameID = game.Int64
			if mu.Valid && sigma.Valid {
				p.Rating = store.Rating{Mu: mu.Float64, Sigma: sigma.Float64, Ordinal: mu.Float64 - 3*sigma.Float64}
			}
			race.Placings = append(race.Placings, p)
		}
		return rows.Err()
	})
	if err != nil {
		return store.Race{}, fmt.Errorf("store: race %d: %w", id, err)
	}
	return race, nil
}

// verdictOf is the verdict a races row names.
func verdictOf(s string) engine.Verdict {
	switch s {
	case engine.Winnable.String():
		return engine.Winnable
	case engine.Unwinnable.String():
		return engine.Unwinnable
	}
	return engine.Unknown
}

// RaceInRoom implements store.Races.
func (s *Store) RaceInRoom(ctx context.Context, playerID, code string, since time.Time) (store.Race, error) {
	var id int64
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT r.id FROM races r JOIN race_placings rp ON rp.race_id = r.id
			WHERE r.code = $1 AND r.ended_at >= $2 AND rp.player_id = $3
			ORDER BY r.ended_at DESC, r.id DESC LIMIT 1`, code, ms(since), playerID).Scan(&id)
	})
	if err != nil {
		return store.Race{}, fmt.Errorf("store: %s's race in room %s: %w", playerID, code, err)
	}
	return s.Race(ctx, id)
}

// RaceOfGame implements store.Races.
func (s *Store) RaceOfGame(ctx context.Context, gameID int64) (store.Race, error) {
	var id int64
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT race_id FROM race_placings WHERE game_id = $1`, gameID).Scan(&id)
	})
	if err != nil {
		return store.Race{}, fmt.Errorf("store: the race of game %d: %w", gameID, err)
	}
	return s.Race(ctx, id)
}

// raceRecordSQL sums up a player's placings per rules ID, rated races
// apart from unrated ones, with the rating when there is one; an empty $2
// selects every rules ID.
const raceRecordSQL = `SELECT rp.rules_id,
	SUM(CASE WHEN r.rated THEN 1 ELSE 0 END),
	SUM(CASE WHEN r.rated AND rp.place = 1 THEN 1 ELSE 0 END),
	SUM(CASE WHEN r.rated AND rp.place <= 3 THEN 1 ELSE 0 END),
	SUM(CASE WHEN r.rated THEN 0 ELSE 1 END),
	rr.mu, rr.sigma, rr.races
FROM race_placings rp
JOIN races r ON r.id = rp.race_id
LEFT JOIN race_ratings rr ON rr.player_id = rp.player_id AND rr.rules_id = rp.rules_id
WHERE rp.player_id = $1 AND ($2 = '' OR rp.rules_id = $2)
GROUP BY rp.rules_id, rr.mu, rr.sigma, rr.races
ORDER BY rp.rules_id`

func raceRecords(ctx context.Context, q querier, playerID, rulesID string, def store.Rating) ([]store.RaceRecord, error) {
	rows, err := q.QueryContext(ctx, raceRecordSQL, playerID, rulesID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var recs []store.RaceRecord
	for rows.Next() {
		var rec store.RaceRecord
		var mu, sigma sql.NullFloat64
		var races sql.NullInt64
		if err := rows.Scan(&rec.RulesID, &rec.Races, &rec.Wins, &rec.Podiums, &rec.Unrated, &mu, &sigma, &races); err != nil {
			return nil, err
		}
		rec.Rating = def
		if mu.Valid && sigma.Valid {
			rec.Rating = store.Rating{Mu: mu.Float64, Sigma: sigma.Float64, Ordinal: mu.Float64 - 3*sigma.Float64,
				Races: int(races.Int64)}
		}
		recs = append(recs, rec)
	}
	return recs, rows.Err()
}

// RaceRecord implements store.Races.
func (s *Store) RaceRecord(ctx context.Context, playerID, rulesID string) (store.RaceRecord, error) {
	rec := store.RaceRecord{RulesID: rulesID, Rating: s.newRating()}
	if err := checkID("rules ID", rulesID); err != nil {
		return store.RaceRecord{}, fmt.Errorf("store: %s race record of player %s: %w", rulesID, playerID, err)
	}
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		recs, err := raceRecords(ctx, db, playerID, rulesID, s.newRating())
		if len(recs) == 1 {
			rec = recs[0]
		}
		return err
	})
	if err != nil {
		return store.RaceRecord{}, fmt.Errorf("store: %s race record of player %s: %w", rulesID, playerID, err)
	}
	return rec, nil
}

// RaceRecords implements store.Races.
func (s *Store) RaceRecords(ctx context.Context, playerID string) ([]store.RaceRecord, error) {
	var recs []store.RaceRecord
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		recs, err = raceRecords(ctx, db, playerID, "", s.newRating())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: race records of player %s: %w", playerID, err)
	}
	return recs, nil
}

// topRatingsSQL ranks the rated players of a rules ID.
const topRatingsSQL = `SELECT RANK() OVER (ORDER BY rr.ordinal DESC) AS place,
	rr.player_id, p.name, rr.mu, rr.sigma, rr.ordinal, rr.races,
	(SELECT COUNT(*) FROM race_placings rp JOIN races r ON r.id = rp.race_id
		WHERE rp.player_id = rr.player_id AND rp.rules_id = rr.rules_id AND rp.place = 1 AND r.rated)
FROM race_ratings rr JOIN players p ON p.id = rr.player_id
WHERE rr.rules_id = $1 AND rr.races > 0 AND NOT p.banned
ORDER BY place, rr.races DESC, rr.player_id
LIMIT $2`

// TopRatings implements store.Races.
func (s *Store) TopRatings(ctx context.Context, rulesID string, limit int) ([]store.RatingEntry, error) {
	var top []store.RatingEntry
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, topRatingsSQL, rulesID, boardLimit(limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		top = top[:0]
		for rows.Next() {
			var e store.RatingEntry
			if err := rows.Scan(&e.Rank, &e.PlayerID, &e.PlayerName, &e.Mu, &e.Sigma, &e.Ordinal, &e.Races, &e.Wins); err != nil {
				return err
			}
			top = append(top, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s race ratings: %w", rulesID, err)
	}
	return top, nil
}
