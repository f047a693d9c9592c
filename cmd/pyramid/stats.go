package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"pyramid/engine"
)

// statsResult is one solved deal.
type statsResult struct {
	verdict engine.Verdict
	took    time.Duration
}

// runStats solves many deals by number and prints the share of each
// verdict and the solver's times.
func runStats(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats", "--rules SPEC --deals N [--from SEED] [--budget STATES] [--workers N]", stderr)
	spec := fs.String("rules", "classic", "rule `SPEC`: a rule set name optionally followed by ,knob=value pairs")
	deals := fs.Int("deals", 0, "solve `N` deals")
	from := fs.String("from", "0", "the first deal number `SEED`; deals SEED, SEED+1, … are solved")
	budget := fs.Int("budget", engine.DefaultBudget, "search at most `STATES` positions a deal, then count it unknown")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "solve on `N` goroutines at once (default: one per CPU)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	r, err := engine.ParseRules(*spec)
	if err != nil {
		fmt.Fprintln(stderr, "pyramid stats:", err)
		return 2
	}
	first, err := parseSeed(*from)
	switch {
	case err != nil:
	case *deals <= 0:
		err = fmt.Errorf("give the number of deals to solve: --deals N (N > 0)")
	case *budget <= 0:
		err = fmt.Errorf("bad --budget %d: want a positive number of positions", *budget)
	case *workers <= 0:
		err = fmt.Errorf("bad --workers %d: want at least 1", *workers)
	case uint64(*deals-1) > math.MaxUint64-first:
		err = fmt.Errorf("deals %d to %d run past the last deal number", first, uint64(*deals)+first)
	}
	if err != nil {
		fmt.Fprintln(stderr, "pyramid stats:", err)
		return 2
	}

	results := solveDeals(context.Background(), r, first, *deals, *budget, *workers, newProgress(stderr, *deals))
	printStats(stdout, r, first, results, *workers)
	return 0
}

// solveDeals solves deals first … first+n-1 on a pool of workers and
// returns their results in deal order.
func solveDeals(ctx context.Context, r engine.Rules, first uint64, n, budget, workers int, prog *progress) []statsResult {
	results := make([]statsResult, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				g, err := engine.NewNumbered(r, first+uint64(i))
				if err != nil { // cannot happen: the rules were validated
					panic(err)
				}
				start := time.Now()
				sol := engine.Solve(ctx, g, budget)
				results[i] = statsResult{verdict: sol.Verdict, took: time.Since(start)}
				prog.done()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	prog.finish()
	return results
}

// printStats prints the share of each verdict with its standard error and
// the solver's times.
func printStats(w io.Writer, r engine.Rules, first uint64, results []statsResult, workers int) {
	n := len(results)
	counts := map[engine.Verdict]int{}
	times := make([]time.Duration, n)
	var total time.Duration
	for i, res := range results {
		counts[res.verdict]++
		times[i] = res.took
		total += res.took
	}
	slices.Sort(times)
	fmt.Fprintf(w, "rules       %s (%s)\n", r.ID(), r.Describe())
	fmt.Fprintf(w, "deals       %d, numbers %d to %d\n", n, first, first+uint64(n-1))
	for _, v := range []engine.Verdict{engine.Winnable, engine.Unwinnable, engine.Unknown} {
		p := float64(counts[v]) / float64(n)
		se := math.Sqrt(p * (1 - p) / float64(n))
		fmt.Fprintf(w, "%-11s %*d  %6.2f %% ± %.2f\n", v, len(fmt.Sprint(n)), counts[v], 100*p, 100*se)
	}
	fmt.Fprintf(w, "solver      median %s · p99 %s · max %s · total %s on %d workers\n",
		roundDuration(times[(n-1)/2]), roundDuration(times[(n*99+99)/100-1]), roundDuration(times[n-1]),
		roundDuration(total), workers)
}

// progress reports solved deals on stderr: a bar redrawn in place on a
// terminal, a plain line every tenth otherwise.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	terminal  bool
	n, solved int
	shown     int // last count printed
}

// newProgress returns a progress report for n deals on w.
func newProgress(w io.Writer, n int) *progress {
	return &progress{w: w, n: n, terminal: isTerminal(w)}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// done counts one solved deal.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.solved++
	switch {
	case p.terminal:
		if p.solved == p.n || p.solved-p.shown >= max(1, p.n/200) {
			const width = 40
			fill := width * p.solved / p.n
			fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.solved, p.n)
			p.shown = p.solved
		}
	case p.n >= 10 && p.solved*10/p.n > p.shown*10/p.n:
		fmt.Fprintf(p.w, "solved %d of %d deals\n", p.solved, p.n)
		p.shown = p.solved
	}
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}
