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

// TestMemoryLossless: on a Lossless bus a subscription that falls behind
// more than Retain events misses none; the events it read go, and a
// subscription that starts behind the events kept gets a gap.
func TestMemoryLossless(t *testing.T) {
	ctx := context.Background()
	b := bus.NewMemory(bus.MemoryOptions{Retain: 3, Lossless: true})
	defer b.Close()
	slow, err := b.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := b.Publish(ctx, "t", bus.Message{}); err != nil {
			t.Fatal(err)
		}
	}
	for want := uint64(1); want <= 8; want++ {
		ev, err := slow.Next(ctx)
		if err != nil || ev.Seq != want {
			t.Fatalf("the slow subscription: got #%d, %v; want #%d", ev.Seq, err, want)
		}
	}
	if _, err := b.Publish(ctx, "t", bus.Message{}); err != nil {
		t.Fatal(err)
	}
	// Events 1 to 8 were read: the topic keeps its last 3 (9 to 11)...
	late, err := b.Subscribe(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	var gap *bus.GapError
	if _, err := late.Next(ctx); !errors.As(err, &gap) || gap.From != 1 || gap.To != 8 {
		t.Fatalf("a late subscription: got %v, want a gap of events 1 to 8", err)
	}
	// ...and once the slow one closes, a late one no longer holds any back.
	slow.Close()
	for want := uint64(9); want <= 11; want++ {
		if ev, err := late.Next(ctx); err != nil || ev.Seq != want {
			t.Fatalf("the late subscription: got #%d, %v; want #%d", ev.Seq, err, want)
		}
	}
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
