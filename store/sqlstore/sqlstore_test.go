package sqlstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for making test schemas

	"pyramid/store"
	"pyramid/store/storetest"
)

func openSQLite(t *testing.T, now func() time.Time) *Store {
	t.Helper()
	s, err := OpenConfig(context.Background(), Config{DataDir: t.TempDir(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openPostgres opens a store in a schema of its own, dropped at the end, so
// that tests never see each other's rows.
func openPostgres(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	s, err := OpenConfig(context.Background(), Config{DatabaseURL: storetest.PostgresSchemaURL(t), Now: now})
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
	storetest.PostgresURL(t)
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
		{"postgres", func(t *testing.T) Config { return Config{DatabaseURL: storetest.PostgresSchemaURL(t)} }},
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
