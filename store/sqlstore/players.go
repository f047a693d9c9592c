package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"pyramid/keys"
	"pyramid/store"
)

// maxNameBytes is a sanity bound on stored names; package keys enforces the
// real rules.
const maxNameBytes = 256

// nameKey is the form under which names are unique: case-folded (so "Zoë",
// "ZOË" and "zoë" are one name) and NFC-normalised.
func nameKey(name string) string {
	// A Caser is stateful, hence one per call.
	return norm.NFC.String(cases.Fold().String(norm.NFC.String(name)))
}

// namesLock is the PostgreSQL advisory lock that serialises the writes of
// names, so that two look-alike names cannot pass their checks at once
// (SQLite's immediate transactions serialise every write anyway).
const namesLock = 7310587443643953765

// lockNames takes namesLock for the rest of tx, on PostgreSQL.
func (s *Store) lockNames(ctx context.Context, tx *sql.Tx) error {
	if s.dialect != dialectPostgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(namesLock))
	return err
}

// lookalike reports whether a player other than id has a name that looks
// like name (keys.LookAlike): one of the same skeleton or folded skeleton.
func lookalike(ctx context.Context, q querier, name, id string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM players WHERE (name_skeleton = $1 OR name_folded_skeleton = $2) AND id <> $3`,
		keys.Skeleton(name), keys.FoldedSkeleton(name), id).Scan(&n)
	return n > 0, err
}

// claimable checks that player id may take name: no other player has a
// name like it (ErrNameTaken), and no other player gave one like it up
// less than store.NameHold ago (a *store.NameHeldError); like is
// keys.LookAlike, as everywhere.
func claimable(ctx context.Context, q querier, name, id string, now time.Time) error {
	switch taken, err := lookalike(ctx, q, name, id); {
	case err != nil:
		return err
	case taken:
		return fmt.Errorf("%w: it looks like another player's", store.ErrNameTaken)
	}
	var until int64
	err := q.QueryRowContext(ctx, `SELECT MAX(until_at) FROM name_holds
		WHERE (name_skeleton = $1 OR name_folded_skeleton = $2) AND player_id <> $3 AND until_at > $4
		HAVING COUNT(*) > 0`,
		keys.Skeleton(name), keys.FoldedSkeleton(name), id, ms(now)).Scan(&until)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return &store.NameHeldError{Left: fromMS(until).Sub(now)}
}

// holdName holds the name a player gives up (by its skeletons) for them
// for store.NameHold, and sweeps the holds that ended.
func holdName(ctx context.Context, q querier, name, id string, now time.Time) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM name_holds WHERE until_at <= $1`, ms(now)); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `INSERT INTO name_holds (name_skeleton, name_folded_skeleton, player_id, until_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (name_skeleton) DO UPDATE SET name_folded_skeleton = excluded.name_folded_skeleton,
			player_id = excluded.player_id, until_at = excluded.until_at`,
		keys.Skeleton(name), keys.FoldedSkeleton(name), id, ms(now.Add(store.NameHold)))
	return err
}

