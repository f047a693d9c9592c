package lobby

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"
)

// drain reads what q holds now.
func drain(t *testing.T, q *Queue) []Event {
	t.Helper()
	var got []Event
	for q.Len() > 0 {
		ev, err := q.Next(context.Background())
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, ev)
	}
	return got
}

func TestQueueOrderAndCoalescing(t *testing.T) {
	type op struct {
		key string // "" posts
		ev  string
	}
	tests := []struct {
		name string
		ops  []op
		want []Event
	}{
		{"discrete events in order", []op{{"", "a"}, {"", "b"}, {"", "c"}}, []Event{"a", "b", "c"}},
		{"the newest snapshot wins", []op{{"p", "1"}, {"p", "2"}, {"p", "3"}}, []Event{"3"}},
		{"a snapshot keeps its place", []op{{"p", "1"}, {"", "a"}, {"p", "2"}, {"", "b"}}, []Event{"2", "a", "b"}},
		{"keys coalesce apart", []op{{"p", "1"}, {"q", "x"}, {"p", "2"}, {"q", "y"}}, []Event{"2", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueue(4, nil)
			for _, o := range tt.ops {
				if o.key == "" {
					if !q.Post(o.ev) {
						t.Fatalf("Post(%s) refused", o.ev)
					}
				} else {
					q.Coalesce(o.key, o.ev)
				}
			}
			got := drain(t, q)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestQueueSnapshotAfterRead: a key read is a new key again, at the end.
func TestQueueSnapshotAfterRead(t *testing.T) {
	q := NewQueue(4, nil)
	q.Coalesce("p", "1")
	q.Post("a")
	if got, err := q.Next(context.Background()); got != "1" || err != nil {
		t.Fatalf("first: got %v, %v", got, err)
	}
	q.Post("b")
	q.Coalesce("p", "2")
	q.Coalesce("p", "3")
	if got := fmt.Sprint(drain(t, q)); got != "[a b 3]" {
		t.Fatalf("got %s, want [a b 3]", got)
	}
}

func TestQueueFull(t *testing.T) {
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	q := NewQueue(2, clock)
	if !q.Post(1) || !q.Post(2) {
		t.Fatal("a queue of 2 refused one of its first 2 events")
	}
	if _, full := q.FullSince(); full {
		t.Fatal("FullSince before anything was refused")
	}
	if q.Post(3) {
		t.Fatal("a full queue took a third event")
	}
	since, full := q.FullSince()
	if !full || !since.Equal(now) {
		t.Fatalf("FullSince = %v, %v; want %v", since, full, now)
	}
	now = now.Add(time.Second)
	q.Post(4)
	if since, _ := q.FullSince(); !since.Equal(now.Add(-time.Second)) {
		t.Fatalf("FullSince moved on with a second refusal: %v", since)
	}
	// Snapshots are not discrete events: a full queue still takes them,
	// up to its size in keys.
	q.Coalesce("a", "x")
	q.Coalesce("b", "y")
	q.Coalesce("c", "z")
	if got := fmt.Sprint(drain(t, q)); got != "[1 2 x y]" {
		t.Fatalf("got %s, want [1 2 x y]", got)
	}
	if _, full := q.FullSince(); full {
		t.Fatal("FullSince after the reader took events")
	}
}

func TestQueueNextWaitsAndClose(t *testing.T) {
	q := NewQueue(0, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := q.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on an empty queue: got %v, want the deadline", err)
	}
	got := make(chan Event)
	go func() {
		ev, _ := q.Next(context.Background())
		got <- ev
	}()
	q.Post("hello")
	if ev := <-got; ev != "hello" {
		t.Fatalf("a waiting Next got %v", ev)
	}
	errc := make(chan error)
	go func() {
		_, err := q.Next(context.Background())
		errc <- err
	}()
	q.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("a waiting Next when the queue closes: got %v, want ErrClosed", err)
	}
	if q.Post("late") {
		t.Fatal("a closed queue took an event")
	}
	q.Coalesce("k", "late")
	if _, err := q.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close: got %v", err)
	}
	q.Close()
}

// TestQueueNotify: ready is called once, by the post or the close that
// makes Next not wait, never while the queue has events already (Notify
// says so instead), and a later Notify replaces one not called yet.
func TestQueueNotify(t *testing.T) {
	q := NewQueue(0, nil)
	calls := 0
	ready := func() { calls++ }
	if q.Notify(ready) {
		t.Fatal("Notify on an empty queue says it is ready")
	}
	q.Post("one")
	q.Post("two")
	if calls != 1 {
		t.Fatalf("ready called %d times for two posts, want once", calls)
	}
	if !q.Notify(ready) {
		t.Fatal("Notify with events waiting does not say so")
	}
	drain(t, q)
	q.Post("three") // nothing armed: nothing called
	if calls != 1 {
		t.Fatalf("ready called %d times, want 1", calls)
	}
	drain(t, q)
	replaced := false
	q.Notify(func() { replaced = true })
	if q.Notify(ready) {
		t.Fatal("Notify on a read queue says it is ready")
	}
	q.Coalesce("k", "four")
	if replaced || calls != 2 {
		t.Fatalf("after a coalesced event: the replaced ready called %v, the newer %d times (want false, 2)", replaced, calls)
	}
	q.Coalesce("k", "five") // the same key's newer value: nothing new to tell
	drain(t, q)
	q.Notify(ready)
	q.Close()
	if calls != 3 {
		t.Fatalf("ready called %d times after Close, want 3", calls)
	}
	if !q.Notify(ready) {
		t.Fatal("Notify on a closed queue does not say it is ready")
	}
}

// TestQueueConcurrent: many senders and one reader; every event that was
// taken is read once, and the newest snapshot of each key is read last.
func TestQueueConcurrent(t *testing.T) {
	q := NewQueue(8, nil)
	const senders, each = 8, 200
	var taken sync.Map
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if q.Post(fmt.Sprintf("%d-%d", s, i)) {
					taken.Store(fmt.Sprintf("%d-%d", s, i), true)
				}
				q.Coalesce(fmt.Sprint(s), i)
			}
		})
	}
	read := map[any]int{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			ev, err := q.Next(ctx)
			if err != nil {
				return
			}
			read[ev]++
		}
	}()
	wg.Wait()
	for q.Len() > 0 {
		runtime.Gosched()
	}
	cancel()
	<-done
	taken.Range(func(k, _ any) bool {
		if read[k] != 1 {
			t.Errorf("event %v taken, read %d times", k, read[k])
		}
		return true
	})
	for ev, n := range read {
		if s, ok := ev.(string); ok {
			if _, was := taken.Load(s); !was || n != 1 {
				t.Errorf("event %v read %d times, taken %v", ev, n, was)
			}
		}
	}
	if read[each-1] == 0 {
		t.Errorf("no sender's last snapshot (%d) was read", each-1)
	}
}

// TestQueueNextAll: NextAll waits for an event, then takes every one
// waiting, in order, coalesced ones at their place.
func TestQueueNextAll(t *testing.T) {
	tests := []struct {
		name string
		post func(q *Queue)
		want []Event
	}{
		{"one", func(q *Queue) { q.Post(1) }, []Event{1}},
		{"in order", func(q *Queue) { q.Post(1); q.Coalesce("p", 2); q.Post(3); q.Coalesce("p", 4) }, []Event{1, 4, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueue(4, nil)
			tt.post(q)
			got, err := q.NextAll(context.Background(), nil)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("NextAll: %v, %v; want %v", got, err, tt.want)
			}
			if q.Len() != 0 {
				t.Errorf("%d left waiting", q.Len())
			}
		})
	}
	q := NewQueue(4, nil)
	q.Close()
	if _, err := q.NextAll(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("NextAll on a closed queue: %v, want ErrClosed", err)
	}
}
