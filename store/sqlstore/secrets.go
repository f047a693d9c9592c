package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"

	"pyramid/store"
)

var _ store.Secrets = (*Store)(nil)

// DailySecret implements store.Secrets. The first caller's random secret is
// inserted unless one is there already (another server's, made at the
// same moment), and the stored one is returned: every caller gets the
// one that won.
func (s *Store) DailySecret(ctx context.Context) ([]byte, error) {
	var fresh [store.DailySecretLen]byte
	_, _ = rand.Read(fresh[:]) // crypto/rand.Read never fails on supported systems
	var value string
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO secrets (name, value, created_at) VALUES ('daily', $1, $2)
			ON CONFLICT (name) DO NOTHING`, hex.EncodeToString(fresh[:]), ms(s.now())); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM secrets WHERE name = 'daily'`).Scan(&value)
	})
	if err != nil {
		return nil, fmt.Errorf("store: the daily deals' secret: %w", err)
	}
	b, err := hex.DecodeString(value)
	if err != nil || len(b) != store.DailySecretLen {
		return nil, fmt.Errorf("store: the daily deals' secret is damaged (%d hex characters)", len(value))
	}
	return b, nil
}
