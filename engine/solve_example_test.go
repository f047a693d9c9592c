package engine_test

import (
	"context"
	"fmt"
	"time"

	"pyramid/engine"
)

func ExampleSolve() {
	g, _ := engine.NewNumbered(engine.Classic(), 2)
	sol := engine.Solve(context.Background(), g, 0)
	fmt.Println(sol.Verdict, len(sol.Moves) > 0)
	for _, m := range sol.Moves {
		if err := g.Apply(m); err != nil {
			panic(err)
		}
	}
	fmt.Println(g.Status())

	g, _ = engine.NewNumbered(engine.Classic(), 4)
	fmt.Println(engine.Solve(context.Background(), g, 0).Verdict)
	// Output:
	// winnable true
	// won
	// unwinnable
}

func ExampleSolve_budget() {
	g, _ := engine.NewNumbered(engine.MustRules("double"), 1)
	sol := engine.Solve(context.Background(), g, 1000)
	fmt.Println(sol.Verdict, sol.States)
	// Output:
	// unknown 1000
}

func ExampleSolveHint() {
	g, _ := engine.NewNumbered(engine.Classic(), 2)
	h := engine.SolveHint(context.Background(), g, 0)
	fmt.Println(h.Move, h.Verdict)

	g, _ = engine.NewNumbered(engine.Classic(), 4)
	h = engine.SolveHint(context.Background(), g, 0)
	heuristic, _ := g.Hint()
	fmt.Println(h.Move == heuristic, h.Verdict)
	// Output:
	// 7.2+7.4 winnable
	// true unwinnable
}

func ExampleStillWinnable() {
	g, _ := engine.NewNumbered(engine.Classic(), 9)
	fmt.Println(engine.StillWinnable(context.Background(), g, 0))
	// Pairing 7.5 with 7.6 at once loses this deal.
	if err := g.ApplyNotation("7.5+7.6"); err != nil {
		panic(err)
	}
	fmt.Println(engine.StillWinnable(context.Background(), g, 0))
	// Output:
	// winnable
	// unwinnable
}

func ExampleNextWinnable() {
	n, sol, err := engine.NextWinnable(context.Background(), engine.Classic(), 4, 0)
	fmt.Println(n, sol.Verdict, err)
	// Output:
	// 5 winnable <nil>
}

func ExampleDailyDeal() {
	r, _ := engine.Preset("daily")
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	n, err := engine.DailyDeal(context.Background(), r, nil, day, 0)
	fmt.Println(n >= engine.DailyNumber(nil, day), err)
	// Output:
	// true <nil>
}
