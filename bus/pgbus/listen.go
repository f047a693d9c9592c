package pgbus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"pyramid/bus"
)

// connectTimeout bounds one attempt to connect, LISTEN and resync.
const connectTimeout = 10 * time.Second

// connect opens the listening connection, LISTENs and resyncs. Its
// configuration is parsed afresh each time: pgx must not reuse a
// ConnConfig once a connection made from it is gone.
func (b *Bus) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cfg, err := pgx.ParseConfig(b.url)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{b.channel}.Sanitize()+"; LISTEN "+pgx.Identifier{b.data}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("listen: %w", err)
	}
	// Listening first, then reading the counters: an event committed
	// after the read is notified, one before it is in the counters.
	if err := b.resync(ctx, conn); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("listen: resync: %w", err)
	}
	b.mu.Lock()
	b.listenPID = conn.PgConn().PID()
	close(b.connected)
	b.connected = make(chan struct{})
	b.mu.Unlock()
	return conn, nil
}

// resync reads the counters of every followed topic and wakes the
// subscriptions of those that went on: they read what they missed from
// the table. It also checks that the table still holds the last event
// of each topic's memory log: a crash of PostgreSQL may lose the last
// events of volatile publishes (PublishVolatile), whose numbers later
// events then take. Such a topic goes back to its last event kept
// (lostTail), and so do its subscriptions, so that they read the later
// events rather than skip them.
func (b *Bus) resync(ctx context.Context, conn *pgx.Conn) error {
	b.mu.Lock()
	names := make([]string, 0, len(b.topics))
	states := make([]*topicState, 0, len(b.topics))
	for name, t := range b.topics {
		names = append(names, name)
		states = append(states, t)
	}
	b.mu.Unlock()
	if len(names) == 0 {
		return nil
	}
	lasts := make([]int64, len(names))
	ids := make([]string, len(names)) // of the last event of the memory log; "" for none
	for i, t := range states {
		t.mu.Lock()
		lasts[i] = int64(t.loaded)
		if n := len(t.log); n > 0 && t.log[n-1].Seq == t.loaded {
			ids[i] = t.log[n-1].ID
		}
		t.mu.Unlock()
	}
	rows, err := conn.Query(ctx, `SELECT v.topic, coalesce(t.seq, 0), e.id
		FROM unnest($1::text[], $2::bigint[]) AS v(topic, last)
		LEFT JOIN bus_topics t ON t.topic = v.topic
		LEFT JOIN bus_events e ON e.topic = v.topic AND e.seq = v.last`, names, lasts)
	if err != nil {
		return err
	}
	type found struct {
		seq uint64
		id  *string // the table's event at the log's last; nil: none
	}
	seqs := map[string]found{}
	for rows.Next() {
		var name string
		var f found
		var seq int64
		if err := rows.Scan(&name, &seq, &f.id); err != nil {
			rows.Close()
			return err
		}
		f.seq = uint64(seq)
		seqs[name] = f
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i, name := range names {
		f := seqs[name]
		// Lost: the counter went back, or the log's last event is in
		// the table as another (a missing one was pruned, far behind).
		if f.seq < uint64(lasts[i]) || (ids[i] != "" && f.id != nil && *f.id != ids[i]) {
			if err := b.lostTail(ctx, conn, name, states[i], f.seq); err != nil {
				return err
			}
			continue
		}
		b.heardOf(name, f.seq)
	}
	return nil
}

// lostTail takes topic t back to its last event that the table still
// holds, by ID: the events after it were lost in a crash (resync).
// counter is the topic's counter as read.
func (b *Bus) lostTail(ctx context.Context, conn *pgx.Conn, topic string, t *topicState, counter uint64) error {
	t.mu.Lock()
	first, log := t.first(), slices.Clone(t.log)
	t.mu.Unlock()
	kept := map[uint64]string{}
	if len(log) > 0 {
		rows, err := conn.Query(ctx, `SELECT seq, id FROM bus_events WHERE topic = $1 AND seq BETWEEN $2 AND $3`,
			topic, int64(log[0].Seq), int64(log[len(log)-1].Seq))
		if err != nil {
			return err
		}
		for rows.Next() {
			var seq int64
			var id string
			if err := rows.Scan(&seq, &id); err != nil {
				rows.Close()
				return err
			}
			kept[uint64(seq)] = id
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	// The lost events are the topic's last: the log's events kept are
	// a prefix of it. With none kept, the table's counter says at most
	// how far the topic's events are the ones read.
	keep := min(first-1, counter)
	for _, ev := range log {
		if kept[ev.Seq] != ev.ID {
			break
		}
		keep = ev.Seq
	}
	b.logf("bus: topic %q lost its events after #%d (a crash of the database after volatile publishes): going back to it", topic, keep)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rewindLocked(min(keep, t.loaded), counter)
	return nil
}

// deliver takes an event this bus published or heard of with its data:
// the next event of a followed topic goes straight into the topic's
// memory log, with no read of the table; any other is only news that the
// topic has events up to it (heardLocked), which the subscriptions read
// from the table.
func (b *Bus) deliver(ev bus.Event) {
	t := b.topic(ev.Topic)
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ready && ev.Seq == t.loaded+1 {
		b.stats.delivered.Add(1)
		t.loadedLocked(t.loaded, []bus.Event{ev})
		return
	}
	t.heardLocked(ev.Seq)
}

// heardOf notes that topic, if followed, has events up to seq.
func (b *Bus) heardOf(topic string, seq uint64) {
	t := b.topic(topic)
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.heardLocked(seq)
}

// heardLocked notes that the topic has events up to seq, with t.mu held.
func (t *topicState) heardLocked(seq uint64) {
	if seq <= t.high {
		return
	}
	t.high = seq
	t.wakeLocked()
}

// listen hears notifications on conn until it fails, then reconnects,
// until the bus closes.
func (b *Bus) listen(conn *pgx.Conn) {
	defer close(b.heard)
	for {
		err := b.hear(conn)
		conn.Close(context.Background())
		b.mu.Lock()
		b.listenPID = 0
		b.mu.Unlock()
		if b.ctx.Err() != nil {
			return
		}
		lost := time.Now()
		b.logf("bus: lost the listening connection, reconnecting: %v", err)
		conn = b.reconnect()
		if conn == nil {
			return
		}
		deaf := time.Since(lost)
		b.logf("bus: listening again after %s", deaf.Round(time.Millisecond))
		if b.opts.OnResync != nil {
			b.opts.OnResync(deaf)
		}
	}
}

// reconnect connects again, at once and then with a doubling wait
// (retryDelay); nil when the bus closed first.
func (b *Bus) reconnect() *pgx.Conn {
	start := time.Now()
	var delay time.Duration
	for {
		conn, err := b.connect(b.ctx)
		if err == nil {
			return conn
		}
		if b.ctx.Err() != nil {
			return nil
		}
		delay = retryDelay(delay, time.Since(start), b.opts.ReconnectMax)
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-b.ctx.Done():
			timer.Stop()
			return nil
		}
	}
}

// The waits between two attempts to reconnect: from firstRetry, doubling
// up to quickRetry while the server has been out for less than
// quickFor (a restart, a failover: a refused attempt costs little, and
// the bus is back at most quickRetry after the server), then up to
// ReconnectMax.
const (
	firstRetry = 50 * time.Millisecond
	quickRetry = 250 * time.Millisecond
	quickFor   = 10 * time.Second
)

// retryDelay is the wait after a failed attempt to reconnect, the last
// wait being last (0 before the first), out since the connection was
// lost, capped at limit.
func retryDelay(last, out, limit time.Duration) time.Duration {
	next := max(firstRetry, 2*last)
	if out < quickFor {
		next = min(next, quickRetry)
	}
	return min(next, limit)
}

// minPingWait is the least time a ping of the listening connection gets.
const minPingWait = 2 * time.Second

// hear waits for notifications, pinging the connection after PingEvery
// of silence, until the connection fails or the bus closes.
func (b *Bus) hear(conn *pgx.Conn) error {
	for {
		ctx, cancel := context.WithTimeout(b.ctx, b.opts.PingEvery)
		n, err := conn.WaitForNotification(ctx)
		cancel()
		switch {
		case b.ctx.Err() != nil:
			return b.ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			// A ping gets at least minPingWait to answer, however short
			// the silence that calls for it: a loaded server (or a short
			// PingEvery) must not pass for a dead connection.
			pctx, cancel := context.WithTimeout(b.ctx, max(b.opts.PingEvery, minPingWait))
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
			continue
		case err != nil:
			return err
		}
		b.stats.heard.Add(1)
		if n.Channel == b.data {
			ev, ok := parseData(n.Payload)
			if !ok {
				continue
			}
			if b.opts.Trace.Enabled() {
				b.opts.Trace.Since("bus: stored → heard (commit, NOTIFY), "+topicClass(ev.Topic), ev.At)
			}
			b.deliver(ev)
			continue
		}
		topic, seq, ok := parsePayload(n.Payload)
		if !ok {
			continue
		}
		b.heardOf(topic, seq)
	}
}

func (b *Bus) logf(format string, args ...any) {
	if b.opts.Logf != nil {
		b.opts.Logf(format, args...)
	}
}

// topicClass is the first two parts of a topic's dotted name
// ("lobby.room" of "lobby.room.AB12"), for a trace.
func topicClass(topic string) string {
	if i := strings.IndexByte(topic, '.'); i >= 0 {
		if j := strings.IndexByte(topic[i+1:], '.'); j >= 0 {
			return topic[:i+1+j]
		}
	}
	return topic
}
