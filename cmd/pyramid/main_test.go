package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"pyramid/engine"
)

// runCmd runs the command line with args and stdin, returning the exit
// status, stdout and stderr.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDeal(t *testing.T) {
	code, out, _ := runCmd(t, "", "deal", "--rules", "classic", "--seed", "42")
	if code != 0 || out != engine.NewDeal(42, 1).Text() {
		t.Fatalf("deal --seed 42: exit %d, output:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "deal", "--rules", "double", "--daily", "2026-11-30")
	d, err := engine.ParseDeal(out)
	if code != 0 || err != nil || d.Decks != 2 {
		t.Fatalf("deal --daily double: exit %d, parse %v, decks %d", code, err, d.Decks)
	}
	for _, args := range [][]string{
		{"deal"},
		{"deal", "--seed", "-1"},
		{"deal", "--daily", "2026-13-01"},
		{"deal", "--seed", "1", "--daily", "2026-01-01"},
		{"deal", "--rules", "nope", "--seed", "1"},
		{"deal", "--seed", "1", "extra"},
	} {
		if code, _, errOut := runCmd(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

func TestPlayJSON(t *testing.T) {
	for _, name := range engine.PresetNames() {
		code, out, errOut := runCmd(t, "", "play", "--rules", name, "--seed", "42", "--moves", "d d", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var rep playReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		r := engine.MustRules(name)
		if rep.Status != "playing" || rep.Pass != 1 || rep.Passes != r.Passes || rep.MovesMade != 2 || len(rep.Legal) == 0 || rep.Rules != r.ID() {
			t.Errorf("%s: got %+v", name, rep)
		}
	}
}

func TestPlayIllegalMove(t *testing.T) {
	code, out, errOut := runCmd(t, "", "play", "--seed", "42", "--moves", "7.2+7.3 d 6.1 d")
	if code != 1 || !strings.Contains(errOut, "move 3 (6.1)") || !strings.Contains(errOut, "covered") {
		t.Fatalf("exit %d, stderr %q; want 1 naming move 3 and why", code, errOut)
	}
	if !strings.Contains(out, "2 moves") {
		t.Fatalf("the board should show the two good moves:\n%s", out)
	}
	code, _, errOut = runCmd(t, "", "play", "--seed", "42", "--moves", "d x+y")
	if code != 1 || !strings.Contains(errOut, "move 2") {
		t.Fatalf("bad notation: exit %d, stderr %q", code, errOut)
	}
}

func TestPlayDealFromStdin(t *testing.T) {
	text := engine.NewDeal(3, 2).Text()
	code, out, errOut := runCmd(t, text, "play", "--rules", "double", "--deal", "-", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep playReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Stock != 59 || rep.Deal != nil {
		t.Fatalf("got %+v (%v)", rep, err)
	}
	code, _, errOut = runCmd(t, "AS KS", "play", "--deal", "-")
	if code != 2 || !strings.Contains(errOut, "2 cards") {
		t.Fatalf("short deal: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCmd(t, text, "play", "--rules", "classic", "--deal", "-")
	if code != 2 || !strings.Contains(errOut, "does not fit") {
		t.Fatalf("double deal under classic: exit %d, stderr %q", code, errOut)
	}
}

func TestUsage(t *testing.T) {
	if code, out, _ := runCmd(t, "", "-h"); code != 0 || !strings.Contains(out, "pyramid play") {
		t.Fatalf("-h: exit %d, %q", code, out)
	}
	for _, sub := range []string{"deal", "play"} {
		if code, _, errOut := runCmd(t, "", sub, "-h"); code != 0 || !strings.Contains(errOut, "usage: pyramid "+sub) {
			t.Errorf("%s -h: exit %d, %q", sub, code, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "", "fly"); code != 2 || !strings.Contains(errOut, `unknown command "fly"`) {
		t.Fatalf("unknown command: exit %d, %q", code, errOut)
	}
}
