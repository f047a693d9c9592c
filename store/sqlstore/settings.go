package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"unicode/utf8"

	"pyramid/store"
)

// checkSetting refuses a setting name or value the store does not keep.
func checkSetting(name, value string) error {
	if name == "" || len(name) > store.MaxSettingName {
		return fmt.Errorf("%w: setting name must be 1 to %d bytes", store.ErrInvalid, store.MaxSettingName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return fmt.Errorf("%w: setting name %q has a byte 0x%02x", store.ErrInvalid, name, c)
		}
	}
	if len(value) > store.MaxSettingValue || !utf8.ValidString(value) {
		return fmt.Errorf("%w: setting %s: value must be UTF-8 of at most %d bytes", store.ErrInvalid, name, store.MaxSettingValue)
	}
	for _, r := range value {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("%w: setting %s: value has a control character", store.ErrInvalid, name)
		}
	}
	return nil
}

// Settings implements store.Settings.
func (s *Store) Settings(ctx context.Context, playerID string) (map[string]string, error) {
	out := map[string]string{}
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		clear(out)
		rows, err := db.QueryContext(ctx, `SELECT name, value FROM settings WHERE player_id = $1`, playerID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, value string
			if err := rows.Scan(&name, &value); err != nil {
				return err
			}
			out[name] = value
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: settings of player %s: %w", playerID, err)
	}
	return out, nil
}

// SetSetting implements store.Settings.
func (s *Store) SetSetting(ctx context.Context, playerID, name, value string) error {
	if err := checkSetting(name, value); err != nil {
		return fmt.Errorf("store: set %s of player %s: %w", name, playerID, err)
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := playerByID(ctx, tx, playerID); err != nil {
			return err
		}
		if value == "" {
			_, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE player_id = $1 AND name = $2`, playerID, name)
			return err
		}
		var n int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM settings WHERE player_id = $1 AND name <> $2`, playerID, name).Scan(&n)
		if err != nil {
			return err
		}
		if n >= store.MaxSettings {
			return fmt.Errorf("%w: at most %d settings", store.ErrInvalid, store.MaxSettings)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO settings (player_id, name, value, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (player_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			playerID, name, value, ms(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set %s of player %s: %w", name, playerID, err)
	}
	return nil
}
