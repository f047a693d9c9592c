package cluster

// The race rooms' log (lobby.RoomLog) over a bus: the rooms' ops on one
// topic, RoomsTopic, which the bus numbers and, on PostgreSQL, notifies
// in the transaction that stores each, so that every server reads the
// same ops in the same order; the progress of each server's racers on a
// topic per room and server (ProgressTopic); the races' lease, the
// cluster's clock, and the death of servers.
//
//   - A server that asks for a change publishes its op and waits until
//     its own read of the topic has applied it, for the verdict (Do).
//   - Progress is coalesced: at most one event per server per room per
//     ProgressEvery (bus.Coalescer, each event made when it goes out, from
//     the room as it is then, holding all of the server's racers of the
//     room and the moves each made since the event before); the rooms due
//     together go out in one batch (one commit on PostgreSQL), volatile
//     (the commit does not wait for the disk) but for news (a racer's
//     stored game or end: OfferNow). A server reads the progress topic of
//     every other server with a member in a room (Follow).
//   - Every LeaseTTL/3 each server measures its offset to the cluster's
//     clock (DBNow), keeps its own lease (the proof that it runs), and
//     tries to hold the races' lease; the holder watches the own leases
//     of the servers with sessions in rooms: one that ran out is a
//     server that died, and the holder takes it (so a server is declared
//     gone once) and logs OpGone; then it runs the rooms' Duties.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"pyramid/bus"
	"pyramid/lobby"
)

// RoomsTopic is the bus topic of the rooms' ops.
const RoomsTopic = "lobby.rooms"

// RoomsRetain is how many events of RoomsTopic a bus should keep (a
// starting server reads them all to know the rooms open): far more than
// any day's rooms make.
const RoomsRetain = 100_000

// ProgressTopic is the bus topic of one room's racer progress as one
// server (inst) publishes it: each server's own topic, so that two
// servers' batches never wait on each other's lock of one topic's
// counter row (PostgreSQL: Lock:transactionid, the second batch waiting
// for the first's commit).
func ProgressTopic(code, inst string) string { return "lobby.room." + code + "." + inst }

// Defaults of RoomsConfig.
const (
	DefaultLeaseTTL = 6 * time.Second
	// DefaultProgressEvery is short: the Coalescer sends the progress of
	// all the rooms due in one batch (one commit on PostgreSQL), so the
	// cost of the bus is its commits, a few a second per server, more
	// than the events; a racer's move waits at most this long for it.
	DefaultProgressEvery = 100 * time.Millisecond
)

// RacesLease is the name of the races' lease: its holder runs the rooms'
// clock.
const RacesLease = "lobby.races"

// InstanceLease is the name of the lease a server (inst) holds while it
// runs: the races' holder takes the lease of a server whose lease ran
// out, and so learns that it died.
func InstanceLease(inst string) string { return instanceLeasePrefix + inst }

const (
	instanceLeasePrefix = "lobby.instance."
	// roomsTimeout bounds one publish, lease call or wait for a verdict.
	roomsTimeout = 5 * time.Second
)

// RoomsConfig configures the rooms and their log.
type RoomsConfig struct {
	// RoomsConfig is the rooms' own settings (the server's instance
	// name, its clock, limits and hooks).
	lobby.RoomsConfig
	// Bus carries the rooms between servers. Nil: the rooms of a server
	// alone, over a bus and a lease of its own in memory.
	Bus bus.Bus
	// Lease decides which server runs the rooms' clock (required with a
	// Bus); LeaseTTL is its time to live (DefaultLeaseTTL when 0).
	Lease    Lease
	LeaseTTL time.Duration
	// DBNow reads the cluster's clock (the database's); nil: Clock.Now.
	DBNow func(ctx context.Context) (time.Time, error)
	// ProgressEvery is the least time between two progress events of
	// one room from this server (DefaultProgressEvery when 0).
	ProgressEvery time.Duration
	// Trace, when set, times the other servers' progress on its way here
	// (a debugging aid: each progress event then carries the time it was
	// offered, and the servers of a cluster are on one box's clock or
	// close).
	Trace *bus.Trace
}

