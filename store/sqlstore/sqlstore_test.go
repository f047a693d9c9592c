package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
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
	s, err := OpenConfig(ctx, Config{DatabaseURL: u.String(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store { return openSQLite(t, now) })
}

func TestPostgres(t *testing.T) {
	postgresURL(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store { return openPostgres(t, now) })
}

func TestOpenUnsupportedURL(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir(), "mysql://x")
	if err == nil || !strings.Contains(err.Error(), "unsupported database URL") {
		t.Errorf("got %v, want unsupported database URL", err)
	}
}
