package bus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// DefaultRetain is how many recent events of a topic Memory keeps for
// subscribers that fall behind or resume.
const DefaultRetain = 256

// MemoryOptions configure a Memory bus.
type MemoryOptions struct {
	// Retain is how many recent events each topic keeps (DefaultRetain
	// when 0 or less). A subscriber further behind gets a GapError.
	Retain int
	// Now is the clock for Event.At; time.Now when nil.
	Now func() time.Time
	// Lossless keeps, beyond Retain, every event a live subscription has
	// not read yet, so that no subscriber misses one: for a bus whose
	// subscribers are the parts of one process, which always read on (a
	// subscriber that stops reading keeps the events of its topic until
	// it closes). A subscription that starts behind the events kept still
	// gets a GapError.
	Lossless bool
}

// Memory is the in-process bus: each topic keeps its sequence counter and
// its last Retain events in memory.
type Memory struct {
	retain   int
	lossless bool
	now      func() time.Time
	done     chan struct{} // closed by Close

	mu     sync.Mutex
	closed bool
	topics map[string]*topic
}

var _ Bus = (*Memory)(nil)

// topic is one topic of a Memory bus.
type topic struct {
	seq uint64            // the last sequence number given out
	log []Event           // the last events, oldest first, ending at seq
	ids map[string]uint64 // the IDs of the events in log
	// published is closed and replaced by each publish: it wakes every
	// subscription waiting for the next event without the publisher
	// knowing who waits.
	published chan struct{}
	// subs is the topic's open subscriptions, for a Lossless bus.
	subs map[*memorySub]struct{}
}

// NewMemory returns an in-process bus.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.Retain <= 0 {
		opts.Retain = DefaultRetain
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Memory{retain: opts.Retain, lossless: opts.Lossless, now: opts.Now, done: make(chan struct{}), topics: map[string]*topic{}}
}

// topicLocked returns the topic, creating it; b.mu is held.
func (b *Memory) topicLocked(name string) *topic {
	t := b.topics[name]
	if t == nil {
		t = &topic{ids: map[string]uint64{}, published: make(chan struct{})}
		b.topics[name] = t
	}
	return t
}

var _ Batcher = (*Memory)(nil)

// Publish implements Bus.
func (b *Memory) Publish(ctx context.Context, name string, m Message) (Event, error) {
	evs, err := b.publish(ctx, []Post{{Topic: name, Message: m}})
	if err != nil {
		return Event{}, err
	}
	return evs[0], nil
}

// PublishBatch implements Batcher: the posts are published under one
// hold of the bus's lock.
func (b *Memory) PublishBatch(ctx context.Context, posts []Post) ([]Event, error) {
	return b.publish(ctx, posts)
}