// Rooms is this server's race rooms (lobby.Rooms: every method of the
// rooms) over their log on the bus.
type Rooms struct {
	*lobby.Rooms
	log *roomLog
}

// roomLog is lobby.RoomLog over a bus.
type roomLog struct {
	cfg    RoomsConfig
	rooms  *lobby.Rooms
	ctx    context.Context
	cancel context.CancelFunc
	ended  sync.WaitGroup
	coal   *bus.Coalescer
	own    bus.Bus // the bus in memory of a server alone, closed with the rooms

	mu      sync.Mutex
	applied uint64 // the last op applied
	// waiting is the ops waited for (await) not applied yet, by their
	// number: each waiter is woken by its own op, not by every op, so
	// that hundreds of waiters (a pairing's races, players leaving
	// their results) do not all take mu at each op the reader applies.
	waiting map[uint64]chan struct{}
	outcome map[string]error      // of this server's ops waited for, by event ID
	gaveUp  map[string]bool       // ops whose waiter gave up before they were applied
	offset  time.Duration         // the cluster's clock minus this server's
	follows map[string]*following // the progress readers of each room, by code
	closed  bool
	// reach is this server's way to the database (outage.go).
	reach reach
	// reaped is the servers this server declared gone (reap), and when
	// it found their sessions back in the rooms since (zero: not yet).
	reaped map[string]time.Time

	// queue is the ops of Do waiting to be published together, under
	// queueMu; publishing is set while a publisher takes them (doGroup).
	queueMu    sync.Mutex
	queue      []*queuedOp
	publishing bool
}

// queuedOp is an op of Do waiting in the queue, and what its publish
// gave once done is closed.
type queuedOp struct {
	post bus.Post
	code string
	done chan struct{}
	ev   bus.Event
	err  error
}

// maxGroup is the most ops of Do published in one batch.
const maxGroup = 256

// following is the progress readers of a room: stop ends them.
type following struct {
	ctx  context.Context
	stop context.CancelFunc
}

// NewRooms joins this server to the cluster's rooms: it reads every op
// the bus still holds, then follows the topic, and takes part in the
// race for the lease. Shutdown ends it.
func NewRooms(ctx context.Context, cfg RoomsConfig) (*Rooms, error) {
	if cfg.Instance == "" {
		return nil, errors.New("cluster: rooms need an instance name")
	}
	if cfg.Clock == nil {
		cfg.Clock = lobby.SystemClock()
	}
	var own bus.Bus
	if cfg.Bus == nil {
		own = bus.NewMemory(bus.MemoryOptions{Lossless: true})
		cfg.Bus, cfg.Lease, cfg.DBNow = own, NewMemoryLease(cfg.Clock), nil
	}
	if cfg.Lease == nil {
		return nil, errors.New("cluster: rooms on a bus need a lease")
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	if cfg.DBNow == nil {
		clock := cfg.Clock
		cfg.DBNow = func(context.Context) (time.Time, error) { return clock.Now(), nil }
	}
	if cfg.Trace != nil {
		cfg.RoomsConfig.Trace = cfg.Trace
	}
	sub, err := cfg.Bus.Subscribe(ctx, RoomsTopic, 0)
	if err != nil {
		if own != nil {
			own.Close()
		}
		return nil, fmt.Errorf("cluster: rooms: %w", err)
	}
	l := &roomLog{cfg: cfg, own: own, waiting: map[uint64]chan struct{}{}, outcome: map[string]error{}, gaveUp: map[string]bool{},
		follows: map[string]*following{}, reaped: map[string]time.Time{}}
	rooms, err := lobby.NewRooms(cfg.RoomsConfig, l)
	if err != nil {
		sub.Close()
		if own != nil {
			own.Close()
		}
		return nil, fmt.Errorf("cluster: %w", err)
	}
	l.rooms = rooms
	l.ctx, l.cancel = context.WithCancel(context.Background())
	// The whole way of the other servers' progress, by second: a tail
	// that comes in bursts has a cause with a time.
	cfg.Trace.Timeline(traceCrossStage, time.Second)
	cfg.Trace.Timeline(lobby.TraceReportStage, time.Second)
	l.coal = bus.NewCoalescer(cfg.Bus, cfg.ProgressEvery, func(topic string, err error) {
		l.logf("cluster: rooms: publish progress on %s: %v", topic, err)
	})
	l.measure(ctx)
	// Before any session of this server can join a room: a server in a
	// room always holds its own lease.
	l.holdOwn(ctx)
	l.ended.Add(1)
	go func() {
		defer l.ended.Done()
		l.read(sub)
	}()
	// A hello of this server's, awaited: once it is applied, every op
	// before it is, so that a player who connects now finds every open
	// room.
	if err := l.Do(lobby.RoomOp{Kind: lobby.OpHello}); err != nil {
		l.logf("cluster: rooms: read the rooms open: %v", err)
	}
	l.tryLease()
	l.ended.Add(1)
	go func() {
		defer l.ended.Done()
		l.keepLease()
	}()
	return &Rooms{Rooms: rooms, log: l}, nil
}

// Shutdown stops following the rooms: this server's sessions leave them
// (the others are told), and the lease is left to run out.
func (c *Rooms) Shutdown() {
	l := c.log
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), roomsTimeout)
	_, _ = l.publish(ctx, "", lobby.RoomOp{Kind: lobby.OpGone, Gone: l.cfg.Instance, At: l.clusterNow()})
	cancel()
	c.Kill()
}

