package bus_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
)

// drain reads every event published on topic so far.
func drain(t *testing.T, b bus.Bus, topic string) []string {
	t.Helper()
	s, err := b.Subscribe(context.Background(), topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		ev, err := s.Next(ctx)
		cancel()
		if err != nil {
			return out
		}
		out = append(out, string(ev.Body))
	}
}

func TestCoalescer(t *testing.T) {
	tests := []struct {
		name string
		// offers are (delay before the offer, body); all on topic "p".
		offers []time.Duration
		want   []string
	}{
		{"one offer goes at once", []time.Duration{0}, []string{"0"}},
		{"a burst: the first and the newest", []time.Duration{0, 0, 0, 0, 0}, []string{"0", "4"}},
		{"spaced out: each goes", []time.Duration{0, time.Second, time.Second}, []string{"0", "1", "2"}},
		{"a stream: a few a second, the newest of each spell",
			[]time.Duration{0, 90 * time.Millisecond, 90 * time.Millisecond, 90 * time.Millisecond, 90 * time.Millisecond, 90 * time.Millisecond},
			[]string{"0", "2", "5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := bus.NewMemory(bus.MemoryOptions{})
				defer b.Close()
				c := bus.NewCoalescer(b, 250*time.Millisecond, nil)
				for i, d := range tt.offers {
					time.Sleep(d) // the fake clock of the bubble: the test's timeline, not synchronisation
					c.Offer("p", bus.Message{Kind: "progress", Body: fmt.Appendf(nil, "%d", i)})
					synctest.Wait() // an offer's publish, if due, is done before the next
				}
				time.Sleep(time.Second)
				synctest.Wait()
				got := drain(t, b, "p")
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Fatalf("published %v, want %v", got, tt.want)
				}
				c.Close()
			})
		})
	}
}

// TestCoalescerTopicsApart: one topic's stream does not hold up another's
// first event.
func TestCoalescerTopicsApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		c := bus.NewCoalescer(b, time.Second, nil)
		defer c.Close()
		c.Offer("a", bus.Message{Body: []byte("a0")})
		synctest.Wait()
		c.Offer("a", bus.Message{Body: []byte("a1")})
		c.Offer("b", bus.Message{Body: []byte("b0")})
		synctest.Wait()
		if got := drain(t, b, "b"); len(got) != 1 || got[0] != "b0" {
			t.Fatalf("topic b: %v, want [b0] at once", got)
		}
		if got := drain(t, b, "a"); len(got) != 1 {
			t.Fatalf("topic a before a second: %v, want [a0]", got)
		}
	})
}

// TestCoalescerClose: Close publishes what is pending at once and refuses
// later offers.
func TestCoalescerClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		c := bus.NewCoalescer(b, time.Hour, nil)
		c.Offer("p", bus.Message{Body: []byte("0")})
		synctest.Wait()
		c.Offer("p", bus.Message{Body: []byte("1")}) // waits an hour…
		c.Close()                                    // …or for Close
		c.Offer("p", bus.Message{Body: []byte("2")})
		synctest.Wait()
		if got := drain(t, b, "p"); fmt.Sprint(got) != "[0 1]" {
			t.Fatalf("published %v, want [0 1]", got)
		}
	})
}

// TestCoalescerError: a failed publish is reported and the next offer
// still goes.
func TestCoalescerError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		errs := make(chan error, 10)
		c := bus.NewCoalescer(b, 10*time.Millisecond, func(topic string, err error) { errs <- err })
		defer c.Close()
		c.Offer("bad topic", bus.Message{})
		if err := <-errs; !errors.Is(err, bus.ErrInvalid) {
			t.Fatalf("error: %v, want ErrInvalid", err)
		}
		c.Offer("good", bus.Message{Body: []byte("x")})
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, b, "good"); fmt.Sprint(got) != "[x]" {
			t.Fatalf("after the error: %v, want [x]", got)
		}
	})
}

// TestCoalescerOfferNow: news that must not wait goes out at once, after
// the publish before it and in order, and the spell's later offers wait
// their turn as usual.
func TestCoalescerOfferNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		c := bus.NewCoalescer(b, 250*time.Millisecond, nil)
		start := time.Now()
		offer := func(now bool, body string) {
			if now {
				c.OfferNow("p", bus.Message{Kind: "progress", Body: []byte(body)})
			} else {
				c.Offer("p", bus.Message{Kind: "progress", Body: []byte(body)})
			}
		}
		offer(false, "first") // at once
		synctest.Wait()       // (an offer before it went would take its place)
		offer(false, "held")  // waits for Every…
		offer(true, "news")   // …replaced by news that does not
		synctest.Wait()
		took := time.Since(start)
		if got := drain(t, b, "p"); len(got) != 2 || got[0] != "first" || got[1] != "news" || took != 0 {
			t.Fatalf("after the news: %q at %s, want [first news] at once", got, took)
		}
		offer(false, "later") // the spell of the news: waits Every
		synctest.Wait()
		if got := drain(t, b, "p"); len(got) != 2 {
			t.Fatalf("an offer right after the news went out at once: %q", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, b, "p"); len(got) != 3 || got[2] != "later" {
			t.Fatalf("in the end: %q, want [first news later]", got)
		}
		c.Close()
	})
}

