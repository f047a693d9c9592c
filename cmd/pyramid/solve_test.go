package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"pyramid/engine"
)

// runSolverCmd runs a subcommand function with args and stdin and returns
// the exit status, stdout and stderr.
func runSolverCmd(cmd func([]string, io.Reader, io.Writer, io.Writer) int, stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cmd(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// solveJSON runs solve --json and decodes its object.
func solveJSON(t *testing.T, stdin string, args ...string) solveReport {
	t.Helper()
	code, out, errOut := runSolverCmd(runSolve, stdin, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("solve %v: exit %d, stderr %q", args, code, errOut)
	}
	var rep solveReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("solve %v: bad JSON %q: %v", args, out, err)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("solve %v: got %q, want one JSON object on one line", args, out)
	}
	return rep
}

func TestSolveCommand(t *testing.T) {
	// Classic deal 2 is winnable, deal 4 is not (engine's pinned verdicts).
	rep := solveJSON(t, "", "--rules", "classic", "--seed", "2")
	if rep.Verdict != "winnable" || len(rep.Moves) == 0 || rep.States <= 0 || rep.MS < 0 {
		t.Fatalf("deal 2: got %+v, want winnable with moves", rep)
	}
	g, _ := engine.NewNumbered(engine.Classic(), 2)
	for i, m := range rep.Moves {
		if err := g.ApplyNotation(m); err != nil {
			t.Fatalf("move %d %q: %v", i+1, m, err)
		}
	}
	if g.Status() != engine.Won {
		t.Errorf("the moves end %v, want won", g.Status())
	}

	rep = solveJSON(t, "", "--rules", "classic", "--seed", "4")
	if rep.Verdict != "unwinnable" || rep.Moves == nil || len(rep.Moves) != 0 {
		t.Errorf("deal 4: got %+v, want unwinnable with an empty move list", rep)
	}

	// The same deal as text on stdin.
	text := engine.NewDeal(2, 1).Text()
	if rep := solveJSON(t, text, "--rules", "classic", "--deal", "-"); rep.Verdict != "winnable" {
		t.Errorf("deal 2 from stdin: got %v want winnable", rep.Verdict)
	}

	// A budget too small to decide: unknown, still exit 0.
	rep = solveJSON(t, "", "--rules", "double", "--seed", "1", "--budget", "1000")
	if rep.Verdict != "unknown" || len(rep.Moves) != 0 {
		t.Errorf("budget 1000: got %+v, want unknown", rep)
	}
	rep = solveJSON(t, "", "--rules", "double", "--seed", "1", "--timeout", "1ms")
	if rep.Verdict != "unknown" {
		t.Errorf("timeout 1ms: got %+v, want unknown", rep)
	}
}

func TestSolveCommandOptimal(t *testing.T) {
	plain := solveJSON(t, "", "--rules", "classic", "--seed", "2")
	if plain.Optimal || plain.Length != len(plain.Moves) {
		t.Errorf("plain solve: got optimal=%v length %d for %d moves, want false and the count", plain.Optimal, plain.Length, len(plain.Moves))
	}
	rep := solveJSON(t, "", "--rules", "classic", "--seed", "2", "--optimal")
	if rep.Verdict != "winnable" || !rep.Optimal || rep.Length != len(rep.Moves) || rep.Length > plain.Length {
		t.Fatalf("deal 2 --optimal: got %+v, want a proved shortest line no longer than %d", rep, plain.Length)
	}
	g, _ := engine.NewNumbered(engine.Classic(), 2)
	if want := engine.SolveOptimal(t.Context(), g, 0); len(want.Moves) != rep.Length {
		t.Errorf("got length %d, the engine says %d", rep.Length, len(want.Moves))
	}
	for i, m := range rep.Moves {
		if err := g.ApplyNotation(m); err != nil {
			t.Fatalf("move %d %q: %v", i+1, m, err)
		}
	}
	if g.Status() != engine.Won {
		t.Errorf("the moves end %v, want won", g.Status())
	}
	if rep := solveJSON(t, "", "--rules", "classic", "--seed", "4", "--optimal"); rep.Verdict != "unwinnable" || rep.Optimal || rep.Length != 0 {
		t.Errorf("deal 4 --optimal: got %+v, want unwinnable", rep)
	}
	code, out, _ := runSolverCmd(runSolve, "", "--rules", "classic", "--seed", "2", "--optimal")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("shortest winning line, %d moves", rep.Length)) {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// A budget too small for the proof (the ordinary solve that runs
	// first needs 72 positions): the plain line, not called shortest.
	code, out, _ = runSolverCmd(runSolve, "", "--rules", "classic", "--seed", "2", "--optimal", "--budget", "2000")
	if code != 0 || !strings.Contains(out, "not proved shortest") {
		t.Errorf("budget 2000: exit %d, output:\n%s", code, out)
	}
	// The budget bounds the ordinary solve too.
	code, out, _ = runSolverCmd(runSolve, "", "--rules", "classic", "--seed", "2", "--optimal", "--budget", "1")
	if code != 0 || !strings.Contains(out, "unknown") {
		t.Errorf("budget 1: exit %d, output:\n%s", code, out)
	}
}

func TestSolveCommandText(t *testing.T) {
	code, out, _ := runSolverCmd(runSolve, "", "--rules", "classic", "--seed", "2")
	if code != 0 || !strings.Contains(out, "deal 2 under classic: winnable") || !strings.Contains(out, "winning line") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	code, out, _ = runSolverCmd(runSolve, "", "--rules", "double", "--seed", "1", "--budget", "100")
	if code != 0 || !strings.Contains(out, "unknown") || !strings.Contains(out, "--budget") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

func TestSolveCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"--rules", "classic"}, "", "give a deal"},
		{[]string{"--rules", "nope", "--seed", "1"}, "", "unknown rule set"},
		{[]string{"--seed", "x"}, "", "bad deal number"},
		{[]string{"--seed", "1", "--deal", "-"}, "", "not both"},
		{[]string{"--deal", "-"}, "AS KS", "2 cards"},
		{[]string{"--deal", "/nonexistent/deal.txt"}, "", "read deal"},
		{[]string{"--rules", "double", "--deal", "-"}, engine.NewDeal(1, 1).Text(), "does not fit"},
		{[]string{"--seed", "1", "--budget", "0"}, "", "--budget"},
		{[]string{"--seed", "1", "--timeout", "-1s"}, "", "--timeout"},
		{[]string{"--seed", "1", "--bogus"}, "", "bogus"},
		{[]string{"--seed", "1", "extra"}, "", "unexpected argument"},
	} {
		code, out, errOut := runSolverCmd(runSolve, tt.stdin, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("solve %v: got exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	if code, _, _ := runSolverCmd(runSolve, "", "-h"); code != 0 {
		t.Errorf("solve -h: got exit %d want 0", code)
	}
}

func TestStatsCommand(t *testing.T) {
	code, out, errOut := runSolverCmd(runStats, "", "--rules", "classic", "--deals", "20", "--from", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// Deals 2–21 of classic: count them with the engine.
	wins := 0
	for n := uint64(2); n < 22; n++ {
		g, _ := engine.NewNumbered(engine.Classic(), n)
		if engine.Solve(t.Context(), g, 0).Verdict == engine.Winnable {
			wins++
		}
	}
	for _, want := range []string{
		"rules       classic",
		"deals       20, numbers 2 to 21",
		fmt.Sprintf("winnable    %2d", wins),
		fmt.Sprintf("unwinnable  %2d", 20-wins),
		"unknown      0    0.00 % ± 0.00",
		"median",
		"p99",
		"max",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// stderr is no terminal here: plain progress lines.
	if !strings.Contains(errOut, "solved 20 of 20 deals") || strings.Contains(errOut, "\r") {
		t.Errorf("progress: got %q, want plain lines", errOut)
	}
}

func TestStatsCommandUnknown(t *testing.T) {
	code, out, _ := runSolverCmd(runStats, "", "--rules", "double", "--deals", "2", "--from", "1", "--budget", "500", "--workers", "1")
	if code != 0 || !strings.Contains(out, "unknown") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if !strings.Contains(out, "100.00 % ± 0.00") && !strings.Contains(out, "50.00 %") {
		t.Errorf("want unknown deals counted:\n%s", out)
	}
}

func TestStatsCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rules", "classic"}, "--deals"},
		{[]string{"--deals", "-3"}, "--deals"},
		{[]string{"--deals", "3", "--rules", "nope"}, "unknown rule set"},
		{[]string{"--deals", "3", "--from", "x"}, "bad deal number"},
		{[]string{"--deals", "3", "--from", "18446744073709551615"}, "past the last deal"},
		{[]string{"--deals", "3", "--budget", "0"}, "--budget"},
		{[]string{"--deals", "3", "--workers", "0"}, "--workers"},
		{[]string{"--deals", "x"}, "invalid value"},
	} {
		code, out, errOut := runSolverCmd(runStats, "", tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("stats %v: got exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

func TestWrapMoves(t *testing.T) {
	got := wrapMoves([]string{"d", "7.1+7.2", "d", "w+s", "r"}, 10)
	want := "d 7.1+7.2\nd w+s r"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestStatsProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, n: 4, terminal: true}
	for range 4 {
		p.done()
	}
	p.finish()
	got := b.String()
	if !strings.HasPrefix(got, "\r[") || !strings.HasSuffix(got, "] 4/4\n") || strings.Count(got, "\r") != 4 {
		t.Errorf("got %q, want a bar redrawn four times ending in a newline", got)
	}
	if isTerminal(&b) {
		t.Errorf("a buffer counts as a terminal")
	}
}
