package arcade

import (
	"context"
	"sync"
	"testing"

	"pyramid/engine"
)

// seqFind is a deal finder that gives the deals of seq in turn (then
// seq's last again and again), each as verdict says.
type seqFind struct {
	mu      sync.Mutex
	seq     []uint64
	verdict engine.Verdict
	calls   int
}

func (f *seqFind) find(context.Context, engine.Rules) (uint64, engine.Verdict) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.seq[min(f.calls, len(f.seq)-1)]
	f.calls++
	return n, f.verdict
}

// TestDealPoolFillsAndNeverGivesTwice: the first take finds its deal at
// once (the pool is empty) and starts the filling; the takes after come
// from the pool; a deal the finder comes back with is never given again.
func TestDealPoolFillsAndNeverGivesTwice(t *testing.T) {
	f := &seqFind{seq: []uint64{11, 12, 12, 13, 11, 14, 15, 13, 16, 17, 18, 19, 20, 21, 22}, verdict: engine.Winnable}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := newDealPool(ctx, 4, f.find)
	classic := engine.Classic()
	if n, v := p.Take(classic); n != 11 || v != engine.Winnable {
		t.Fatalf("first take: %d %v, want the finder's first, 11, winnable", n, v)
	}
	waitFor(t, "the pool filled", func() bool { return p.Len(classic.ID()) == 4 })
	seen := map[uint64]bool{11: true}
	for range 8 {
		n, v := p.Take(classic)
		if seen[n] {
			t.Fatalf("deal %d given twice", n)
		}
		if v != engine.Winnable {
			t.Fatalf("deal %d: %v", n, v)
		}
		seen[n] = true
		waitFor(t, "the filler done", func() bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			return !p.pool(classic.ID()).filling
		})
	}
	if p.Len("other") != 0 {
		t.Error("another rule set's pool holds deals nobody took")
	}
}

// TestDealPoolEmptyFallsBack: with the finder unable to prove a deal
// winnable, the pool stays empty and every take is the finder's answer,
// verdict and all.
func TestDealPoolEmptyFallsBack(t *testing.T) {
	f := &seqFind{seq: []uint64{5, 6, 7, 8, 9, 10}, verdict: engine.Unknown}
	p := newDealPool(context.Background(), 4, f.find)
	classic := engine.Classic()
	for i := range 3 {
		n, v := p.Take(classic)
		if v != engine.Unknown || n == 0 {
			t.Fatalf("take %d: %d %v, want the finder's deal, unknown", i, n, v)
		}
		waitFor(t, "the filler stopped", func() bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			return !p.pool(classic.ID()).filling
		})
		if l := p.Len(classic.ID()); l != 0 {
			t.Fatalf("the pool keeps %d deals not proved winnable", l)
		}
	}
}

// TestDealPoolStopped: once its context ends, the pool fills no more.
func TestDealPoolStopped(t *testing.T) {
	f := &seqFind{seq: []uint64{1, 2, 3, 4, 5, 6}, verdict: engine.Winnable}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := newDealPool(ctx, 4, f.find)
	if n, _ := p.Take(engine.Classic()); n != 1 {
		t.Fatalf("take: %d, want the finder's first", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls != 1 {
		t.Errorf("finder called %d times, want once (no filling)", f.calls)
	}
}
