// Package bus carries small events between the parts of a server, and
// later between servers: publish/subscribe by topic, where every event has
// an ID and a sequence number within its topic.
//
// The sequence number is what makes the bus safe to build on a transport
// that can lose or repeat a signal (PostgreSQL's LISTEN/NOTIFY): a
// subscription is a cursor over its topic's events, so it reads each event
// once and in order, a subscriber that comes back resumes from the last
// sequence number it saw, and a repeated signal or a repeated publish of
// the same ID changes nothing. Delivery is pulled by the subscriber
// (Subscription.Next), so a slow or stuck subscriber never holds up the
// publisher or the other subscribers.
//
// An implementation keeps an event where a subscriber can still read it
// (memory, an append-only table); bustest.Run is the behaviour every
// implementation must have. Memory is the in-process one.
package bus

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limits on what an event may hold: an event is a signal with a few
// fields, never a whole state (a NOTIFY payload is at most 8000 bytes).
const (
	MaxTopicLen = 100  // bytes of a topic name
	MaxIDLen    = 64   // bytes of an event ID
	MaxKindLen  = 64   // bytes of an event kind
	MaxBody     = 4000 // bytes of an event body
)

// Latest, as the since of Subscribe, subscribes to the events published
// from then on and none before.
const Latest = ^uint64(0)

// Errors of the bus.
var (
	// ErrClosed: the bus or the subscription is closed.
	ErrClosed = errors.New("bus: closed")
	// ErrInvalid: a topic, ID, kind or body out of bounds.
	ErrInvalid = errors.New("bus: invalid event")
	// ErrGap: events a subscription had not read are gone (the bus keeps
	// a topic's recent events only); the subscription goes on after the
	// gap, and its reader should re-read the state the events were about.
	ErrGap = errors.New("bus: events missed")
)

// GapError is the ErrGap of one subscription: the events From to To
// (inclusive) of Topic are gone.
type GapError struct {
	Topic    string
	From, To uint64
}

// Error says which events were missed.
func (e *GapError) Error() string {
	return fmt.Sprintf("bus: events %d to %d of topic %q missed", e.From, e.To, e.Topic)
}

// Unwrap makes a GapError match ErrGap.
func (e *GapError) Unwrap() error { return ErrGap }

// Message is what a publisher sends.
type Message struct {
	// ID names the event. Publishing a message whose ID the topic already
	// holds publishes nothing and returns the event already there, so a
	// publish retried after an error is harmless. Empty: the bus makes
	// a unique one.
	ID string
	// Kind says what the event is, e.g. "taken" or "presence".
	Kind string
	// Body is the event's few fields, encoded by the publisher; at most
	// MaxBody bytes.
	Body []byte
}

// Event is a message as the bus stored it.
type Event struct {
	Topic string
	// Seq is the event's place in its topic: 1 for the first event, one
	// more for each next one, never reused (but for VolatileBatcher's
	// events lost in a crash).
	Seq  uint64
	ID   string
	Kind string
	Body []byte // the subscriber's own copy
	At   time.Time
}

// Bus publishes events by topic and lets subscribers read them in order.
type Bus interface {
	// Publish appends a message to topic and returns it as an event with
	// its sequence number. It never waits on a subscriber.
	Publish(ctx context.Context, topic string, m Message) (Event, error)
	// Subscribe returns a cursor over topic's events with a sequence
	// number above since: 0 for every event the bus still holds, the last
	// Seq a reader saw to resume after it, or Latest for the events
	// published from now on.
	Subscribe(ctx context.Context, topic string, since uint64) (Subscription, error)
	// Close ends the bus: Publish and Subscribe fail with ErrClosed and
	// every subscription's Next returns ErrClosed.
	Close() error
}

// Post is one message of a batch, for its topic.
type Post struct {
	Topic string
	Message
}

// Batcher is a Bus that publishes several messages at once: on
// PostgreSQL in one transaction, so one commit (and one turn of NOTIFY's
// commit-time lock) for all of them rather than one each.
type Batcher interface {
	Bus
	// PublishBatch publishes every post as Publish would, all or none (a
	// post out of bounds fails the batch before anything is published),
	// and returns their events in the order of the posts. Posts of one
	// topic are numbered in their order in the batch.
	PublishBatch(ctx context.Context, posts []Post) ([]Event, error)
}

// VolatileBatcher is a Batcher that can also publish a batch of
// snapshots without waiting for it to be durable: on PostgreSQL a
// commit that does not wait for its WAL flush, and so holds NOTIFY's
// commit-time lock (which every notifying commit of the database
// queues for) for microseconds rather than a disk's sync. Subscribers
// see the events as usual, but a crash of the database in the moment
// after may lose the last of them, and later events of their topics then
// take their sequence numbers: a subscription that had read the lost
// ones learns of it when its bus reconnects and goes back to the last
// event kept, so that it reads the later ones. For snapshots only, the
// newest state of something that the next one replaces (a Coalescer's
// offers), never for a log whose every event counts.
type VolatileBatcher interface {
	Batcher
	// PublishVolatile is PublishBatch without waiting for the events
	// to be durable.
	PublishVolatile(ctx context.Context, posts []Post) ([]Event, error)
}

// Subscription reads one topic's events in sequence order, each once.
type Subscription interface {
	// Next returns the next event, waiting for one until ctx ends (its
	// error then) or the subscription or the bus is closed (ErrClosed).
	// A *GapError says events were missed; the next call goes on after
	// them.
	Next(ctx context.Context) (Event, error)
	// Seq is the sequence number of the last event Next returned (or the
	// since the subscription started from): where to resume after a drop.
	Seq() uint64
	// Close ends the subscription; other subscriptions go on.
	Close() error
}

// Check refuses a topic or a message out of bounds with an error matching
// ErrInvalid: what every implementation checks before publishing (with an
// empty Message, before subscribing).
func Check(topic string, m Message) error { return check(topic, m) }

// check refuses a topic or a message out of bounds.
func check(topic string, m Message) error {
	switch {
	case topic == "" || len(topic) > MaxTopicLen:
		return fmt.Errorf("%w: topic of %d bytes", ErrInvalid, len(topic))
	case len(m.ID) > MaxIDLen:
		return fmt.Errorf("%w: ID of %d bytes", ErrInvalid, len(m.ID))
	case len(m.Kind) > MaxKindLen:
		return fmt.Errorf("%w: kind of %d bytes", ErrInvalid, len(m.Kind))
	case len(m.Body) > MaxBody:
		return fmt.Errorf("%w: body of %d bytes", ErrInvalid, len(m.Body))
	}
	for i := 0; i < len(topic); i++ {
		if c := topic[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%w: topic %q has a byte 0x%02x", ErrInvalid, topic, c)
		}
	}
	return nil
}
