package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"pyramid/engine"
)

// solveReport is the --json output of solve.
type solveReport struct {
	Verdict string   `json:"verdict"`
	Moves   []string `json:"moves"`
	// Length is the number of moves; Optimal reports that no winning
	// line is shorter (--optimal, when its search ended).
	Length  int     `json:"length"`
	Optimal bool    `json:"optimal"`
	States  int     `json:"states"`
	MS      float64 `json:"ms"`
}

// runSolve solves a deal from its start and prints the verdict and a
// winning line.
func runSolve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("solve", "--rules SPEC (--seed N | --deal FILE|-) [--optimal] [--json] [--budget STATES] [--timeout DURATION]", stderr)
	var df dealFlags
	df.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object: verdict, moves, length, optimal, states, ms")
	optimal := fs.Bool("optimal", false, "find a shortest winning line (draws, redeals and removals count one move each) and prove it shortest")
	budget := fs.Int("budget", engine.DefaultBudget, "search at most `STATES` positions, then answer unknown (with --optimal: the ordinary solve too, and the shortest-line search stores at most STATES, by default "+
		fmt.Sprint(engine.DefaultOptimalBudget)+", then gives the line it has)")
	timeout := fs.Duration("timeout", 0, "give up after `DURATION` (e.g. 10s) and answer unknown; 0 for none")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *budget <= 0 {
		fmt.Fprintf(stderr, "pyramid solve: bad --budget %d: want a positive number of positions\n", *budget)
		return 2
	}
	if *timeout < 0 {
		fmt.Fprintf(stderr, "pyramid solve: bad --timeout %v: want a positive duration, or 0 for none\n", *timeout)
		return 2
	}
	g, err := df.load(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "pyramid solve:", err)
		return 2
	}
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	start := time.Now()
	var sol engine.Solution
	if *optimal {
		optBudget := 0 // the engine's default unless --budget is given
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "budget" {
				optBudget = *budget
			}
		})
		sol = engine.SolveOptimal(ctx, g, optBudget)
	} else {
		sol = engine.Solve(ctx, g, *budget)
	}
	took := time.Since(start)

	moves := engine.Notations(sol.Moves)
	if *asJSON {
		rep := solveReport{Verdict: sol.Verdict.String(), Moves: moves, Length: len(moves), Optimal: sol.Optimal,
			States: sol.States, MS: float64(took.Microseconds()) / 1000}
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			fmt.Fprintln(stderr, "pyramid solve:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s under %s: %s (%d positions, %s)\n", dealName(g), g.Rules().ID(), sol.Verdict, sol.States, roundDuration(took))
	switch sol.Verdict {
	case engine.Winnable:
		what := "winning line"
		switch {
		case sol.Optimal:
			what = "shortest winning line"
		case *optimal:
			what = "winning line (not proved shortest: raise --budget or --timeout)"
		}
		fmt.Fprintf(stdout, "%s, %d moves:\n%s\n", what, len(moves), wrapMoves(moves, 72))
	case engine.Unknown:
		fmt.Fprintln(stdout, "the search stopped first: raise --budget or --timeout")
	}
	return 0
}

// dealName is "deal N", or "the deal" for one read from text.
func dealName(g *engine.Game) string {
	if d := g.Deal(); d.Numbered {
		return fmt.Sprintf("deal %d", d.Number)
	}
	return "the deal"
}

// wrapMoves joins moves with spaces in lines of at most width bytes.
func wrapMoves(moves []string, width int) string {
	var b strings.Builder
	line := 0
	for i, m := range moves {
		switch {
		case i == 0:
		case line+1+len(m) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(m)
		line += len(m)
	}
	return b.String()
}

// roundDuration rounds a duration for people: 3 significant digits.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
