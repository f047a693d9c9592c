package bus

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultCoalesceEvery is the least time between two events a Coalescer
// publishes on one topic: a few a second, whatever the rate of changes.
const DefaultCoalesceEvery = 250 * time.Millisecond

// coalesceTimeout bounds one publish of a Coalescer.
const coalesceTimeout = 5 * time.Second

// maxBatch bounds the posts of one batch of a Coalescer.
const maxBatch = 128

// Coalescer publishes snapshots (a race's progress, a player's presence)
// on a bus at most once per Every per topic, the newest winning: a burst
// of n changes costs one event, not n, and so one NOTIFY on PostgreSQL,
// never one per keystroke. The first change after a quiet spell goes out
// at once. Offer never waits for the bus.
//
// A Coalescer publishes from one goroutine at a time, in batches: the
// topics that are due while a batch is under way go out together in the
// next one (a Batcher's PublishBatch: on PostgreSQL one transaction, one
// commit, for all of them; on another bus one Publish each). So the
// commits per second stay low however many topics change, as in a
// database's group commit, and an idle Coalescer adds no wait. A topic
// is in one batch at a time, so its events keep the order of the offers.
// Each topic's state has a lock of its own: the offers of different
// topics never wait for each other (a lock for all of them was most of
// an instance's lock waits in a race).
//
// A batch of plain offers only is published volatile when the bus can
// (VolatileBatcher: on PostgreSQL a commit that does not wait for the
// disk, nor makes every other notifying commit wait for it): a step of
// progress that a crash of the database loses is replaced by the next.
// A batch with an OfferNow in it, news that must not be lost, waits to
// be durable.
type Coalescer struct {
	b     Bus
	every time.Duration
	onErr func(topic string, err error)

	// closed refuses offers once Close began; each topic's state is
	// under its own lock, so that the offers of different topics (each
	// race room's racers) never wait for each other, nor for the
	// flusher's work on other topics.
	closed atomic.Bool
	topics sync.Map // topic name → *pending

	mu       sync.Mutex    // the queue: due, flushing, flushed, shut
	due      []*pending    // the topics due, in order: each at most once
	flushing bool          // the flusher is running
	flushed  chan struct{} // closed when the running flusher ends
	shut     bool          // Close is done: nothing more goes out
}

// pending is the state of one topic of a Coalescer, under its mu. The
// lock order is a topic's, then the Coalescer's.
type pending struct {
	topic string

	mu   sync.Mutex
	gone bool      // forgotten (out of Coalescer.topics): an offer finds it anew
	last time.Time // when the last publish was due
	// build makes the newest message not yet taken for a batch (nil:
	// none); now: it goes out without waiting for Every (OfferNow): news.
	build  func() (Message, bool)
	now    bool
	timer  *time.Timer
	busy   bool // due (in Coalescer.due) or being published
	queued bool // in Coalescer.due, not yet taken by the flusher
}

// NewCoalescer returns a Coalescer publishing on b at most once per every
// per topic (DefaultCoalesceEvery when 0 or less). onErr, when set, is
// told of failed publishes; the message is then dropped (a newer one
// will follow, or the state was not worth a retry).
func NewCoalescer(b Bus, every time.Duration, onErr func(topic string, err error)) *Coalescer {
	if every <= 0 {
		every = DefaultCoalesceEvery
	}
	return &Coalescer{b: b, every: every, onErr: onErr}
}

// Offer hands the newest message of topic to the Coalescer: it is
// published at once if the topic's last publish started Every ago or
// more, otherwise when Every has passed, unless a newer message replaces
// it first. m.ID should be empty (each publish is a new event).
func (c *Coalescer) Offer(topic string, m Message) { c.offerMessage(topic, m, false) }

// OfferNow is Offer for a message that must not wait for Every: news a
// later state depends on (a racer's stored game, which a comeback on
// another server reads) rather than one more step of progress. It goes
// out as soon as the topic's publish under way, if any, is done, still
// in the order of the offers, and a newer offer meanwhile replaces it
// and goes out as soon.
func (c *Coalescer) OfferNow(topic string, m Message) { c.offerMessage(topic, m, true) }

// OfferFunc is Offer (OfferNow when now is set) of a message made when it
// goes out: build is called once per publish of the topic, when its batch
// is taken, with no lock of the Coalescer held, and makes the message
// then (false: nothing to publish). However many offers came since the
// topic's last publish, one build makes the newest state; a builder may
// send only what changed since its last call, as every message it made
// is published but for the bus's failures (told to onErr).
func (c *Coalescer) OfferFunc(topic string, now bool, build func() (Message, bool)) {
	c.offer(topic, build, now)
}

// offerMessage is Offer, and OfferNow when now is set.
func (c *Coalescer) offerMessage(topic string, m Message, now bool) {
	// A message out of bounds fails here, alone, rather than the batch
	// it would be in.
	if err := c.check(topic, m); err != nil {
		return
	}
	c.offer(topic, func() (Message, bool) { return m, true }, now)
}

// check reports a message out of bounds to onErr.
func (c *Coalescer) check(topic string, m Message) error {
	err := Check(topic, m)
	if err != nil && c.onErr != nil {
		c.onErr(topic, fmt.Errorf("publish on %q: %w", topic, err))
	}
	return err
}

