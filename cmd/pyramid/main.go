// Command pyramid is the Pyramid arcade: an SSH server (the default) and
// command-line tools to deal, play and solve Pyramid Solitaire deals.
//
//	pyramid [serve] [flags]      serve the arcade over SSH
//	pyramid deal  --rules SPEC (--seed N | --daily YYYY-MM-DD)
//	pyramid play  --rules SPEC (--seed N | --deal FILE|-) [--moves "m1 m2 …"] [--json]
//	pyramid solve --rules SPEC (--seed N | --deal FILE|-) [--json] [--budget STATES] [--timeout D]
//	pyramid stats --rules SPEC --deals N [--from SEED]
//
// Each subcommand prints its usage with -h.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// command runs one subcommand with its arguments and returns the exit status.
type command func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// commands are the subcommands by name.
var commands = map[string]command{
	"serve": runServe,
	"deal":  runDeal,
	"play":  runPlay,
	"solve": runSolve,
	"stats": runStats,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// ownFlags are the flags of pyramid itself rather than of serve.
var ownFlags = []string{"-h", "--help", "-help", "--version", "-version"}

// run dispatches to a subcommand; no subcommand (or only flags) serves.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && !slices.Contains(ownFlags, args[0])) {
		return runServe(args, stdin, stdout, stderr)
	}
	name := args[0]
	switch name {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "--version", "-version":
		return runVersion(args[1:], stdout, stderr)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "pyramid: unknown command %q\n\n%s", name, usage)
		return 2
	}
	return cmd(args[1:], stdin, stdout, stderr)
}

const usage = `Pyramid arcade: Pyramid Solitaire over SSH.

Usage:
  pyramid [serve] [flags]    serve the arcade over SSH (the default)
  pyramid deal  --rules SPEC (--seed N | --daily YYYY-MM-DD)
  pyramid play  --rules SPEC (--seed N | --deal FILE|-) [--moves "m1 m2 …"] [--json]
  pyramid solve --rules SPEC (--seed N | --deal FILE|-) [--json] [--budget STATES] [--timeout D]
  pyramid stats --rules SPEC --deals N [--from SEED]
  pyramid version [--json]   the version of this build (its commit and date)

Run "pyramid COMMAND -h" for a command's flags.
A rule SPEC is a rule set (classic, relaxed, open-stock, one-pass, easy,
draw-three, double, daily) optionally followed by ,knob=value pairs:
decks=1|2 passes=1|2|3|unlimited stock=closed|open pairs=any|pyramid
cover=strict|overlap draw=1|3 goal=pyramid|all, e.g. classic,cover=overlap.
`
