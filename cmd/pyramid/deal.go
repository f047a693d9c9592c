package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"pyramid/arcade"
	"pyramid/engine"
	"pyramid/store"
	"pyramid/store/sqlstore"
)

// errNoDailySecret is why --daily alone prints nothing: the daily deals
// derive from the server's secret.
var errNoDailySecret = errors.New("the daily deal derives from the server's secret, so that nobody can solve it before the day is over: " +
	"a server's admin gives --data DIR (or --database-url URL) of the server's database, or --daily-secret HEX")

// runDeal prints a deal in deal text.
func runDeal(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("deal", "--rules SPEC (--seed N | --daily YYYY-MM-DD (--data DIR | --database-url URL | --daily-secret HEX))", stderr)
	spec := fs.String("rules", "classic", "rule `SPEC` (only the deck count matters for the deal)")
	seed := fs.String("seed", "", "deal number `N` (0 to 18446744073709551615)")
	daily := fs.String("daily", "", "the daily deal of a UTC `date` (YYYY-MM-DD): the first deal from the date's number the solver proves winnable; needs the server's secret")
	secretHex := fs.String("daily-secret", "", "the server's daily secret, `HEX` (64 hex digits)")
	data := fs.String("data", "", "the server's data `dir`ectory, whose database pyramid.db holds the daily secret")
	dbURL := fs.String("database-url", "", "the server's PostgreSQL `URL`, whose database holds the daily secret")
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
		var secret []byte
		if secret, err = dailySecret(*secretHex, *data, *dbURL); err != nil {
			break
		}
		// The daily deal is the first deal at or after the date's number
		// that the solver proves winnable, with the budget every server
		// uses, so this prints the deal the arcade deals that day.
		n, err = engine.DailyDeal(context.Background(), r, secret, day, arcade.DailyBudget)
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

// dailySecret is the server's daily secret: given in hex, or read from the
// server's database (SQLite in the data directory, or PostgreSQL). A data
// directory without a database is refused rather than given a secret of
// its own, which no server would deal from.
func dailySecret(secretHex, data, dbURL string) ([]byte, error) {
	switch {
	case secretHex != "":
		b, err := hex.DecodeString(secretHex)
		if err != nil || len(b) != store.DailySecretLen {
			return nil, fmt.Errorf("--daily-secret: want %d hex digits", 2*store.DailySecretLen)
		}
		return b, nil
	case dbURL == "" && data == "":
		return nil, errNoDailySecret
	case dbURL == "":
		if _, err := os.Stat(filepath.Join(data, "pyramid.db")); err != nil {
			return nil, fmt.Errorf("--data %s: no server's database there (%w)", data, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := sqlstore.Open(ctx, data, dbURL)
	if err != nil {
		return nil, fmt.Errorf("the server's database: %w", err)
	}
	defer st.Close()
	return st.DailySecret(ctx)
}
