package engine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// optStats names a file to which TestOptimalStats writes, for each
// published deal (every optStep-th), the shortest-line search's counts:
// deterministic figures to compare changes to the search by.
var (
	optStats = flag.String("solver.optstats", "", "write the shortest-line search's counts per published deal to this file")
	optStep  = flag.Int("solver.optstep", 1, "with -solver.optstats, every N-th published deal only")
	optDeals = flag.String("solver.optdeals", "", "with -solver.optstats, these published deals only (numbers from 1, comma-separated)")
)

// TestOptimalStats writes, per published deal, the ordinary solve's
// positions, the shortest-line search's stored and expanded positions and
// the time of both, and logs the totals and medians.
func TestOptimalStats(t *testing.T) {
	if *optStats == "" {
		t.Skip("run with -solver.optstats=FILE")
	}
	deals := loadMSCLengths(t)
	r := MustRules("open-stock")
	f, err := os.Create(*optStats)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "deal\tlength\th0\tsolve\tstored\texpanded\tus")
	var stored, expanded []int
	var times []time.Duration
	var pick []int
	for i := 0; i < len(deals); i += *optStep {
		pick = append(pick, i)
	}
	if *optDeals != "" {
		pick = pick[:0]
		for _, f := range strings.Split(*optDeals, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > len(deals) {
				t.Fatalf("bad deal %q", f)
			}
			pick = append(pick, n-1)
		}
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for _, i := range pick {
		d := deals[i]
		g, _ := NewGame(r, d.deal)
		start := time.Now()
		sol := Solve(context.Background(), g, 0)
		st, ex, h0 := 0, 0, 0
		length := 0
		if sol.Verdict == Winnable && len(sol.Moves) > 0 {
			s := newSolver(context.Background(), g, 1)
			rp := s.root(g)
			s.canonPos(&rp)
			h0, _ = s.optBound(&rp)
			moves, n, ok := s.shortest(s.root(g), len(sol.Moves), DefaultOptimalBudget)
			if !ok {
				t.Fatalf("deal %d: out of budget", d.n)
			}
			st, ex = n, s.optExpanded
			length = len(sol.Moves)
			if moves != nil {
				length = len(moves)
			}
		}
		el := time.Since(start)
		if length != d.length {
			t.Errorf("deal %d: length %d, published %d", d.n, length, d.length)
		}
		stored, expanded, times = append(stored, st), append(expanded, ex), append(times, el)
		fmt.Fprintf(f, "%d\t%d\t%d\t%d\t%d\t%d\t%d\n", d.n, length, h0, sol.States, st, ex, el.Microseconds())
	}
	runtime.ReadMemStats(&ms1)
	t.Logf("allocated %d MiB in %d objects, %d GCs", (ms1.TotalAlloc-ms0.TotalAlloc)>>20, ms1.Mallocs-ms0.Mallocs, ms1.NumGC-ms0.NumGC)
	med := func(v []int) (int, int) {
		s := slices.Clone(v)
		slices.Sort(s)
		sum := 0
		for _, x := range s {
			sum += x
		}
		return s[(len(s)-1)/2], sum
	}
	ms, ts := med(stored)
	me, te := med(expanded)
	tt := slices.Clone(times)
	slices.Sort(tt)
	t.Logf("%d deals: stored median %d total %d; expanded median %d total %d; time median %v", len(stored), ms, ts, me, te, tt[(len(tt)-1)/2])
}

// doublePar is the number of double deals TestDoublePar works out the
// par of, as the arcade does (parBudget positions, parWorkTime).
var doublePar = flag.Int("solver.doublepar", 0, "work out the par of double deals 0…N-1 within the arcade's par budget and log the share found")

// TestDoublePar logs, for double deals 0…N-1, whether SolveOptimal proves
// a shortest line within the arcade's par budget (1<<20 positions for
// both searches, 20 s), the positions that took and the line's length.
func TestDoublePar(t *testing.T) {
	if *doublePar <= 0 {
		t.Skip("run with -solver.doublepar=N")
	}
	r := MustRules("double")
	found, won := 0, 0
	for n := range *doublePar {
		g, _ := NewNumbered(r, uint64(n))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		start := time.Now()
		sol := SolveOptimal(ctx, g, 1<<20)
		el := time.Since(start)
		cancel()
		if sol.Verdict == Winnable {
			won++
		}
		if sol.Optimal {
			found++
		}
		t.Logf("double %d: %v optimal=%v length %d, %d positions, %v", n, sol.Verdict, sol.Optimal, len(sol.Moves), sol.States, el.Round(time.Millisecond))
	}
	t.Logf("%d double deals: %d winnable, par found for %d (%.1f %%)", *doublePar, won, found, 100*float64(found)/float64(*doublePar))
}