// fillSkeletons computes the skeletons of the names given before the
// store kept them (migrations 0003 and 0021), oldest player first, so
// that they are compared too. A name that looks like an older player's
// (one given before the comparison caught it) is changed to its player's
// generated name, as a new player's would have been, with a line in the
// audit log: nobody keeps a name that renders like another's.
func (s *Store) fillSkeletons(ctx context.Context) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.lockNames(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, name FROM players
			WHERE name_skeleton IS NULL OR name_folded_skeleton IS NULL ORDER BY created_at, id`)
		if err != nil {
			return err
		}
		var ids, names []string
		for rows.Next() {
			var id, name string
			if err := rows.Scan(&id, &name); err != nil {
				rows.Close()
				return err
			}
			ids, names = append(ids, id), append(names, name)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		// Skeletons are computed again from scratch: until a row has
		// its own, it must not count as a look-alike of the others.
		if len(ids) > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE players SET name_skeleton = NULL, name_folded_skeleton = NULL
				WHERE name_skeleton IS NULL OR name_folded_skeleton IS NULL`); err != nil {
				return err
			}
		}
		for i, id := range ids {
			name, err := s.settleName(ctx, tx, id, names[i])
			if err != nil {
				return fmt.Errorf("player %s: %w", id, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE players SET name = $1, name_key = $2, name_skeleton = $3, name_folded_skeleton = $4 WHERE id = $5`,
				name, nameKey(name), keys.Skeleton(name), keys.FoldedSkeleton(name), id); err != nil {
				return err
			}
		}
		return nil
	})
}

// settleName is the name player id keeps when its skeletons are filled:
// name, unless an older player's looks like it, then the first of the
// player's generated names that is free.
func (s *Store) settleName(ctx context.Context, tx *sql.Tx, id, name string) (string, error) {
	taken, err := lookalike(ctx, tx, name, id)
	if err != nil || !taken {
		return name, err
	}
	for _, fallback := range fallbackNames(id) {
		taken, err := lookalike(ctx, tx, fallback, id)
		if err == nil && !taken {
			// A younger player, not yet compared, may hold it as such.
			var n int
			err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM players WHERE name_key = $1`, nameKey(fallback)).Scan(&n)
			taken = n > 0
		}
		switch {
		case err != nil:
			return "", err
		case taken:
			continue
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor_id, action, target_id, subject, reason)
			VALUES ($1, '', $2, $3, $4, $5)`, ms(s.now()), store.AuditRename, id, name+" → "+fallback,
			"the name looks like an older player's")
		return fallback, err
	}
	return "", fmt.Errorf("no free name for %q: %w", name, store.ErrNameTaken)
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func checkID(what, id string) error {
	if id == "" || len(id) > store.MaxIDLen {
		return fmt.Errorf("%w: %s must be 1 to %d bytes", store.ErrInvalid, what, store.MaxIDLen)
	}
	return nil
}

func checkName(name string) error {
	if name == "" || len(name) > maxNameBytes {
		return fmt.Errorf("%w: name must be 1 to %d bytes", store.ErrInvalid, maxNameBytes)
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

const playerCols = `p.id, p.name, p.created_at, p.banned, p.banned_until, p.ban_reason`

func scanPlayer(row interface{ Scan(...any) error }) (store.Player, error) {
	var p store.Player
	var created, until int64
	if err := row.Scan(&p.ID, &p.Name, &created, &p.Banned, &until, &p.BanReason); err != nil {
		return store.Player{}, err
	}
	p.Created = fromMS(created)
	if until != 0 {
		p.BannedUntil = fromMS(until)
	}
	return p, nil
}

func playerByKey(ctx context.Context, q querier, fingerprint string) (store.Player, error) {
	return scanPlayer(q.QueryRowContext(ctx,
		`SELECT `+playerCols+` FROM player_keys k JOIN players p ON p.id = k.player_id WHERE k.fingerprint = $1`,
		fingerprint))
}

func playerByID(ctx context.Context, q querier, id string) (store.Player, error) {
	return scanPlayer(q.QueryRowContext(ctx, `SELECT `+playerCols+` FROM players p WHERE p.id = $1`, id))
}

// fallbackNames are the names tried for a new player whose wanted name is
// taken: "player-" and 4, 6, … 16 hex digits of a hash of the fingerprint,
// so the same key gets the same fallback name on every server.
func fallbackNames(fingerprint string) []string {
	sum := sha256.Sum256([]byte(fingerprint))
	h := hex.EncodeToString(sum[:])
	var names []string
	for n := 4; n <= 16; n += 2 {
		names = append(names, "player-"+h[:n])
	}
	return names
}

// GetOrCreatePlayer implements store.Players.
func (s *Store) GetOrCreatePlayer(ctx context.Context, fingerprint, defaultName string) (store.Player, bool, error) {
	if err := checkID("fingerprint", fingerprint); err != nil {
		return store.Player{}, false, fmt.Errorf("store: get or create player: %w", err)
	}
	var p store.Player
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		p, err = playerByKey(ctx, db, fingerprint)
		return err
	})
	if err == nil {
		return s.liftEnded(ctx, p)
	}
	if !errors.Is(err, store.ErrNotFound) {
		return store.Player{}, false, fmt.Errorf("store: get player by key %s: %w", fingerprint, err)
	}

	var created bool
	err = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
		created = false
		p, err = playerByKey(ctx, tx, fingerprint)
		if !errors.Is(err, sql.ErrNoRows) {
			return err // found (err == nil) or failed
		}
		p, created, err = s.createPlayer(ctx, tx, fingerprint, defaultName)
		return err
	})
	if err != nil {
		return store.Player{}, false, fmt.Errorf("store: create player for %s: %w", fingerprint, err)
	}
	return p, created, nil
}

// createPlayer creates a player for a key no player has, within tx.
func (s *Store) createPlayer(ctx context.Context, tx *sql.Tx, fingerprint, defaultName string) (store.Player, bool, error) {
	// The ID is the fingerprint, unless a player already has that ID
	// because this key was unlinked from it: then fingerprint~2, ~3, ….
	id := fingerprint
	for n := 2; ; n++ {
		var exists int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM players WHERE id = $1`, id).Scan(&exists)
		if err != nil {
			return store.Player{}, false, err
		}
		if exists == 0 {
			break
		}
		id = fmt.Sprintf("%s~%d", fingerprint, n)
	}
	names := fallbackNames(fingerprint)
	if defaultName != "" && len(defaultName) <= maxNameBytes {
		names = append([]string{defaultName}, names...)
	}
	at := s.now()
	now := ms(at)
	if err := s.lockNames(ctx, tx); err != nil {
		return store.Player{}, false, err
	}
	for _, name := range names {
		// A name that looks like another player's, or like one given
		// up a moment ago, is as taken as that name.
		switch err := claimable(ctx, tx, name, id, at); {
		case errors.Is(err, store.ErrNameTaken) || errors.Is(err, store.ErrNameHeld):
			continue
		case err != nil:
			return store.Player{}, false, err
		}
		// ON CONFLICT DO NOTHING rather than catching the violation:
		// on PostgreSQL an error would abort the transaction.
		res, err := tx.ExecContext(ctx,
			`INSERT INTO players (id, name, name_key, name_skeleton, name_folded_skeleton, created_at, banned) VALUES ($1, $2, $3, $4, $5, $6, FALSE)
			 ON CONFLICT DO NOTHING`,
			id, name, nameKey(name), keys.Skeleton(name), keys.FoldedSkeleton(name), now)
		if err != nil {
			return store.Player{}, false, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return store.Player{}, false, err
		} else if n == 0 {
			// Either the name is taken, or (PostgreSQL) another session
			// created this very player meanwhile and committed.
			if p, err := playerByKey(ctx, tx, fingerprint); err == nil {
				return p, false, nil
			}
			continue
		}
		res, err = tx.ExecContext(ctx,
			`INSERT INTO player_keys (fingerprint, player_id, added_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			fingerprint, id, now)
		if err != nil {
			return store.Player{}, false, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return store.Player{}, false, err
		} else if n == 0 {
			// The key was linked elsewhere meanwhile: undo and look again.
			return store.Player{}, false, errTransient
		}
		return store.Player{ID: id, Name: name, Created: fromMS(now)}, true, nil
	}
	return store.Player{}, false, fmt.Errorf("no free name for a new player: %w", store.ErrNameTaken)
}

// Player implements store.Players.
func (s *Store) Player(ctx context.Context, id string) (store.Player, error) {
	var p store.Player
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		p, err = playerByID(ctx, db, id)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player %s: %w", id, err)
	}
	return p, nil
}

// PlayerByKey implements store.Players.
func (s *Store) PlayerByKey(ctx context.Context, fingerprint string) (store.Player, error) {
	var p store.Player
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		p, err = playerByKey(ctx, db, fingerprint)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player by key %s: %w", fingerprint, err)
	}
	return p, nil
}

// PlayerByName implements store.Players.
func (s *Store) PlayerByName(ctx context.Context, name string) (store.Player, error) {
	var p store.Player
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		p, err = scanPlayer(db.QueryRowContext(ctx,
			`SELECT `+playerCols+` FROM players p WHERE p.name_key = $1`, nameKey(name)))
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player named %q: %w", name, err)
	}
	return p, nil
}

// RenamePlayer implements store.Players.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("store: rename player %s: %w", id, err)
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.lockNames(ctx, tx); err != nil {
			return err
		}
		now := s.now()
		if err := claimable(ctx, tx, name, id, now); err != nil {
			return err
		}
		var old string
		if err := tx.QueryRowContext(ctx, `SELECT name FROM players WHERE id = $1`, id).Scan(&old); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE players SET name = $1, name_key = $2, name_skeleton = $3, name_folded_skeleton = $4 WHERE id = $5`,
			name, nameKey(name), keys.Skeleton(name), keys.FoldedSkeleton(name), id)
		if err := oneRow(res, err); err != nil || keys.LookAlike(old, name) {
			// A name that looks like the old one (its case changed)
			// keeps it shown as it was: nothing to hold.
			return err
		}
		return holdName(ctx, tx, old, id, now)
	})
	if err != nil {
		return fmt.Errorf("store: rename player %s to %q: %w", id, name, err)
	}
	return nil
}

