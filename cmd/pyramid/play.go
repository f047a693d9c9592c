package main

import (
	"encoding/json"
	"fmt"
	"io"

	"pyramid/engine"
)

// playReport is the --json output of play. The deal number is a JSON
// string: daily deals are above 2^53, past which JavaScript and jq round
// numbers to another deal. Removed counts as the goal does, like the
// table: pyramid cards, or every card under goal=all, out of Cards.
type playReport struct {
	Rules     string   `json:"rules"`
	Deal      *uint64  `json:"deal,omitempty,string"`
	Status    string   `json:"status"`
	Removed   int      `json:"removed"`
	Cards     int      `json:"cards"`
	Pyramid   int      `json:"pyramid"`
	Pass      int      `json:"pass"`
	Passes    int      `json:"passes"`
	MovesMade int      `json:"moves_made"`
	Stock     int      `json:"stock"`
	Waste     []string `json:"waste"`
	StockTop  string   `json:"stock_top,omitempty"`
	Legal     []string `json:"legal"`
	Moves     []string `json:"moves"`
	Error     string   `json:"error,omitempty"`
}

// runPlay applies moves to a deal and prints the board.
func runPlay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("play", `--rules SPEC (--seed N | --deal FILE|-) [--moves "m1 m2 …"] [--json]`, stderr)
	var df dealFlags
	df.register(fs)
	moves := fs.String("moves", "", "`moves` in notation, separated by spaces: d r 7.1 7.1+7.4 6.2+w w1+s")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the board")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	g, err := df.load(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "pyramid play:", err)
		return 2
	}
	// The moves before a bad one are applied, so the board shows where
	// the list went wrong.
	// Malformed notation is bad input (exit 2); an illegal move is the
	// game saying no (exit 1).
	ms, err := engine.ParseMoves(*moves)
	code := 0
	if err != nil {
		code = 2
	}
	for i, m := range ms {
		if applyErr := g.Apply(m); applyErr != nil {
			err, code = fmt.Errorf("move %d (%s): %w", i+1, m, applyErr), 1
			break
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "pyramid play:", err)
	}
	if !*asJSON {
		fmt.Fprint(stdout, g)
		return code
	}
	rep := playReport{
		Rules: g.Rules().ID(), Status: g.Status().String(), Removed: g.Removed(), Cards: g.Rules().PyramidSize(),
		Pyramid: g.Rules().PyramidSize(), Pass: g.Pass(), Passes: g.Passes(),
		MovesMade: g.MovesMade(), Stock: g.StockCount(), Waste: wasteTops(g),
		Legal: engine.Notations(g.Legal()), Moves: engine.Notations(g.Moves()),
	}
	if g.Rules().Goal == engine.GoalAll {
		rep.Removed, rep.Cards = g.RemovedAll(), g.Rules().DeckSize()
	}
	if d := g.Deal(); d.Numbered {
		rep.Deal = &d.Number
	}
	if c, ok := g.StockTop(); ok && g.Rules().StockOpen {
		rep.StockTop = c.String()
	}
	if err != nil {
		rep.Error = err.Error()
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		fmt.Fprintln(stderr, "pyramid play:", err)
		return 2
	}
	return code
}

// wasteTops is the top card of each waste pile, in order, "" for an empty
// pile; [] when every pile is empty (the single waste pile at the start).
func wasteTops(g *engine.Game) []string {
	tops := []string{}
	any := false
	for i := range g.Piles() {
		top := ""
		if c, ok := g.WasteTop(i); ok {
			top, any = c.String(), true
		}
		tops = append(tops, top)
	}
	if !any {
		return []string{}
	}
	return tops
}
