package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Group commit of SQLite's game saves. SQLite has one writer, and with
// synchronous=FULL every commit waits for the disk; one save a
// transaction makes a thousand racers' moves queue behind each other's
// syncs. Instead, a save joins a queue, and the store's writer goroutine
// takes every save queued by then and stores them in one transaction:
// one sync for all. Nobody waits for a batch to fill: while one
// transaction is being synced the next batch gathers by itself, and the
// writer takes it as soon as the last is answered.
//
// The writer is a goroutine of its own rather than one of the savers
// (a leader, as on PostgreSQL): a leader goes back to its own session's
// work, and the saver that was to lead next would wait for the scheduler
// behind every goroutine its predecessor woke; on a loaded server that
// handoff was most of a save's wait.
//
// Each save keeps its own answer: it is told only once the transaction
// that holds it has committed (a move is shown only once it is stored),
// a save that changes no row (the game was claimed elsewhere, or
// finished) gets the reason, as on its own. A transaction that fails
// (the disk, a lock held by another process past busy_timeout and its
// retries) is rolled back whole, and its saves are then tried one by one,
// each with its own error.

// maxGroup bounds the saves of one transaction, so that one batch never
// holds the writer for long (a thousand saves are about 20 ms of it).
// It is large because a batch's syscalls each wait for the scheduler: on
// a busy server small batches took long enough for the moves to queue
// faster than they were stored (BenchmarkSaveMove/sqlite compares
// sizes).
const maxGroup = 1024

// saveReq is one save waiting for the writer, or (tx set) another write
// that rides in the group's transaction: a new game (CreateGame).
type saveReq struct {
	ctx    context.Context
	gameID int64
	owner  string
	args   []any
	// tx, when set, is the write itself, run in the batch's transaction
	// inside a savepoint of its own: an error it returns undoes it alone
	// and is its answer (a transient one fails the batch, retried).
	tx func(ctx context.Context, tx *sql.Tx) error
	// oneWrite: tx's one change is its last statement, undone by SQLite
	// when it fails, so it runs without a savepoint (two statements
	// fewer of the writer's).
	oneWrite bool
	done     chan error // buffered: the writer never waits on it
	// queued, turn, taken and stored are when the save joined the
	// queue, when the writer was free for it (the batch stored when it
	// came had ended), when the writer cut its batch and when that batch's
	// transaction ended; set only while the queue's times are kept
	// (saveTimes).
	queued, turn, taken, stored time.Time
}

// saveQueue is the saves waiting for the writer.
type saveQueue struct {
	mu      sync.Mutex
	pending []*saveReq
	// txs and stored count the transactions and the saves they held,
	// for tests and benchmarks.
	txs, stored int

	// stmt and create are saveSQL and createSQL prepared on SQLite's
	// writer when the store opens (prepareWriter), nil on PostgreSQL
	// (or when they could not be prepared): the writer's holder uses
	// them, Close closes them.
	stmt, create *sql.Stmt

	// times, when set, keeps where the saves' time goes (benchmarks).
	times *saveTimes
	// closed refuses new saves: the store is closing.
	closed bool
}

// add queues r; false once the store is closing.
func (q *saveQueue) add(r *saveReq) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if q.times != nil {
		r.queued = time.Now()
	}
	q.pending = append(q.pending, r)
	return true
}

// close refuses the saves queued from now on.
func (q *saveQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

// empty reports whether no save waits.
func (q *saveQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending) == 0
}

// remove takes r out of the queue; false when a leader took it already.
func (q *saveQueue) remove(r *saveReq) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := slices.Index(q.pending, r)
	if i < 0 {
		return false
	}
	q.pending = slices.Delete(q.pending, i, i+1)
	return true
}

// take takes up to maxGroup saves, oldest first, leaving out those whose
// caller gave up (they are told so). The queue's lock is held only to cut
// the batch off the queue: on a loaded machine a holder preempted holds
// up every save being queued.
func (q *saveQueue) take() []*saveReq {
	q.mu.Lock()
	var taken []*saveReq
	if len(q.pending) <= maxGroup {
		taken, q.pending = q.pending, nil
	} else {
		taken = slices.Clone(q.pending[:maxGroup])
		q.pending = slices.Delete(q.pending, 0, maxGroup)
	}
	q.mu.Unlock()
	batch := taken[:0]
	for _, r := range taken {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		batch = append(batch, r)
	}
	if len(batch) > 0 {
		q.mu.Lock()
		q.txs++
		q.stored += len(batch)
		if q.times != nil {
			q.times.took(batch)
		}
		q.mu.Unlock()
	}
	return batch
}

// counts returns the transactions led and the saves they held.
func (q *saveQueue) counts() (txs, saves int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.txs, q.stored
}

