package bus

import (
	"context"
	"sync"
	"time"
)

// DefaultCoalesceEvery is the least time between two events a Coalescer
// publishes on one topic: a few a second, whatever the rate of changes.
const DefaultCoalesceEvery = 250 * time.Millisecond

// coalesceTimeout bounds one publish of a Coalescer.
const coalesceTimeout = 5 * time.Second

// Coalescer publishes snapshots (a race's progress, a player's presence)
// on a bus at most once per Every per topic, the newest winning: a burst
// of n changes costs one event, not n, and so one NOTIFY on PostgreSQL,
// never one per keystroke. The first change after a quiet spell goes out
// at once. Offer never waits for the bus; publishes run on goroutines of
// the Coalescer, one at a time per topic, so a topic's events keep the
// order of the offers.
type Coalescer struct {
	b     Bus
	every time.Duration
	onErr func(topic string, err error)

	mu     sync.Mutex
	closed bool
	topics map[string]*pending
	idle   sync.WaitGroup // one per publish under way
}

// pending is the state of one topic of a Coalescer.
type pending struct {
	last  time.Time // when the last publish started
	msg   *Message  // the newest message not yet published
	timer *time.Timer
	busy  bool // a publish is under way
	now   bool // msg goes out without waiting for Every (OfferNow)
}

// NewCoalescer returns a Coalescer publishing on b at most once per every
// per topic (DefaultCoalesceEvery when 0 or less). onErr, when set, is
// told of failed publishes; the message is then dropped (a newer one
// will follow, or the state was not worth a retry).
func NewCoalescer(b Bus, every time.Duration, onErr func(topic string, err error)) *Coalescer {
	if every <= 0 {
		every = DefaultCoalesceEvery
	}
	return &Coalescer{b: b, every: every, onErr: onErr, topics: map[string]*pending{}}
}

// Offer hands the newest message of topic to the Coalescer: it is
// published at once if the topic's last publish started Every ago or
// more, otherwise when Every has passed, unless a newer message replaces
// it first. m.ID should be empty (each publish is a new event).
func (c *Coalescer) Offer(topic string, m Message) { c.offer(topic, m, false) }

// OfferNow is Offer for a message that must not wait for Every: news a
// later state depends on (a racer's stored game, which a comeback on
// another server reads) rather than one more step of progress. It goes
// out as soon as the topic's publish under way, if any, is done, still
// in the order of the offers, and a newer offer meanwhile replaces it
// and goes out as soon.
func (c *Coalescer) OfferNow(topic string, m Message) { c.offer(topic, m, true) }

// offer is Offer, and OfferNow when now is set: such a message stops the
// topic's timer and goes out without waiting for Every (a plain offer
// that replaces it keeps that).
func (c *Coalescer) offer(topic string, m Message, now bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	p := c.topics[topic]
	if p == nil {
		p = &pending{}
		c.topics[topic] = p
	}
	p.msg = &m
	if now {
		p.now = true
		if p.timer != nil {
			p.timer.Stop()
			p.timer = nil
		}
	}
	c.scheduleLocked(topic, p)
}

// scheduleLocked starts the topic's publish now or arms its timer.
func (c *Coalescer) scheduleLocked(topic string, p *pending) {
	if p.busy || p.timer != nil || p.msg == nil {
		return
	}
	if wait := c.every - time.Since(p.last); wait > 0 && !c.closed && !p.now {
		c.armLocked(topic, p, wait)
		return
	}
	m := *p.msg
	p.msg, p.busy, p.last, p.now = nil, true, time.Now(), false
	c.idle.Add(1)
	go c.publish(topic, p, m)
}

// armLocked sets the topic's timer: when it fires, the newest message, if
// any, goes out; if none came, the topic is forgotten.
func (c *Coalescer) armLocked(topic string, p *pending, wait time.Duration) {
	var t *time.Timer
	t = time.AfterFunc(wait, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if p.timer != t {
			return // stopped by OfferNow after it fired
		}
		p.timer = nil
		if p.msg == nil && !p.busy {
			delete(c.topics, topic)
			return
		}
		c.scheduleLocked(topic, p)
	})
	p.timer = t
}

// publish publishes one message, then schedules the topic's next one.
func (c *Coalescer) publish(topic string, p *pending, m Message) {
	defer c.idle.Done()
	ctx, cancel := context.WithTimeout(context.Background(), coalesceTimeout)
	_, err := c.b.Publish(ctx, topic, m)
	cancel()
	if err != nil && c.onErr != nil {
		c.onErr(topic, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p.busy = false
	switch {
	case p.msg != nil:
		c.scheduleLocked(topic, p)
	case c.closed:
		delete(c.topics, topic)
	default:
		// Quiet so far: the topic stays until Every has passed since
		// this publish, so that an offer meanwhile waits its turn.
		c.armLocked(topic, p, max(0, c.every-time.Since(p.last)))
	}
}

// Close publishes every pending message at once, waits for the publishes
// under way, and refuses later offers.
func (c *Coalescer) Close() {
	c.mu.Lock()
	c.closed = true
	for topic, p := range c.topics {
		if p.timer != nil {
			p.timer.Stop()
			p.timer = nil
		}
		c.scheduleLocked(topic, p)
	}
	c.mu.Unlock()
	c.idle.Wait()
}
