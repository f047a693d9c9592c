package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pyramid/arcade"
	"pyramid/engine"
	"pyramid/store/sqlstore"
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
	for _, args := range [][]string{
		{"deal", "--rules", "double", "--daily", "2026-11-30"},
		{"deal", "--rules", "double", "--daily", "2026-11-30", "--data", t.TempDir()},
	} {
		code, out, errOut := runCmd(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "server's") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a refusal that says it needs the server's secret or database", args, code, out, errOut)
		}
	}
}

// TestDealDailyOfTheServer: a server's admin prints the server's daily
// deal from its database (--data) or its secret (--daily-secret): the
// deal derived from the database's secret, not the one anybody computes.
func TestDealDailyOfTheServer(t *testing.T) {
	data := t.TempDir()
	st, err := sqlstore.Open(context.Background(), data, "")
	if err != nil {
		t.Fatal(err)
	}
	secret, err := st.DailySecret(context.Background())
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r := engine.MustRules("double")
	n, err := engine.DailyDeal(context.Background(), r, secret, day, arcade.DailyBudget)
	if err != nil {
		t.Fatal(err)
	}
	public, _ := engine.DailyDeal(context.Background(), r, nil, day, arcade.DailyBudget)
	if n == public {
		t.Fatalf("the secret's daily deal is the public one, %d", n)
	}
	for _, args := range [][]string{
		{"deal", "--rules", "double", "--daily", "2026-11-30", "--data", data},
		{"deal", "--rules", "double", "--daily", "2026-11-30", "--daily-secret", hex.EncodeToString(secret)},
	} {
		code, out, errOut := runCmd(t, "", args...)
		if code != 0 || out != engine.NewDeal(n, 2).Text() {
			t.Errorf("%v: exit %d, stderr %q, output:\n%s\nwant deal %d", args[5:], code, errOut, out, n)
		}
	}
	if code, _, errOut := runCmd(t, "", "deal", "--daily", "2026-11-30", "--daily-secret", "abc"); code != 2 || !strings.Contains(errOut, "64 hex digits") {
		t.Errorf("a short secret: exit %d, stderr %q; want 2 and what a secret is", code, errOut)
	}
}

func TestDealRefuses(t *testing.T) {
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
	// Malformed notation is bad input: exit 2, like every other (H3).
	code, _, errOut = runCmd(t, "", "play", "--seed", "42", "--moves", "d x+y")
	if code != 2 || !strings.Contains(errOut, "move 2") {
		t.Fatalf("bad notation: exit %d, stderr %q; want 2", code, errOut)
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

// TestPlayPolish: playtest H1–H4 and F4: goal=all counts every card, a
// repeated knob is refused, spaces around + make one pair, an empty waste
// is [], the deal is a string, and messages say "1 deck", not "engine:".
func TestPlayPolish(t *testing.T) {
	code, out, errOut := runCmd(t, "", "play", "--rules", "classic,goal=all", "--seed", "19", "--json")
	var rep playReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Cards != 52 || rep.Waste == nil || len(rep.Waste) != 0 {
		t.Errorf("goal=all --json: exit %d, %+v (%v) %s", code, rep, err, errOut)
	}
	if !strings.Contains(out, `"deal": "19"`) || !strings.Contains(out, `"waste": []`) {
		t.Errorf("want the deal as a string and an empty waste as []:\n%s", out)
	}
	if _, out, _ := runCmd(t, "", "play", "--rules", "classic,goal=all", "--seed", "19"); !strings.Contains(out, "0/52 removed") {
		t.Errorf("goal=all board: want 0/52 removed:\n%s", out)
	}
	if code, _, errOut := runCmd(t, "", "play", "--rules", "classic,passes=2,passes=3", "--seed", "1"); code != 2 || !strings.Contains(errOut, "given twice") {
		t.Errorf("repeated knob: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "", "play", "--seed", "42", "--moves", "7.2 + 7.4"); code != 1 || !strings.Contains(errOut, "move 1 (7.2+7.4)") {
		t.Errorf("spaced pair: exit %d, %q; want it read as one move", code, errOut)
	}
	code, _, errOut = runCmd(t, engine.NewDeal(3, 2).Text(), "play", "--rules", "classic", "--deal", "-")
	if code != 2 || strings.Contains(errOut, "engine:") || !strings.Contains(errOut, "1 deck (52 cards)") {
		t.Errorf("double deal under classic: exit %d, %q", code, errOut)
	}
	if _, _, errOut := runCmd(t, "", "play", "-h"); strings.Contains(errOut, "Number") {
		t.Errorf("play -h: %q", errOut)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, out, _ := runCmd(t, "", args...); code != 0 || !strings.HasPrefix(out, "pyramid ") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}
