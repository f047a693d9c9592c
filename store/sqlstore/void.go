package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"pyramid/rating"
	"pyramid/store"
)

// RatedRaces implements store.Races.
func (s *Store) RatedRaces(ctx context.Context, playerID string, limit int) ([]store.Race, error) {
	if limit <= 0 || limit > store.MaxListLimit {
		limit = store.MaxListLimit
	}
	var races []store.Race
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		races = races[:0]
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		ids, err := int64s(ctx, tx, `SELECT rp.race_id FROM race_placings rp
			WHERE rp.player_id = $1 AND EXISTS (
				SELECT 1 FROM race_placings o WHERE o.race_id = rp.race_id AND o.standing = 'rated')
			ORDER BY rp.race_id DESC LIMIT $2`, playerID, limit)
		if err != nil {
			return err
		}
		for _, id := range ids {
			race, err := s.raceIn(ctx, tx, id)
			if err != nil {
				return err
			}
			races = append(races, race)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: rated races of player %s: %w", playerID, err)
	}
	return races, nil
}

// int64s runs a query of one integer column.
func int64s(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// VoidRace implements store.Races. The races after the voided one are
// decided again in the order they were recorded (their IDs), each on the
// ratings and the pairs as they stood before it: a player's rating row
// is set back to what their rated races before that race made it when
// the player is first met, then every race decided again moves it on as
// recording the race did. A race none of the players met so far moved in
// is left as it is: nothing it was decided on changed. On PostgreSQL the
// ratings table is locked first, so that no race is rated meanwhile; on
// SQLite the write transaction alone does it.
func (s *Store) VoidRace(ctx context.Context, v store.RaceVoid) ([]string, error) {
	switch {
	case v.RaceID <= 0:
		return nil, fmt.Errorf("store: void race %d: %w: no such race ID", v.RaceID, store.ErrNotFound)
	case len(v.Actor) > store.MaxIDLen || len(v.Reason) > maxReasonBytes:
		return nil, fmt.Errorf("store: void race %d: %w: a field too long", v.RaceID, store.ErrInvalid)
	}
	var changed []string
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		changed = changed[:0]
		if s.dialect == dialectPostgres {
			if _, err := tx.ExecContext(ctx, `LOCK TABLE race_ratings IN EXCLUSIVE MODE`); err != nil {
				return err
			}
		}
		race, err := s.raceIn(ctx, tx, v.RaceID)
		if err != nil {
			return err
		}
		if race.Unrated == rating.ReasonVoided {
			return store.ErrVoided
		}
		// met: the players whose ratings or pairs the void may change,
		// growing with every race decided again; reset: the ratings
		// (player, rules) set back and moved on since.
		met := map[string]bool{}
		reset := map[[2]string]bool{}
		for _, p := range race.Placings {
			if p.Standing == rating.Rated {
				met[p.PlayerID] = true
			}
		}
		if err := s.decideAgain(ctx, tx, race, rating.ReasonVoided); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE races SET unrated = $1 WHERE id = $2`, string(rating.ReasonVoided), race.ID); err != nil {
			return err
		}
		for _, p := range race.Placings {
			if met[p.PlayerID] {
				if err := s.resetRating(ctx, tx, p.PlayerID, race.RulesID, race.ID); err != nil {
					return err
				}
				reset[[2]string{p.PlayerID, race.RulesID}] = true
			}
		}
		later, err := moversAfter(ctx, tx, race.ID)
		if err != nil {
			return err
		}
		for _, l := range later {
			if !slices.ContainsFunc(l.movers, func(id string) bool { return met[id] }) {
				continue
			}
			r, err := s.raceIn(ctx, tx, l.id)
			if err != nil {
				return err
			}
			for _, m := range l.movers {
				met[m] = true
				if k := [2]string{m, r.RulesID}; !reset[k] {
					if err := s.resetRating(ctx, tx, m, r.RulesID, r.ID); err != nil {
						return err
					}
					reset[k] = true
				}
			}
			if err := s.decideAgain(ctx, tx, r, rating.ReasonNone); err != nil {
				return err
			}
		}
		for k := range reset {
			changed = append(changed, k[0])
		}
		slices.Sort(changed)
		changed = slices.Compact(changed)
		at := s.now()
		for _, p := range race.Placings {
			e := store.AuditEntry{At: at, Actor: v.Actor, Action: store.AuditVoid, Target: p.PlayerID,
				Subject: fmt.Sprintf("race %d", race.ID), Reason: v.Reason}
			if _, err := addAudit(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: void race %d: %w", v.RaceID, err)
	}
	return changed, nil
}

// racers is a race's ID and the players who moved in it.
type racers struct {
	id     int64
	movers []string
}

// moversAfter lists the races recorded after race id that may rate their
// racers, in the order they were recorded, each with the players who
// moved in it.
func moversAfter(ctx context.Context, tx *sql.Tx, id int64) ([]racers, error) {
	rows, err := tx.QueryContext(ctx, `SELECT rp.race_id, rp.player_id FROM race_placings rp JOIN races r ON r.id = rp.race_id
		WHERE rp.race_id > $1 AND r.unrated = '' AND rp.moves > 0 ORDER BY rp.race_id, rp.player_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []racers
	for rows.Next() {
		var race int64
		var player string
		if err := rows.Scan(&race, &player); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].id != race {
			out = append(out, racers{id: race})
		}
		out[len(out)-1].movers = append(out[len(out)-1].movers, player)
	}
	return out, rows.Err()
}