// groupSave stores one save through the group commit, and returns its
// own answer once the transaction that holds it has committed or failed.
func (s *Store) groupSave(ctx context.Context, gameID int64, owner string, args []any) error {
	return s.group(ctx, &saveReq{ctx: ctx, gameID: gameID, owner: owner, args: args, done: make(chan error, 1)})
}

// groupTx runs fn, a short write, in the group commit's next transaction
// (the race's first moves each create a game at once: a synced
// transaction each made the saves queue behind them), and returns its
// answer once that transaction has committed or failed. fn may run more
// than once (a batch retried), and on its own transaction when the
// batch's failed.
func (s *Store) groupTx(ctx context.Context, oneWrite bool, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.group(ctx, &saveReq{ctx: ctx, tx: fn, oneWrite: oneWrite, done: make(chan error, 1)})
}

// errClosing answers a save that comes while the store closes.
var errClosing = errors.New("the store is closing")

// group queues r for the writer goroutine (writeLoop) and waits for its
// answer.
func (s *Store) group(ctx context.Context, r *saveReq) error {
	if !s.saves.add(r) {
		return errClosing
	}
	if s.saves.times != nil {
		defer s.saves.times.answered(r)
	}
	select {
	case s.wake <- struct{}{}:
	default: // the writer has been told already
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		if s.saves.remove(r) {
			return ctx.Err()
		}
		// The writer has it: its transaction is bounded by the store's
		// timeout, and its answer is the truth about the save.
		return <-r.done
	}
}

// startWriter starts SQLite's writer goroutine; stopWriter ends it.
func (s *Store) startWriter() {
	s.wake = make(chan struct{}, 1)
	s.stop = make(chan struct{})
	s.stopped = make(chan struct{})
	go s.writeLoop()
}

// stopWriter refuses new saves, lets the writer store those queued and
// waits for it to end.
func (s *Store) stopWriter() {
	if s.stop == nil {
		return
	}
	s.saves.close()
	close(s.stop)
	<-s.stopped
	s.stop = nil
}

// writeLoop is SQLite's writer: told of a save, it stores batches
// until none waits.
func (s *Store) writeLoop() {
	defer close(s.stopped)
	for {
		select {
		case <-s.wake:
		case <-s.stop:
			for s.writeBatch() {
			}
			return
		}
		for s.writeBatch() {
		}
	}
}

// writeBatch stores one batch of the saves waiting, holding the writer
// (the gate, which the writes outside the group take too, in turn);
// false when none waited.
func (s *Store) writeBatch() bool {
	s.gate <- struct{}{}
	defer func() { <-s.gate }()
	for {
		if s.lead() {
			return true
		}
		if s.saves.empty() {
			return false
		}
		// Every save taken had been given up: take the next ones.
	}
}

// queue queues r and waits for its answer: whoever holds a place of gate
// next leads (lead stores everything queued by then), so nobody waits for
// a batch to fill. PostgreSQL's batch in flight and pgLead use it
// (SQLite has a writer goroutine instead: group).
func (s *Store) queue(ctx context.Context, r *saveReq, gate chan struct{}, lead func()) error {
	s.saves.add(r) // never closed on PostgreSQL
	if s.saves.times != nil {
		defer s.saves.times.answered(r)
	}
	for {
		select {
		case err := <-r.done:
			return err
		default:
		}
		select {
		case err := <-r.done:
			return err
		case gate <- struct{}{}:
			select {
			case err := <-r.done:
				// The last leader stored it: nothing to lead.
				<-gate
				return err
			default:
			}
			lead()
			<-gate
		case <-ctx.Done():
			if s.saves.remove(r) {
				return ctx.Err()
			}
			// A leader has it: its transaction is bounded by the store's
			// timeout, and its answer is the truth about the save.
			return <-r.done
		}
	}
}

// lead stores a batch of the saves waiting, holding the writer (the
// gate); false when it took none.
func (s *Store) lead() bool {
	batch := s.saves.take()
	if len(batch) == 0 {
		return false
	}
	errs, err := s.saveBatch(batch)
	if err != nil {
		// The transaction failed as a whole: each save on its own, so
		// that each gets its own error.
		for i, r := range batch {
			errs[i] = s.saveOne(r)
		}
	}
	s.saves.times.batchDone(batch)
	for i, r := range batch {
		r.done <- mapErr(errs[i])
	}
	return true
}

