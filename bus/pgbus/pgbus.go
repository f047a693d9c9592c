// Package pgbus is the bus.Bus of servers that share one PostgreSQL: the
// events are rows of an append-only table, and LISTEN/NOTIFY only says
// that there are new ones.
//
// Publish runs one transaction: it takes the topic's next sequence number
// from a counter row (INSERT … ON CONFLICT DO UPDATE … RETURNING, whose
// row lock makes concurrent publishers of a topic, in any process, queue
// up and commit in sequence order), inserts the event row, and sends a
// NOTIFY whose payload is the sequence number and the topic, never the
// event: PostgreSQL delivers it at COMMIT, so a listener never hears of an
// event it cannot read yet, and never of one rolled back.
//
// Before it, the transaction sends a NOTIFY on a data channel whose
// payload holds the whole event (its time, ID, kind and body, base64),
// so that a listener puts the event in its memory log without reading
// the table: at most 8000 bytes, which an event's limits keep to. The
// table stays the source of truth: a data notification that is missed,
// repeated or out of order only makes the bus read the table, as the
// short one does (the short one, sent after it and then of no use to a
// listener of this version, stays for servers of an earlier version on
// the same database, which hear only it).
//
// Each Bus listens on ONE dedicated connection (a pgx.Conn of its own,
// never from the pool) on its two channels for all topics. It pings that
// connection between notifications, and when the connection dies it
// reconnects with a short backoff (at most Options.ReconnectMax, a second
// by default) and then resyncs: it reads every followed topic's counter
// and wakes its subscriptions, which read the table from their own
// sequence number on. So a notification lost while the connection was
// down loses nothing, and a repeated one reads nothing twice.
//
// PublishVolatile (a Coalescer's batches of progress) commits with
// synchronous_commit off: NOTIFY's commit-time lock, which every
// notifying commit of the database takes in turn, is then not held
// through a disk sync. A crash of PostgreSQL may lose the last of those
// events; the resync after it finds a followed topic whose last event
// read is gone or another, and takes the topic and its subscriptions
// back to the last event kept, so that the later events, which take the
// lost ones' numbers, are read.
//
// The bus keeps the last Options.Retain events of each topic in the table
// (older ones are pruned as new ones are published), none older than
// Options.MaxAge; a subscriber further behind gets a *bus.GapError, as
// with bus.Memory. A topic's counter row is never deleted, so its
// sequence numbers are never reused.
//
// The bus owns its tables, bus_topics, bus_events and bus_leases (Hold),
// and makes them (CREATE TABLE IF NOT EXISTS, under an advisory lock so
// that instances starting together do not race) in the connection's
// current schema when it opens: they are not store tables, no store code reads them, and a
// server on SQLite never needs them.
package pgbus

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"pyramid/bus"
)

// Defaults of Options.
const (
	DefaultRetain       = 1000
	DefaultPingEvery    = 5 * time.Second
	DefaultReconnectMax = time.Second
	DefaultConns        = 4
	DefaultMaxAge       = 24 * time.Hour
)

// pruneEvery is how often a bus deletes the events older than MaxAge.
const pruneEvery = time.Hour

// memRetain bounds how many recent events of a followed topic the bus
// keeps in memory for its subscriptions; a subscription further behind
// reads the table itself.
const memRetain = 256

// fetchLimit bounds the rows one read of the table returns.
const fetchLimit = 256

