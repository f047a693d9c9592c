package bus

import (
	"testing"
	"time"
)

// TestCoalescerTopicsDoNotWait: an offer on one topic does not wait for
// another topic's state (each has its own lock), such as a topic whose
// lock is held by a slow offer or by the flusher.
func TestCoalescerTopicsDoNotWait(t *testing.T) {
	b := NewMemory(MemoryOptions{})
	defer b.Close()
	c := NewCoalescer(b, time.Hour, nil)
	defer c.Close()
	c.Offer("a", Message{Body: []byte("a")})
	v, _ := c.topics.Load("a")
	p := v.(*pending)
	p.mu.Lock()
	done := make(chan struct{})
	go func() {
		c.Offer("b", Message{Body: []byte("b")})
		c.Offer("b", Message{Body: []byte("b2")})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("an offer on b waited for a's lock")
	}
	p.mu.Unlock()
}
