package engine

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSolveOptimalMemoryReused: a shortest-line search takes the memory
// the one before left (a server works out one par after another), and
// what it finds does not depend on whose memory it had: the same line
// and positions after searches of other rule sets, whose records are of
// other sizes, as from fresh memory.
func TestSolveOptimalMemoryReused(t *testing.T) {
	deals := loadMSC(t)
	solve := func(rules string, deal Deal) Solution {
		t.Helper()
		g, err := NewGame(MustRules(rules), deal)
		if err != nil {
			t.Fatal(err)
		}
		return SolveOptimal(t.Context(), g, 0)
	}
	// A deal whose search stores a few thousand positions: its tables
	// grow past their first size.
	var d Deal
	var first Solution
	found := false
	for _, m := range deals {
		if first = solve("open-stock", m.deal); first.Optimal && first.States > 20_000 {
			d, found = m.deal, true
			break
		}
	}
	if !found {
		t.Fatal("no published deal needs a search of 20,000 positions")
	}
	for n := range uint64(3) {
		for _, rules := range []string{"classic", "draw-three", "relaxed"} {
			solve(rules, deals[n].deal)
		}
	}
	again := solve("open-stock", d)
	if !slices.Equal(again.Moves, first.Moves) || again.States != first.States || again.Optimal != first.Optimal {
		t.Fatalf("after other searches: a line of %d (%d positions), from fresh memory %d (%d)", len(again.Moves), again.States, len(first.Moves), first.States)
	}

	allocated := func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.TotalAlloc
	}
	dropSpare() // the first search has fresh memory
	from := allocated()
	solve("open-stock", d)
	fresh := allocated() - from
	from = allocated()
	solve("open-stock", d)
	reused := allocated() - from
	if reused*4 > fresh {
		t.Errorf("the same search allocated %d bytes again after %d: its memory was not reused", reused, fresh)
	}
	t.Logf("a search of %d positions allocated %d bytes from fresh memory, %d with the memory of the one before", first.States, fresh, reused)
}

// TestSolveOptimalMemoryBounded: what a search leaves for the next is
// bounded, whatever its size: a larger one's memory goes to the
// collector.
func TestSolveOptimalMemoryBounded(t *testing.T) {
	o := &optSearch{words: 3, stride: 4, mem: new(optMemory)}
	pages := 3 * sparePageWords / (recPage * 4)
	for range pages {
		o.recs = append(o.recs, o.newPage())
	}
	o.slots = o.newSlots(spareSlots * 4)
	m := o.mem
	m.putSlots(make([]uint64, spareSlots))
	m.putSlots(make([]uint64, spareSlots*2))
	o.release()
	kept := 0
	for _, p := range m.pages {
		kept += 8 * cap(p)
	}
	for _, s := range m.slots {
		kept += 8 * cap(s)
	}
	if limit := 8 * (sparePageWords + spareSlots); kept > limit || len(m.pages) != sparePageWords/(recPage*4) {
		t.Errorf("kept %d bytes (%d pages) after a search of %d pages and %d slots, want at most %d (%d pages)",
			kept, len(m.pages), pages, spareSlots*4, limit, sparePageWords/(recPage*4))
	}
}

// TestSolveOptimalMemoryOneSpare: of searches that ran side by side, one
// memory is kept, and none once it has been unused for spareIdle.
func TestSolveOptimalMemoryOneSpare(t *testing.T) {
	defer func(d time.Duration) { spareIdle = d }(spareIdle)
	spareIdle = 100 * time.Millisecond
	r := MustRules("classic")
	var wg sync.WaitGroup
	for n := range uint64(4) {
		wg.Go(func() {
			g, err := NewGame(r, NewDeal(n+1, r.Decks))
			if err != nil {
				t.Error(err)
				return
			}
			SolveOptimal(t.Context(), g, 0)
		})
	}
	wg.Wait()
	spare.Lock()
	kept := spare.m != nil
	spare.Unlock()
	if !kept {
		t.Fatal("no memory kept after the searches")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		spare.Lock()
		kept = spare.m != nil
		spare.Unlock()
		if !kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spare memory still kept 10 s after its last search, with spareIdle %v", spareIdle)
		}
	}
}