// Kill stops following the rooms without a word to the other servers,
// as a server that crashed would: they learn of it when its lease runs
// out.
func (c *Rooms) Kill() {
	l := c.log
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	l.ended.Wait()
	l.coal.Close()
	if l.own != nil {
		l.own.Close()
	}
}

// TryLease tries to hold the races' lease now and, held, runs the
// holder's duties: what the rooms do every LeaseTTL/3 on their own.
func (c *Rooms) TryLease() { c.log.tryLease() }

// Sync waits until this server's rooms applied every op logged before
// the call.
func (c *Rooms) Sync() error { return c.log.Do(lobby.RoomOp{Kind: lobby.OpHello}) }

func (l *roomLog) logf(format string, args ...any) {
	if l.cfg.Logf != nil {
		l.cfg.Logf(format, args...)
	}
}

// measure reads the cluster's clock and sets this server's offset to it
// (the middle of the round trip is taken as the moment it was read).
func (l *roomLog) measure(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, roomsTimeout)
	defer cancel()
	t0 := l.cfg.Clock.Now()
	db, err := l.cfg.DBNow(ctx)
	if err != nil {
		l.logf("cluster: rooms: read the database's clock: %v", err)
		return
	}
	t1 := l.cfg.Clock.Now()
	off := db.Sub(t0.Add(t1.Sub(t0) / 2))
	l.mu.Lock()
	l.offset = off
	l.mu.Unlock()
	l.rooms.SetOffset(off)
}

// clusterNow is the time on the cluster's clock, as this server reckons it.
func (l *roomLog) clusterNow() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.Clock.Now().Add(l.offset)
}

// Now implements lobby.RoomLog.
func (l *roomLog) Now() (time.Time, error) {
	ctx, cancel := context.WithTimeout(l.ctx, roomsTimeout)
	defer cancel()
	return l.cfg.DBNow(ctx)
}

// publish publishes an op; once, when not empty and short enough to be
// an event's ID, makes it once on the bus.
func (l *roomLog) publish(ctx context.Context, once string, op lobby.RoomOp) (bus.Event, error) {
	op.Inst = l.cfg.Instance
	return l.publishMsg(ctx, once, toWire(op))
}

func (l *roomLog) publishMsg(ctx context.Context, once string, m roomMsg) (bus.Event, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return bus.Event{}, fmt.Errorf("cluster: encode %s: %w", m.Op, err)
	}
	if len(once) > bus.MaxIDLen {
		once = ""
	}
	ev, err := l.cfg.Bus.Publish(ctx, RoomsTopic, bus.Message{ID: once, Kind: m.Op, Body: body})
	if err != nil {
		return bus.Event{}, fmt.Errorf("cluster: room %s: %w", m.Code, err)
	}
	return ev, nil
}

