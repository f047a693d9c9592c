// Package bustest is the behaviour every bus.Bus implementation must have,
// as a test suite in the spirit of storetest: an implementation's tests
// call Run with a function that opens a fresh, empty bus. The suite
// assumes a bus keeps at least the last 100 events of a topic.
package bustest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"pyramid/bus"
)

// Opener opens a fresh, empty bus and arranges for it to be closed when t
// ends. The suite may close it earlier; Close must then be harmless.
type Opener func(t *testing.T) bus.Bus

// wait bounds every wait of the suite (generous for -race on a loaded
// machine): a wait ends as soon as its condition holds.
const wait = 10 * time.Second

// Run runs the whole suite against the buses open makes.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b bus.Bus)
	}{
		{"OrderPerTopic", testOrderPerTopic},
		{"FanOut", testFanOut},
		{"Unsubscribe", testUnsubscribe},
		{"ResyncFromSeq", testResyncFromSeq},
		{"Latest", testLatest},
		{"DuplicateHarmless", testDuplicateHarmless},
		{"SlowSubscriber", testSlowSubscriber},
		{"NextWaits", testNextWaits},
		{"Close", testClose},
		{"Invalid", testInvalid},
		{"BodiesAreCopies", testBodiesAreCopies},
		{"Batch", testBatch},
		{"Volatile", testVolatile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t))
		})
	}
}

// ctx is a context that gives up after wait.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return c
}

// publish publishes a message and fails the test on an error.
func publish(t *testing.T, b bus.Bus, topic string, m bus.Message) bus.Event {
	t.Helper()
	ev, err := b.Publish(ctx(t), topic, m)
	if err != nil {
		t.Fatalf("Publish(%s, %+v): %v", topic, m, err)
	}
	return ev
}

