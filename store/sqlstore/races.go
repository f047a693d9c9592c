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
	return s.storeRating(r.Mu, r.Sigma, 0, 0)
}

// storeRating is a rating as the store tells it: with its ordinal, its
// display value on the store's model and whether it is provisional.
func (s *Store) storeRating(mu, sigma float64, races, opponents int) store.Rating {
	r := rating.Rating{Mu: mu, Sigma: sigma}
	return store.Rating{Mu: mu, Sigma: sigma, Ordinal: r.Ordinal(), Display: s.rating.Display(r),
		Races: races, Opponents: opponents, Provisional: rating.Provisional(races, opponents)}
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

// RecordRace implements store.Races. It decides each placing by the
// races' policy (rating.Decide) and rates those it rates. On PostgreSQL
// the ratings of the racers who moved are read with SELECT … FOR UPDATE,
// in player ID order, after making sure each row exists, before the pairs
// already rated against each other are counted: two races ending at once
// that share a player (or a pair) are decided and rated one after the
// other. On SQLite the write transaction alone serialises them.
func (s *Store) RecordRace(ctx context.Context, nr store.NewRace) (int64, error) {
	if err := checkRace(nr); err != nil {
		return 0, fmt.Errorf("store: record race: %w", err)
	}
	var id int64
	unrated := unratedOf(nr)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO races (race_key, code, rules_id, deal_number, started_at, ended_at, racers, rated, verdict, unrated)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (race_key) DO NOTHING RETURNING id`,
			nr.Key, nr.Code, nr.RulesID, int64(nr.DealNumber), ms(nr.Started), ms(nr.Ended), nr.Racers, nr.Rated,
			nr.Verdict.String(), string(unrated)).Scan(&id)
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
		rated, err := s.rateRace(ctx, tx, id, nr, unrated, allRaces)
		if err != nil {
			return err
		}
		return writePlacings(ctx, tx, id, nr, rated)
	})
	if err != nil {
		return 0, fmt.Errorf("store: record %s race %s: %w", nr.RulesID, nr.Key, err)
	}
	return id, nil
}

// unratedOf is why a race to record counts for nobody, or
// rating.ReasonNone when it may rate its racers.
func unratedOf(nr store.NewRace) rating.Reason {
	switch {
	case nr.Void:
		return rating.ReasonVoid
	case !nr.Rated:
		return rating.ReasonChosenDeal
	}
	return rating.ReasonNone
}

// writePlacings stores the placings of race id as rated (rateRace's
// decisions, in placing order).
func writePlacings(ctx context.Context, tx *sql.Tx, id int64, nr store.NewRace, rated []placingRating) error {
	for i, p := range nr.Placings {
		r := rated[i]
		var mu, sigma, muBefore, sigmaBefore sql.NullFloat64
		var races, oppBefore, opp sql.NullInt64
		if r.Standing == rating.Rated {
			mu, sigma = nullFloat(r.after.Mu), nullFloat(r.after.Sigma)
			muBefore, sigmaBefore = nullFloat(r.before.Mu), nullFloat(r.before.Sigma)
			races = sql.NullInt64{Int64: int64(r.races), Valid: true}
			oppBefore = sql.NullInt64{Int64: int64(r.oppBefore), Valid: true}
			opp = sql.NullInt64{Int64: int64(r.opponents), Valid: true}
		}
		var game sql.NullInt64
		if p.GameID != 0 {
			game = sql.NullInt64{Int64: p.GameID, Valid: true}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO race_placings
			(race_id, player_id, rules_id, place, cleared, removed, moves, time_ms, game_id, mu, sigma, outcome,
			 standing, reason, win, podium, assisted, mu_before, sigma_before, races, opponents_before, opponents)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
			id, p.PlayerID, nr.RulesID, p.Place, p.Cleared, p.Removed, p.Moves, p.Time.Milliseconds(), game, mu, sigma,
			string(p.Outcome), r.Standing.String(), string(r.Reason), r.Win, r.Podium, p.Assisted,
			muBefore, sigmaBefore, races, oppBefore, opp)
		if err != nil {
			return err
		}
	}
	return nil
}

func nullFloat(f float64) sql.NullFloat64 { return sql.NullFloat64{Float64: f, Valid: true} }

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

// placingRating is how a race counted for one placing: the policy's
// decision and, for a rated placing, the rating before and after and the
// player's rated races and different opponents in the rules.
type placingRating struct {
	rating.Decision
	before, after               rating.Rating
	races, oppBefore, opponents int
}

// inList is "$first, $first+1, …" for n values, for an IN list.
func inList(first, n int) string {
	marks := make([]string, n)
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", first+i)
	}
	return strings.Join(marks, ", ")
}

// allRaces is rateRace's bound for a race being recorded: the pairs of
// every race stored count.
const allRaces = math.MaxInt64

// rateRace decides the race for each placing (rating.Decide; unrated is
// why it counts for nobody, or rating.ReasonNone), updates the ratings
// of those it rates and records who was rated against whom; it returns
// the placings' decisions and ratings in placing order. Only the pairs
// of races with IDs below bound count (allRaces when recording a race;
// a race's own ID when deciding it again, as VoidRace does, so that the
// races recorded after it are not counted), the race's own beside them.
func (s *Store) rateRace(ctx context.Context, tx *sql.Tx, raceID int64, nr store.NewRace, unrated rating.Reason, bound int64) ([]placingRating, error) {
	out := make([]placingRating, len(nr.Placings))
	entrants := make([]rating.Entrant, len(nr.Placings))
	var movers []string
	for i, p := range nr.Placings {
		entrants[i] = rating.Entrant{ID: p.PlayerID, Place: p.Place, Moves: p.Moves, Removed: p.Removed,
			Cleared: p.Cleared, Left: p.Outcome == store.OutcomeLeft, Assisted: p.Assisted}
		if p.Moves > 0 {
			movers = append(movers, p.PlayerID)
		}
	}
	slices.Sort(movers)
	cur := make(map[string]rating.Rating, len(movers))
	limited := map[[2]string]bool{}
	if len(movers) >= 2 && unrated == rating.ReasonNone {
		// Lock the ratings of those who may be rated first, then count
		// the pairs: a race decided at the same time waits for the lock.
		var err error
		if cur, err = s.lockRatings(ctx, tx, nr.RulesID, movers); err != nil {
			return nil, err
		}
		args := []any{ms(nr.Ended.Add(-rating.PairWindow)), bound}
		for _, id := range movers {
			args = append(args, id)
		}
		list := inList(3, len(movers))
		rows, err := tx.QueryContext(ctx, `SELECT player_id, opponent_id, COUNT(*) FROM race_opponents
			WHERE ended_at > $1 AND race_id < $2 AND player_id IN (`+list+`) AND opponent_id IN (`+list+`)
			GROUP BY player_id, opponent_id`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var a, b string
			var n int
			if err := rows.Scan(&a, &b, &n); err != nil {
				rows.Close()
				return nil, err
			}
			if n >= rating.PairLimit {
				limited[[2]string{a, b}] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	decided := rating.Decide(unrated, entrants, func(a, b string) bool {
		return limited[[2]string{a, b}] || limited[[2]string{b, a}]
	})
	var field []int
	for i, d := range decided {
		out[i].Decision = d
		if d.Standing == rating.Rated {
			field = append(field, i)
		}
	}
	if len(field) == 0 {
		return out, nil
	}
	before := make([]rating.Rating, len(field))
	ranks := make([]int, len(field))
	for n, i := range field {
		r, ok := cur[nr.Placings[i].PlayerID]
		if !ok {
			return nil, fmt.Errorf("rating of %s vanished", nr.Placings[i].PlayerID)
		}
		before[n], ranks[n] = r, decided[i].Rank
	}
	after, err := s.rating.Rate(before, ranks)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", store.ErrInvalid, err)
	}
	ended := ms(nr.Ended)
	for _, i := range field {
		for _, j := range field {
			if i == j {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO race_opponents (race_id, player_id, opponent_id, rules_id, ended_at)
				VALUES ($1, $2, $3, $4, $5)`, raceID, nr.Placings[i].PlayerID, nr.Placings[j].PlayerID, nr.RulesID, ended); err != nil {
				return nil, err
			}
		}
	}
	now := ms(s.now())
	for n, i := range field {
		id, r := nr.Placings[i].PlayerID, after[n]
		if math.IsNaN(r.Mu) || math.IsNaN(r.Sigma) {
			return nil, fmt.Errorf("rating of %s is not a number", id)
		}
		pr := &out[i]
		pr.before, pr.after = before[n], r
		if err := tx.QueryRowContext(ctx, `SELECT races, opponents FROM race_ratings WHERE player_id = $1 AND rules_id = $2`,
			id, nr.RulesID).Scan(&pr.races, &pr.oppBefore); err != nil {
			return nil, err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT opponent_id) FROM race_opponents
			WHERE player_id = $1 AND rules_id = $2 AND (race_id < $3 OR race_id = $4)`,
			id, nr.RulesID, bound, raceID).Scan(&pr.opponents); err != nil {
			return nil, err
		}
		pr.races++
		if _, err := tx.ExecContext(ctx, `UPDATE race_ratings SET mu = $1, sigma = $2, ordinal = $3, races = $4, opponents = $5,
			updated_at = $6 WHERE player_id = $7 AND rules_id = $8`,
			r.Mu, r.Sigma, r.Ordinal(), pr.races, pr.opponents, now, id, nr.RulesID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lockRatings makes sure the players (sorted by ID) have a rating row in
// the rules and returns their ratings, the rows locked on PostgreSQL.
func (s *Store) lockRatings(ctx context.Context, tx *sql.Tx, rulesID string, ids []string) (map[string]rating.Rating, error) {
	now := ms(s.now())
	def := s.newRating()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO race_ratings (player_id, rules_id, mu, sigma, ordinal, races, updated_at)
			VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (player_id, rules_id) DO NOTHING`,
			id, rulesID, def.Mu, def.Sigma, def.Ordinal, now); err != nil {
			return nil, err
		}
	}
	args := []any{rulesID}
	for _, id := range ids {
		args = append(args, id)
	}
	q := `SELECT player_id, mu, sigma FROM race_ratings WHERE rules_id = $1 AND player_id IN (` +
		inList(2, len(ids)) + `) ORDER BY player_id`
	if s.dialect == dialectPostgres {
		q += ` FOR UPDATE`
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cur := make(map[string]rating.Rating, len(ids))
	for rows.Next() {
		var id string
		var r rating.Rating
		if err := rows.Scan(&id, &r.Mu, &r.Sigma); err != nil {
			return nil, err
		}
		cur[id] = r
	}
	return cur, rows.Err()
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
		race, err = s.raceIn(ctx, tx, id)
		return err
	})
	if err != nil {
		return store.Race{}, fmt.Errorf("store: race %d: %w", id, err)
	}
	return race, nil
}

