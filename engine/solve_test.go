package engine

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// longSolve turns on the solver's long checks: all 1,500 published deals,
// the published win rates, the double pyramid's 200 deals and a long
// brute-force comparison (make solver-long).
var longSolve = flag.Bool("solver.long", false, "run the solver's long checks (minutes)")

// mscDir holds 1,500 published deals with their optimal solution lengths
// under the open-stock rules (MIT-licensed; its README names the source).
const mscDir = "testdata/msc-1500"

// mscDeal is one published deal and whether it is winnable.
type mscDeal struct {
	n    int // 1-based line number
	deal Deal
	win  bool
	// length is the published shortest winning line, 0 when none wins.
	length int
}

// loadMSC reads the published deals.
func loadMSC(t testing.TB) []mscDeal {
	t.Helper()
	decks, err := os.ReadFile(filepath.Join(mscDir, "decks.txt"))
	if err != nil {
		t.Fatalf("published deals: %v", err)
	}
	lengths, err := os.ReadFile(filepath.Join(mscDir, "lengths.txt"))
	if err != nil {
		t.Fatalf("published lengths: %v", err)
	}
	var out []mscDeal
	ls := strings.Fields(string(lengths))
	sc := bufio.NewScanner(strings.NewReader(string(decks)))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		i := len(out)
		d, err := ParseDeal(sc.Text())
		if err != nil {
			t.Fatalf("deal %d: %v", i+1, err)
		}
		if i >= len(ls) {
			t.Fatalf("got %d lengths, want one per deal", len(ls))
		}
		n, err := strconv.Atoi(ls[i])
		if err != nil {
			t.Fatalf("length %d: %v", i+1, err)
		}
		out = append(out, mscDeal{n: i + 1, deal: d, win: n > 0, length: n})
	}
	if len(out) != 1500 {
		t.Fatalf("got %d published deals, want 1500", len(out))
	}
	return out
}

// checkMSC solves published deals and compares every verdict; every
// winning line must replay to a win.
func checkMSC(t *testing.T, deals []mscDeal) {
	t.Helper()
	r := MustRules("open-stock")
	for _, d := range deals {
		g, err := NewGame(r, d.deal)
		if err != nil {
			t.Fatal(err)
		}
		sol := Solve(t.Context(), g, 0)
		want := Unwinnable
		if d.win {
			want = Winnable
		}
		if sol.Verdict != want {
			t.Errorf("published deal %d: got %v want %v (%d states)", d.n, sol.Verdict, want, sol.States)
			continue
		}
		if sol.Verdict == Winnable {
			checkWins(t, g, sol.Moves)
		}
	}
}

func TestSolveMSCSample(t *testing.T) {
	deals := loadMSC(t)
	var sample []mscDeal
	for i := 0; i < len(deals); i += 15 {
		sample = append(sample, deals[i])
	}
	checkMSC(t, sample)
}

func TestSolveMSCAll(t *testing.T) {
	if !*longSolve {
		t.Skip("run with -solver.long")
	}
	deals := loadMSC(t)
	wins := 0
	for _, d := range deals {
		if d.win {
			wins++
		}
	}
	if wins != 998 {
		t.Fatalf("got %d winnable published deals, want 998", wins)
	}
	checkMSC(t, deals)
}

func TestSolveKeepsGame(t *testing.T) {
	g, err := NewNumbered(Classic(), 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"d", "d"} {
		if err := g.ApplyNotation(m); err != nil {
			t.Fatal(err)
		}
	}
	before := g.Record()
	text := g.String()
	sol := Solve(t.Context(), g, 0)
	if sol.Verdict == Unknown {
		t.Fatalf("got %v, want a verdict", sol.Verdict)
	}
	if got := g.Record(); !slices.Equal(got.Moves, before.Moves) || g.String() != text {
		t.Errorf("Solve changed the game: got %v want %v", got.Moves, before.Moves)
	}
	if sol.Verdict == Winnable {
		checkWins(t, g, sol.Moves)
	}
}