// subscribe subscribes and fails the test on an error.
func subscribe(t *testing.T, b bus.Bus, topic string, since uint64) bus.Subscription {
	t.Helper()
	s, err := b.Subscribe(ctx(t), topic, since)
	if err != nil {
		t.Fatalf("Subscribe(%s, %d): %v", topic, since, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// read reads n events and fails the test on an error.
func read(t *testing.T, s bus.Subscription, n int) []bus.Event {
	t.Helper()
	evs := make([]bus.Event, 0, n)
	for range n {
		ev, err := s.Next(ctx(t))
		if err != nil {
			t.Fatalf("Next after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// wantSeqs fails unless evs are the events from..from+len-1 of topic, in
// order.
func wantSeqs(t *testing.T, evs []bus.Event, topic string, from uint64) {
	t.Helper()
	for i, ev := range evs {
		if want := from + uint64(i); ev.Seq != want || ev.Topic != topic {
			t.Fatalf("event %d: got %s #%d, want %s #%d", i, ev.Topic, ev.Seq, topic, want)
		}
	}
}

func testOrderPerTopic(t *testing.T, b bus.Bus) {
	const publishers, each = 3, 30
	subA, subB := subscribe(t, b, "a", 0), subscribe(t, b, "b", 0)
	var wg sync.WaitGroup
	errs := make(chan error, 2*publishers*each)
	for p := range publishers {
		wg.Go(func() {
			for i := range each {
				for _, topic := range []string{"a", "b"} {
					if _, err := b.Publish(ctx(t), topic, bus.Message{Kind: "n", Body: fmt.Appendf(nil, "%d-%d", p, i)}); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Publish: %v", err)
	}
	for _, tt := range []struct {
		topic string
		s     bus.Subscription
	}{{"a", subA}, {"b", subB}} {
		evs := read(t, tt.s, publishers*each)
		wantSeqs(t, evs, tt.topic, 1)
		ids := map[string]bool{}
		last := map[byte]int{}
		for _, ev := range evs {
			if ids[ev.ID] || ev.ID == "" {
				t.Fatalf("topic %s: event ID %q empty or repeated", tt.topic, ev.ID)
			}
			ids[ev.ID] = true
			// Each publisher's own events keep the order it sent them in.
			p, i, _ := bytes.Cut(ev.Body, []byte("-"))
			n, _ := strconv.Atoi(string(i))
			if prev, ok := last[p[0]]; ok && n != prev+1 {
				t.Fatalf("topic %s: publisher %s's event %d after its %d", tt.topic, p, n, prev)
			}
			last[p[0]] = n
		}
	}
}

func testFanOut(t *testing.T, b bus.Bus) {
	const subs, n = 5, 20
	var ss []bus.Subscription
	for range subs {
		ss = append(ss, subscribe(t, b, "room:ABCD", bus.Latest))
	}
	var sent []bus.Event
	for i := range n {
		sent = append(sent, publish(t, b, "room:ABCD", bus.Message{Kind: "progress", Body: []byte{byte(i)}}))
	}
	publish(t, b, "room:WXYZ", bus.Message{Kind: "other"})
	for i, s := range ss {
		got := read(t, s, n)
		for j := range got {
			if got[j].ID != sent[j].ID || got[j].Seq != sent[j].Seq || !bytes.Equal(got[j].Body, sent[j].Body) || got[j].Kind != "progress" {
				t.Fatalf("subscriber %d, event %d: got %+v, want %+v", i, j, got[j], sent[j])
			}
		}
	}
}

func testUnsubscribe(t *testing.T, b bus.Bus) {
	gone, stays := subscribe(t, b, "t", 0), subscribe(t, b, "t", 0)
	publish(t, b, "t", bus.Message{Kind: "one"})
	read(t, gone, 1)
	if err := gone.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := gone.Next(ctx(t)); !errors.Is(err, bus.ErrClosed) {
		t.Fatalf("Next after Close: got %v, want ErrClosed", err)
	}
	if err := gone.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	publish(t, b, "t", bus.Message{Kind: "two"})
	wantSeqs(t, read(t, stays, 2), "t", 1)
}

func testResyncFromSeq(t *testing.T, b bus.Bus) {
	for i := range 10 {
		publish(t, b, "t", bus.Message{Kind: "n", Body: []byte{byte(i)}})
	}
	s := subscribe(t, b, "t", 4)
	if s.Seq() != 4 {
		t.Fatalf("Seq before reading: got %d, want 4", s.Seq())
	}
	wantSeqs(t, read(t, s, 3), "t", 5)
	resume := s.Seq()
	if resume != 7 {
		t.Fatalf("Seq after reading 5..7: got %d, want 7", resume)
	}
	// The reader drops and comes back where it was: nothing twice, nothing
	// missed, including events published while it was away.
	s.Close()
	publish(t, b, "t", bus.Message{Kind: "n"})
	again := subscribe(t, b, "t", resume)
	wantSeqs(t, read(t, again, 4), "t", 8)
	all := subscribe(t, b, "t", 0)
	wantSeqs(t, read(t, all, 11), "t", 1)
}

func testLatest(t *testing.T, b bus.Bus) {
	for range 3 {
		publish(t, b, "t", bus.Message{Kind: "old"})
	}
	s := subscribe(t, b, "t", bus.Latest)
	if s.Seq() != 3 {
		t.Fatalf("Seq of a subscription from Latest after 3 events: got %d, want 3", s.Seq())
	}
	publish(t, b, "t", bus.Message{Kind: "new"})
	if ev := read(t, s, 1)[0]; ev.Seq != 4 || ev.Kind != "new" {
		t.Fatalf("first event from Latest: got %+v, want #4 new", ev)
	}
	fresh := subscribe(t, b, "never-used", bus.Latest)
	publish(t, b, "never-used", bus.Message{Kind: "first"})
	wantSeqs(t, read(t, fresh, 1), "never-used", 1)
}

func testDuplicateHarmless(t *testing.T, b bus.Bus) {
	s := subscribe(t, b, "t", 0)
	first := publish(t, b, "t", bus.Message{ID: "race-1-start", Kind: "start", Body: []byte("x")})
	again := publish(t, b, "t", bus.Message{ID: "race-1-start", Kind: "start", Body: []byte("x")})
	if again.Seq != first.Seq || again.ID != first.ID {
		t.Fatalf("the same ID twice: got #%d %s then #%d %s, want one event", first.Seq, first.ID, again.Seq, again.ID)
	}
	// The same ID on another topic is another event.
	if other := publish(t, b, "u", bus.Message{ID: "race-1-start"}); other.Seq != 1 {
		t.Fatalf("the ID on another topic: got #%d, want #1", other.Seq)
	}
	next := publish(t, b, "t", bus.Message{Kind: "after"})
	got := read(t, s, 2)
	if got[0].ID != "race-1-start" || got[1].ID != next.ID || got[1].Seq != first.Seq+1 {
		t.Fatalf("subscriber read %+v, want the event once, then the next one", got)
	}
	// A reader that resumes from an earlier point sees each event once.
	r := subscribe(t, b, "t", 0)
	wantSeqs(t, read(t, r, 2), "t", 1)
}

func testSlowSubscriber(t *testing.T, b bus.Bus) {
	const n = 100
	stuck := subscribe(t, b, "t", 0) // never reads
	_ = stuck
	reader := subscribe(t, b, "t", 0)
	got := make(chan []bus.Event, 1)
	go func() {
		var evs []bus.Event
		for range n {
			ev, err := reader.Next(ctx(t))
			if err != nil {
				break
			}
			evs = append(evs, ev)
		}
		got <- evs
	}()
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := b.Publish(ctx(t), "t", bus.Message{Kind: "n", Body: []byte{byte(i)}}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
	case <-time.After(wait):
		t.Fatalf("the publisher is held up by a subscriber that does not read")
	}
	select {
	case evs := <-got:
		if len(evs) != n {
			t.Fatalf("the reading subscriber got %d events, want %d", len(evs), n)
		}
		wantSeqs(t, evs, "t", 1)
	case <-time.After(wait):
		t.Fatalf("the reading subscriber is held up by one that does not")
	}
}

func testNextWaits(t *testing.T, b bus.Bus) {
	s := subscribe(t, b, "t", 0)
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next with nothing published: got %v, want the context's deadline", err)
	}
	got := make(chan bus.Event, 1)
	go func() {
		ev, err := s.Next(ctx(t))
		if err == nil {
			got <- ev
		}
		close(got)
	}()
	publish(t, b, "t", bus.Message{Kind: "wake"})
	if ev, ok := <-got; !ok || ev.Kind != "wake" {
		t.Fatalf("a waiting Next: got %+v (%v), want the event published while it waited", ev, ok)
	}
}

func testClose(t *testing.T, b bus.Bus) {
	s := subscribe(t, b, "t", 0)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Next(ctx(t))
		errc <- err
	}()
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-errc; !errors.Is(err, bus.ErrClosed) {
		t.Fatalf("a waiting Next when the bus closes: got %v, want ErrClosed", err)
	}
	if _, err := b.Publish(ctx(t), "t", bus.Message{}); !errors.Is(err, bus.ErrClosed) {
		t.Fatalf("Publish after Close: got %v, want ErrClosed", err)
	}
	if _, err := b.Subscribe(ctx(t), "t", 0); !errors.Is(err, bus.ErrClosed) {
		t.Fatalf("Subscribe after Close: got %v, want ErrClosed", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

func testInvalid(t *testing.T, b bus.Bus) {
	long := string(bytes.Repeat([]byte("x"), bus.MaxTopicLen+1))
	for _, tt := range []struct {
		name  string
		topic string
		m     bus.Message
	}{
		{"empty topic", "", bus.Message{}},
		{"long topic", long, bus.Message{}},
		{"topic with a space", "a b", bus.Message{}},
		{"long ID", "t", bus.Message{ID: long}},
		{"long kind", "t", bus.Message{Kind: long}},
		{"big body", "t", bus.Message{Body: make([]byte, bus.MaxBody+1)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := b.Publish(ctx(t), tt.topic, tt.m); !errors.Is(err, bus.ErrInvalid) {
				t.Fatalf("Publish: got %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := b.Subscribe(ctx(t), "", 0); !errors.Is(err, bus.ErrInvalid) {
		t.Fatalf("Subscribe to the empty topic: got %v, want ErrInvalid", err)
	}
	// Nothing was published.
	s := subscribe(t, b, "t", 0)
	if ev := publish(t, b, "t", bus.Message{Kind: "ok"}); ev.Seq != 1 {
		t.Fatalf("first valid event: got #%d, want #1", ev.Seq)
	}
	wantSeqs(t, read(t, s, 1), "t", 1)
}

func testBodiesAreCopies(t *testing.T, b bus.Bus) {
	s1, s2 := subscribe(t, b, "t", 0), subscribe(t, b, "t", 0)
	body := []byte("hello")
	publish(t, b, "t", bus.Message{Kind: "k", Body: body})
	body[0] = 'J'
	e1 := read(t, s1, 1)[0]
	e1.Body[1] = 'A'
	if e2 := read(t, s2, 1)[0]; string(e2.Body) != "hello" {
		t.Fatalf("second subscriber's body: got %q, want %q (bodies are shared)", e2.Body, "hello")
	}
}

// testBatch: a Batcher's batch is its posts published in order, all or
// none, a known ID giving the event already there (other buses skip it).
func testBatch(t *testing.T, b bus.Bus) {
	bb, ok := b.(bus.Batcher)
	if !ok {
		t.Skip("not a bus.Batcher")
	}
	batchOf(t, b, bb.PublishBatch)
}

// testVolatile: a VolatileBatcher's volatile batch is as a batch to its
// subscribers (other buses skip it).
func testVolatile(t *testing.T, b bus.Bus) {
	vb, ok := b.(bus.VolatileBatcher)
	if !ok {
		t.Skip("not a bus.VolatileBatcher")
	}
	batchOf(t, b, vb.PublishVolatile)
}

// batchOf is testBatch's checks of publish, b's PublishBatch or
// PublishVolatile.
func batchOf(t *testing.T, b bus.Bus, publishBatch func(context.Context, []bus.Post) ([]bus.Event, error)) {
	sa, sb := subscribe(t, b, "a", 0), subscribe(t, b, "b", 0)
	known := publish(t, b, "a", bus.Message{ID: "known", Kind: "k", Body: []byte("0")})
	if evs, err := publishBatch(ctx(t), nil); err != nil || len(evs) != 0 {
		t.Fatalf("an empty batch: %v, %v", evs, err)
	}
	evs, err := publishBatch(ctx(t), []bus.Post{
		{Topic: "b", Message: bus.Message{Kind: "n", Body: []byte("b1")}},
		{Topic: "a", Message: bus.Message{Kind: "n", Body: []byte("a2")}},
		{Topic: "a", Message: bus.Message{ID: "known", Kind: "k", Body: []byte("0")}},
		{Topic: "a", Message: bus.Message{ID: "new", Kind: "n", Body: []byte("a3")}},
	})
	if err != nil {
		t.Fatalf("PublishBatch: %v", err)
	}
	want := []struct {
		topic string
		seq   uint64
		body  string
	}{{"b", 1, "b1"}, {"a", 2, "a2"}, {"a", known.Seq, "0"}, {"a", 3, "a3"}}
	if len(evs) != len(want) {
		t.Fatalf("PublishBatch returned %d events, want %d", len(evs), len(want))
	}
	for i, w := range want {
		if ev := evs[i]; ev.Topic != w.topic || ev.Seq != w.seq || string(ev.Body) != w.body || ev.ID == "" {
			t.Errorf("event %d: got %s #%d %q (ID %q), want %s #%d %q", i, ev.Topic, ev.Seq, ev.Body, ev.ID, w.topic, w.seq, w.body)
		}
	}
	wantSeqs(t, read(t, sa, 3), "a", 1)
	wantSeqs(t, read(t, sb, 1), "b", 1)
	// One bad post: nothing of the batch is published.
	if _, err := publishBatch(ctx(t), []bus.Post{
		{Topic: "a", Message: bus.Message{Body: []byte("lost")}},
		{Topic: "", Message: bus.Message{}},
	}); !errors.Is(err, bus.ErrInvalid) {
		t.Fatalf("a batch with a bad post: %v, want ErrInvalid", err)
	}
	if next := publish(t, b, "a", bus.Message{Body: []byte("a4")}); next.Seq != 4 {
		t.Fatalf("after a refused batch: #%d, want #4", next.Seq)
	}
	if got := read(t, sa, 1); string(got[0].Body) != "a4" {
		t.Fatalf("after a refused batch the subscriber read %q, want a4", got[0].Body)
	}
	b.Close()
	if _, err := publishBatch(ctx(t), []bus.Post{{Topic: "a"}}); !errors.Is(err, bus.ErrClosed) {
		t.Fatalf("PublishBatch after Close: %v, want ErrClosed", err)
	}
}