// Do implements lobby.RoomLog.
func (l *roomLog) Do(op lobby.RoomOp) error {
	ctx, cancel := context.WithTimeout(l.ctx, roomsTimeout)
	defer cancel()
	op.Inst = l.cfg.Instance
	m := toWire(op)
	m.Wait = true
	ev, err := l.publishGrouped(ctx, m)
	if err != nil {
		return err
	}
	return l.await(ctx, ev)
}

// publishGrouped publishes an op of Do together with those of the other
// Do calls of the moment, when the bus publishes batches (bus.Batcher):
// on PostgreSQL every op of the rooms' topic is a commit, one after
// another on the topic's counter row, and a thousand players leaving
// their results or a pairing's hundreds of races at once queued for
// them (at about 10 ms a commit, ops waited seconds, and pairings timed
// out). Ops that come while a batch commits go in the next one; one
// alone is published alone, as before. The order of one caller's ops
// is kept: Do returns only once its op is applied.
func (l *roomLog) publishGrouped(ctx context.Context, m roomMsg) (bus.Event, error) {
	b, ok := l.cfg.Bus.(bus.Batcher)
	if !ok {
		return l.publishMsg(ctx, "", m)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return bus.Event{}, fmt.Errorf("cluster: encode %s: %w", m.Op, err)
	}
	q := &queuedOp{post: bus.Post{Topic: RoomsTopic, Message: bus.Message{Kind: m.Op, Body: body}}, code: m.Code, done: make(chan struct{})}
	if err := bus.Check(q.post.Topic, q.post.Message); err != nil {
		// Refused alone, before it could fail a batch of others.
		return bus.Event{}, fmt.Errorf("cluster: room %s: %w", m.Code, err)
	}
	l.queueMu.Lock()
	l.queue = append(l.queue, q)
	if !l.publishing {
		l.publishing = true
		go l.doGroup(b)
	}
	l.queueMu.Unlock()
	<-q.done // within roomsTimeout: the batch's own bound
	return q.ev, q.err
}

// doGroup publishes the queued ops of Do, maxGroup at a time, until
// none is left.
func (l *roomLog) doGroup(b bus.Batcher) {
	for {
		l.queueMu.Lock()
		n := min(len(l.queue), maxGroup)
		if n == 0 {
			l.publishing = false
			l.queue = nil
			l.queueMu.Unlock()
			return
		}
		group := l.queue[:n:n]
		l.queue = l.queue[n:]
		l.queueMu.Unlock()
		posts := make([]bus.Post, len(group))
		for i, q := range group {
			posts[i] = q.post
		}
		ctx, cancel := context.WithTimeout(l.ctx, roomsTimeout)
		evs, err := b.PublishBatch(ctx, posts)
		cancel()
		for i, q := range group {
			if err != nil {
				q.err = fmt.Errorf("cluster: room %s: %w", q.code, err)
			} else {
				q.ev = evs[i]
			}
			close(q.done)
		}
	}
}

// Post implements lobby.RoomLog.
func (l *roomLog) Post(once string, op lobby.RoomOp) {
	ctx, cancel := context.WithTimeout(l.ctx, roomsTimeout)
	defer cancel()
	if _, err := l.publish(ctx, once, op); err != nil {
		l.logf("cluster: rooms: %v", err)
	}
}

// await waits until the rooms applied ev and returns their verdict.
func (l *roomLog) await(ctx context.Context, ev bus.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.applied < ev.Seq {
		done := make(chan struct{})
		l.waiting[ev.Seq] = done
		l.mu.Unlock()
		select {
		case <-done:
			l.mu.Lock()
		case <-ctx.Done():
			l.mu.Lock()
			delete(l.waiting, ev.Seq)
			if l.applied < ev.Seq {
				l.gaveUp[ev.ID] = true
			} else {
				delete(l.outcome, ev.ID)
			}
			return fmt.Errorf("cluster: the rooms did not answer: %w", ctx.Err())
		}
	}
	err := l.outcome[ev.ID]
	delete(l.outcome, ev.ID)
	return err
}