// decideAgain decides a stored race again as rateRace decides a race
// being recorded, on the ratings as they stand and the pairs of the
// races recorded before it, and writes its pairs and placings anew.
func (s *Store) decideAgain(ctx context.Context, tx *sql.Tx, race store.Race, unrated rating.Reason) error {
	for _, q := range []string{`DELETE FROM race_opponents WHERE race_id = $1`, `DELETE FROM race_placings WHERE race_id = $1`} {
		if _, err := tx.ExecContext(ctx, q, race.ID); err != nil {
			return err
		}
	}
	nr := store.NewRace{RulesID: race.RulesID, Ended: race.Ended, Placings: race.Placings}
	rated, err := s.rateRace(ctx, tx, race.ID, nr, unrated, race.ID)
	if err != nil {
		return fmt.Errorf("race %d: %w", race.ID, err)
	}
	return writePlacings(ctx, tx, race.ID, nr, rated)
}

// resetRating sets a player's rating in the rules back to what their
// rated races recorded before race bound made it (a new player's when
// none).
func (s *Store) resetRating(ctx context.Context, tx *sql.Tx, player, rulesID string, bound int64) error {
	r := s.rating.New()
	err := tx.QueryRowContext(ctx, `SELECT mu, sigma FROM race_placings
		WHERE player_id = $1 AND rules_id = $2 AND standing = 'rated' AND race_id < $3
		ORDER BY race_id DESC LIMIT 1`, player, rulesID, bound).Scan(&r.Mu, &r.Sigma)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var races, opponents int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM race_placings
		WHERE player_id = $1 AND rules_id = $2 AND standing = 'rated' AND race_id < $3`,
		player, rulesID, bound).Scan(&races); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT opponent_id) FROM race_opponents
		WHERE player_id = $1 AND rules_id = $2 AND race_id < $3`, player, rulesID, bound).Scan(&opponents); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO race_ratings (player_id, rules_id, mu, sigma, ordinal, races, opponents, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (player_id, rules_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,
			ordinal = excluded.ordinal, races = excluded.races, opponents = excluded.opponents, updated_at = excluded.updated_at`,
		player, rulesID, r.Mu, r.Sigma, r.Ordinal(), races, opponents, ms(s.now()))
	return err
}
