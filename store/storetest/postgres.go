package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for making test schemas
)

// PostgresEnv names the environment variable with the URL of the
// PostgreSQL database the tests may use.
const PostgresEnv = "PYRAMID_TEST_DATABASE_URL"

// PostgresURL returns the test database's URL, or skips the test saying
// how to run it.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(PostgresEnv)
	if u == "" {
		t.Skip("PostgreSQL tests skipped: set " + PostgresEnv +
			"=postgres://user@host:port/db to run them (eval \"$(.ci/postgres.sh)\" starts a throwaway server and sets it)")
	}
	return u
}

// PostgresSchemaURL makes a schema of t's own in the test database,
// dropped when t ends (after whatever t started, which stops first), and
// returns the database's URL with that schema as the search path, so that
// tests never see each other's rows. It skips t without a test database.
func PostgresSchemaURL(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	schema := "pyramid_test_" + hex.EncodeToString(suffix)
	if err := adminExec(base, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if err := adminExec(base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
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

// adminExec runs one statement on the database at dbURL.
func adminExec(dbURL, stmt string) error {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, stmt)
	return err
}
