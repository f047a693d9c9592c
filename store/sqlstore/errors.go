package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"pyramid/store"
)

// This file is the one place where driver errors become store errors, and
// where transient ones are retried.

// mapErr turns a driver error into one that wraps the matching store
// sentinel (keeping the driver error in the chain), or returns it as is.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w (%w)", store.ErrNotFound, err)
	}
	if sentinel := uniqueViolation(err); sentinel != nil {
		return fmt.Errorf("%w (%w)", sentinel, err)
	}
	if unreachable(err) && !errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("%w (%w)", store.ErrUnavailable, err)
	}
	return err
}

// unreachable reports whether err says the database could not be
// reached, rather than that it refused the statement: no connection
// (refused, reset, timed out on the network), the connection lost, or the
// server shutting down or starting up. PostgreSQL's; SQLite is a file.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08, connection exception; 57P01–57P03, admin or crash
		// shutdown, cannot connect now.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	// A connection that broke under a statement (pgx says it was never
	// sent, or reports the closed connection), as database/sql reports it.
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}

// uniqueViolation returns the sentinel for a unique-constraint violation we
// know, or nil.
func uniqueViolation(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		switch pe.ConstraintName {
		case "players_name_key_key":
			return store.ErrNameTaken
		case "games_one_playing":
			return store.ErrInProgress
		case "games_one_per_race":
			return store.ErrExists
		}
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT {
		switch msg := se.Error(); {
		case strings.Contains(msg, "players.name_key"):
			return store.ErrNameTaken
		case strings.Contains(msg, "games.player_id, games.rules_id"):
			return store.ErrInProgress
		case strings.Contains(msg, "games.player_id, games.race_key"):
			return store.ErrExists
		}
	}
	return nil
}

// errTransient is returned by a transaction that met a concurrent change
// (on PostgreSQL, between two of its statements) and should simply run
// again.
var errTransient = errors.New("concurrent change, try again")

// retryable reports a transient failure worth running the whole
// transaction again for: SQLITE_BUSY/SQLITE_LOCKED (another process held the
// lock past busy_timeout), PostgreSQL serialization failure (40001) and
// deadlock (40P01).
func retryable(err error) bool {
	if errors.Is(err, errTransient) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

// maxAttempts bounds the tries of one operation.
const maxAttempts = 5

// retry runs fn until it succeeds, fails for good, or maxAttempts ran out,
// giving each attempt its own timeout (within which a writer also waits its
// turn at the gate) and waiting a little, with jitter, between attempts.
func (s *Store) retry(ctx context.Context, write bool, fn func(ctx context.Context) error) error {
	backoff := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := s.attempt(ctx, write, fn)
		if err == nil || !retryable(err) || attempt == maxAttempts {
			return mapErr(err)
		}
		wait := backoff/2 + rand.N(backoff)
		backoff *= 2
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(mapErr(err), ctx.Err())
		case <-t.C:
		}
	}
}

func (s *Store) attempt(ctx context.Context, write bool, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if write && s.gate != nil {
		select {
		case s.gate <- struct{}{}:
			t0 := s.saves.times.now()
			defer func() {
				s.saves.times.held(time.Since(t0))
				<-s.gate
			}()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fn(ctx)
}

// write runs fn, which writes through s.w outside a transaction, with
// retries.
func (s *Store) write(ctx context.Context, fn func(ctx context.Context) error) error {
	return s.retry(ctx, true, fn)
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE on SQLite), retried
// as a whole on transient failures.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.write(ctx, func(ctx context.Context) error {
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(ctx, tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// read runs fn against the read pool, with a timeout.
func (s *Store) read(ctx context.Context, fn func(ctx context.Context, db *sql.DB) error) error {
	return s.retry(ctx, false, func(ctx context.Context) error { return fn(ctx, s.r) })
}
