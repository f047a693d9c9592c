package arcade

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
)

func TestSolverDailyDealIsShared(t *testing.T) {
	s := NewSolver(0, 2)
	day := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
	r := engine.MustRules("daily")
	var wg sync.WaitGroup
	got := make([]uint64, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.DailyDeal(context.Background(), r, day)
			if err != nil {
				t.Error(err)
			}
			got[i] = n
		}()
	}
	wg.Wait()
	for _, n := range got {
		if n != got[0] {
			t.Fatalf("askers got different daily deals: %v", got)
		}
	}
	g, _ := engine.NewNumbered(r, got[0])
	if v := engine.StillWinnable(context.Background(), g, 0); v != engine.Winnable {
		t.Fatalf("daily deal %d: %s, want winnable", got[0], v)
	}
	if got[0] < engine.DailyNumber(nil, day) {
		t.Fatalf("daily deal %d is before the date's number %d", got[0], engine.DailyNumber(nil, day))
	}
	// An asker that gives up does not stop the work for the others.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	next := day.AddDate(0, 0, 1)
	if _, err := s.DailyDeal(ctx, r, next); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled asker: got %v", err)
	}
	if _, err := s.DailyDeal(context.Background(), r, next); err != nil {
		t.Fatalf("after a cancelled asker: %v", err)
	}
}

func TestSolverHint(t *testing.T) {
	s := NewSolver(0, 1)
	n, err := s.NextWinnable(context.Background(), engine.Classic(), 0)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := engine.NewNumbered(engine.Classic(), n)
	m, v, err := s.Hint(context.Background(), g)
	if err != nil || v != engine.Winnable || g.Check(m) != nil {
		t.Fatalf("hint on a winnable deal: %s, %v, %v", m, v, err)
	}
	if err := g.Apply(m); err != nil {
		t.Fatal(err)
	}
	if engine.StillWinnable(context.Background(), g, 0) != engine.Winnable {
		t.Fatalf("the hint %s lost the deal", m)
	}
	// With every slot taken, a query waits for its context and gives up.
	s.slots <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := s.Hint(ctx, g); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hint with no free slot: got %v, want a deadline error", err)
	}
	<-s.slots
}

func TestSolverSolve(t *testing.T) {
	s := NewSolver(0, 1)
	// Classic 3 is winnable: the line wins when replayed.
	g, _ := engine.NewNumbered(engine.Classic(), 3)
	v, line, err := s.Solve(context.Background(), g)
	if err != nil || v != engine.Winnable || len(line) == 0 {
		t.Fatalf("classic 3: %v, %d moves, %v; want winnable with a line", v, len(line), err)
	}
	if g.MovesMade() != 0 {
		t.Fatal("Solve changed the game it was given")
	}
	for i, m := range line {
		if err := g.Apply(m); err != nil {
			t.Fatalf("move %d (%s): %v", i+1, m, err)
		}
	}
	if g.Status() != engine.Won {
		t.Fatalf("the line ends %s, want won", g.Status())
	}
	// One pass 1 is not.
	g, _ = engine.NewNumbered(engine.MustRules("one-pass"), 1)
	if v, line, err := s.Solve(context.Background(), g); err != nil || v != engine.Unwinnable || line != nil {
		t.Fatalf("one-pass 1: %v, %v, %v; want unwinnable without a line", v, line, err)
	}
	// A budget too small to decide is unknown, not an error.
	small := NewSolver(10, 1)
	g, _ = engine.NewNumbered(engine.Classic(), 26)
	if v, _, err := small.Solve(context.Background(), g); err != nil || v != engine.Unknown {
		t.Fatalf("classic 26 in 10 positions: %v, %v; want unknown", v, err)
	}
	// A solve cut by its context says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, _, err := s.Solve(ctx, g); v != engine.Unknown || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, %v; want unknown and the context's error", v, err)
	}
	// With every slot taken, it waits for its context and gives up.
	s.slots <- struct{}{}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := s.Solve(ctx, g); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("solve with no free slot: got %v, want a deadline error", err)
	}
	<-s.slots
}
