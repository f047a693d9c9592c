package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"pyramid/store"
)

// codeHash is how a link code is kept: a leaked database must not let
// anyone redeem the codes in it.
func codeHash(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

// CreateLinkCode implements store.Links. The player's earlier codes and all
// expired codes are removed: a player has one live code at a time.
func (s *Store) CreateLinkCode(ctx context.Context, playerID, code string, expires time.Time) error {
	if code == "" || len(code) > store.MaxIDLen {
		return fmt.Errorf("store: create link code for player %s: %w: bad code", playerID, store.ErrInvalid)
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := ms(s.now())
		p, err := playerByID(ctx, tx, playerID)
		if err != nil {
			return err
		}
		if p.Banned {
			return store.ErrBanned
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM link_codes WHERE player_id = $1 OR expires_at <= $2`, playerID, now); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO link_codes (code_hash, player_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			codeHash(code), playerID, now, ms(expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: create link code for player %s: %w", playerID, err)
	}
	return nil
}

// RedeemLinkCode implements store.Links.
func (s *Store) RedeemLinkCode(ctx context.Context, code, fingerprint string) (store.Player, error) {
	if err := checkID("fingerprint", fingerprint); err != nil {
		return store.Player{}, fmt.Errorf("store: redeem link code: %w", err)
	}
	var target store.Player
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := ms(s.now())
		var playerID string
		var expires int64
		err := tx.QueryRowContext(ctx, `SELECT player_id, expires_at FROM link_codes WHERE code_hash = $1`, codeHash(code)).
			Scan(&playerID, &expires)
		if err != nil {
			return err
		}
		if expires <= now {
			return store.ErrExpired
		}
		if target, err = playerByID(ctx, tx, playerID); err != nil {
			return err
		}
		if target.Banned {
			return store.ErrBanned
		}
		moved, err := s.moveKey(ctx, tx, fingerprint, target.ID, now)
		if err != nil || !moved {
			return err // a key of the code's own player leaves the code unused
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM link_codes WHERE code_hash = $1`, codeHash(code))
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: redeem link code for key %s: %w", fingerprint, err)
	}
	return target, nil
}

// moveKey makes the key belong to playerID and reports whether it did not
// already. A key that belongs to someone else is taken only from a player
// that has nothing else (the throwaway player made when the new key first
// connected), which is then deleted.
func (s *Store) moveKey(ctx context.Context, tx *sql.Tx, fingerprint, playerID string, now int64) (bool, error) {
	old, err := playerByKey(ctx, tx, fingerprint)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err := tx.ExecContext(ctx, `INSERT INTO player_keys (fingerprint, player_id, added_at) VALUES ($1, $2, $3)`,
			fingerprint, playerID, now)
		return err == nil, err
	case err != nil:
		return false, err
	case old.ID == playerID:
		return false, nil
	case old.Banned:
		return false, store.ErrBanned
	}
	var keys, games, results int
	err = tx.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM player_keys WHERE player_id = $1),
		(SELECT COUNT(*) FROM games WHERE player_id = $1),
		(SELECT COUNT(*) FROM results WHERE player_id = $1)`, old.ID).Scan(&keys, &games, &results)
	if err != nil {
		return false, err
	}
	if keys != 1 || games != 0 || results != 0 {
		return false, store.ErrKeyInUse
	}
	if _, err := tx.ExecContext(ctx, `UPDATE player_keys SET player_id = $1, added_at = $2 WHERE fingerprint = $3`,
		playerID, now, fingerprint); err != nil {
		return false, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM players WHERE id = $1`, old.ID)
	return err == nil, err
}