// read applies the rooms' ops until the rooms close.
func (l *roomLog) read(sub bus.Subscription) {
	defer sub.Close()
	for {
		ev, err := sub.Next(l.ctx)
		if errors.Is(err, bus.ErrGap) {
			l.logf("cluster: rooms: %v", err)
			continue
		}
		if err != nil {
			return
		}
		var m roomMsg
		jerr := json.Unmarshal(ev.Body, &m)
		if jerr != nil {
			l.logf("cluster: rooms: event %d: %v", ev.Seq, jerr)
		}
		var verdict error
		if jerr == nil {
			op := m.op()
			op.Seq, op.Logged = ev.Seq, ev.At
			verdict = l.rooms.Apply(op)
		}
		l.mu.Lock()
		if jerr == nil && m.Wait && m.Inst == l.cfg.Instance {
			if l.gaveUp[ev.ID] {
				delete(l.gaveUp, ev.ID)
			} else {
				l.outcome[ev.ID] = verdict
			}
		}
		skipped := ev.Seq > l.applied+1
		l.applied = ev.Seq
		if done, ok := l.waiting[ev.Seq]; ok {
			close(done)
			delete(l.waiting, ev.Seq)
		}
		if skipped {
			// Ops this reader never saw (a gap): their waiters learn that
			// they are past, with no verdict, as before.
			for seq, done := range l.waiting {
				if seq <= ev.Seq {
					close(done)
					delete(l.waiting, seq)
				}
			}
		}
		l.mu.Unlock()
	}
}

// keepLease takes part in the race for the lease until the rooms close:
// it tries to hold it every LeaseTTL/3, and its holder runs the rooms'
// duties at each try.
func (l *roomLog) keepLease() {
	every := l.cfg.LeaseTTL / 3
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(every):
		}
		l.tryLease()
	}
}

// holdOwn takes or keeps this server's own lease, which says it runs,
// and reports whether it could reach the lease (the database) to do so.
func (l *roomLog) holdOwn(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, roomsTimeout)
	defer cancel()
	if _, _, err := l.cfg.Lease.Hold(ctx, InstanceLease(l.cfg.Instance), l.cfg.Instance, l.cfg.LeaseTTL); err != nil {
		l.logf("cluster: rooms: hold this server's lease: %v", err)
		return false
	}
	return true
}

// tryLease holds or takes the races' lease, then, held, tells of the
// servers that died and runs the holder's duties. A server that could
// not reach the database a moment ago judges nobody (judging, outage.go):
// the others could not reach it either, and need their lease's time to
// renew theirs.
func (l *roomLog) tryLease() {
	l.measure(l.ctx)
	l.noteReach(l.holdOwn(l.ctx))
	ctx, cancel := context.WithTimeout(l.ctx, roomsTimeout)
	defer cancel()
	held, prev, err := l.cfg.Lease.Hold(ctx, RacesLease, l.cfg.Instance, l.cfg.LeaseTTL)
	if err != nil {
		l.logf("cluster: rooms: hold the lease: %v", err)
		held = false
	}
	l.rooms.SetHolder(held)
	if !held || !l.judging() {
		return
	}
	if prev != "" && prev != l.cfg.Instance {
		// The holder before died without a word: its sessions are gone.
		l.Post("", lobby.RoomOp{Kind: lobby.OpGone, Gone: prev, At: l.clusterNow()})
	}
	l.reap(ctx)
	l.rooms.Duties()
}

