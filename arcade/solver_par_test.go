package arcade

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/tui"
)

func TestSolverPar(t *testing.T) {
	s := NewSolver(0, 2)
	r := engine.Classic()
	tests := []struct {
		name string
		deal uint64
		want int // 0: no par
	}{
		{"winnable", 3, 58},
		{"another", 16, 55},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := engine.NewDeal(tt.deal, r.Decks)
			var wg sync.WaitGroup
			got := make([]int, 4)
			for i := range got {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p, err := s.Par(context.Background(), r, d)
					if err != nil {
						t.Error(err)
					}
					got[i] = p
				}()
			}
			wg.Wait()
			for _, p := range got {
				if p != tt.want {
					t.Fatalf("par of classic %d: got %v, want %d", tt.deal, got, tt.want)
				}
			}
		})
	}
	if n := len(s.pars); n != 2 {
		t.Errorf("%d pars cached, want 2 (one per deal)", n)
	}
	// A deal given as text is keyed by its cards.
	d := engine.NewDeal(3, 1)
	d.Numbered, d.Number = false, 0
	if p, err := s.Par(context.Background(), r, d); err != nil || p != 58 {
		t.Errorf("par of classic 3 as text: %d, %v; want 58", p, err)
	}
}

func TestSolverParNone(t *testing.T) {
	s := NewSolver(0, 1)
	// one-pass 1 cannot be won (solver_test.go).
	_, err := s.Par(context.Background(), engine.MustRules("one-pass"), engine.NewDeal(1, 1))
	if !errors.Is(err, tui.ErrNoPar) {
		t.Fatalf("par of an unwinnable deal: %v, want ErrNoPar", err)
	}
	// An asker that gives up does not stop the work for the next.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, d := engine.Classic(), engine.NewDeal(5, 1)
	if _, err := s.Par(ctx, r, d); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled asker: %v", err)
	}
	if p, err := s.Par(context.Background(), r, d); err != nil || p != 72 {
		t.Fatalf("after a cancelled asker: %d, %v; want 72", p, err)
	}
}

