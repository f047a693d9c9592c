package lobby

import (
	"context"
	"errors"
	"sync"
	"time"
)

// QueueSize is how many discrete events wait for a session before more
// are refused, and how many coalesced keys it holds.
const QueueSize = 16

// DropAfter is how long a session's queue may stay full before its owner
// drops the session (ssh-chat's rule): it stopped reading.
const DropAfter = 5 * time.Second

// ErrClosed is what Next returns once a queue is closed: the session left,
// or was dropped for not reading.
var ErrClosed = errors.New("lobby: queue closed")

// Queue is one session's bounded, non-blocking queue of events: the Sink
// the lobby and the rooms post to, and Next for the session's side.
// Discrete events wait in order; coalesced ones keep their place in that
// order but only their newest value. Nothing ever waits for the reader.
type Queue struct {
	size int
	now  func() time.Time
	wake chan struct{} // one token: there may be something to read
	done chan struct{} // closed by Close

	mu        sync.Mutex
	items     []item         // oldest first
	byKey     map[string]int // coalesced keys waiting, by their place in items from head
	head      int            // items[:head] are read
	discrete  int            // discrete events waiting
	fullSince time.Time      // when the queue first refused an event since it was last read; zero if it has not
	closed    bool
	ready     func() // Notify's, until called
}

// item is one waiting event; key is "" for a discrete one.
type item struct {
	key string
	ev  Event
}

var _ Sink = (*Queue)(nil)

// NewQueue returns a queue of size discrete events and size coalesced keys
// (QueueSize when 0 or less) that reads the time from now (time.Now when
// nil) to say since when it is full.
func NewQueue(size int, now func() time.Time) *Queue {
	if size <= 0 {
		size = QueueSize
	}
	if now == nil {
		now = time.Now
	}
	return &Queue{size: size, now: now, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Post implements Sink.
func (q *Queue) Post(ev Event) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if q.discrete >= q.size {
		q.refusedLocked()
		return false
	}
	q.discrete++
	q.items = append(q.items, item{ev: ev})
	q.signal()
	return true
}

// Coalesce implements Sink. A new key that finds the queue holding size
// keys already is refused, as a full queue refuses a Post.
func (q *Queue) Coalesce(key string, ev Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if i, ok := q.byKey[key]; ok {
		q.items[q.head+i].ev = ev
		return
	}
	if len(q.byKey) >= q.size {
		q.refusedLocked()
		return
	}
	if q.byKey == nil {
		q.byKey = map[string]int{}
	}
	q.byKey[key] = len(q.items) - q.head
	q.items = append(q.items, item{key: key, ev: ev})
	q.signal()
}

// refusedLocked notes that the queue refused an event.
func (q *Queue) refusedLocked() {
	if q.fullSince.IsZero() {
		q.fullSince = q.now()
	}
}

// signal wakes a waiting Next, or calls Notify's ready, without ever
// blocking. The lock is held.
func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
	if ready := q.ready; ready != nil {
		q.ready = nil
		ready()
	}
}

// Notify arranges for ready to be called once, when Next would not wait:
// an event is in or the queue is closed. When that is so already it
// returns true and calls nothing. ready is called by whoever posts or
// closes, with the queue locked: it must return at once and not use the
// queue (it starts whatever reads). A later Notify replaces an earlier
// one not called yet. A reader that waits this way keeps no goroutine
// waiting between events (a session's inbox).
func (q *Queue) Notify(ready func()) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.head < len(q.items) {
		return true
	}
	q.ready = ready
	return false
}

// Next waits for the next event, until ctx ends (its error) or the queue
// is closed (ErrClosed; what was still queued is dropped).
func (q *Queue) Next(ctx context.Context) (Event, error) {
	for {
		if ev, ok, err := q.take(); ok || err != nil {
			return ev, err
		}
		select {
		case <-q.wake:
		case <-q.done:
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// NextAll waits like Next, then takes every event waiting, oldest first,
// appended to dst: a reader that fell behind catches up in one go (one
// frame for all, not one each).
func (q *Queue) NextAll(ctx context.Context, dst []Event) ([]Event, error) {
	ev, err := q.Next(ctx)
	if err != nil {
		return dst, err
	}
	dst = append(dst, ev)
	for {
		ev, ok, err := q.take()
		if !ok || err != nil {
			return dst, nil
		}
		dst = append(dst, ev)
	}
}

// take takes the oldest waiting event.
func (q *Queue) take() (Event, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil, false, ErrClosed
	}
	if q.head == len(q.items) {
		return nil, false, nil
	}
	it := q.items[q.head]
	q.items[q.head] = item{} // let the event go
	q.head++
	if it.key == "" {
		q.discrete--
	} else {
		delete(q.byKey, it.key)
	}
	for k := range q.byKey {
		q.byKey[k]--
	}
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head >= 2*q.size {
		// Slide the waiting events back to the start now and then, so the
		// slice does not grow with every event ever queued.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.fullSince = time.Time{}
	return it.ev, true, nil
}

// Len is how many events wait, discrete and coalesced.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

// FullSince reports when the queue first refused an event without having
// been read since; ok is false when it has refused none since its reader
// last took one. The owner drops a session full for DropAfter.
func (q *Queue) FullSince() (since time.Time, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fullSince, !q.fullSince.IsZero()
}

// Close closes the queue: Next returns ErrClosed (Notify's ready is
// called), and Post and Coalesce drop what they are given. Closing twice is harmless.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		q.items, q.byKey, q.head, q.discrete = nil, nil, 0, 0
		close(q.done)
		q.signal()
	}
}