// batchBus is a Memory bus that counts its batches and holds the first
// one until release is closed.
type batchBus struct {
	*bus.Memory
	release chan struct{}
	batches [][]string // the topics of each batch
}

func (b *batchBus) PublishBatch(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	var topics []string
	for _, p := range posts {
		topics = append(topics, p.Topic)
	}
	b.batches = append(b.batches, topics)
	if len(b.batches) == 1 {
		<-b.release
	}
	return b.Memory.PublishBatch(ctx, posts)
}

// TestCoalescerBatches: the topics due while a batch is under way go out
// together in the next one, each topic's newest message once (a message
// due but not yet in a batch gives way to a newer one).
func TestCoalescerBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &batchBus{Memory: bus.NewMemory(bus.MemoryOptions{}), release: make(chan struct{})}
		defer b.Close()
		c := bus.NewCoalescer(b, time.Second, nil)
		c.Offer("a", bus.Message{Body: []byte("a0")})
		synctest.Wait() // a's batch is under way
		for _, topic := range []string{"b", "c", "d"} {
			c.Offer(topic, bus.Message{Body: []byte(topic + "0")})
			c.Offer(topic, bus.Message{Body: []byte(topic + "1")})
		}
		close(b.release)
		synctest.Wait()
		if got, want := fmt.Sprint(b.batches), "[[a] [b c d]]"; got != want {
			t.Fatalf("batches %s, want %s", got, want)
		}
		for _, topic := range []string{"b", "c", "d"} {
			if got := drain(t, b, topic); fmt.Sprint(got) != "["+topic+"1]" {
				t.Errorf("topic %s: %v, want its newest message once", topic, got)
			}
		}
		c.Close()
	})
}

// slowBatchBus is a Memory bus whose batches take a while, as a commit
// does, and that counts them.
type slowBatchBus struct {
	*bus.Memory
	commit  time.Duration
	batches int
	events  int
}

func (b *slowBatchBus) PublishBatch(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	time.Sleep(b.commit) // the bubble's clock: the commit's duration in the model
	b.batches++
	b.events += len(posts)
	return b.Memory.PublishBatch(ctx, posts)
}

// TestCoalescerRaceModel counts what the cluster-race load costs one
// server's Coalescer, on the bubble's clock: 63 rooms with 4 of the
// server's racers each, every racer moving every 2 s (phases spread), the
// progress coalesced per room every 100 ms, each commit taking from 2 ms
// (a quiet PostgreSQL) to 80 ms (a loaded one). Each move is at most one
// event, and the commits per second are bounded by the commit's
// duration, whatever the number of rooms (one commit per event before
// batches: 126/s here).
func TestCoalescerRaceModel(t *testing.T) {
	for _, commit := range []time.Duration{2 * time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond} {
		t.Run(fmt.Sprint("commit ", commit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { raceModel(t, commit) })
		})
	}
}

func raceModel(t *testing.T, commit time.Duration) {
	const (
		rooms, racers = 63, 4
		moveEvery     = 2 * time.Second
		every         = 100 * time.Millisecond
		duration      = 20 * time.Second
	)
	b := &slowBatchBus{Memory: bus.NewMemory(bus.MemoryOptions{}), commit: commit}
	defer b.Close()
	c := bus.NewCoalescer(b, every, nil)
	moves := 0
	start := time.Now()
	for i := range rooms * racers {
		// Phases spread over moveEvery in 1 ms steps (a prime stride).
		phase := time.Duration(i*7919%int(moveEvery/time.Millisecond)) * time.Millisecond
		go func() {
			time.Sleep(phase)
			for time.Since(start) < duration {
				c.Offer(fmt.Sprint("room.", i/racers), bus.Message{Body: fmt.Appendf(nil, "%d", i)})
				time.Sleep(moveEvery)
			}
		}()
		moves += int((duration - phase + moveEvery - 1) / moveEvery)
	}
	time.Sleep(duration + moveEvery) // every racer is done
	synctest.Wait()
	c.Close()
	secs := duration.Seconds()
	t.Logf("%d moves (%.0f/s): %d events (%.2f a move), %d commits (%.1f/s, %.1f events each)",
		moves, float64(moves)/secs, b.events, float64(b.events)/float64(moves), b.batches, float64(b.batches)/secs,
		float64(b.events)/float64(b.batches))
	if b.events > moves {
		t.Errorf("%d events for %d moves, want at most one a move", b.events, moves)
	}
	if most := int((duration+moveEvery)/commit) + 1; b.batches > most {
		t.Errorf("%d commits, want at most %d (one per commit's duration)", b.batches, most)
	}
}

