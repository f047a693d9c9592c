package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for making test schemas

	"pyramid/store"
	"pyramid/store/storetest"
)

// postgresEnv names the database the PostgreSQL tests use.
const postgresEnv = "PYRAMID_TEST_DATABASE_URL"

func openSQLite(t *testing.T, now func() time.Time) *Store {
	t.Helper()
	s, err := OpenConfig(context.Background(), Config{DataDir: t.TempDir(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// postgresURL returns the test database's URL, or skips the test.
func postgresURL(t testing.TB) string {
	u := os.Getenv(postgresEnv)
	if u == "" {
		t.Skip("PostgreSQL tests skipped: set " + postgresEnv +
			"=postgres://user@host:port/db to run them (eval \"$(.ci/postgres.sh)\" starts a throwaway server and sets it)")
	}
	return u
}

// openPostgres opens a store in a schema of its own, dropped at the end, so
// that tests never see each other's rows.
func openPostgres(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	s, err := OpenConfig(context.Background(), Config{DatabaseURL: postgresSchemaURL(t), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// postgresSchemaURL makes a fresh schema, dropped when t ends, and returns
// the test database's URL with that schema as the search path.
func postgresSchemaURL(t testing.TB) string {
	t.Helper()
	base := postgresURL(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	suffix := make([]byte, 6)
	rand.Read(suffix)
	schema := "pyramid_test_" + hex.EncodeToString(suffix)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close()
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store { return openSQLite(t, now) })
}

func TestPostgres(t *testing.T) {
	postgresURL(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store { return openPostgres(t, now) })
}

// TestConcurrentOpen starts several instances on one empty database at
// once, as a cluster restarting would: each migration is applied once.
func TestConcurrentOpen(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		cfg  func(t *testing.T) Config
	}{
		{"sqlite", func(*testing.T) Config { return Config{DataDir: dir} }},
		{"postgres", func(t *testing.T) Config { return Config{DatabaseURL: postgresSchemaURL(t)} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg(t)
			const n = 4
			stores := make([]*Store, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					stores[i], errs[i] = OpenConfig(context.Background(), cfg)
				}()
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("open %d: %v", i, errs[i])
				}
				defer stores[i].Close()
			}
			var count int
			if err := stores[0].r.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&count); err != nil {
				t.Fatal(err)
			}
			if want := len(must(migrations(stores[0].dialect))); count != want {
				t.Errorf("schema_migrations has %d rows, want %d", count, want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestOpenUnsupportedURL(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir(), "mysql://x")
	if err == nil || !strings.Contains(err.Error(), "unsupported database URL") {
		t.Errorf("got %v, want unsupported database URL", err)
	}
}