// Options configure a Bus.
type Options struct {
	// Retain is how many recent events of each topic the table keeps
	// (DefaultRetain when 0 or less; at least 100, what bustest assumes).
	Retain int
	// RetainTopic overrides Retain for some topics (at least Retain
	// each): a topic whose whole history a starting server reads (the
	// shared race rooms') keeps more.
	RetainTopic map[string]int
	// PingEvery is how long the listening connection may stay silent
	// before the bus pings it to find out whether it is dead
	// (DefaultPingEvery when 0).
	PingEvery time.Duration
	// ReconnectMax caps the wait between two attempts to reconnect the
	// listening connection (DefaultReconnectMax when 0); the first attempt
	// is immediate, and the waits stay at most 250 ms in the first 10 s
	// (retryDelay).
	ReconnectMax time.Duration
	// MaxAge is how long an event is kept at most (DefaultMaxAge when
	// 0): a topic no one publishes on any more (a finished race's) does
	// not keep its last Retain events forever. Its counter stays, so its
	// sequence numbers are never reused. A lease whose time ran out
	// longer ago than MaxAge is forgotten too (the lease of a server
	// long gone).
	MaxAge time.Duration
	// Conns is the size of the pool that publishes and reads events
	// (DefaultConns when 0). The listening connection is apart.
	Conns int
	// Logf, when set, is told of lost and regained connections.
	Logf func(format string, args ...any)
	// OnResync, when set, is called after every reconnect of the
	// listening connection, once the resync is done, with how long the
	// bus was deaf (from the loss being noticed to the resync).
	OnResync func(deaf time.Duration)
	// Trace, when set, times the bus's publishes and reads of the table
	// (a debugging aid).
	Trace *bus.Trace
}

// Bus is the PostgreSQL bus. It is safe for concurrent use.
type Bus struct {
	url     string
	pool    *pgxpool.Pool
	channel string // the short notifications: "seq topic"
	data    string // the notifications with the event: "seq topic at id kind body"
	stats   counters
	retain  int
	opts    Options

	ctx    context.Context // ends at Close: the listener and every query
	cancel context.CancelFunc
	done   chan struct{} // closed by Close
	heard  chan struct{} // closed when the listener ends
	pruned chan struct{} // closed when the pruner ends

	mu        sync.Mutex
	closed    bool
	topics    map[string]*topicState
	listenPID uint32        // the backend of the listening connection; 0 while down
	connected chan struct{} // closed and replaced at each (re)connect
}

var _ bus.Bus = (*Bus)(nil)

// topicState is what the bus knows of a topic its subscriptions follow.
// subs is under the bus's lock (Bus.mu, with the map of topics); the rest
// under the topic's own (mu), so that the listener and the subscriptions
// of one topic never wait for those of another.
type topicState struct {
	subs int

	mu     sync.Mutex
	ready  bool        // loaded is set
	loaded uint64      // every event up to loaded has been read into log
	log    []bus.Event // the last events read, ending at loaded, oldest first
	high   uint64      // the highest sequence number heard of
	// fetching: a subscription is reading the table for the others.
	fetching bool
	// wake is closed and replaced whenever loaded or high grows.
	wake chan struct{}
	// epoch counts the rewinds (rewindLocked): each took the topic back
	// to rewinds[i].to, where the subscriptions of an earlier epoch go
	// back too.
	epoch   uint64
	rewinds []rewind
}

// rewind is one going back of a topic whose last events the database
// lost (a crash after volatile publishes): its subscriptions of an
// earlier epoch than epoch+1 go back to to.
type rewind struct {
	epoch, to uint64
}

// rewindLocked takes the topic back to its event keep, the last it has
// that the table still holds (the later ones lost in a crash: later
// events took their numbers), with t.mu held; counter is the topic's
// counter as read. Subscriptions beyond keep go back to it (sub.rewound)
// and read on from there.
func (t *topicState) rewindLocked(keep, counter uint64) {
	if keep < t.first()-1 {
		t.log = t.log[:0]
	} else {
		t.log = t.log[:keep-(t.first()-1)]
	}
	t.loaded = keep
	t.high = max(keep, counter)
	t.rewinds = append(t.rewinds, rewind{epoch: t.epoch, to: keep})
	t.epoch++
	t.wakeLocked()
}

func (t *topicState) first() uint64 { return t.loaded - uint64(len(t.log)) + 1 }

func (t *topicState) wakeLocked() {
	close(t.wake)
	t.wake = make(chan struct{})
}

// topic returns the state of a followed topic, or nil.
func (b *Bus) topic(name string) *topicState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.topics[name]
}