// reap looks for the servers with sessions in rooms whose own lease ran
// out: the holder takes it from the server (so a server is declared gone
// once), and tells the others that its sessions are gone. It takes it for
// a moment only: a server that was only out of reach, and runs, takes
// its lease again at once, and its sessions their seats (lobby's
// comeback), and can be declared gone again when it dies. One declared
// gone whose sessions came back, but which has not taken its lease again
// a lease's time after, died after all: it is declared gone again.
func (l *roomLog) reap(ctx context.Context) {
	now := l.cfg.Clock.Now()
	for _, inst := range l.rooms.Servers() {
		took, prev, err := l.cfg.Lease.Hold(ctx, InstanceLease(inst), l.cfg.Instance, reapHold)
		if err != nil {
			l.logf("cluster: rooms: look at server %s: %v", inst, err)
			continue
		}
		l.mu.Lock()
		back, declared := l.reaped[inst]
		gone := took && prev == inst
		switch {
		case !took:
			delete(l.reaped, inst) // it holds its lease: it runs
		case gone:
			l.reaped[inst] = time.Time{}
		case prev == "" && declared && back.IsZero():
			l.reaped[inst] = now // its sessions are back: its lease should be soon
		case prev == "" && declared && now.Sub(back) >= l.cfg.LeaseTTL:
			gone = true
			l.reaped[inst] = time.Time{}
		}
		l.mu.Unlock()
		if gone {
			l.Post("", lobby.RoomOp{Kind: lobby.OpGone, Gone: inst, At: l.clusterNow()})
		}
	}
}

// reapHold is how long the holder holds the lease of a server it
// declares gone.
const reapHold = time.Millisecond

// Offer implements lobby.RoomLog: the coalescer makes the room's
// progress (lobby.Rooms.Progress) when it goes out.
func (l *roomLog) Offer(code string, news bool) {
	l.coal.OfferFunc(ProgressTopic(code, l.cfg.Instance), news, func() (bus.Message, bool) {
		p, ok := l.rooms.Progress(code)
		if !ok {
			return bus.Message{}, false
		}
		m := toWireProgress(p)
		if l.cfg.Trace.Enabled() {
			m.T = time.Now().UnixMicro()
		}
		body, err := json.Marshal(m)
		if err != nil {
			l.logf("cluster: rooms: encode the progress of room %s: %v", code, err)
			return bus.Message{}, false
		}
		return bus.Message{Kind: "progress", Body: body}, true
	})
}

// Follow implements lobby.RoomLog: a reader of the server's progress
// topic of the room, until Unfollow or the rooms close.
func (l *roomLog) Follow(code, roomID, inst string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	f := l.follows[code]
	if f == nil {
		f = &following{}
		f.ctx, f.stop = context.WithCancel(l.ctx)
		l.follows[code] = f
	}
	ctx := f.ctx
	l.ended.Add(1)
	go func() {
		defer l.ended.Done()
		l.readProgress(ctx, code, roomID, inst)
	}()
}

// Unfollow implements lobby.RoomLog.
func (l *roomLog) Unfollow(code string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.follows[code]; f != nil {
		f.stop()
		delete(l.follows, code)
	}
}

// readProgress applies another server's (inst) progress of a room until
// ctx ends.
func (l *roomLog) readProgress(ctx context.Context, code, roomID, inst string) {
	var sub bus.Subscription
	for sub == nil {
		s, err := l.cfg.Bus.Subscribe(ctx, ProgressTopic(code, inst), 0)
		if err == nil {
			sub = s
			break
		}
		if ctx.Err() != nil {
			return
		}
		l.logf("cluster: rooms: follow room %s of %s: %v", code, inst, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, bus.ErrGap) {
			continue
		}
		if err != nil {
			return
		}
		var m progressMsg
		if json.Unmarshal(ev.Body, &m) != nil || m.Inst != inst {
			continue
		}
		var got time.Time
		if l.cfg.Trace.Enabled() {
			got = time.Now()
		}
		l.rooms.ApplyProgress(code, roomID, m.progress())
		if tr := l.cfg.Trace; tr.Enabled() && m.T != 0 {
			tr.Note("progress: stored → taken from the bus here", got.Sub(ev.At))
			now, sent := time.Now(), time.UnixMicro(m.T)
			tr.Note("progress: offered → stored (coalescing, pool)", ev.At.Sub(sent))
			tr.Note("progress: stored → applied here (commit, notify, read, fold)", now.Sub(ev.At))
			tr.Note(traceCrossStage, now.Sub(sent))
		}
	}
}

// traceCrossStage is the trace's stage of another server's progress from
// its offer there to its fold here; beside lobby.TraceReportStage, a
// second with few moves reported on both servers (the keys did not come)
// shows apart from one whose moves were slow to arrive.
const traceCrossStage = "progress: offered → applied on another server"