// offer hands a topic's newest message, as its builder, to the
// Coalescer; with now set it stops the topic's timer and goes out
// without waiting for Every (a plain offer that replaces it keeps that).
func (c *Coalescer) offer(topic string, build func() (Message, bool), now bool) {
	for !c.closed.Load() {
		v, ok := c.topics.Load(topic)
		if !ok {
			v, _ = c.topics.LoadOrStore(topic, &pending{topic: topic})
		}
		p := v.(*pending)
		p.mu.Lock()
		if p.gone {
			p.mu.Unlock()
			continue // forgotten meanwhile: a new state
		}
		p.build = build
		if now {
			p.now = true
			if p.timer != nil {
				p.timer.Stop()
				p.timer = nil
			}
		}
		if !p.queued {
			// (Queued: the flusher takes the newest message, this one.)
			c.scheduleLocked(p)
		}
		p.mu.Unlock()
		return
	}
}

// scheduleLocked makes the topic's message due now or arms its timer,
// with p.mu held.
func (c *Coalescer) scheduleLocked(p *pending) {
	if p.busy || p.timer != nil || p.build == nil {
		return
	}
	if wait := c.every - time.Since(p.last); wait > 0 && !c.closed.Load() && !p.now {
		c.armLocked(p, wait)
		return
	}
	p.busy, p.queued, p.last = true, true, time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shut {
		return
	}
	c.due = append(c.due, p)
	if !c.flushing {
		c.flushing, c.flushed = true, make(chan struct{})
		go c.flush()
	}
}

// armLocked sets the topic's timer, with p.mu held: when it fires, the
// newest message, if any, goes out; if none came, the topic is
// forgotten.
func (c *Coalescer) armLocked(p *pending, wait time.Duration) {
	var t *time.Timer
	t = time.AfterFunc(wait, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.timer != t {
			return // stopped by OfferNow after it fired
		}
		p.timer = nil
		if p.build == nil && !p.busy {
			p.gone = true
			c.topics.CompareAndDelete(p.topic, p)
			return
		}
		c.scheduleLocked(p)
	})
	p.timer = t
}

// flush publishes the due messages, batch after batch, until none is
// due: each topic's newest message, made when its batch is taken (with
// no lock held: a builder may take its own, which its offers hold).
func (c *Coalescer) flush() {
	for {
		c.mu.Lock()
		n := min(len(c.due), maxBatch)
		if n == 0 {
			c.flushing = false
			close(c.flushed)
			c.mu.Unlock()
			return
		}
		ps := c.due[:n:n]
		c.due = append([]*pending(nil), c.due[n:]...)
		c.mu.Unlock()
		batch := make([]Post, 0, n)
		news := false
		for _, p := range ps {
			p.mu.Lock()
			build := p.build
			news = news || p.now
			p.build, p.now, p.queued = nil, false, false
			p.mu.Unlock()
			if m, ok := build(); ok && c.check(p.topic, m) == nil {
				batch = append(batch, Post{Topic: p.topic, Message: m})
			}
		}
		if len(batch) > 0 {
			c.publish(batch, news)
		}
		for _, p := range ps {
			p.mu.Lock()
			c.doneLocked(p)
			p.mu.Unlock()
		}
	}
}

// publish publishes one batch and reports its failures: volatile when
// the bus can and no post is news (OfferNow).
func (c *Coalescer) publish(batch []Post, news bool) {
	ctx, cancel := context.WithTimeout(context.Background(), coalesceTimeout)
	defer cancel()
	vb, volatile := c.b.(VolatileBatcher)
	if bb, ok := c.b.(Batcher); ok {
		var err error
		if volatile && !news {
			_, err = vb.PublishVolatile(ctx, batch)
		} else {
			_, err = bb.PublishBatch(ctx, batch)
		}
		if err != nil && c.onErr != nil {
			for _, post := range batch {
				c.onErr(post.Topic, err)
			}
		}
		return
	}
	for _, post := range batch {
		if _, err := c.b.Publish(ctx, post.Topic, post.Message); err != nil && c.onErr != nil {
			c.onErr(post.Topic, err)
		}
	}
}

// doneLocked schedules the topic's next message once its publish is
// done, with p.mu held.
func (c *Coalescer) doneLocked(p *pending) {
	p.busy = false
	switch {
	case p.build != nil:
		c.scheduleLocked(p)
	case c.closed.Load():
		p.gone = true
		c.topics.CompareAndDelete(p.topic, p)
	default:
		// Quiet so far: the topic stays until Every has passed since
		// this publish, so that an offer meanwhile waits its turn.
		c.armLocked(p, max(0, c.every-time.Since(p.last)))
	}
}

// Close publishes every pending message at once, waits for the publishes
// under way, and refuses later offers.
func (c *Coalescer) Close() {
	c.closed.Store(true)
	// An offer from now on is refused, and one under way schedules
	// without a timer (scheduleLocked): what is pending goes out now.
	c.topics.Range(func(_, v any) bool {
		p := v.(*pending)
		p.mu.Lock()
		if p.timer != nil {
			p.timer.Stop()
			p.timer = nil
		}
		c.scheduleLocked(p)
		p.mu.Unlock()
		return true
	})
	for {
		c.mu.Lock()
		if !c.flushing && len(c.due) == 0 {
			c.shut = true
			c.mu.Unlock()
			return
		}
		flushed := c.flushed
		c.mu.Unlock()
		<-flushed
	}
}
