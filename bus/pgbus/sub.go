package pgbus

import (
	"context"
	"fmt"
	"sync"
	"time"

	"pyramid/bus"
)

// retryEvery is how long a subscription waits before reading the table
// again after a failed read, unless the listener reconnects first.
const retryEvery = time.Second

// sub is a subscription: a cursor into its topic, served from the bus's
// memory log of the topic when it is close behind, from the table when it
// is further.
type sub struct {
	b     *Bus
	t     *topicState
	topic string
	done  chan struct{} // closed by Close

	next sync.Mutex // held by Next, across its waits: one Next at a time

	// epoch is the topic's rewinds this subscription has gone back for
	// (topicState.epoch); only Next reads and writes it.
	epoch uint64

	mu     sync.Mutex // guards the fields below, held briefly
	cursor uint64
	buf    []bus.Event // events read from the table for this subscription alone
	closed bool
}

// Next implements bus.Subscription. A failing database is not an error
// of Next: it waits and reads again until ctx ends, as if no event came.
func (s *sub) Next(ctx context.Context) (bus.Event, error) {
	s.next.Lock()
	defer s.next.Unlock()
	for {
		select {
		case <-s.done:
			return bus.Event{}, fmt.Errorf("next event of %q: %w", s.topic, bus.ErrClosed)
		case <-s.b.done:
			return bus.Event{}, fmt.Errorf("next event of %q: %w", s.topic, bus.ErrClosed)
		default:
		}
		if err := ctx.Err(); err != nil {
			return bus.Event{}, fmt.Errorf("next event of %q: %w", s.topic, err)
		}
		s.rewound()
		if ev, ok, err := s.fromBuf(); ok || err != nil {
			return ev, err
		}
		ev, ok, wait, err := s.step(ctx)
		if ok || err != nil {
			return ev, err
		}
		if wait == nil {
			continue
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return bus.Event{}, fmt.Errorf("next event of %q: %w", s.topic, ctx.Err())
		case <-s.done:
			return bus.Event{}, fmt.Errorf("next event of %q: %w", s.topic, bus.ErrClosed)
		case <-s.b.done:
			return bus.Event{}, fmt.Errorf("next event of %q: %w", s.topic, bus.ErrClosed)
		}
	}
}

// fromBuf takes the next event from the subscription's own buffer.
func (s *sub) fromBuf() (bus.Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) > 0 {
		ev := s.buf[0]
		if ev.Seq <= s.cursor {
			s.buf = s.buf[1:]
			continue
		}
		if ev.Seq > s.cursor+1 {
			gap := &bus.GapError{Topic: s.topic, From: s.cursor + 1, To: ev.Seq - 1}
			s.cursor = ev.Seq - 1
			return bus.Event{}, false, gap
		}
		s.buf = s.buf[1:]
		s.cursor = ev.Seq
		return ev, true, nil
	}
	return bus.Event{}, false, nil
}

// rewound takes the subscription back with its topic (rewindLocked) if
// it went back since the last call: the cursor to the last event kept at
// most, and the events read for the subscription alone dropped.
func (s *sub) rewound() {
	t := s.t
	t.mu.Lock()
	if s.epoch == t.epoch {
		t.mu.Unlock()
		return
	}
	to := ^uint64(0)
	for _, r := range t.rewinds {
		if r.epoch >= s.epoch {
			to = min(to, r.to)
		}
	}
	s.epoch = t.epoch
	t.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cursor = min(s.cursor, to)
	s.buf = nil
}

// at is the cursor.
func (s *sub) at() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cursor
}

// moveTo sets the cursor (only Next moves it, under s.next).
func (s *sub) moveTo(seq uint64, buf []bus.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cursor = seq
	if buf != nil {
		s.buf = buf
	}
}

// step does one thing towards the next event: take it from the memory
// log, read the table for this subscription or for the topic, or return
// what to wait on.
func (s *sub) step(ctx context.Context) (ev bus.Event, ok bool, wait <-chan struct{}, err error) {
	b, t, cursor := s.b, s.t, s.at()
	select {
	case <-b.done:
		return bus.Event{}, false, nil, fmt.Errorf("next event of %q: %w", s.topic, bus.ErrClosed)
	default:
	}
	t.mu.Lock()
	switch {
	case cursor < t.loaded && cursor+1 >= t.first():
		ev := clone(t.log[cursor+1-t.first()])
		t.mu.Unlock()
		s.moveTo(ev.Seq, nil)
		return ev, true, nil, nil
	case cursor < t.loaded:
		// Behind the memory log: read the table for this subscription.
		first := t.first()
		t.mu.Unlock()
		evs, err := b.read(ctx, s.topic, cursor)
		if err != nil {
			return bus.Event{}, false, s.retry(), nil
		}
		if len(evs) == 0 {
			// Pruned, all of them up to the memory log.
			s.moveTo(first-1, nil)
			return bus.Event{}, false, nil, &bus.GapError{Topic: s.topic, From: cursor + 1, To: first - 1}
		}
		s.moveTo(cursor, evs)
		return bus.Event{}, false, nil, nil
	case t.high > t.loaded && !t.fetching:
		// Read the table for every subscription of the topic.
		t.fetching = true
		after := t.loaded
		t.mu.Unlock()
		evs, err := b.read(ctx, s.topic, after)
		t.mu.Lock()
		t.fetching = false
		if err != nil {
			t.wakeLocked() // another subscription may try
			t.mu.Unlock()
			return bus.Event{}, false, s.retry(), nil
		}
		t.loadedLocked(after, evs)
		t.mu.Unlock()
		return bus.Event{}, false, nil, nil
	}
	wait = t.wake
	t.mu.Unlock()
	return bus.Event{}, false, wait, nil
}

// loadedLocked adds the events read after seq after to the topic's memory
// log, with t.mu held.
func (t *topicState) loadedLocked(after uint64, evs []bus.Event) {
	defer t.wakeLocked()
	if len(evs) == 0 {
		// Heard of events that are not there (a stale notification):
		// stop looking for them.
		t.high = t.loaded
		return
	}
	last := evs[len(evs)-1].Seq
	if last <= t.loaded {
		return // another read went further
	}
	if evs[0].Seq > t.loaded+1 {
		// Events were pruned before they were read: the log starts
		// again from what was read, and subscriptions before it read
		// the table (and learn of the gap).
		t.log = t.log[:0]
		t.loaded = evs[0].Seq - 1
	}
	for _, ev := range evs {
		if ev.Seq == t.loaded+1 {
			t.log = append(t.log, ev)
			t.loaded = ev.Seq
		}
	}
	if over := len(t.log) - memRetain; over > 0 {
		t.log = append(t.log[:0:0], t.log[over:]...)
	}
	t.high = max(t.high, t.loaded)
}

// retry is what a subscription waits on after a failed read: the
// listener's next reconnect or retryEvery, whichever comes first.
func (s *sub) retry() <-chan struct{} {
	s.b.mu.Lock()
	connected := s.b.connected
	s.b.mu.Unlock()
	ch := make(chan struct{})
	go func() {
		timer := time.NewTimer(retryEvery)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-connected:
		case <-s.done:
		case <-s.b.done:
		}
		close(ch)
	}()
	return ch
}

// Seq implements bus.Subscription.
func (s *sub) Seq() uint64 { return s.at() }

// Close implements bus.Subscription.
func (s *sub) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
		s.b.unfollow(s.topic, s.t)
	}
	return nil
}

// clone is ev with a body of its own.
func clone(ev bus.Event) bus.Event {
	ev.Body = append([]byte(nil), ev.Body...)
	return ev
}
