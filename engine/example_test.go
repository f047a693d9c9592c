package engine_test

import (
	"errors"
	"fmt"

	"pyramid/engine"
)

func ExampleParseRules() {
	r, err := engine.ParseRules("classic,cover=overlap,passes=2")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.ID())
	fmt.Println(r.Describe())
	_, err = engine.ParseRules("classic,passes=9")
	fmt.Println(err)
	// Output:
	// decks=1,passes=2,stock=closed,pairs=any,cover=overlap,draw=1,goal=pyramid
	// 1 deck · 2 passes · stock closed · any pairs · overlap cover · 1 waste pile · clear the pyramid
	// rules: bad value "9" for passes: want one of 1, 2, 3, unlimited
}

func ExampleGame_Apply() {
	g, _ := engine.NewNumbered(engine.Classic(), 42)
	fmt.Println(g.Legal())
	fmt.Println(g.ApplyNotation("7.2+7.3"))
	err := g.ApplyNotation("6.1")
	fmt.Println(errors.Is(err, engine.ErrNotKing), err)
	fmt.Println(g.Removed(), g.MovesMade(), g.Status())
	// Output:
	// [7.1+7.5 7.2+7.3 7.5+7.7 d]
	// <nil>
	// false card is covered: 6.1 lies under 7.1
	// 2 1 playing
}

func ExampleGame_Undo() {
	g, _ := engine.NewNumbered(engine.Classic(), 42)
	_ = g.ApplyNotation("d")
	_ = g.ApplyNotation("7.2+7.3")
	_ = g.Undo()
	_ = g.Undo()
	fmt.Println(g.MovesMade(), g.RedoMoves())
	_ = g.Redo()
	fmt.Println(g.Moves(), g.RedoMoves())
	// Output:
	// 0 [d 7.2+7.3]
	// [d] [7.2+7.3]
}

func ExampleReplay() {
	g, _ := engine.NewNumbered(engine.MustRules("double"), 7)
	_ = g.ApplyNotation("d")
	rec := g.Record()
	fmt.Printf("%s %d %v\n", rec.Rules, rec.Deal, rec.Moves)
	back, _ := engine.Replay(rec)
	fmt.Println(back.StockCount(), back.WasteCount(0))
	// Output:
	// double 7 [d]
	// 58 1
}

func ExampleParseMove() {
	for _, s := range []string{"d", "7.1+7.4", "W+6.2", "w1+s", "8.9"} {
		m, err := engine.ParseMove(s)
		fmt.Println(m, err)
	}
	// Output:
	// d <nil>
	// 7.1+7.4 <nil>
	// 6.2+w <nil>
	// w1+s <nil>
	// ? bad move notation: "8.9": no slot "8.9": rows count from 1 at the top, and row R has columns 1 to R
}

func ExampleNewDeal() {
	d := engine.NewDeal(42, 1)
	fmt.Println(d.Pyramid()[:3], len(d.Stock()))
	// Output:
	// [KD 2C 5H] 24
}
