package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"pyramid/store"
)

var _ store.Challenges = (*Store)(nil)

// challengeCols are the columns scanChallenge reads, the players' names
// last (from players a and b joined on the two sides).
const challengeCols = `c.id, c.challenger_id, c.challenged_id, c.rules_id, c.deal_number, c.state,
	c.offered_at, c.accepted_at, c.deadline_at, c.ended_at, c.challenger_game, c.challenged_game,
	c.race_id, c.winner_id, COALESCE(a.name, ''), COALESCE(b.name, '')`

// challengeFrom is the FROM clause challengeCols reads.
const challengeFrom = ` FROM challenges c LEFT JOIN players a ON a.id = c.challenger_id
	LEFT JOIN players b ON b.id = c.challenged_id`

// scanChallenge reads one row of challengeCols.
func scanChallenge(row interface{ Scan(...any) error }) (store.Challenge, error) {
	var c store.Challenge
	var deal, offered, accepted, deadline, ended int64
	var state string
	err := row.Scan(&c.ID, &c.Challenger, &c.Challenged, &c.RulesID, &deal, &state,
		&offered, &accepted, &deadline, &ended, &c.ChallengerGame, &c.ChallengedGame,
		&c.RaceID, &c.Winner, &c.ChallengerName, &c.ChallengedName)
	if err != nil {
		return store.Challenge{}, err
	}
	c.DealNumber, c.State = uint64(deal), store.ChallengeState(state)
	c.Offered, c.Deadline = fromMS(offered), fromMS(deadline)
	if accepted != 0 {
		c.Accepted = fromMS(accepted)
	}
	if ended != 0 {
		c.Ended = fromMS(ended)
	}
	return c, nil
}

// OfferChallenge implements store.Challenges.
func (s *Store) OfferChallenge(ctx context.Context, nc store.NewChallenge) (store.Challenge, error) {
	err := errors.Join(checkID("challenger", nc.Challenger), checkID("challenged player", nc.Challenged),
		checkID("rules ID", nc.RulesID))
	if err == nil && nc.Challenger == nc.Challenged {
		err = fmt.Errorf("%w: a challenge of oneself", store.ErrInvalid)
	}
	if err != nil {
		return store.Challenge{}, fmt.Errorf("store: offer a challenge: %w", err)
	}
	var c store.Challenge
	err = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO challenges
			(challenger_id, challenged_id, rules_id, deal_number, state, offered_at, deadline_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			nc.Challenger, nc.Challenged, nc.RulesID, int64(nc.DealNumber), string(store.ChallengeOffered),
			ms(now), ms(now.Add(store.ChallengeTime))).Scan(&id); err != nil {
			return err
		}
		var err error
		c, err = challengeTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return store.Challenge{}, fmt.Errorf("store: offer a challenge of %s by %s: %w", nc.Challenged, nc.Challenger, err)
	}
	return c, nil
}

// challengeTx reads a challenge in a transaction.
func challengeTx(ctx context.Context, tx *sql.Tx, id int64) (store.Challenge, error) {
	return scanChallenge(tx.QueryRowContext(ctx, `SELECT `+challengeCols+challengeFrom+` WHERE c.id = $1`, id))
}

// Challenge implements store.Challenges.
func (s *Store) Challenge(ctx context.Context, id int64) (store.Challenge, error) {
	var c store.Challenge
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		c, err = scanChallenge(db.QueryRowContext(ctx, `SELECT `+challengeCols+challengeFrom+` WHERE c.id = $1`, id))
		return err
	})
	if err != nil {
		return store.Challenge{}, fmt.Errorf("store: challenge %d: %w", id, err)
	}
	return c, nil
}

// PlayerChallenges implements store.Challenges.
func (s *Store) PlayerChallenges(ctx context.Context, playerID string, since time.Time, limit int) ([]store.Challenge, error) {
	if limit <= 0 || limit > store.MaxListLimit {
		limit = store.MaxListLimit
	}
	var out []store.Challenge
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		out = out[:0]
		rows, err := db.QueryContext(ctx, `SELECT `+challengeCols+challengeFrom+`
			WHERE (c.challenger_id = $1 OR c.challenged_id = $1)
			AND (c.state IN ('offered', 'accepted') OR c.ended_at >= $2)
			ORDER BY c.id DESC LIMIT $3`, playerID, ms(since), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanChallenge(rows)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: challenges of %s: %w", playerID, err)
	}
	return out, nil
}

// AnswerChallenge implements store.Challenges.
func (s *Store) AnswerChallenge(ctx context.Context, id int64, playerID string, accept bool) (store.Challenge, error) {
	var c store.Challenge
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		var err error
		if c, err = challengeTx(ctx, tx, id); err != nil {
			return err
		}
		switch {
		case c.Challenged != playerID:
			return store.ErrNotFound
		case c.State != store.ChallengeOffered || !now.Before(c.Deadline):
			return store.ErrClosed
		}
		if accept {
			_, err = tx.ExecContext(ctx, `UPDATE challenges SET state = $1, accepted_at = $2, deadline_at = $3 WHERE id = $4`,
				string(store.ChallengeAccepted), ms(now), ms(now.Add(store.ChallengeTime)), id)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE challenges SET state = $1, ended_at = $2 WHERE id = $3`,
				string(store.ChallengeDeclined), ms(now), id)
		}
		if err != nil {
			return err
		}
		c, err = challengeTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return store.Challenge{}, fmt.Errorf("store: answer challenge %d: %w", id, err)
	}
	return c, nil
}

// SetChallengeGame implements store.Challenges.
func (s *Store) SetChallengeGame(ctx context.Context, id int64, playerID string, gameID int64) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c, err := challengeTx(ctx, tx, id)
		if err != nil {
			return err
		}
		col, have := "challenger_game", c.ChallengerGame
		switch playerID {
		case c.Challenger:
		case c.Challenged:
			col, have = "challenged_game", c.ChallengedGame
		default:
			return store.ErrNotFound
		}
		switch {
		case have == gameID:
			return nil
		case have != 0:
			return store.ErrExists
		case c.State != store.ChallengeAccepted || !s.now().Before(c.Deadline):
			return store.ErrClosed
		}
		_, err = tx.ExecContext(ctx, `UPDATE challenges SET `+col+` = $1 WHERE id = $2`, gameID, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: game %d of challenge %d: %w", gameID, id, err)
	}
	return nil
}

// EndChallenge implements store.Challenges. The update names the open
// states, so of two servers deciding a challenge at once one ends it.
func (s *Store) EndChallenge(ctx context.Context, id int64, state store.ChallengeState, raceID int64, winner string) (store.Challenge, error) {
	if state != store.ChallengeFinished && state != store.ChallengeExpired || len(winner) > store.MaxIDLen {
		return store.Challenge{}, fmt.Errorf("store: end challenge %d: %w: state %q", id, store.ErrInvalid, state)
	}
	var c store.Challenge
	var closed bool
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE challenges SET state = $1, race_id = $2, winner_id = $3, ended_at = $4
			WHERE id = $5 AND state IN ('offered', 'accepted')`, string(state), raceID, winner, ms(s.now()), id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		closed = n == 0
		c, err = challengeTx(ctx, tx, id)
		return err
	})
	switch {
	case err != nil:
		return store.Challenge{}, fmt.Errorf("store: end challenge %d: %w", id, err)
	case closed:
		return c, fmt.Errorf("store: end challenge %d: %w", id, store.ErrClosed)
	}
	return c, nil
}
