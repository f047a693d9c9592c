package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"pyramid/store"
)

func TestMapErr(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"no rows", sql.ErrNoRows, store.ErrNotFound},
		{"wrapped no rows", fmt.Errorf("scan: %w", sql.ErrNoRows), store.ErrNotFound},
		{"pg name taken", &pgconn.PgError{Code: "23505", ConstraintName: "players_name_key_key"}, store.ErrNameTaken},
		{"pg second game", &pgconn.PgError{Code: "23505", ConstraintName: "games_one_playing"}, store.ErrInProgress},
		{"pg shutting down", &pgconn.PgError{Code: "57P01"}, store.ErrUnavailable},
		{"pg starting up", &pgconn.PgError{Code: "57P03"}, store.ErrUnavailable},
		{"pg connection lost", &pgconn.PgError{Code: "08006"}, store.ErrUnavailable},
		{"dial refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, store.ErrUnavailable},
		{"bad conn", fmt.Errorf("exec: %w", driver.ErrBadConn), store.ErrUnavailable},
	}
	for _, tt := range tests {
		got := mapErr(tt.err)
		if !errors.Is(got, tt.want) || !errors.Is(got, tt.err) {
			t.Errorf("%s: mapErr = %v, want it to wrap %v and the original", tt.name, got, tt.want)
		}
	}
	other := &pgconn.PgError{Code: "23505", ConstraintName: "player_keys_pkey"}
	if got := mapErr(other); got != error(other) {
		t.Errorf("unknown constraint: mapErr = %v, want it unchanged", got)
	}
	if mapErr(nil) != nil {
		t.Errorf("mapErr(nil) != nil")
	}
}

// TestUnavailable: the error of a connection to a PostgreSQL that is not
// there is ErrUnavailable, whose plain words name nothing of the
// database (the full error keeps the detail, for the log).
func TestUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, cerr := pgconn.Connect(ctx, "postgres://pyramid@"+addr+"/pyramid_test?sslmode=disable&connect_timeout=2")
	if cerr == nil {
		conn.Close(ctx)
		t.Fatal("connected to a closed port")
	}
	got := mapErr(fmt.Errorf("store: save game 12: %w", cerr))
	if !errors.Is(got, store.ErrUnavailable) {
		t.Fatalf("mapErr(%v) is not ErrUnavailable", got)
	}
	var p interface{ Plain() string }
	if !errors.As(got, &p) || p.Plain() != store.ErrUnavailable.Error() {
		t.Errorf("the plain words of %v: %v", got, p)
	}
	if mapErr(errors.New("disk full")) != nil && errors.Is(mapErr(errors.New("disk full")), store.ErrUnavailable) {
		t.Error("any error is ErrUnavailable")
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40001"}, true},
		{&pgconn.PgError{Code: "40P01"}, true},
		{fmt.Errorf("commit: %w", &pgconn.PgError{Code: "40001"}), true},
		{&pgconn.PgError{Code: "23505"}, false},
		{errTransient, true},
		{sql.ErrNoRows, false},
		{context.DeadlineExceeded, false},
	}
	for _, tt := range tests {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("retryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}

	// A real SQLITE_BUSY: another connection holds the write lock and this
	// one does not wait.
	path := filepath.Join(t.TempDir(), "busy.db")
	holder, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Begin()
	if err == nil || !retryable(err) {
		t.Errorf("BEGIN IMMEDIATE under another writer: %v, retryable %v; want a retryable SQLITE_BUSY", err, retryable(err))
	}
}

func TestRetry(t *testing.T) {
	s := &Store{timeout: time.Second}
	ctx := context.Background()
	calls := 0
	err := s.retry(ctx, false, func(context.Context) error {
		calls++
		if calls < 3 {
			return errTransient
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("transient twice: %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	err = s.retry(ctx, false, func(context.Context) error { calls++; return errTransient })
	if !errors.Is(err, errTransient) || calls != maxAttempts {
		t.Errorf("always transient: %v after %d calls, want errTransient after %d", err, calls, maxAttempts)
	}
	calls = 0
	err = s.retry(ctx, false, func(context.Context) error { calls++; return sql.ErrNoRows })
	if !errors.Is(err, store.ErrNotFound) || calls != 1 {
		t.Errorf("permanent: %v after %d calls, want ErrNotFound after 1", err, calls)
	}
	// Each attempt has a deadline.
	err = s.retry(ctx, false, func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			return errors.New("no deadline")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
