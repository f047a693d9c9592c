package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// Group commit of PostgreSQL's game saves. Each save on its own is an
// autocommit UPDATE, and every commit waits for its WAL flush: in a race
// of 500 racers over two instances the saves were the biggest wait of
// the database (LWLock:WALWrite, a committer waiting for another's
// flush). Instead, as on SQLite (group.go), a save joins a queue and
// whoever finds no batch in flight (the leader) stores every save queued
// by then, in one statement: one UPDATE … FROM unnest(arrays) in
// autocommit, so one round trip and one WAL flush for all, with a fixed
// text (pgx prepares it once per connection, whatever the batch's size).
//
// Each save keeps its own answer: the statement returns the ids of the
// rows it changed, and a save whose row it did not change gets the
// reason (whyNot), as on its own. A statement that fails is retried
// whole while it is transient, and then its saves are tried one by one,
// each with its own error.
//
// At most pgInFlight batches of an instance are in flight at a time
// (pgGate): the next gathers while they run. A game saved twice in one batch (never by
// one session, which waits for its answer) is stored in two statements,
// in the order of the saves.

// pgInFlight is how many batches of saves may be in flight at once.
// One: in the cluster race (tools/loadgen/cluster-race.sh) it was the
// only setting that made both a racer's own move (shown once stored) and
// the opponent's panel faster, where two or four in flight made more
// commits and the panels slower. The price is at saturation, where
// PostgreSQL's own overlap of commits wins (BenchmarkSaveMove/postgres),
// far above what an instance saves in a race.
const pgInFlight = 1

// pgGroupSQL stores a batch of saves: saveSQL for each row of the arrays,
// with the same conditions (the owner, the version, still playing), returning the ids
// it changed. Its arrays are in pgRows' order.
const pgGroupSQL = `UPDATE games AS g SET moves = v.moves, redo = v.redo, status = v.status,
	removed = v.removed, elapsed_ms = v.elapsed_ms, updated_at = v.updated_at,
	finished_at = v.finished_at, version = g.version + 1,
	hints = GREATEST(g.hints, v.hints), undos = GREATEST(g.undos, v.undos),
	watched = (g.watched OR v.watched), move_ms = v.move_ms
	FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[],
		$7::bigint[], $8::bigint[], $9::bigint[], $10::integer[], $11::integer[], $12::boolean[], $13::text[], $14::bigint[])
		AS v(id, owner, moves, redo, status, removed, elapsed_ms, updated_at, finished_at, hints, undos, watched, move_ms, version)
	WHERE g.id = v.id AND g.owner = v.owner AND g.version = v.version AND g.status = 'playing'
	RETURNING g.id`

// pgRows is a batch of saves as the columns of pgGroupSQL.
type pgRows struct {
	id                               []int64
	owner, moves, redo, status, tims []string
	removed, hints, undos            []int64
	elapsed, updated                 []int64
	finished                         []*int64
	watched                          []bool
	version                          []int64
}

// add appends one save's saveArgs; false when they are not saveArgs'
// (a change of saveArgs that this file missed: the batch then goes one
// by one, which is always right).
func (p *pgRows) add(a []any) bool {
	if len(a) != 14 {
		return false
	}
	moves, ok1 := a[0].(string)
	redo, ok2 := a[1].(string)
	status, ok3 := a[2].(string)
	removed, ok4 := a[3].(int)
	elapsed, ok5 := a[4].(int64)
	updated, ok6 := a[5].(int64)
	finished, ok7 := a[6].(sql.NullInt64)
	id, ok8 := a[7].(int64)
	owner, ok9 := a[8].(string)
	hints, ok10 := a[9].(int)
	undos, ok11 := a[10].(int)
	watched, ok12 := a[11].(bool)
	times, ok13 := a[12].(string)
	version, ok14 := a[13].(int64)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && ok9 && ok10 && ok11 && ok12 && ok13 && ok14) {
		return false
	}
	p.id = append(p.id, id)
	p.owner = append(p.owner, owner)
	p.moves = append(p.moves, moves)
	p.redo = append(p.redo, redo)
	p.status = append(p.status, status)
	p.removed = append(p.removed, int64(removed))
	p.elapsed = append(p.elapsed, elapsed)
	p.updated = append(p.updated, updated)
	var fin *int64
	if finished.Valid {
		fin = &finished.Int64
	}
	p.finished = append(p.finished, fin)
	p.hints = append(p.hints, int64(hints))
	p.undos = append(p.undos, int64(undos))
	p.watched = append(p.watched, watched)
	p.tims = append(p.tims, times)
	p.version = append(p.version, version)
	return true
}

func (p *pgRows) args() []any {
	return []any{p.id, p.owner, p.moves, p.redo, p.status, p.removed, p.elapsed, p.updated,
		p.finished, p.hints, p.undos, p.watched, p.tims, p.version}
}

// pgGroupSave stores one save through PostgreSQL's group commit and
// returns its own answer once the statement that holds it is committed.
func (s *Store) pgGroupSave(ctx context.Context, gameID int64, owner string, args []any) error {
	r := &saveReq{ctx: ctx, gameID: gameID, owner: owner, args: args, done: make(chan error, 1)}
	return s.queue(ctx, r, s.pgGate, s.pgLead)
}

// pgLead stores the saves waiting, holding pgGate: each round holds at
// most one save of a game, in the order they came.
func (s *Store) pgLead() {
	batch := s.saves.take()
	for len(batch) > 0 {
		var round, later []*saveReq
		seen := make(map[int64]bool, len(batch))
		for _, r := range batch {
			if seen[r.gameID] {
				later = append(later, r)
				continue
			}
			seen[r.gameID] = true
			round = append(round, r)
		}
		errs, err := s.pgSaveBatch(round)
		if err != nil {
			for i, r := range round {
				errs[i] = s.saveOne(r)
			}
		}
		for i, r := range round {
			r.done <- mapErr(errs[i])
		}
		batch = later
	}
}

// pgSaveBatch stores saves of distinct games in one statement, retried
// whole on transient failures until every caller in it gave up. errs has
// each save's answer when err is nil.
func (s *Store) pgSaveBatch(batch []*saveReq) (errs []error, err error) {
	errs = make([]error, len(batch))
	var rows pgRows
	for _, r := range batch {
		if !rows.add(r.args) {
			return errs, fmt.Errorf("save game %d: unexpected save arguments", r.gameID)
		}
	}
	ctx, release := batchContext(batch)
	defer release()
	changed := make(map[int64]bool, len(batch))
	err = s.retry(ctx, false, func(ctx context.Context) error {
		clear(changed)
		res, err := s.w.QueryContext(ctx, pgGroupSQL, rows.args()...)
		if err != nil {
			return fmt.Errorf("save %d games: %w", len(batch), err)
		}
		defer res.Close()
		for res.Next() {
			var id int64
			if err := res.Scan(&id); err != nil {
				return fmt.Errorf("save %d games: %w", len(batch), err)
			}
			changed[id] = true
		}
		if err := res.Err(); err != nil {
			return fmt.Errorf("save %d games: %w", len(batch), err)
		}
		return nil
	})
	if err != nil {
		return errs, err
	}
	for i, r := range batch {
		if !changed[r.gameID] {
			errs[i] = s.retry(r.ctx, false, func(ctx context.Context) error {
				return whyNot(ctx, s.r, r.gameID, "", r.owner, writtenOf(r.args))
			})
		}
	}
	return errs, nil
}