func TestSolverWarmParOfDaily(t *testing.T) {
	s := NewSolver(0, 2)
	r := engine.MustRules("daily")
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	n, err := s.DailyDeal(context.Background(), r, day)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	_, ok := s.pars[keyOf(r, engine.NewDeal(n, r.Decks))]
	s.mu.Unlock()
	if !ok {
		t.Fatal("the daily deal's par is not on its way once the deal is known")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if p, err := s.Par(ctx, r, engine.NewDeal(n, r.Decks)); err != nil || p <= 0 {
		t.Fatalf("daily par: %d, %v", p, err)
	}
}

func TestSolverWhereLostAndLive(t *testing.T) {
	s := NewSolver(0, 1)
	g, _ := engine.NewNumbered(engine.Classic(), 2)
	for g.Status() == engine.Playing {
		m, ok := g.Hint()
		if !ok {
			break
		}
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	wl, err := s.WhereLost(context.Background(), g)
	if err != nil || !wl.Lost || wl.Index != 18 || wl.Move.String() != "7.1+w" || wl.Kept.String() != "d" {
		t.Fatalf("where lost: %+v, %v; want move 19 (7.1+w), d kept it", wl, err)
	}
	v, err := s.StillWinnable(context.Background(), g)
	if err != nil || v != engine.Unwinnable {
		t.Fatalf("still winnable at the end: %s, %v", v, err)
	}
	// With every slot taken, the live check does not queue: it answers
	// unknown soon; WhereLost waits for its context.
	s.slots <- struct{}{}
	if v, err := s.StillWinnable(context.Background(), g); err != nil || v != engine.Unknown {
		t.Errorf("live check with no free slot: %s, %v; want unknown, no error", v, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.StillWinnable(ctx, g); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("live check with no free slot and its context ending: %v", err)
	}
	if _, err := s.WhereLost(ctx, g); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("where lost with no free slot: %v", err)
	}
	<-s.slots
}

// TestTopDailyPar: `top daily` names the day's par once the solver
// knows it, and says nothing of it without a solver.
func TestTopDailyPar(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := engine.MustRules("daily")
	s := NewSolver(0, 2)
	n, err := s.DailyDeal(context.Background(), r, now)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Par(context.Background(), r, engine.NewDeal(n, r.Decks))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.app.cfg.Now = func() time.Time { return now }
	alice := sshtest.NewKey(t)
	_, out, _ := f.run(session(alice, "alice", "top", "daily"))
	if strings.Contains(out, "par ") {
		t.Errorf("top daily without a solver names a par:\n%s", out)
	}
	f.app.cfg.Solver = s
	_, out, _ = f.run(session(alice, "alice", "top", "daily"))
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, fmt.Sprintf("2026-12-01, par %d (the shortest winning line):", want)) {
		t.Errorf("top daily with a solver:\n%s", out)
	}
}

func TestParOfForRaces(t *testing.T) {
	s := NewSolver(0, 1)
	r := engine.Classic()
	warmParOf(s, r, 3)
	if p, ok := parOf(context.Background(), s, r, 3); !ok || p != 58 {
		t.Fatalf("parOf classic 3: %d, %v; want 58", p, ok)
	}
	warmParOf(nil, r, 3) // no solver: nothing to do
	if _, ok := parOf(context.Background(), nil, r, 3); ok {
		t.Fatal("parOf without a solver knows a par")
	}
}

// TestSolverWhereLostOutOfBudget: when the budget runs out after the
// solve from the start, the verdict of that solve still comes back.
func TestSolverWhereLostOutOfBudget(t *testing.T) {
	g, _ := engine.NewNumbered(engine.Classic(), 2)
	for g.Status() == engine.Playing {
		m, _ := g.Hint()
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	start, _ := engine.NewNumbered(engine.Classic(), 2)
	first := engine.Solve(context.Background(), start, 0).States
	if wl := engine.WhereLost(context.Background(), g, first+1); wl.Verdict != engine.Unknown {
		t.Skipf("a budget of %d positions does not run WhereLost out any more (%s)", first+1, wl.Verdict)
	}
	s := NewSolver(first+1, 1)
	wl, err := s.WhereLost(context.Background(), g)
	if err != nil || wl.Verdict != engine.Winnable || wl.Lost {
		t.Fatalf("where lost out of budget: %+v, %v; want winnable without the move", wl, err)
	}
}

// TestRaceDealParIsWarmed: a new room's deal has its par on its way, so
// that it is known by the results.
func TestRaceDealParIsWarmed(t *testing.T) {
	s := NewSolver(0, 1)
	a := New(Config{Solver: s})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tui.Player{ID: "SHA256:ann", Name: "ann"}
	rs := a.newRaces(ctx, p, a.join(ctx, p), nil)
	r := engine.Classic()
	if _, err := rs.Create(ctx, tui.RoomOptions{Rules: r, Deal: 3, HasDeal: true}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	_, ok := s.pars[keyOf(r, engine.NewDeal(3, r.Decks))]
	s.mu.Unlock()
	if !ok {
		t.Fatal("the race deal's par is not on its way")
	}
	if p, ok := parOf(ctx, s, r, 3); !ok || p != 58 {
		t.Fatalf("race deal's par: %d, %v; want 58", p, ok)
	}
}

// TestSolverParLane: pars are worked out one at a time, in the order
// asked, outside the solve slots (all of them taken here); past
// parQueueMax waiting, a par is not queued, and a later ask queues it.
func TestSolverParLane(t *testing.T) {
	s := NewSolver(0, 1)
	s.slots <- struct{}{} // every solve slot is taken: par must not need one
	defer s.release()
	var mu sync.Mutex
	running, most := 0, 0
	var order []uint64
	entered := make(chan uint64)
	proceed := make(chan struct{})
	s.optimal = func(ctx context.Context, g *engine.Game, budget int) engine.Solution {
		mu.Lock()
		running++
		most = max(most, running)
		order = append(order, g.Deal().Number)
		mu.Unlock()
		entered <- g.Deal().Number
		<-proceed
		mu.Lock()
		running--
		mu.Unlock()
		if budget > parBudget {
			t.Errorf("a par searched with a budget of %d positions, want at most %d", budget, parBudget)
		}
		return engine.Solution{Verdict: engine.Winnable, Optimal: true, Moves: make([]engine.Move, int(g.Deal().Number))}
	}
	r := engine.Classic()
	deal := func(n uint64) engine.Deal { return engine.NewDeal(n, r.Decks) }
	s.WarmPar(r, deal(1))
	if n := <-entered; n != 1 {
		t.Fatalf("the lane started with deal %d, want 1", n)
	}
	// Deal 1 is being worked out: queue the lane full, and more.
	for n := uint64(2); n < 2+parQueueMax+5; n++ {
		s.WarmPar(r, deal(n))
	}
	late := uint64(2 + parQueueMax + 2)
	if _, err := s.Par(context.Background(), r, deal(late)); !errors.Is(err, tui.ErrNoPar) {
		t.Fatalf("a par past the queue's bound: %v, want ErrNoPar at once", err)
	}
	for want := uint64(2); want < 2+parQueueMax; want++ {
		proceed <- struct{}{}
		if n := <-entered; n != want {
			t.Fatalf("the lane took deal %d, want %d", n, want)
		}
	}
	proceed <- struct{}{}
	if p, err := s.Par(context.Background(), r, deal(2+parQueueMax-1)); err != nil || p != int(2+parQueueMax-1) {
		t.Fatalf("the last par queued: %d, %v", p, err)
	}
	// The lane is idle: the deal left out is queued when asked again.
	done := make(chan int)
	go func() {
		p, _ := s.Par(context.Background(), r, deal(late))
		done <- p
	}()
	if n := <-entered; n != late {
		t.Fatalf("asked again, the lane took deal %d, want %d", n, late)
	}
	proceed <- struct{}{}
	if p := <-done; p != int(late) {
		t.Fatalf("par of the deal asked again: %d, want %d", p, late)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Errorf("%d pars worked out at once, want 1", most)
	}
}

// TestSolverParLaneBusyBudget: the pars of a burst (a run of the lane
// that had more than one to work out, those asked together with its
// first included) and those within parCalm after one search at most
// parBusyBudget positions, a par asked alone on a calm lane parBudget; a
// deal the smaller budget left undecided is not kept, so that asked
// again on a calm lane it is worked out with the whole budget; one it
// proved unwinnable is kept.
func TestSolverParLaneBusyBudget(t *testing.T) {
	s := NewSolver(0, 1)
	var clockMu sync.Mutex
	clock := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	s.now = func() time.Time {
		clockMu.Lock()
		defer clockMu.Unlock()
		return clock
	}
	advance := func(d time.Duration) {
		clockMu.Lock()
		defer clockMu.Unlock()
		clock = clock.Add(d)
	}
	gathering := make(chan struct{})
	s.rest = func(d time.Duration) {
		if d == parGather {
			<-gathering // the lane's start waits for the test
		}
	}
	start := func() { // lets the lane start, which it must be about to
		t.Helper()
		select {
		case gathering <- struct{}{}:
		case <-time.After(10 * time.Second):
			t.Fatal("no par lane started in 10 s")
		}
	}
	type call struct {
		deal   uint64
		budget int
	}
	entered := make(chan call)
	proceed := make(chan struct{})
	const hard, lost, easy = 2, 3, 4
	s.optimal = func(ctx context.Context, g *engine.Game, budget int) engine.Solution {
		n := g.Deal().Number
		entered <- call{n, budget}
		<-proceed
		switch {
		case n == lost:
			return engine.Solution{Verdict: engine.Unwinnable}
		case n == hard && budget < parBudget: // out of budget: Solve's line, not proved shortest
			return engine.Solution{Verdict: engine.Winnable, Moves: make([]engine.Move, 70)}
		}
		return engine.Solution{Verdict: engine.Winnable, Optimal: true, Moves: make([]engine.Move, int(n))}
	}
	r := engine.Classic()
	deal := func(n uint64) engine.Deal { return engine.NewDeal(n, r.Decks) }
	next := func() call {
		t.Helper()
		select {
		case c := <-entered:
			return c
		case <-time.After(10 * time.Second):
			t.Fatal("the lane took no par in 10 s")
			return call{}
		}
	}
	expect := func(n uint64, budget int) {
		t.Helper()
		if c := next(); c != (call{n, budget}) {
			t.Fatalf("the lane worked out deal %d with %d positions, want deal %d with %d", c.deal, c.budget, n, budget)
		}
		proceed <- struct{}{}
	}
	quiet := func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			s.mu.Lock()
			running := s.parRunning
			s.mu.Unlock()
			if !running {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the lane still runs 10 s after its last par")
			}
		}
	}

	// Alone on a calm lane: the whole budget.
	s.WarmPar(r, deal(1))
	start()
	expect(1, parBudget)
	quiet()

	// Asked together: a burst from its first par to its last.
	for _, n := range []uint64{hard, lost, easy} {
		s.WarmPar(r, deal(n))
	}
	start()
	expect(hard, parBusyBudget)
	expect(lost, parBusyBudget)
	expect(easy, parBusyBudget)
	if p, err := s.Par(context.Background(), r, deal(easy)); err != nil || p != easy {
		t.Fatalf("par of deal %d: %d, %v", easy, p, err)
	}
	quiet()
	if _, err := s.Par(context.Background(), r, deal(lost)); !errors.Is(err, tui.ErrNoPar) {
		t.Fatalf("the deal proved unwinnable, asked again: %v, want ErrNoPar at once (kept)", err)
	}

	// Alone, but within parCalm of the burst: the next round's first.
	advance(parCalm - time.Second)
	s.WarmPar(r, deal(5))
	start()
	expect(5, parBusyBudget)
	quiet()

	// One asked while a lone par is worked out on a calm lane makes its
	// run a burst.
	advance(2 * time.Second)
	s.WarmPar(r, deal(6))
	start()
	c := next()
	s.WarmPar(r, deal(7))
	proceed <- struct{}{}
	if c != (call{6, parBudget}) {
		t.Fatalf("the lane worked out deal %d with %d positions, want deal 6 with %d", c.deal, c.budget, parBudget)
	}
	expect(7, parBusyBudget)
	quiet()

	// Undecided in a burst: asked again on a calm lane, the whole budget.
	advance(parCalm)
	done := make(chan int)
	go func() {
		p, _ := s.Par(context.Background(), r, deal(hard))
		done <- p
	}()
	start()
	expect(hard, parBudget)
	if p := <-done; p != hard {
		t.Fatalf("par of the deal asked again on a calm lane: %d, want %d", p, hard)
	}
}

// TestSolverParLaneRests: with more pars waiting, the lane rests after
// each as long as it took (a burst takes at most half a core); after the
// last one, with none waiting, it does not.
func TestSolverParLaneRests(t *testing.T) {
	s := NewSolver(0, 1)
	const work = 20 * time.Millisecond
	s.optimal = func(ctx context.Context, g *engine.Game, budget int) engine.Solution {
		time.Sleep(work) // the par's work, as the lane's clock sees it
		return engine.Solution{Verdict: engine.Winnable, Optimal: true, Moves: make([]engine.Move, int(g.Deal().Number))}
	}
	var mu sync.Mutex
	var rests []time.Duration
	s.rest = func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		rests = append(rests, d)
	}
	r := engine.Classic()
	deals := []uint64{3, 4, 5}
	for _, n := range deals {
		s.WarmPar(r, engine.NewDeal(n, r.Decks))
	}
	for _, n := range deals {
		if p, err := s.Par(context.Background(), r, engine.NewDeal(n, r.Decks)); err != nil || p != int(n) {
			t.Fatalf("par of deal %d: %d, %v", n, p, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The lane waits parGather as it starts, then rests after each par
	// it took with more waiting: after the second, and after the first
	// too when the asks were quicker than the lane's start (the wait is
	// not taken here); never after the last.
	if len(rests) == 0 || rests[0] != parGather {
		t.Fatalf("the lane's rests %v, want parGather first", rests)
	}
	rests = rests[1:]
	if len(rests) < 1 || len(rests) > len(deals)-1 {
		t.Fatalf("the lane rested %d times for %d pars: %v", len(rests), len(deals), rests)
	}
	for _, d := range rests {
		if d < work {
			t.Errorf("a rest of %v after a par that took at least %v", d, work)
		}
	}
}

// BenchmarkParBurst is the par work of eight race rooms opened at once on
// eight deals (the first race of a deal works out its par): the time
// until every par is known, and the most heap in use meanwhile, sampled
// every 10 ms.
//
//	go test -run '^$' -bench ParBurst -benchtime 1x ./arcade/
func BenchmarkParBurst(b *testing.B) {
	r := engine.Classic()
	deals := []uint64{2, 3, 5, 16, 100, 1234, 5555, 99999}
	for b.Loop() {
		s := NewSolver(0, 2)
		runtime.GC()
		var peak uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		start := time.Now()
		for _, n := range deals {
			s.WarmPar(r, engine.NewDeal(n, r.Decks))
		}
		known := 0
		for _, n := range deals {
			if p, err := s.Par(context.Background(), r, engine.NewDeal(n, r.Decks)); err == nil && p > 0 {
				known++
			}
		}
		took := time.Since(start)
		close(stop)
		<-sampled
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(took.Seconds(), "s-all-known")
		b.ReportMetric(float64(known), "pars-known")
	}
}

// TestSolveGivesParLine: once a deal's par is known, the line the solver
// gives from its start (the one a player watches) is par's, the shortest,
// where the ordinary solve's line is longer.
func TestSolveGivesParLine(t *testing.T) {
	s := NewSolver(0, 2)
	r := engine.Classic()
	d := engine.NewDeal(3, r.Decks)
	start, err := engine.NewGame(r, d)
	if err != nil {
		t.Fatal(err)
	}
	_, before, err := s.Solve(context.Background(), start)
	if err != nil {
		t.Fatal(err)
	}
	par, err := s.Par(context.Background(), r, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) <= par {
		t.Fatalf("the ordinary line has %d moves, par %d: the deal shows nothing", len(before), par)
	}
	v, line, err := s.Solve(context.Background(), start)
	if err != nil || v != engine.Winnable || len(line) != par {
		t.Fatalf("after par: %v, %d moves, %v; want winnable in %d", v, len(line), err, par)
	}
	if err := wins(start, line); err != nil {
		t.Fatal(err)
	}
	// Not from a later position: that needs its own search.
	later := start.Clone()
	if err := later.Apply(line[0]); err != nil {
		t.Fatal(err)
	}
	if _, l, err := s.Solve(context.Background(), later); err != nil || wins(later, l) != nil {
		t.Fatalf("from a later position: %d moves, %v, %v", len(l), err, wins(later, l))
	}
}

// wins checks that line wins from g, which it leaves as it is.
func wins(g *engine.Game, line []engine.Move) error {
	c := g.Clone()
	for i, m := range line {
		if err := c.Apply(m); err != nil {
			return fmt.Errorf("move %d (%s): %w", i+1, m, err)
		}
	}
	if c.Status() != engine.Won {
		return errors.New("the line does not win")
	}
	return nil
}
