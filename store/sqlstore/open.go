// Package sqlstore implements the store interfaces on database/sql, for
// SQLite (modernc.org/sqlite, no cgo) and PostgreSQL (pgx/v5 stdlib) with one
// set of queries. Each dialect has its own embedded migrations.
//
// SQLite runs in WAL mode with synchronous=FULL, so a write is on disk when
// it returns; writes go through one connection whose transactions start
// with BEGIN IMMEDIATE, reads through a separate read-only pool. PostgreSQL
// runs at READ COMMITTED with statement and idle-transaction timeouts.
// Transient failures (SQLITE_BUSY, serialization failures, deadlocks) are
// retried.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"pyramid/rating"
	"pyramid/store"
)

// Compile-time checks that *Store implements every store interface.
var (
	_ store.Players = (*Store)(nil)
	_ store.Links   = (*Store)(nil)
	_ store.Games   = (*Store)(nil)
	_ store.Results = (*Store)(nil)
	_ store.Store   = (*Store)(nil)
)

// DBFile is the name of the SQLite database in the data directory.
const DBFile = "pyramid.db"

// Defaults for Config.
const (
	DefaultQueryTimeout  = 10 * time.Second
	DefaultReadConns     = 4
	DefaultPostgresConns = 16
)

// sqliteBusyTimeout is how long an SQLite connection waits for a lock held by
// another process (a backup, the sqlite3 shell) before SQLITE_BUSY.
const sqliteBusyTimeout = 5 * time.Second

// dialect is the database flavour behind a Store.
type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
)

func (d dialect) String() string {
	if d == dialectPostgres {
		return "postgres"
	}
	return "sqlite"
}

// Config says which database to open and how.
type Config struct {
	// DataDir holds the SQLite database (DBFile) when DatabaseURL is empty.
	DataDir string
	// DatabaseURL selects PostgreSQL ("postgres://…" or "postgresql://…").
	DatabaseURL string
	// Now is the clock for timestamps and code expiry; time.Now when nil.
	Now func() time.Time
	// QueryTimeout bounds every statement and transaction attempt;
	// DefaultQueryTimeout when zero.
	QueryTimeout time.Duration
	// ReadConns is the size of SQLite's read pool, or PostgreSQL's whole
	// pool; defaults when zero.
	ReadConns int
	// Rating is the model rated races are rated by, in the transaction
	// that records them; rating.Races() when nil.
	Rating *rating.Model
}

// Store is the database/sql store. It is safe for concurrent use.
type Store struct {
	dialect dialect
	w       *sql.DB // writes; SQLite: a single connection
	r       *sql.DB // reads; SQLite: a read-only pool, PostgreSQL: w
	// gate queues SQLite writers first come, first served (a channel's
	// blocked senders are served in order). Without it database/sql hands
	// the one writer connection to a random waiter, and under load the
	// unlucky ones wait far longer than their turn. nil on PostgreSQL.
	gate chan struct{}
	// saves are SQLite's game saves waiting for the writer, stored
	// together (group.go); soloSaves stores each in its own statement
	// instead (tests and benchmarks compare the two).
	saves     saveQueue
	soloSaves bool
	// rating rates the races recorded (Config.Rating).
	rating rating.Model
	// wake tells SQLite's writer goroutine (writeLoop) that saves wait;
	// closing stop ends it, and stopped once it has ended. nil on
	// PostgreSQL.
	wake          chan struct{}
	stop, stopped chan struct{}
	// pgGate is held by the PostgreSQL save batch in flight (pggroup.go):
	// saves queue in saves meanwhile. nil on SQLite.
	pgGate  chan struct{}
	now     func() time.Time
	timeout time.Duration
}

// Open opens the store: SQLite at dataDir/pyramid.db when databaseURL is
// empty, PostgreSQL when it is a postgres:// URL. It checks the database,
// applies pending migrations and refuses to open a damaged SQLite file.
func Open(ctx context.Context, dataDir, databaseURL string) (*Store, error) {
	return OpenConfig(ctx, Config{DataDir: dataDir, DatabaseURL: databaseURL})
}