// batchContext is the context of a batch of saves: it ends once every
// caller in the batch gave up (its own context ended), so a batch is
// retried as long as somebody still waits for it. release frees it.
func batchContext(batch []*saveReq) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var waiting atomic.Int32
	waiting.Store(int32(len(batch)))
	stops := make([]func() bool, 0, len(batch))
	for _, r := range batch {
		stops = append(stops, context.AfterFunc(r.ctx, func() {
			if waiting.Add(-1) == 0 {
				cancel()
			}
		}))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// saveBatch stores a batch in one transaction, retried as a whole on
// transient failures, until every caller in it gave up (as a save on its
// own is retried until its caller gives up). errs has each save's answer
// when err is nil.
func (s *Store) saveBatch(batch []*saveReq) (errs []error, err error) {
	errs = make([]error, len(batch))
	ctx, release := batchContext(batch)
	defer release()
	err = s.retry(ctx, false, func(ctx context.Context) error {
		clear(errs)
		st := s.saves.stmt
		t0 := s.saves.times.now()
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		t1 := s.saves.times.now()
		// The batch's statements run without ctx's end: the driver
		// starts a goroutine to watch the context of every statement
		// that has one (a thousand per batch of a thousand saves, each
		// to be scheduled on a loaded server), and these, an UPDATE or
		// INSERT of one row each, have nothing to interrupt. The
		// transaction still ends with ctx: database/sql rolls it back
		// between two statements, and BEGIN IMMEDIATE, the one that
		// can wait for a lock, has it.
		sctx := context.WithoutCancel(ctx)
		exec := func(args []any) (sql.Result, error) { return tx.ExecContext(sctx, saveSQL, args...) }
		if st != nil {
			// SQLite's prepared statement on the one writer connection:
			// the UPDATE is not parsed again for every save.
			txst := tx.StmtContext(sctx, st)
			defer txst.Close()
			exec = func(args []any) (sql.Result, error) { return txst.ExecContext(sctx, args...) }
		}
		for i, r := range batch {
			if r.tx != nil {
				own, err := inSavepoint(sctx, tx, r)
				if err != nil {
					tx.Rollback()
					return fmt.Errorf("grouped write: %w", err)
				}
				errs[i] = own
				continue
			}
			res, err := exec(r.args)
			if err := oneRow(res, err); errors.Is(err, sql.ErrNoRows) {
				errs[i] = whyNot(sctx, tx, r.gameID, "", r.owner, writtenOf(r.args))
			} else if err != nil {
				tx.Rollback()
				return fmt.Errorf("save game %d: %w", r.gameID, err)
			}
		}
		t2 := s.saves.times.now()
		err = tx.Commit()
		s.saves.times.batch(len(batch), t1.Sub(t0), t2.Sub(t1), s.saves.times.now().Sub(t2))
		return err
	})
	return errs, err
}

// saveOne stores one save in its own statement (a grouped write in its
// own transaction), the writer held.
func (s *Store) saveOne(r *saveReq) error {
	if r.tx != nil {
		return s.retry(r.ctx, false, func(ctx context.Context) error {
			tx, err := s.w.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if err := r.tx(ctx, tx); err != nil {
				tx.Rollback()
				return err
			}
			return tx.Commit()
		})
	}
	return s.retry(r.ctx, false, func(ctx context.Context) error { return s.saveRow(ctx, r.gameID, r.owner, r.args) })
}

// inSavepoint runs a grouped write in tx inside a savepoint: its error
// (one that is not transient) undoes its writes alone and is its answer;
// a transient one, or a savepoint that fails, is the batch's.
func inSavepoint(ctx context.Context, tx *sql.Tx, r *saveReq) (own, batch error) {
	if r.oneWrite {
		if err := r.tx(ctx, tx); err != nil {
			if retryable(err) || ctx.Err() != nil {
				return nil, err
			}
			return err, nil
		}
		return nil, nil
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT grouped"); err != nil {
		return nil, err
	}
	if err := r.tx(ctx, tx); err != nil {
		if retryable(err) || ctx.Err() != nil {
			return nil, err
		}
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO grouped"); rerr != nil {
			return nil, rerr
		}
		own = err
	}
	if _, err := tx.ExecContext(ctx, "RELEASE grouped"); err != nil {
		return nil, err
	}
	return own, nil
}

// saveRow runs saveSQL with args in its own statement; a save that
// changes no row gets the reason (whyNot).
func (s *Store) saveRow(ctx context.Context, gameID int64, owner string, args []any) error {
	res, err := s.w.ExecContext(ctx, saveSQL, args...)
	if err := oneRow(res, err); errors.Is(err, sql.ErrNoRows) {
		return whyNot(ctx, s.r, gameID, "", owner, writtenOf(args))
	} else if err != nil {
		return err
	}
	return nil
}

// prepareWriter prepares saveSQL and createSQL on SQLite's writer (their
// table is there once the store is migrated); without them a save or a
// new game is parsed each time, as on PostgreSQL.
func (s *Store) prepareWriter(ctx context.Context) {
	if s.gate == nil {
		return
	}
	if st, err := s.w.PrepareContext(ctx, saveSQL); err == nil {
		s.saves.stmt = st
	}
	if st, err := s.w.PrepareContext(ctx, createSQL); err == nil {
		s.saves.create = st
	}
}
