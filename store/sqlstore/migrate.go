package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the dialect's migrations in order. Files are named
// NNNN_description_DIALECT.up.sql.
func migrations(d dialect) ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	suffix := "_" + d.String() + ".up.sql"
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, suffix) {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: no version number", name)
		}
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// migrate applies the migrations not yet recorded in schema_migrations, each
// in its own transaction. On PostgreSQL an advisory lock keeps instances
// starting together from applying the same step twice; SQLite's immediate
// transactions do the same there.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations(s.dialect)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at BIGINT NOT NULL
	)`
	for _, m := range ms {
		err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			if s.dialect == dialectPostgres {
				// A constant key: "pyramid" in ASCII.
				if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7310587443643953764)"); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, create); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = $1", m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
				m.version, m.name, s.now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	return nil
}
