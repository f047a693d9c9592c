package sqlstore

import (
	"context"
	"fmt"

	"pyramid/store"
)

// touchEvery is how often a key's last use is written: a player who
// runs a command a second costs one write a minute.
const touchEvery = 60_000 // milliseconds

// TouchKey implements store.Players.
func (s *Store) TouchKey(ctx context.Context, fingerprint, keyType string) error {
	if len(keyType) > 64 {
		keyType = keyType[:64]
	}
	now := ms(s.now())
	err := s.write(ctx, func(ctx context.Context) error {
		_, err := s.w.ExecContext(ctx, `UPDATE player_keys SET last_used_at = $1, key_type = $2
			WHERE fingerprint = $3 AND (last_used_at <= $4 OR key_type <> $2)`, now, keyType, fingerprint, now-touchEvery)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: note the use of key %s: %w", fingerprint, err)
	}
	return nil
}

// LabelKey implements store.Players.
func (s *Store) LabelKey(ctx context.Context, playerID, fingerprint, label string) error {
	if len(label) > store.MaxKeyLabel {
		return fmt.Errorf("store: label key %s: %w: %d bytes", fingerprint, store.ErrInvalid, len(label))
	}
	err := s.write(ctx, func(ctx context.Context) error {
		res, err := s.w.ExecContext(ctx, `UPDATE player_keys SET label = $1 WHERE player_id = $2 AND fingerprint = $3`,
			label, playerID, fingerprint)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("store: label key %s of player %s: %w", fingerprint, playerID, err)
	}
	return nil
}