// SetBanned implements store.Players.
func (s *Store) SetBanned(ctx context.Context, id string, banned bool) error {
	err := s.write(ctx, func(ctx context.Context) error {
		res, err := s.w.ExecContext(ctx, `UPDATE players SET banned = $1, banned_until = 0, ban_reason = '' WHERE id = $2`, banned, id)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("store: set banned=%v for player %s: %w", banned, id, err)
	}
	return nil
}

// Ban implements store.Players.
func (s *Store) Ban(ctx context.Context, id string, until time.Time, reason string) error {
	if len(reason) > maxReasonBytes {
		return fmt.Errorf("store: ban player %s: %w: reason of %d bytes", id, store.ErrInvalid, len(reason))
	}
	var untilMS int64
	if !until.IsZero() {
		untilMS = ms(until)
	}
	err := s.write(ctx, func(ctx context.Context) error {
		res, err := s.w.ExecContext(ctx, `UPDATE players SET banned = TRUE, banned_until = $1, ban_reason = $2 WHERE id = $3`,
			untilMS, reason, id)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("store: ban player %s: %w", id, err)
	}
	return nil
}

// maxReasonBytes bounds the reasons the store keeps (bans, the audit log).
const maxReasonBytes = 1000

// liftEnded returns p, its timed ban lifted in the store first when it
// has ended. Only that very ban is lifted: one an admin gave again
// meanwhile stays.
func (s *Store) liftEnded(ctx context.Context, p store.Player) (store.Player, bool, error) {
	if !p.Banned || p.BannedUntil.IsZero() || s.now().Before(p.BannedUntil) {
		return p, false, nil
	}
	err := s.write(ctx, func(ctx context.Context) error {
		_, err := s.w.ExecContext(ctx, `UPDATE players SET banned = FALSE, banned_until = 0, ban_reason = ''
			WHERE id = $1 AND banned AND banned_until = $2`, p.ID, ms(p.BannedUntil))
		return err
	})
	if err != nil {
		return store.Player{}, false, fmt.Errorf("store: lift the ended ban of player %s: %w", p.ID, err)
	}
	p.Banned, p.BannedUntil, p.BanReason = false, time.Time{}, ""
	return p, false, nil
}

// oneRow turns "no row changed" into sql.ErrNoRows (so ErrNotFound).
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return sql.ErrNoRows
	}
	return nil
}

