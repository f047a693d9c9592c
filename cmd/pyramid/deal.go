package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"pyramid/arcade"
	"pyramid/engine"
)

// runDeal prints a deal in deal text.
func runDeal(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("deal", "--rules SPEC (--seed N | --daily YYYY-MM-DD)", stderr)
	spec := fs.String("rules", "classic", "rule `SPEC` (only the deck count matters for the deal)")
	seed := fs.String("seed", "", "deal number `N` (0 to 18446744073709551615)")
	daily := fs.String("daily", "", "the daily deal of a UTC `date` (YYYY-MM-DD): the first deal from the date's number the solver proves winnable")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	r, err := engine.ParseRules(*spec)
	if err != nil {
		fmt.Fprintln(stderr, "pyramid deal:", err)
		return 2
	}
	var n uint64
	switch {
	case *seed != "" && *daily != "":
		err = fmt.Errorf("give either --seed or --daily, not both")
	case *seed != "":
		n, err = parseSeed(*seed)
	case *daily != "":
		var day time.Time
		day, err = time.Parse(time.DateOnly, *daily)
		if err != nil {
			err = fmt.Errorf("bad date %q: want YYYY-MM-DD", *daily)
			break
		}
		// The daily deal is the first deal at or after the date's number
		// that the solver proves winnable, with the budget every server
		// uses, so this prints the deal the arcade deals that day.
		n, err = engine.DailyDeal(context.Background(), r, day, arcade.DailyBudget)
	default:
		err = fmt.Errorf("give --seed N or --daily YYYY-MM-DD")
	}
	if err != nil {
		fmt.Fprintln(stderr, "pyramid deal:", err)
		return 2
	}
	fmt.Fprint(stdout, engine.NewDeal(n, r.Decks).Text())
	return 0
}