func TestSolveWonGame(t *testing.T) {
	g := wonGame(t)
	sol := Solve(t.Context(), g, 0)
	if sol.Verdict != Winnable || len(sol.Moves) != 0 {
		t.Errorf("got %v with %d moves, want winnable with none", sol.Verdict, len(sol.Moves))
	}
	h := SolveHint(t.Context(), g, 0)
	if h.OK || h.Verdict != Winnable {
		t.Errorf("got hint %v ok=%v verdict %v, want no move and winnable", h.Move, h.OK, h.Verdict)
	}
}

// wonGame returns a game of a winnable deal played to its win.
func wonGame(t *testing.T) *Game {
	t.Helper()
	n, sol, err := NextWinnable(t.Context(), Classic(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewNumbered(Classic(), n)
	for _, m := range sol.Moves {
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	if g.Status() != Won {
		t.Fatalf("got %v, want won", g.Status())
	}
	return g
}

// hardDeal is a deal the solver needs many positions for: published deal
// 1026 of the open-stock set would do, but this one needs no files.
func hardGame(t *testing.T) *Game {
	t.Helper()
	g, err := NewNumbered(MustRules("double"), 1)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSolveBudget(t *testing.T) {
	g := hardGame(t)
	sol := Solve(t.Context(), g, 5000)
	if sol.Verdict != Unknown {
		t.Fatalf("got %v, want unknown with a budget of 5000 positions", sol.Verdict)
	}
	if sol.States != 5000 {
		t.Errorf("got %d states searched, want 5000", sol.States)
	}
	if len(sol.Moves) != 0 {
		t.Errorf("got %d moves, want none", len(sol.Moves))
	}
}

func TestSolveCancel(t *testing.T) {
	g := hardGame(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got := Solve(ctx, g, 1<<30).Verdict; got != Unknown {
		t.Errorf("cancelled: got %v want unknown", got)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := Solve(ctx, g, 1<<30).Verdict
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a 50ms timeout stopped the solver after %v", took)
	}
	if got != Unknown {
		t.Errorf("timed out: got %v want unknown", got)
	}
}

// TestSolveTableBound checks that the table never holds more positions than
// the budget: memory is bounded by it.
func TestSolveTableBound(t *testing.T) {
	g := hardGame(t)
	s := newSolver(t.Context(), g, 20_000)
	p := s.root(g)
	s.limit = 1 << 30 // only the table stops this run
	s.search(p)
	if !s.full {
		t.Fatalf("got a search that did not fill a table of 20000")
	}
	if s.table.n > 20_000 {
		t.Errorf("got %d keys in the table, want at most 20000", s.table.n)
	}
	if c := len(s.table.vals); c > 2*20_000*4/3 {
		t.Errorf("got a table of %d slots for 20000 keys, want at most %d", c, 2*20_000*4/3)
	}
}

func TestSolveKeyWidth(t *testing.T) {
	tests := []struct {
		spec  string
		words int
	}{
		{"classic", 1},
		{"open-stock", 1},
		{"relaxed", 1},
		{"draw-three", 1},
		{"draw-three,passes=3", 2},
		{"double", 2},
		{"double,draw=3,passes=2", 3},
	}
	for _, tt := range tests {
		g, err := NewNumbered(MustRules(tt.spec), 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := newSolver(t.Context(), g, 1).table.words; got != tt.words {
			t.Errorf("%s: got %d words a key, want %d", tt.spec, got, tt.words)
		}
	}
}

// TestSolveVerdicts pins the verdicts of deals 2–13 of every rule set, w
// for winnable and - for unwinnable (testdata/solve/verdicts.txt,
// refreshed with -update).
func TestSolveVerdicts(t *testing.T) {
	var b strings.Builder
	for _, name := range PresetNames() {
		r, _ := Preset(name)
		fmt.Fprintf(&b, "%-10s", name)
		for i := range uint64(12) {
			g, _ := NewNumbered(r, 2+i)
			sol := Solve(t.Context(), g, 0)
			if sol.Verdict == Winnable {
				checkWins(t, g, sol.Moves)
			}
			b.WriteByte(' ')
			b.WriteByte(map[Verdict]byte{Winnable: 'w', Unwinnable: '-', Unknown: '?'}[sol.Verdict])
		}
		b.WriteByte('\n')
	}
	golden(t, "solve/verdicts.txt", b.String())
}

func TestStillWinnable(t *testing.T) {
	n, sol, err := NextWinnable(t.Context(), Classic(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewNumbered(Classic(), n)
	if got := StillWinnable(t.Context(), g, 0); got != Winnable {
		t.Fatalf("deal %d: got %v want winnable", n, got)
	}
	// Every move of the winning line keeps the game winnable.
	for i, m := range sol.Moves[:len(sol.Moves)-1] {
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
		if got := StillWinnable(t.Context(), g, 0); got != Winnable {
			t.Fatalf("after move %d (%s): got %v want winnable", i+1, m, got)
		}
	}
}

func TestSolveHint(t *testing.T) {
	t.Run("winnable", func(t *testing.T) {
		n, _, err := NextWinnable(t.Context(), Classic(), 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := NewNumbered(Classic(), n)
		for range 200 {
			if g.Status() == Won {
				return
			}
			h := SolveHint(t.Context(), g, 0)
			if h.Verdict != Winnable || !h.OK {
				t.Fatalf("got %v ok=%v, want a winnable hint", h.Verdict, h.OK)
			}
			if err := g.Apply(h.Move); err != nil {
				t.Fatalf("hint %s: %v", h.Move, err)
			}
		}
		t.Fatalf("following the hints did not win in 200 moves")
	})
	t.Run("unwinnable", func(t *testing.T) {
		g := unwinnableGame(t)
		h := SolveHint(t.Context(), g, 0)
		want, wantOK := g.Hint()
		if h.Verdict != Unwinnable || h.Move != want || h.OK != wantOK {
			t.Errorf("got %v %s ok=%v, want unwinnable with the heuristic %s ok=%v", h.Verdict, h.Move, h.OK, want, wantOK)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		g := hardGame(t)
		h := SolveHint(t.Context(), g, 100)
		want, wantOK := g.Hint()
		if h.Verdict != Unknown || h.Move != want || h.OK != wantOK {
			t.Errorf("got %v %s ok=%v, want unknown with the heuristic %s ok=%v", h.Verdict, h.Move, h.OK, want, wantOK)
		}
	})
}

// unwinnableGame returns the first classic deal the solver proves lost.
func unwinnableGame(t *testing.T) *Game {
	t.Helper()
	for n := range uint64(100) {
		g, _ := NewNumbered(Classic(), n)
		if Solve(t.Context(), g, 0).Verdict == Unwinnable {
			return g
		}
	}
	t.Fatal("no unwinnable classic deal among the first 100")
	return nil
}

func TestNextWinnable(t *testing.T) {
	for _, name := range []string{"classic", "one-pass", "draw-three"} {
		r, _ := Preset(name)
		n, sol, err := NextWinnable(t.Context(), r, 1000, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n < 1000 || sol.Verdict != Winnable {
			t.Fatalf("%s: got deal %d (%v), want a winnable deal from 1000", name, n, sol.Verdict)
		}
		for m := uint64(1000); m < n; m++ {
			g, _ := NewNumbered(r, m)
			if v := Solve(t.Context(), g, 0).Verdict; v != Unwinnable {
				t.Errorf("%s: deal %d before %d is %v, want unwinnable", name, m, n, v)
			}
		}
		g, _ := NewNumbered(r, n)
		checkWins(t, g, sol.Moves)
		again, _, _ := NextWinnable(t.Context(), r, 1000, 0)
		if again != n {
			t.Errorf("%s: got %d then %d, want the same deal", name, n, again)
		}
		if then, _, _ := NextWinnable(t.Context(), r, n, 0); then != n {
			t.Errorf("%s: from %d got %d, want %d itself", name, n, then, n)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := NextWinnable(ctx, Classic(), 0, 0); err == nil {
		t.Errorf("cancelled: got no error")
	}
	if _, _, err := NextWinnable(t.Context(), Rules{}, 0, 0); err == nil {
		t.Errorf("zero rules: got no error")
	}
}

func TestDailyDeal(t *testing.T) {
	day := time.Date(2026, 11, 30, 15, 4, 5, 0, time.FixedZone("x", 5*3600))
	r, _ := Preset("daily")
	n, err := DailyDeal(t.Context(), r, nil, day, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n < DailyNumber(nil, day) && DailyNumber(nil, day)-n > MaxDealScan {
		t.Errorf("got deal %d, want one at or after %d", n, DailyNumber(nil, day))
	}
	g, _ := NewNumbered(r, n)
	if v := Solve(t.Context(), g, 0).Verdict; v != Winnable {
		t.Errorf("daily deal %d: got %v want winnable", n, v)
	}
	same, _ := DailyDeal(t.Context(), r, nil, day.UTC().Add(-time.Hour*5), 0)
	if same != n {
		t.Errorf("same UTC day: got %d want %d", same, n)
	}
	d, _ := Preset("double")
	if m, err := DailyDeal(t.Context(), d, nil, day, 0); err != nil {
		t.Errorf("double: %v", err)
	} else if g, _ := NewNumbered(d, m); Solve(t.Context(), g, 0).Verdict != Winnable {
		t.Errorf("double daily deal %d is not winnable", m)
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Unknown: "unknown", Winnable: "winnable", Unwinnable: "unwinnable"} {
		if got := v.String(); got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
}

// publishedRates are the solitairewinrates figures (100 million deals each)
// for open-stock rules with other passes, cover rules and goals.
var publishedRates = []struct {
	spec string
	rate float64 // percent
}{
	{"open-stock,passes=1", 9.02},
	{"open-stock,passes=1,cover=overlap", 22.77},
	{"open-stock,passes=1,goal=all", 6.80},
	{"open-stock,passes=1,cover=overlap,goal=all", 15.92},
	{"open-stock,passes=unlimited", 66.87},
	{"open-stock,passes=unlimited,cover=overlap", 83.15},
}

// solveMany solves deals from..from+n-1 under r on two workers and counts
// the verdicts.
func solveMany(t *testing.T, r Rules, from uint64, n int) map[Verdict]int {
	counts := map[Verdict]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan uint64)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				g, _ := NewNumbered(r, i)
				sol := Solve(t.Context(), g, 0)
				if sol.Verdict == Winnable {
					checkWins(t, g, sol.Moves)
				}
				mu.Lock()
				counts[sol.Verdict]++
				mu.Unlock()
			}
		})
	}
	for i := range uint64(n) {
		next <- from + i
	}
	close(next)
	wg.Wait()
	return counts
}

func TestSolveWinRates(t *testing.T) {
	if !*longSolve {
		t.Skip("run with -solver.long")
	}
	const n = 2000
	for _, pr := range publishedRates {
		counts := solveMany(t, MustRules(pr.spec), 0, n)
		p := float64(counts[Winnable]) / n
		se := math.Sqrt(p * (1 - p) / n)
		t.Logf("%s: %.2f %% ± %.2f (published %.2f %%), %d unknown", pr.spec, 100*p, 100*se, pr.rate, counts[Unknown])
		if counts[Unknown] > 0 {
			t.Errorf("%s: got %d unknown verdicts, want none", pr.spec, counts[Unknown])
		}
		if math.Abs(100*p-pr.rate) > 2*100*se {
			t.Errorf("%s: got %.2f %% ± %.2f, want within two standard errors of %.2f %%", pr.spec, 100*p, 100*se, pr.rate)
		}
	}
}

// TestSolveDouble checks the double pyramid's speed figure: at least 99 %
// of 200 deals decided within a second each.
func TestSolveDouble(t *testing.T) {
	if !*longSolve {
		t.Skip("run with -solver.long")
	}
	r := MustRules("double")
	decided := 0
	for i := range uint64(200) {
		g, _ := NewNumbered(r, i)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		sol := Solve(ctx, g, 1<<30)
		cancel()
		if sol.Verdict != Unknown {
			decided++
		}
		if sol.Verdict == Winnable {
			checkWins(t, g, sol.Moves)
		}
	}
	t.Logf("double: %d of 200 deals decided within a second each", decided)
	if decided < 198 {
		t.Errorf("got %d of 200 decided within a second, want at least 198", decided)
	}
}