// publish publishes the posts, all or none.
func (b *Memory) publish(ctx context.Context, posts []Post) ([]Event, error) {
	for _, p := range posts {
		if err := check(p.Topic, p.Message); err != nil {
			return nil, fmt.Errorf("publish on %q: %w", p.Topic, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("publish on %q: %w", p.Topic, err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("publish: %w", ErrClosed)
	}
	evs := make([]Event, 0, len(posts))
	for _, p := range posts {
		evs = append(evs, b.publishLocked(p.Topic, p.Message))
	}
	return evs, nil
}

// publishLocked appends one checked message to its topic; b.mu is held.
func (b *Memory) publishLocked(name string, m Message) Event {
	if m.ID == "" {
		m.ID = NewID()
	}
	t := b.topicLocked(name)
	if seq, ok := t.ids[m.ID]; ok {
		return t.log[seq-t.first()].clone()
	}
	t.seq++
	ev := Event{Topic: name, Seq: t.seq, ID: m.ID, Kind: m.Kind, Body: append([]byte(nil), m.Body...), At: b.now()}
	t.log = append(t.log, ev)
	b.trimLocked(t)
	t.ids[ev.ID] = ev.Seq
	close(t.published)
	t.published = make(chan struct{})
	return ev.clone()
}

// trimLocked forgets the oldest events of a topic beyond Retain, but, on
// a Lossless bus, none that an open subscription has not read; b.mu is
// held.
func (b *Memory) trimLocked(t *topic) {
	excess := len(t.log) - b.retain
	if excess <= 0 {
		return
	}
	if b.lossless {
		for s := range t.subs {
			read := int64(s.cursor) - int64(t.first()) + 1 // of the log's events
			excess = min(excess, int(max(read, 0)))
		}
		if excess == 0 {
			return
		}
	}
	for _, ev := range t.log[:excess] {
		delete(t.ids, ev.ID)
	}
	clear(t.log[:excess]) // their bodies go now, the slots when append moves the log
	t.log = t.log[excess:]
}

// first is the sequence number of the oldest event in the log (seq+1
// when it is empty).
func (t *topic) first() uint64 { return t.seq - uint64(len(t.log)) + 1 }

// clone is the event with a body of its own.
func (ev Event) clone() Event {
	ev.Body = append([]byte(nil), ev.Body...)
	return ev
}

// Subscribe implements Bus.
func (b *Memory) Subscribe(ctx context.Context, name string, since uint64) (Subscription, error) {
	if err := check(name, Message{}); err != nil {
		return nil, fmt.Errorf("subscribe to %q: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("subscribe to %q: %w", name, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("subscribe to %q: %w", name, ErrClosed)
	}
	t := b.topicLocked(name)
	if since == Latest {
		since = t.seq
	}
	s := &memorySub{b: b, t: t, topic: name, cursor: since, done: make(chan struct{})}
	if b.lossless {
		if t.subs == nil {
			t.subs = map[*memorySub]struct{}{}
		}
		t.subs[s] = struct{}{}
	}
	return s, nil
}

// Close implements Bus.
func (b *Memory) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
	return nil
}

// memorySub is a subscription to a Memory bus: a cursor into a topic.
type memorySub struct {
	b     *Memory
	t     *topic
	topic string
	done  chan struct{} // closed by Close

	mu     sync.Mutex // guards closed; cursor is guarded by b.mu too (written with both held)
	cursor uint64
	closed bool
}

// Next implements Subscription.
func (s *memorySub) Next(ctx context.Context) (Event, error) {
	for {
		ev, wait, err := s.next()
		if err != nil || wait == nil {
			return ev, err
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return Event{}, fmt.Errorf("next event of %q: %w", s.topic, ctx.Err())
		case <-s.done:
			return Event{}, fmt.Errorf("next event of %q: %w", s.topic, ErrClosed)
		case <-s.b.done:
			return Event{}, fmt.Errorf("next event of %q: %w", s.topic, ErrClosed)
		}
	}
}

// next takes the next event, or returns the channel that says when there
// may be one.
func (s *memorySub) next() (Event, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Event{}, nil, fmt.Errorf("next event of %q: %w", s.topic, ErrClosed)
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.b.closed {
		return Event{}, nil, fmt.Errorf("next event of %q: %w", s.topic, ErrClosed)
	}
	t := s.t
	if s.cursor >= t.seq {
		return Event{}, t.published, nil
	}
	if first := t.first(); s.cursor+1 < first {
		gap := &GapError{Topic: s.topic, From: s.cursor + 1, To: first - 1}
		s.cursor = first - 1
		return Event{}, nil, gap
	}
	ev := t.log[s.cursor+1-t.first()].clone()
	s.cursor = ev.Seq
	return ev, nil, nil
}

// Seq implements Subscription.
func (s *memorySub) Seq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cursor
}

// Close implements Subscription.
func (s *memorySub) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
		s.b.mu.Lock()
		delete(s.t.subs, s)
		s.b.mu.Unlock()
	}
	return nil
}

// NewID returns a random event ID (24 hex digits), for a bus or a
// publisher that needs one before publishing.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	return hex.EncodeToString(b[:])
}
