package bus_test

import (
	"context"
	"errors"
	"testing"

	"pyramid/bus"
	"pyramid/bus/bustest"
)

func TestMemory(t *testing.T) {
	bustest.Run(t, func(t *testing.T) bus.Bus {
		b := bus.NewMemory(bus.MemoryOptions{})
		t.Cleanup(func() { b.Close() })
		return b
	})
}

// TestMemoryGap: a subscriber further behind than the events a topic
// keeps is told what it missed, then reads on from the oldest kept.
func TestMemoryGap(t *testing.T) {
	ctx := context.Background()
	b := bus.NewMemory(bus.MemoryOptions{Retain: 3})
	defer b.Close()
	s, err := b.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := b.Publish(ctx, "t", bus.Message{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = s.Next(ctx)
	var gap *bus.GapError
	if !errors.As(err, &gap) || !errors.Is(err, bus.ErrGap) || gap.From != 1 || gap.To != 2 {
		t.Fatalf("Next behind the kept events: got %v, want a gap of events 1 to 2", err)
	}
	for want := uint64(3); want <= 5; want++ {
		ev, err := s.Next(ctx)
		if err != nil || ev.Seq != want {
			t.Fatalf("after the gap: got #%d, %v; want #%d", ev.Seq, err, want)
		}
	}
	// A forgotten event's ID may be published again: it is a new event.
	if ev, err := b.Publish(ctx, "t", bus.Message{ID: "x"}); err != nil || ev.Seq != 6 {
		t.Fatalf("Publish: #%d, %v", ev.Seq, err)
	}
}