// OpenConfig is Open with every knob.
func OpenConfig(ctx context.Context, cfg Config) (*Store, error) {
	s := &Store{now: cfg.Now, timeout: cfg.QueryTimeout, rating: rating.Races()}
	if cfg.Rating != nil {
		s.rating = *cfg.Rating
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.timeout <= 0 {
		s.timeout = DefaultQueryTimeout
	}
	var err error
	switch u := cfg.DatabaseURL; {
	case u == "":
		err = s.openSQLite(ctx, cfg)
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		err = s.openPostgres(ctx, cfg)
	default:
		return nil, fmt.Errorf("open store: unsupported database URL (want postgres://… or none for SQLite)")
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := s.fillSkeletons(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store: name skeletons: %w", err)
	}
	s.prepareWriter(ctx)
	logSaveTimes(s) // -tags storelat only
	return s, nil
}

// sqliteDSN builds the DSN of the SQLite database at path. busy_timeout is
// applied first by the driver, before journal_mode, which can itself meet a
// lock.
func sqliteDSN(path string, write bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if write {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		// Bound the -wal file left after a checkpoint.
		q.Add("_pragma", "journal_size_limit(67108864)")
		// Every write transaction takes the write lock up front: a
		// deferred one that reads first can fail with SQLITE_BUSY without
		// the busy handler ever being consulted.
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return path + "?" + q.Encode()
}

func (s *Store) openSQLite(ctx context.Context, cfg Config) error {
	s.dialect = dialectSQLite
	dir := cfg.DataDir
	if dir == "" {
		dir = "."
	}
	if strings.ContainsAny(dir, "?#") {
		return fmt.Errorf("data directory %q: '?' and '#' are not supported in the path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, DBFile)
	// Create the file private to us before SQLite does (it would use
	// 0644); its -wal and -shm files inherit the mode. O_EXCL: an existing
	// database is never opened and closed here, which would drop SQLite's
	// POSIX locks on it.
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return err
	}

	w, err := sql.Open("sqlite", sqliteDSN(path, true))
	if err != nil {
		return err
	}
	s.w = w
	// One writer: SQLite takes one write lock anyway, and queueing in Go
	// is cheaper and fairer than in the busy handler.
	s.gate = make(chan struct{}, 1)
	s.startWriter()
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := s.checkSQLite(ctx); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}

	r, err := sql.Open("sqlite", sqliteDSN(path, false))
	if err != nil {
		return err
	}
	s.r = r
	n := cfg.ReadConns
	if n <= 0 {
		n = DefaultReadConns
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	return nil
}

// checkSQLite makes sure the database is in WAL mode and sound.
func (s *Store) checkSQLite(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*s.timeout)
	defer cancel()
	// The first connection sets WAL mode (the DSN's pragma), which needs
	// the database to itself: a server opening the same new file at the
	// same moment can make it fail with SQLITE_BUSY without waiting in
	// the busy handler, so it is tried again.
	var mode string
	if err := s.retry(ctx, true, func(ctx context.Context) error {
		return s.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	}); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not WAL (is the data directory on a network file system?)", mode)
	}
	rows, err := s.w.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("quick_check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return fmt.Errorf("quick_check: %w", err)
		}
		if msg != "ok" && len(problems) < 5 {
			problems = append(problems, msg)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("quick_check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("database failed quick_check, refusing to use it: %s", strings.Join(problems, "; "))
	}
	return nil
}

func (s *Store) openPostgres(ctx context.Context, cfg Config) error {
	s.dialect = dialectPostgres
	pc, err := pgx.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		// The error may quote the URL, password and all.
		return errors.New("cannot parse the PostgreSQL URL")
	}
	// Server-side limits, unless the URL sets its own: a wedged session
	// must not hold row locks for ever.
	for k, v := range map[string]string{
		"statement_timeout":                   fmt.Sprint(s.timeout.Milliseconds()),
		"idle_in_transaction_session_timeout": fmt.Sprint(3 * s.timeout.Milliseconds()),
		"application_name":                    "pyramid",
	} {
		if _, ok := pc.RuntimeParams[k]; !ok {
			pc.RuntimeParams[k] = v
		}
	}
	db := stdlib.OpenDB(*pc)
	s.w, s.r = db, db
	s.pgGate = make(chan struct{}, pgInFlight)
	n := cfg.ReadConns
	if n <= 0 {
		n = DefaultPostgresConns
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return db.PingContext(ctx)
}

// Close closes the database.
func (s *Store) Close() error {
	s.stopWriter() // it stores what was queued first
	var err error
	if s.saves.stmt != nil {
		err = s.saves.stmt.Close()
	}
	if s.saves.create != nil {
		err = errors.Join(err, s.saves.create.Close())
	}
	if s.r != nil && s.r != s.w {
		err = errors.Join(err, s.r.Close())
	}
	if s.w != nil {
		err = errors.Join(err, s.w.Close())
	}
	return err
}

// Ping checks that the database answers a query, for health checks.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}