// schemaSQL makes the bus's tables. bus_events' key is (topic, seq): a
// subscription's read is one range scan of it.
const schemaSQL = `
CREATE TABLE IF NOT EXISTS bus_topics (
	topic text PRIMARY KEY,
	seq bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS bus_events (
	topic text NOT NULL,
	seq bigint NOT NULL,
	id text NOT NULL,
	kind text NOT NULL,
	body bytea NOT NULL,
	at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (topic, seq),
	UNIQUE (topic, id)
);
CREATE TABLE IF NOT EXISTS bus_leases (
	name text PRIMARY KEY,
	holder text NOT NULL,
	expires timestamptz NOT NULL
);`

// schemaLock is the advisory lock key under which instances make the
// tables one at a time (CREATE TABLE IF NOT EXISTS alone races).
const schemaLock = 0x70797262 // "pyrb"

// Open connects to the PostgreSQL at databaseURL (a postgres:// URL, as
// the store takes), makes the bus's tables if need be and starts
// listening. It fails when the database cannot be reached.
func Open(ctx context.Context, databaseURL string, opts Options) (*Bus, error) {
	if opts.Retain <= 0 {
		opts.Retain = DefaultRetain
	}
	opts.Retain = max(opts.Retain, 100)
	if opts.PingEvery <= 0 {
		opts.PingEvery = DefaultPingEvery
	}
	if opts.ReconnectMax <= 0 {
		opts.ReconnectMax = DefaultReconnectMax
	}
	if opts.Conns <= 0 {
		opts.Conns = DefaultConns
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	pcfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	pcfg.MaxConns = int32(opts.Conns)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	b := &Bus{url: databaseURL, pool: pool, retain: opts.Retain, opts: opts,
		done: make(chan struct{}), heard: make(chan struct{}), pruned: make(chan struct{}),
		topics: map[string]*topicState{}, connected: make(chan struct{})}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	schema, err := b.migrate(ctx)
	if err != nil {
		b.cancel()
		pool.Close()
		return nil, fmt.Errorf("open bus: %w", err)
	}
	b.channel = channelName(schema)
	b.data = b.channel + "_d"
	conn, err := b.connect(ctx)
	if err != nil {
		b.cancel()
		pool.Close()
		return nil, fmt.Errorf("open bus: %w", err)
	}
	go b.listen(conn)
	go b.pruneOld()
	return b, nil
}

// pruneOld deletes the events older than MaxAge (and the leases run out
// that long ago), now and every pruneEvery, until the bus closes. Every
// instance does it; the deletes are idempotent.
func (b *Bus) pruneOld() {
	defer close(b.pruned)
	tick := time.NewTicker(pruneEvery)
	defer tick.Stop()
	for {
		if err := b.prune(b.ctx); err != nil && b.ctx.Err() == nil {
			b.logf("bus: prune old events: %v", err)
		}
		select {
		case <-b.ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// prune deletes the events older than MaxAge, and the leases whose time
// ran out more than MaxAge ago: each server that ever ran holds a lease
// of its own while it runs (lobby's "lobby.instance.NAME"), and without
// this the row of every server long gone would stay. Forgetting a lease
// that ran out long ago changes no answer of Hold but who held it
// before, which matters only to the server that takes over at once.
// Rows another statement holds are skipped (the next prune gets them),
// so two servers' prunes never wait on each other or on a Hold.
func (b *Bus) prune(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	age := b.opts.MaxAge.Seconds()
	if _, err := b.pool.Exec(ctx, `DELETE FROM bus_events WHERE at < now() - make_interval(secs => $1)`, age); err != nil {
		return err
	}
	_, err := b.pool.Exec(ctx, `DELETE FROM bus_leases WHERE name IN (
		SELECT name FROM bus_leases WHERE expires < now() - make_interval(secs => $1) FOR UPDATE SKIP LOCKED)`, age)
	return err
}

// migrate makes the tables and returns the current schema.
func (b *Bus) migrate(ctx context.Context) (string, error) {
	var schema string
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(schemaLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, schemaSQL); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT current_schema()").Scan(&schema)
	})
	if err != nil {
		return "", fmt.Errorf("make the bus tables: %w", err)
	}
	return schema, nil
}

// channelName is the NOTIFY channel of the buses on a schema: channels are
// per database, not per schema, so buses on different schemas of one
// database (the tests' way) must not hear each other.
func channelName(schema string) string {
	h := fnv.New32a()
	h.Write([]byte(schema))
	return fmt.Sprintf("pyr_bus_%08x", h.Sum32())
}

// Publish implements bus.Bus: one transaction takes the topic's next
// sequence number, stores the event and sends its NOTIFY.
func (b *Bus) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	if err := bus.Check(topic, m); err != nil {
		return bus.Event{}, fmt.Errorf("publish on %q: %w", topic, err)
	}
	if err := b.live(ctx); err != nil {
		return bus.Event{}, fmt.Errorf("publish on %q: %w", topic, err)
	}
	ctx, stop := b.bound(ctx)
	defer stop()
	given := m.ID != ""
	if !given {
		m.ID = bus.NewID()
	}
	ev := bus.Event{Topic: topic, ID: m.ID, Kind: m.Kind, Body: append([]byte{}, m.Body...)} // bytea NOT NULL
	if b.opts.Trace.Enabled() {
		defer b.opts.Trace.Since("bus: publish (pool, statement, commit)", time.Now())
	}
	if !given {
		return b.publishNew(ctx, ev)
	}
	err := b.inTx(ctx, func(tx pgx.Tx) error { return b.publishTx(ctx, tx, &ev) })
	switch {
	case errors.Is(err, errDuplicate):
		// The topic has this event already (a retry of a fixed ID, the
		// end of a race two servers publish): should this process's
		// subscriptions have missed it, they read up to it now instead
		// of never hearing of it again (heardOf does nothing when they
		// have it).
		b.heardOf(topic, ev.Seq)
		return ev, nil
	case err != nil:
		return bus.Event{}, fmt.Errorf("publish on %q: %w", topic, b.cause(err))
	}
	// This process's own subscriptions need not wait for the NOTIFY to
	// come back (nor for a reconnect, should the listener be down).
	b.published(1)
	b.deliver(ev)
	return ev, nil
}

// publishTx publishes ev, whose ID was given, in tx: it fills in its
// sequence number and time, or returns errDuplicate with ev as the topic
// holds it.
func (b *Bus) publishTx(ctx context.Context, tx pgx.Tx, ev *bus.Event) error {
	// The counter row's lock queues the topic's publishers until this
	// transaction ends: sequence order is commit order, and a rollback
	// gives the number back.
	var seq int64
	if err := tx.QueryRow(ctx, `INSERT INTO bus_topics AS t (topic, seq) VALUES ($1, 1)
		ON CONFLICT (topic) DO UPDATE SET seq = t.seq + 1 RETURNING seq`, ev.Topic).Scan(&seq); err != nil {
		return err
	}
	// Under the lock, a publish of the same ID by anyone has committed
	// or not started.
	err := tx.QueryRow(ctx, `SELECT seq, kind, body, at FROM bus_events WHERE topic = $1 AND id = $2`,
		ev.Topic, ev.ID).Scan(&seq, &ev.Kind, &ev.Body, &ev.At)
	if err == nil {
		ev.Seq = uint64(seq)
		return errDuplicate
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	ev.Seq = uint64(seq)
	if err := tx.QueryRow(ctx, `INSERT INTO bus_events (topic, seq, id, kind, body) VALUES ($1, $2, $3, $4, $5)
		RETURNING at, pg_notify($7, $2::text || ' ' || $1 || ' ' || (extract(epoch FROM at) * 1000000)::bigint::text || $8),
			pg_notify($6, $2::text || ' ' || $1)`,
		ev.Topic, seq, ev.ID, ev.Kind, ev.Body, b.channel, b.data, dataTail(*ev)).Scan(&ev.At, nil, nil); err != nil {
		return err
	}
	// Prune now and then rather than at every publish: the table keeps
	// between Retain and Retain+31 events of the topic.
	if keep := int64(b.retainOf(ev.Topic)); seq > keep && seq%32 == 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM bus_events WHERE topic = $1 AND seq <= $2`, ev.Topic, seq-keep); err != nil {
			return err
		}
	}
	return nil
}

// publishSQL publishes an event whose ID is new (made by the bus) in one
// statement, so one round trip and one transaction: the counter's row
// lock is held to its end, as in the transaction of Publish, and the
// pruning CTE runs whether or not it deletes anything.
const publishSQL = `WITH s AS (
	INSERT INTO bus_topics AS t (topic, seq) VALUES ($1, 1)
	ON CONFLICT (topic) DO UPDATE SET seq = t.seq + 1 RETURNING seq
), e AS (
	INSERT INTO bus_events (topic, seq, id, kind, body) SELECT $1, s.seq, $2, $3, $4 FROM s RETURNING seq, at
), pruned AS (
	DELETE FROM bus_events WHERE topic = $1 AND seq <= (SELECT seq FROM s) - $6 AND (SELECT seq FROM s) % 32 = 0
)
SELECT e.seq, e.at, pg_notify($7, e.seq::text || ' ' || $1 || ' ' || (extract(epoch FROM e.at) * 1000000)::bigint::text || $8),
	pg_notify($5, e.seq::text || ' ' || $1) FROM e`

var _ bus.VolatileBatcher = (*Bus)(nil)

// PublishBatch implements bus.Batcher: one transaction publishes every
// post, so one commit and one turn of NOTIFY's commit-time lock for all;
// posts with fresh IDs go to the server in one round trip. The posts take
// their topics' counter rows in the order of the topics, so that batches
// of overlapping topics from several servers never deadlock.
func (b *Bus) PublishBatch(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	return b.publishBatch(ctx, posts, false)
}

// PublishVolatile implements bus.VolatileBatcher: PublishBatch in a
// transaction with synchronous_commit off, whose commit returns before
// its WAL is flushed (the WAL writer flushes it within a few hundred
// milliseconds). NOTIFY's commit-time lock, which serializes every
// notifying commit of the database, is then held for no disk sync: at
// 500 racers over two servers the progress batches were most of the
// commits that queued for it, each holding it through its own sync.
// A crash of PostgreSQL (not a restart, which flushes) may lose the last
// of these events; the resync after the reconnect finds out (resync).
func (b *Bus) PublishVolatile(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	return b.publishBatch(ctx, posts, true)
}

// asyncCommitSQL makes the current transaction's commit not wait for
// its WAL flush (set_config's is_local: until the transaction ends; in
// a batch sent without BEGIN, the implicit transaction that ends at its
// Sync).
const asyncCommitSQL = `SELECT set_config('synchronous_commit', 'off', true)`

// publishBatch is PublishBatch, volatile or not.
func (b *Bus) publishBatch(ctx context.Context, posts []bus.Post, volatile bool) ([]bus.Event, error) {
	for _, p := range posts {
		if err := bus.Check(p.Topic, p.Message); err != nil {
			return nil, fmt.Errorf("publish on %q: %w", p.Topic, err)
		}
	}
	if err := b.live(ctx); err != nil {
		return nil, fmt.Errorf("publish a batch: %w", err)
	}
	if len(posts) == 0 {
		return nil, nil
	}
	ctx, stop := b.bound(ctx)
	defer stop()
	if b.opts.Trace.Enabled() {
		defer b.opts.Trace.Since("bus: publish a batch (pool, statements, commit)", time.Now())
	}
	evs := make([]bus.Event, len(posts))
	given := make([]bool, len(posts))
	anyGiven := false
	for i, p := range posts {
		given[i] = p.ID != ""
		anyGiven = anyGiven || given[i]
		if !given[i] {
			p.ID = bus.NewID()
		}
		evs[i] = bus.Event{Topic: p.Topic, ID: p.ID, Kind: p.Kind, Body: append([]byte{}, p.Body...)}
	}
	order := make([]int, len(posts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(posts[i].Topic, posts[j].Topic) })
	var err error
	dups := 0
	if !anyGiven {
		// One round trip: the statements of a batch run in one implicit
		// transaction, so they commit together or not at all.
		err = again(ctx, func() error { return b.publishFresh(ctx, b.pool, evs, order, volatile) })
	} else {
		err = b.inTx(ctx, func(tx pgx.Tx) (err error) {
			if volatile {
				if _, err := tx.Exec(ctx, asyncCommitSQL); err != nil {
					return err
				}
			}
			dups, err = b.publishGiven(ctx, tx, evs, given, order)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("publish a batch on %q…: %w", posts[0].Topic, b.cause(err))
	}
	if n := len(evs) - dups; n > 0 {
		b.published(n)
	}
	// A duplicate's event is the topic's stored one: delivered as an
	// event heard, it catches up this process's subscriptions that had
	// missed it (as Publish's heardOf does), and changes nothing for
	// those that had it.
	for _, ev := range evs {
		b.deliver(ev)
	}
	return evs, nil
}

// publishGiven publishes the events evs[i] of order in tx, those with a
// given ID (given[i]) as Publish does: it returns how many of those the
// topic held already (their evs[i] are then the stored events).
func (b *Bus) publishGiven(ctx context.Context, tx pgx.Tx, evs []bus.Event, given []bool, order []int) (dups int, err error) {
	for _, i := range order {
		if !given[i] {
			if err := b.publishFresh(ctx, tx, evs, []int{i}, false); err != nil {
				return 0, err
			}
			continue
		}
		// A savepoint gives the counter's number back when the ID
		// is the topic's already.
		err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { return b.publishTx(ctx, sp, &evs[i]) })
		switch {
		case errors.Is(err, errDuplicate):
			dups++
		case err != nil:
			return 0, err
		}
	}
	return dups, nil
}

// batchSender is a pool or a transaction.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// publishFresh publishes the events evs[i] of order, whose IDs are new,
// in one round trip (one transaction: the pool's implicit one, or tx's),
// volatile: with synchronous_commit off for that transaction.
func (b *Bus) publishFresh(ctx context.Context, tx batchSender, evs []bus.Event, order []int, volatile bool) error {
	batch := &pgx.Batch{}
	if volatile {
		batch.Queue(asyncCommitSQL)
	}
	for _, i := range order {
		ev := &evs[i]
		batch.Queue(b.publishText(ev.Topic), ev.Topic, ev.ID, ev.Kind, ev.Body, b.channel, int64(b.retainOf(ev.Topic)), b.data, dataTail(*ev)).QueryRow(func(row pgx.Row) error {
			var seq int64
			err := row.Scan(&seq, &ev.At, nil, nil)
			ev.Seq = uint64(seq)
			return err
		})
	}
	return tx.SendBatch(ctx, batch).Close()
}

// publishText is publishSQL, led when tracing by a comment naming the
// topic's class ("/* lobby.room */ …"), so that PostgreSQL's
// pg_stat_activity tells which topics' publishes wait (cluster-race.sh's
// WAITS=1): a few statement texts more, each prepared once.
func (b *Bus) publishText(topic string) string {
	if !b.opts.Trace.Enabled() {
		return publishSQL
	}
	class := topicClass(topic)
	if strings.Contains(class, "*/") {
		return publishSQL
	}
	return "/* " + class + " */ " + publishSQL
}

// retainOf is how many recent events of topic the table keeps.
func (b *Bus) retainOf(topic string) int {
	if n, ok := b.opts.RetainTopic[topic]; ok {
		return max(n, b.retain)
	}
	return b.retain
}

// publishNew publishes an event with a fresh ID: no earlier publish can
// hold it, so there is nothing to look up first.
func (b *Bus) publishNew(ctx context.Context, ev bus.Event) (bus.Event, error) {
	body := ev.Body
	if body == nil {
		body = []byte{} // bytea NOT NULL
	}
	err := again(ctx, func() error {
		var seq int64
		err := b.pool.QueryRow(ctx, b.publishText(ev.Topic), ev.Topic, ev.ID, ev.Kind, body, b.channel, int64(b.retainOf(ev.Topic)), b.data, dataTail(ev)).Scan(&seq, &ev.At, nil, nil)
		ev.Seq = uint64(seq)
		return err
	})
	if err != nil {
		return bus.Event{}, fmt.Errorf("publish on %q: %w", ev.Topic, b.cause(err))
	}
	b.published(1)
	b.deliver(ev)
	return ev, nil
}

// inTx runs fn in a transaction, again (up to four more times) when it
// failed without committing anything: a pooled connection whose backend
// died (a restart, pg_terminate_backend) fails its next use, and that
// must not cost an event.
func (b *Bus) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return again(ctx, func() error { return pgx.BeginFunc(ctx, b.pool, fn) })
}

// again runs fn, and again (up to four more times, one more than the
// pool's default size) while it fails in a way that is retriable.
func again(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || attempt == 4 || !retriable(err) || ctx.Err() != nil {
			return err
		}
	}
}

// retriable: err says nothing was committed and another connection may
// do better: nothing reached the server, or the server said it ended the
// session (SQLSTATE class 57P: admin or crash shutdown, not accepting
// connections yet), which rolls back whatever it was doing. A connection
// lost during COMMIT is neither: the commit may have happened.
func retriable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.Code, "57P")
	}
	return pgconn.SafeToRetry(err)
}

// errDuplicate rolls back the publish of an ID the topic holds.
var errDuplicate = errors.New("duplicate")

// live fails when the bus is closed or ctx is over.
func (b *Bus) live(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-b.done: // closed by Close: no wait for the bus's lock
		return bus.ErrClosed
	default:
		return nil
	}
}

// cause is err, or ErrClosed when the bus was closed under it.
func (b *Bus) cause(err error) error {
	if b.ctx.Err() != nil {
		return bus.ErrClosed
	}
	return err
}

// bound is ctx, also ended when the bus closes.
func (b *Bus) bound(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(b.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// Subscribe implements bus.Bus.
func (b *Bus) Subscribe(ctx context.Context, topic string, since uint64) (bus.Subscription, error) {
	if err := bus.Check(topic, bus.Message{}); err != nil {
		return nil, fmt.Errorf("subscribe to %q: %w", topic, err)
	}
	if err := b.live(ctx); err != nil {
		return nil, fmt.Errorf("subscribe to %q: %w", topic, err)
	}
	// Follow the topic before reading its counter, so that no
	// notification after the read goes unheard.
	b.mu.Lock()
	t := b.topics[topic]
	if t == nil {
		t = &topicState{wake: make(chan struct{})}
		b.topics[topic] = t
	}
	t.subs++
	b.mu.Unlock()
	qctx, stop := b.bound(ctx)
	defer stop()
	var cur int64
	err := again(qctx, func() error {
		return b.pool.QueryRow(qctx, `SELECT seq FROM bus_topics WHERE topic = $1`, topic).Scan(&cur)
	})
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		b.unfollow(topic, t)
		return nil, fmt.Errorf("subscribe to %q: %w", topic, b.cause(err))
	}
	t.mu.Lock()
	if !t.ready {
		// The first subscription: the memory log starts now.
		t.loaded, t.ready = uint64(cur), true
	}
	t.high = max(t.high, uint64(cur))
	epoch := t.epoch
	t.mu.Unlock()
	if since == bus.Latest {
		since = uint64(cur)
	}
	return &sub{b: b, t: t, topic: topic, cursor: since, epoch: epoch, done: make(chan struct{})}, nil
}

// unfollow drops a subscription's hold on its topic.
func (b *Bus) unfollow(topic string, t *topicState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t.subs--
	if t.subs == 0 && b.topics[topic] == t {
		delete(b.topics, topic)
	}
}

// Close implements bus.Bus: it stops listening and closes the pool.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.done)
	b.mu.Unlock()
	b.cancel()
	<-b.heard
	<-b.pruned
	b.pool.Close()
	return nil
}

// read reads up to fetchLimit events of topic after seq from the table,
// again at once when a dead pooled connection failed it.
func (b *Bus) read(ctx context.Context, topic string, after uint64) ([]bus.Event, error) {
	ctx, stop := b.bound(ctx)
	defer stop()
	var evs []bus.Event
	err := again(ctx, func() (err error) {
		evs, err = b.readOnce(ctx, topic, after)
		return err
	})
	return evs, err
}

func (b *Bus) readOnce(ctx context.Context, topic string, after uint64) ([]bus.Event, error) {
	b.stats.reads.Add(1)
	if b.opts.Trace.Enabled() {
		defer b.opts.Trace.Since("bus: read of the table (pool, query)", time.Now())
	}
	rows, err := b.pool.Query(ctx, `SELECT seq, id, kind, body, at FROM bus_events
		WHERE topic = $1 AND seq > $2 ORDER BY seq LIMIT $3`, topic, int64(after), fetchLimit)
	if err != nil {
		return nil, b.cause(err)
	}
	var evs []bus.Event
	for rows.Next() {
		ev := bus.Event{Topic: topic}
		var seq int64
		if err := rows.Scan(&seq, &ev.ID, &ev.Kind, &ev.Body, &ev.At); err != nil {
			rows.Close()
			return nil, err
		}
		ev.Seq = uint64(seq)
		evs = append(evs, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, b.cause(err)
	}
	return evs, nil
}

// dataTail is the end of an event's data notification, after its
// sequence number, topic and time (which the database gives): its ID,
// kind and body in base64, each after a space.
func dataTail(ev bus.Event) string {
	enc := base64.RawStdEncoding
	return " " + enc.EncodeToString([]byte(ev.ID)) + " " + enc.EncodeToString([]byte(ev.Kind)) + " " + enc.EncodeToString(ev.Body)
}

// parseData reads a data notification: "seq topic at id kind body", the
// time in Unix µs, the ID, kind and body in base64.
func parseData(p string) (bus.Event, bool) {
	f := strings.Split(p, " ")
	if len(f) != 6 {
		return bus.Event{}, false
	}
	seq, err1 := strconv.ParseUint(f[0], 10, 64)
	at, err2 := strconv.ParseInt(f[2], 10, 64)
	enc := base64.RawStdEncoding
	id, err3 := enc.DecodeString(f[3])
	kind, err4 := enc.DecodeString(f[4])
	body, err5 := enc.DecodeString(f[5])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil || seq == 0 {
		return bus.Event{}, false
	}
	return bus.Event{Topic: f[1], Seq: seq, ID: string(id), Kind: string(kind), Body: body, At: time.UnixMicro(at)}, true
}

// parsePayload reads a notification's "seq topic".
func parsePayload(p string) (topic string, seq uint64, ok bool) {
	n, topic, ok := strings.Cut(p, " ")
	if !ok {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	return topic, seq, err == nil
}

// counters are a Bus's Stats.
type counters struct {
	published, commits, heard, delivered, reads atomic.Int64
}

// published counts one commit of n events.
func (b *Bus) published(n int) {
	b.stats.commits.Add(1)
	b.stats.published.Add(int64(n))
}

// Stats are a Bus's counts since it opened.
type Stats struct {
	// Published is the events this bus published (a repeated ID not
	// counted); Commits the transactions that published them (a batch is
	// one), each one turn of NOTIFY's commit-time lock.
	Published, Commits int64
	// Heard is the notifications the listening connection heard (each
	// event sends two: the short one and the one with its data).
	Heard int64
	// Delivered is the events that went into the memory log from their
	// data (a notification or this bus's own publish), without a read.
	Delivered int64
	// Reads is the reads of the events table.
	Reads int64
}

// Stats returns the bus's counts so far.
func (b *Bus) Stats() Stats {
	return Stats{Published: b.stats.published.Load(), Commits: b.stats.commits.Load(), Heard: b.stats.heard.Load(),
		Delivered: b.stats.delivered.Load(), Reads: b.stats.reads.Load()}
}