// volatileBus is a Memory bus that can publish volatile batches, and
// tells which way each batch went.
type volatileBus struct {
	*bus.Memory
	ways []string // "durable" or "volatile", a batch each
}

func (b *volatileBus) PublishBatch(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	b.ways = append(b.ways, "durable")
	return b.Memory.PublishBatch(ctx, posts)
}

func (b *volatileBus) PublishVolatile(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	b.ways = append(b.ways, "volatile")
	return b.Memory.PublishBatch(ctx, posts)
}

// TestCoalescerVolatile: a batch of plain offers goes volatile on a bus
// that can; one with news (OfferNow) in it, even news that replaced a
// plain offer due, or that a plain offer replaced, waits to be durable.
func TestCoalescerVolatile(t *testing.T) {
	tests := []struct {
		name   string
		offers []string // topic and way of each offer: "a" plain, "a!" OfferNow
		want   string
	}{
		{"plain offers", []string{"a", "b"}, "[volatile volatile]"},
		{"news", []string{"a!"}, "[durable]"},
		{"news beside plain offers in one batch", []string{"a", "b", "c!"}, "[volatile durable]"},
		{"a plain offer replacing news due", []string{"a", "b!", "b"}, "[volatile durable]"},
		{"news replacing a plain offer due", []string{"a", "b", "b!"}, "[volatile durable]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := &volatileBus{Memory: bus.NewMemory(bus.MemoryOptions{})}
				defer b.Close()
				c := bus.NewCoalescer(b, time.Second, nil)
				for i, o := range tt.offers {
					topic, now := strings.CutSuffix(o, "!")
					m := bus.Message{Body: []byte(o)}
					if now {
						c.OfferNow(topic, m)
					} else {
						c.Offer(topic, m)
					}
					if i == 0 {
						synctest.Wait() // the first batch is under way
					}
				}
				synctest.Wait()
				c.Close()
				if got := fmt.Sprint(b.ways); got != tt.want {
					t.Errorf("batches %s, want %s", got, tt.want)
				}
			})
		})
	}
}

// TestCoalescerConcurrent: many topics offered on at once, each by its
// own goroutine: after Close every topic's newest message is the last
// it published, and nothing goes out after Close.
func TestCoalescerConcurrent(t *testing.T) {
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	c := bus.NewCoalescer(b, time.Millisecond, nil)
	const topics, offers = 40, 200
	done := make(chan struct{})
	for i := range topics {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range offers {
				if j%50 == 49 {
					c.OfferNow(fmt.Sprint("t", i), bus.Message{Body: fmt.Appendf(nil, "%d", j)})
					continue
				}
				c.Offer(fmt.Sprint("t", i), bus.Message{Body: fmt.Appendf(nil, "%d", j)})
			}
		}()
	}
	for range topics {
		<-done
	}
	c.Close()
	c.Offer("t0", bus.Message{Body: []byte("after")})
	for i := range topics {
		got := drain(t, b, fmt.Sprint("t", i))
		if len(got) == 0 || got[len(got)-1] != fmt.Sprint(offers-1) {
			t.Errorf("topic t%d: last of %d events %q, want %d", i, len(got), got[max(0, len(got)-1):], offers-1)
		}
	}
}

// TestCoalescerOfferFunc: a built message is made when it goes out, once
// per publish, from the state then (however many offers came meanwhile);
// a builder with nothing to say publishes nothing, and one may offer
// again from inside (no lock of the Coalescer is held).
func TestCoalescerOfferFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		c := bus.NewCoalescer(b, 250*time.Millisecond, nil)
		var state, builds atomic.Int64
		var build func() (bus.Message, bool)
		build = func() (bus.Message, bool) {
			builds.Add(1)
			n := state.Load()
			if n < 0 {
				return bus.Message{}, false
			}
			if n == 7 {
				c.OfferFunc("p", false, build) // from inside: no deadlock
			}
			return bus.Message{Kind: "progress", Body: fmt.Appendf(nil, "%d", n)}, true
		}
		state.Store(1)
		c.OfferFunc("p", false, build) // out at once: built now
		synctest.Wait()
		for n := int64(2); n <= 5; n++ {
			state.Store(n)
			c.OfferFunc("p", false, build) // a burst: one build, at Every
		}
		state.Store(6)
		time.Sleep(time.Second)
		synctest.Wait()
		state.Store(7)
		c.OfferFunc("p", true, build) // builds 7, which offers again: 8 at Every
		synctest.Wait()
		state.Store(8)
		time.Sleep(time.Second)
		synctest.Wait()
		state.Store(-1)
		c.OfferFunc("p", true, build) // nothing to say
		synctest.Wait()
		if got, want := fmt.Sprint(drain(t, b, "p")), "[1 6 7 8]"; got != want {
			t.Fatalf("published %s, want %s", got, want)
		}
		if n := builds.Load(); n != 5 {
			t.Fatalf("%d builds, want 5 (one per publish, and the empty one)", n)
		}
		c.Close()
	})
}
