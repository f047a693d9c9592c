package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"pyramid/engine"
)

// dealFlags are the flags that choose a rule set and a deal, shared by
// play and solve.
type dealFlags struct {
	rules string
	seed  string
	deal  string
}

func (f *dealFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.rules, "rules", "classic", "rule `SPEC`: a rule set name optionally followed by ,knob=value pairs")
	fs.StringVar(&f.seed, "seed", "", "deal number `N` (0 to 18446744073709551615)")
	fs.StringVar(&f.deal, "deal", "", "read the deal text from `FILE` (- for standard input)")
}

// load returns the rules and the game the flags name.
func (f *dealFlags) load(stdin io.Reader) (*engine.Game, error) {
	r, err := engine.ParseRules(f.rules)
	if err != nil {
		return nil, err
	}
	switch {
	case f.seed != "" && f.deal != "":
		return nil, fmt.Errorf("give either --seed or --deal, not both")
	case f.seed != "":
		n, err := parseSeed(f.seed)
		if err != nil {
			return nil, err
		}
		return engine.NewNumbered(r, n)
	case f.deal != "":
		text, err := readDealText(f.deal, stdin)
		if err != nil {
			return nil, err
		}
		d, err := engine.ParseDeal(text)
		if err != nil {
			return nil, err
		}
		if len(d.Cards) != r.DeckSize() {
			return nil, fmt.Errorf("a %d-card deal does not fit %s, which deals %s (%d cards)",
				len(d.Cards), r.ID(), plural(r.Decks, "deck"), r.DeckSize())
		}
		return engine.NewGame(r, d)
	}
	return nil, fmt.Errorf("give a deal: --seed N or --deal FILE (- for standard input)")
}

// plural is n and a noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// parseSeed reads a deal number.
func parseSeed(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad deal number %q: want a whole number from 0 to 18446744073709551615", s)
	}
	return n, nil
}

// readDealText reads deal text from a file or, for "-", from stdin, refusing
// anything larger than a deal can be.
func readDealText(path string, stdin io.Reader) (string, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("read deal: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, engine.MaxDealText+1))
	if err != nil {
		return "", fmt.Errorf("read deal: %w", err)
	}
	return string(b), nil
}

// newFlagSet returns a flag set that reports errors to stderr and prints
// the command's usage line before its flags on -h.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: pyramid %s %s\n\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's flags; it returns the exit status to use
// when the command should stop (0 after -h, 2 on a bad flag), or -1.
func parseFlags(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "pyramid %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return 2
	}
	return -1
}