// Keys implements store.Players.
func (s *Store) Keys(ctx context.Context, playerID string) ([]store.Key, error) {
	var keys []store.Key
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		var err error
		keys, err = listKeys(ctx, db, playerID)
		return err
	})
	if err == nil && len(keys) == 0 {
		err = store.ErrNotFound // every player has a key
	}
	if err != nil {
		return nil, fmt.Errorf("store: keys of player %s: %w", playerID, err)
	}
	return keys, nil
}

func listKeys(ctx context.Context, q querier, playerID string) ([]store.Key, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT fingerprint, player_id, added_at, key_type, label, last_used_at FROM player_keys WHERE player_id = $1 ORDER BY added_at, fingerprint`, playerID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []store.Key
	for rows.Next() {
		var k store.Key
		var added, used int64
		if err := rows.Scan(&k.Fingerprint, &k.PlayerID, &added, &k.Type, &k.Label, &used); err != nil {
			return nil, err
		}
		k.Added = fromMS(added)
		if used != 0 {
			k.LastUsed = fromMS(used)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// UnlinkKey implements store.Players.
func (s *Store) UnlinkKey(ctx context.Context, playerID, fingerprint string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		keys, err := listKeys(ctx, tx, playerID)
		if err != nil {
			return err
		}
		found := false
		for _, k := range keys {
			found = found || k.Fingerprint == fingerprint
		}
		switch {
		case !found:
			return store.ErrNotFound
		case len(keys) == 1:
			return store.ErrLastKey
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM player_keys WHERE fingerprint = $1 AND player_id = $2`, fingerprint, playerID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: unlink key %s from player %s: %w", fingerprint, playerID, err)
	}
	return nil
}