// raceIn reads a race with its placings within tx.
func (s *Store) raceIn(ctx context.Context, tx *sql.Tx, id int64) (store.Race, error) {
	var deal, started, ended int64
	var verdict, unrated string
	race := store.Race{ID: id}
	if err := tx.QueryRowContext(ctx, `SELECT code, rules_id, deal_number, started_at, ended_at, racers, rated, verdict, unrated
		FROM races WHERE id = $1`, id).
		Scan(&race.Code, &race.RulesID, &deal, &started, &ended, &race.Racers, &race.Rated, &verdict, &unrated); err != nil {
		return store.Race{}, err
	}
	race.DealNumber = uint64(deal)
	race.Verdict = verdictOf(verdict)
	race.Unrated = rating.Reason(unrated)
	race.Started, race.Ended = fromMS(started), fromMS(ended)
	err := func() error {
		rows, err := tx.QueryContext(ctx, `SELECT rp.player_id, p.name, rp.place, rp.cleared, rp.removed, rp.moves, rp.time_ms,
			rp.game_id, rp.mu, rp.sigma, rp.outcome, rp.standing, rp.reason, rp.win, rp.podium, rp.assisted,
			rp.mu_before, rp.sigma_before, rp.races, rp.opponents_before, rp.opponents
			FROM race_placings rp JOIN players p ON p.id = rp.player_id
			WHERE rp.race_id = $1 ORDER BY rp.place, rp.player_id`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p store.RacePlacing
			var t int64
			var game, races, oppBefore, opp sql.NullInt64
			var mu, sigma, muBefore, sigmaBefore sql.NullFloat64
			var standing, reason string
			if err := rows.Scan(&p.PlayerID, &p.PlayerName, &p.Place, &p.Cleared, &p.Removed, &p.Moves, &t,
				&game, &mu, &sigma, &p.Outcome, &standing, &reason, &p.Win, &p.Podium, &p.Assisted,
				&muBefore, &sigmaBefore, &races, &oppBefore, &opp); err != nil {
				return err
			}
			p.Time = time.Duration(t) * time.Millisecond
			p.GameID = game.Int64
			p.Standing, _ = rating.ParseStanding(standing)
			p.Reason = rating.Reason(reason)
			if mu.Valid && sigma.Valid {
				p.Rating = s.storeRating(mu.Float64, sigma.Float64, int(races.Int64), int(opp.Int64))
			}
			if muBefore.Valid && sigmaBefore.Valid {
				p.Before = s.storeRating(muBefore.Float64, sigmaBefore.Float64, int(races.Int64)-1, int(oppBefore.Int64))
			}
			race.Placings = append(race.Placings, p)
		}
		return rows.Err()
	}()
	return race, err
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

// raceRecordSQL sums up a player's placings per rules ID as the policy
// decided them when each race was recorded, with the rating when there is
// one; an empty $2 selects every rules ID.
const raceRecordSQL = `SELECT rp.rules_id,
	SUM(CASE WHEN rp.standing = 'rated' THEN 1 ELSE 0 END),
	SUM(CASE WHEN rp.standing = 'rated' AND rp.win THEN 1 ELSE 0 END),
	SUM(CASE WHEN rp.standing = 'rated' AND rp.podium THEN 1 ELSE 0 END),
	SUM(CASE WHEN rp.standing = 'unrated' THEN 1 ELSE 0 END),
	rr.mu, rr.sigma, rr.races, rr.opponents
FROM race_placings rp
LEFT JOIN race_ratings rr ON rr.player_id = rp.player_id AND rr.rules_id = rp.rules_id
WHERE rp.player_id = $1 AND ($2 = '' OR rp.rules_id = $2) AND rp.standing <> 'aborted'
GROUP BY rp.rules_id, rr.mu, rr.sigma, rr.races, rr.opponents
ORDER BY rp.rules_id`

func (s *Store) raceRecords(ctx context.Context, q querier, playerID, rulesID string) ([]store.RaceRecord, error) {
	rows, err := q.QueryContext(ctx, raceRecordSQL, playerID, rulesID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var recs []store.RaceRecord
	for rows.Next() {
		var rec store.RaceRecord
		var mu, sigma sql.NullFloat64
		var races, opp sql.NullInt64
		if err := rows.Scan(&rec.RulesID, &rec.Races, &rec.Wins, &rec.Podiums, &rec.Unrated, &mu, &sigma, &races, &opp); err != nil {
			return nil, err
		}
		rec.Rating = s.newRating()
		if mu.Valid && sigma.Valid {
			rec.Rating = s.storeRating(mu.Float64, sigma.Float64, int(races.Int64), int(opp.Int64))
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
		recs, err := s.raceRecords(ctx, db, playerID, rulesID)
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
		recs, err = s.raceRecords(ctx, db, playerID, "")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: race records of player %s: %w", playerID, err)
	}
	return recs, nil
}

// topRatingsSQL ranks the players of a rules ID whose rating is settled
// ($2 rated races against $3 different opponents, rating.Provisional) by
// μ, as the display rating (monotone in μ) ranks them; their wins are
// counted as the records count them.
var topRatingsSQL = `SELECT RANK() OVER (ORDER BY rr.mu DESC) AS place,
	rr.player_id, p.name, rr.mu, rr.sigma, rr.races, rr.opponents,
	(SELECT COUNT(*) FROM race_placings rp
		WHERE rp.player_id = rr.player_id AND rp.rules_id = rr.rules_id AND rp.standing = 'rated' AND rp.win)
FROM race_ratings rr JOIN players p ON p.id = rr.player_id
WHERE rr.rules_id = $1 AND rr.races >= $2 AND rr.opponents >= $3 AND NOT ` + bannedAt("p", "$5") + `
ORDER BY place, rr.races DESC, rr.player_id
LIMIT $4`

// TopRatings implements store.Races.
func (s *Store) TopRatings(ctx context.Context, rulesID string, limit int) ([]store.RatingEntry, error) {
	var top []store.RatingEntry
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, topRatingsSQL, rulesID, rating.ProvisionalRaces, rating.ProvisionalOpponents,
			boardLimit(limit), ms(s.now()))
		if err != nil {
			return err
		}
		defer rows.Close()
		top = top[:0]
		for rows.Next() {
			var e store.RatingEntry
			var mu, sigma float64
			var races, opp int
			if err := rows.Scan(&e.Rank, &e.PlayerID, &e.PlayerName, &mu, &sigma, &races, &opp, &e.Wins); err != nil {
				return err
			}
			e.Rating = s.storeRating(mu, sigma, races, opp)
			top = append(top, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s race ratings: %w", rulesID, err)
	}
	return top, nil
}

// RatingHistory implements store.Races.
func (s *Store) RatingHistory(ctx context.Context, playerID, rulesID string, limit int) ([]store.RatingPoint, error) {
	var points []store.RatingPoint
	if limit <= 0 {
		limit = math.MaxInt32
	}
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, `SELECT r.ended_at, rp.mu, rp.sigma, rp.races, rp.opponents
			FROM race_placings rp JOIN races r ON r.id = rp.race_id
			WHERE rp.player_id = $1 AND rp.rules_id = $2 AND rp.standing = 'rated'
			ORDER BY r.ended_at DESC, r.id DESC LIMIT $3`, playerID, rulesID, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		points = points[:0]
		for rows.Next() {
			var at int64
			var mu, sigma float64
			var races, opp sql.NullInt64
			if err := rows.Scan(&at, &mu, &sigma, &races, &opp); err != nil {
				return err
			}
			points = append(points, store.RatingPoint{At: fromMS(at), Rating: s.storeRating(mu, sigma, int(races.Int64), int(opp.Int64))})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: %s rating history of player %s: %w", rulesID, playerID, err)
	}
	slices.Reverse(points)
	return points, nil
}
