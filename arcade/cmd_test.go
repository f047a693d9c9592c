package arcade

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server"
	"pyramid/server/sshtest"
	"pyramid/tui"
)

// TestHelpFromTables: help lists every command of the table and every
// rule set and knob of the engine; admin commands only to admins.
func TestHelpFromTables(t *testing.T) {
	f := newFixture(t)
	alice := sshtest.NewKey(t)
	_, out, _ := f.run(session(alice, "alice", "help"))
	_, adminOut, _ := f.run(session(f.admin, "root", "help"))
	for _, cmd := range commands() {
		if !strings.Contains(adminOut, "  "+cmd.name) {
			t.Errorf("admin's help lacks %q:\n%s", cmd.name, adminOut)
		}
		if got := strings.Contains(out, "  "+cmd.name+" "); got == cmd.admin {
			t.Errorf("player's help lists %q: %v, want %v:\n%s", cmd.name, got, !cmd.admin, out)
		}
	}
	for _, name := range append(engine.PresetNames(), engine.KnobNames()...) {
		if !strings.Contains(out, name) {
			t.Errorf("help lacks %q:\n%s", name, out)
		}
	}
	for _, line := range strings.Split(adminOut, "\n") {
		if w := utf8.RuneCountInString(line); w > helpWidth {
			t.Errorf("help line of %d cells, more than %d: %q", w, helpWidth, line)
		}
	}
	// help --json lists the same commands, admin ones only to admins.
	for _, tc := range []struct {
		s     *server.Session
		admin bool
	}{{session(alice, "alice", "help", "--json"), false}, {session(f.admin, "root", "help", "--json"), true}} {
		code, out, _ := f.run(tc.s)
		var rep helpReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("help --json: exit %d, %v\n%s", code, err, out)
		}
		listed := map[string]bool{}
		for _, c := range rep.Commands {
			listed[c.Name] = true
			if c.Terminal != (c.Name == "race" || c.Name == "watch") {
				t.Errorf("help --json: %s terminal %v", c.Name, c.Terminal)
			}
		}
		for _, cmd := range commands() {
			if listed[cmd.name] != (!cmd.admin || tc.admin) {
				t.Errorf("help --json (admin %v) lists %s: %v", tc.admin, cmd.name, listed[cmd.name])
			}
		}
		if len(rep.Rules) != len(engine.PresetNames()) || len(rep.Knobs) != len(engine.KnobNames()) {
			t.Errorf("help --json rules %v knobs %v", rep.Rules, rep.Knobs)
		}
	}
}

// TestJSONAnswers: name, link and link CODE answer --json with what they
// print as text.
func TestJSONAnswers(t *testing.T) {
	f := newFixture(t)
	alice, laptop := sshtest.NewKey(t), sshtest.NewKey(t)
	code, out, errOut := f.run(session(alice, "alice", "name", "--json", "ally"))
	var named nameReport
	if err := json.Unmarshal([]byte(out), &named); code != 0 || err != nil || named.Name != "ally" {
		t.Fatalf("name --json: exit %d, %q %q (%v)", code, out, errOut, err)
	}
	code, out, errOut = f.run(session(alice, "alice", "link", "--json"))
	var linked linkReport
	if err := json.Unmarshal([]byte(out), &linked); code != 0 || err != nil || linked.Code == "" || !strings.HasSuffix(linked.Command, " link "+linked.Code) || !linked.Expires.After(time.Now()) {
		t.Fatalf("link --json: exit %d, %q %q (%v)", code, out, errOut, err)
	}
	code, out, errOut = f.run(session(laptop, "x", "link", "--json", linked.Code))
	if err := json.Unmarshal([]byte(out), &named); code != 0 || err != nil || named.Name != "ally" {
		t.Fatalf("link --json CODE: exit %d, %q %q (%v)", code, out, errOut, err)
	}
}

// TestFlagErrors: flag and argument errors are ours, prefixed "pyramid:",
// with the command's usage; --help prints it on stdout.
func TestFlagErrors(t *testing.T) {
	f := newFixture(t)
	alice := sshtest.NewKey(t)
	tests := []struct {
		args    []string
		code    int
		stdout  string
		stderr  string
		without string
	}{
		{[]string{"link", "--jason"}, 2, "", "pyramid: unknown flag --jason\nusage: link [CODE] [--json]\n", "Usage of"},
		{[]string{"link", "-jason"}, 2, "", "pyramid: unknown flag --jason\n", "Usage of"},
		{[]string{"link", "--help"}, 0, "usage: link [CODE] [--json]", "", "Usage of"},
		{[]string{"help", "--jason"}, 2, "", "pyramid: unknown flag --jason\nusage: help [--json]\n", "usage: help \n"},
		{[]string{"games", "-h"}, 0, "--json", "", "Usage of"},
		{[]string{"name", "bob", "bob2"}, 2, "", "pyramid: unexpected argument \"bob2\"\nusage: name NEW [--json]\n", "pyramid name:"},
		{[]string{"replay"}, 2, "", "pyramid: replay needs a game ID", ""},
		{[]string{"top", "daily", "--date"}, 2, "", "pyramid: flag needs an argument: --date", ""},
		{[]string{"top", "daily", "--date", "bogus"}, 2, "", "pyramid: bad date \"bogus\": want YYYY-MM-DD\nusage: top", ""},
		{[]string{"top", "race", "--date", "2026-12-01"}, 2, "", "pyramid: --date is for daily boards", ""},
		{[]string{"top", "bogus"}, 2, "", "pyramid: rules: unknown rule set \"bogus\"", ""},
		{[]string{"stats", "bogus"}, 2, "", "pyramid: rules: unknown rule set \"bogus\"", ""},
		{[]string{"stats", "classic,passes=1,passes=2"}, 2, "", "pyramid: rules: passes is given twice", ""},
		{[]string{"watch", "bob"}, 1, "", "pyramid: watch opens a screen, which needs a terminal: add -t (ssh -t … watch bob)", ""},
		{[]string{"race", "ghost", "7"}, 1, "", "pyramid: race opens a screen, which needs a terminal", ""},
		{[]string{"race", "--help"}, 0, "usage: ssh -t … race [CODE | new", "", "a room code"},
		{[]string{"watch", "-h"}, 0, "usage: ssh -t … watch NAME", "", ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := f.run(session(alice, "alice", tt.args...))
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.HasPrefix(errOut, tt.stderr) ||
				(tt.without != "" && strings.Contains(out+errOut, tt.without)) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errOut, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestReplayVisibility: a player replays their own games, and other
// players' daily games once that day is over; anything else is "no such
// game", whether it exists or not.
func TestReplayVisibility(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.app.cfg.Now = func() time.Time { return day }
	ann, bob := sshtest.NewKey(t), sshtest.NewKey(t)
	p, _, _ := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(ann.PublicKey()), "ann")
	f.run(session(bob, "bob", "whoami"))
	g := plainGames(f.st, "ann")
	save := func(rec engine.Record, status, daily string) string {
		t.Helper()
		id, err := g.Save(ctx, p.ID, tui.SavedGame{Record: rec, Status: status, Daily: daily, Played: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	dailyRec := func(d time.Time) engine.Record {
		return engine.Record{Rules: "daily", Deal: engine.DailyNumber(nil, d), Moves: []string{"d"}}
	}
	won := save(winningRecord(t), tui.StatusPlaying, "")
	yesterday := save(dailyRec(day.AddDate(0, 0, -1)), tui.StatusAbandoned, "2026-11-29")
	today := save(dailyRec(day), tui.StatusAbandoned, "2026-11-30")
	for _, tt := range []struct {
		who  string
		id   string
		seen bool
	}{
		{"ann", won, true}, {"ann", today, true}, {"ann", yesterday, true},
		{"bob", won, false}, {"bob", today, false}, {"bob", yesterday, true}, {"bob", "999", false},
	} {
		key := map[string]gossh.Signer{"ann": ann, "bob": bob}[tt.who]
		code, out, errOut := f.run(session(key, tt.who, "replay", tt.id))
		if tt.seen != (code == 0) || (!tt.seen && (out != "" || !strings.Contains(errOut, "no such game"))) {
			t.Errorf("%s replay %s: exit %d, %q %q; want seen=%v", tt.who, tt.id, code, out, errOut, tt.seen)
		}
	}
	// The replay of an abandoned game says abandoned, not the position's
	// "playing".
	_, out, _ := f.run(session(ann, "ann", "replay", today))
	if !strings.Contains(out, "abandoned") || strings.Contains(out, "playing") || !strings.Contains(out, "1 move\n") {
		t.Errorf("replay of an abandoned daily:\n%s", out)
	}
}

// TestDealNumbersAsStrings: daily deal numbers are above 2^53, so JSON
// carries deal numbers as strings that jq and JavaScript read exactly.
func TestDealNumbersAsStrings(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	day := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ann := sshtest.NewKey(t)
	p, _, _ := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(ann.PublicKey()), "ann")
	n := engine.DailyNumber(nil, day)
	if n <= 1<<53 {
		t.Fatalf("daily deal %d is not above 2^53: pick another day", n)
	}
	g := plainGames(f.st, "ann")
	id, err := g.Save(ctx, p.ID, tui.SavedGame{Record: engine.Record{Rules: "daily", Deal: n, Moves: []string{"d"}}, Status: tui.StatusAbandoned, Daily: "2026-12-01"})
	if err != nil {
		t.Fatal(err)
	}
	want := `"deal": "` + uitoa(n) + `"`
	for _, args := range [][]string{{"games", "--json"}, {"replay", id, "--json"}} {
		_, out, _ := f.run(session(ann, "ann", args...))
		if !strings.Contains(out, want) {
			t.Errorf("%v: no %s in\n%s", args, want, out)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func uitoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestLinkOwnCode: a link code tried by the key that made it links
// nothing and still works for another key.
func TestLinkOwnCode(t *testing.T) {
	f := newFixture(t)
	alice, laptop := sshtest.NewKey(t), sshtest.NewKey(t)
	_, out, _ := f.run(session(alice, "alice", "link"))
	code := strings.TrimSuffix(strings.Fields(out)[2], ",")
	exit, out, errOut := f.run(session(alice, "alice", "link", code))
	if exit != 1 || out != "" || !strings.Contains(errOut, "this key plays as alice already") {
		t.Fatalf("own code: exit %d, %q %q", exit, out, errOut)
	}
	if exit, out, errOut := f.run(session(laptop, "laptop", "link", code)); exit != 0 || !strings.Contains(out, "now plays as alice") {
		t.Fatalf("the code after the own key's try: exit %d, %q %q", exit, out, errOut)
	}
}

// TestUnlink: whoami lists the keys; unlink removes another key, never
// the session's own, and says why not.
func TestUnlink(t *testing.T) {
	f := newFixture(t)
	alice, laptop := sshtest.NewKey(t), sshtest.NewKey(t)
	_, out, _ := f.run(session(alice, "alice", "link"))
	code := strings.TrimSuffix(strings.Fields(out)[2], ",")
	if exit, _, errOut := f.run(session(laptop, "laptop", "link", code)); exit != 0 {
		t.Fatal(errOut)
	}
	aliceFP, laptopFP := gossh.FingerprintSHA256(alice.PublicKey()), gossh.FingerprintSHA256(laptop.PublicKey())
	_, out, _ = f.run(session(alice, "alice", "whoami"))
	if !strings.Contains(out, aliceFP) || !strings.Contains(out, laptopFP) || !strings.Contains(out, "· this session") {
		t.Fatalf("whoami does not list both keys:\n%s", out)
	}
	for _, tt := range []struct {
		arg, want string
		code      int
	}{
		{aliceFP, "the key of this session", 1},
		{"SHA256:nope", "not one of your keys", 1},
		{strings.TrimPrefix(laptopFP, "SHA256:"), "unlinked " + laptopFP, 0},
		{laptopFP, "not one of your keys", 1},
	} {
		exit, out, errOut := f.run(session(alice, "alice", "unlink", tt.arg))
		if exit != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("unlink %s: exit %d, %q %q; want %d, %q", tt.arg, exit, out, errOut, tt.code, tt.want)
		}
	}
	// The unlinked key is somebody new.
	_, out, _ = f.run(session(laptop, "laptop", "whoami"))
	if strings.Contains(out, "name  alice") {
		t.Errorf("the unlinked key still plays as alice:\n%s", out)
	}
}

// TestTextPolish: the daily board's title says "daily" once, a future
// date has not come yet, and times read like the table's clock.
func TestTextPolish(t *testing.T) {
	f := newFixture(t)
	f.app.cfg.Now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	alice := sshtest.NewKey(t)
	_, out, _ := f.run(session(alice, "alice", "top", "daily"))
	if strings.Contains(strings.ToLower(out), "daily daily") || !strings.Contains(out, "2026-12-01") {
		t.Errorf("top daily:\n%s", out)
	}
	_, out, _ = f.run(session(alice, "alice", "top", "daily", "--date", "2099-01-01"))
	if !strings.Contains(out, "has not come yet") {
		t.Errorf("top daily in the future:\n%s", out)
	}
	for d, want := range map[time.Duration]string{0: "-", 16 * time.Second: "0:16", 75 * time.Second: "1:15", 3723 * time.Second: "1:02:03"} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestIsCommand: the command words are commands with a terminal too;
// rule sets are deep links.
func TestIsCommand(t *testing.T) {
	f := newFixture(t)
	for _, w := range []string{"help", "stats", "games", "top", "replay", "whoami", "name", "link", "unlink", "version"} {
		if !f.app.IsCommand([]string{w}) {
			t.Errorf("%q is not a command", w)
		}
	}
	for _, args := range [][]string{nil, {"classic"}, {"daily"}, {"classic,passes=2", "42"}} {
		if f.app.IsCommand(args) {
			t.Errorf("%q is a command", args)
		}
	}
}

// TestLookalikeNames: a name that looks like another player's is refused,
// in words that say so (playtest E4).
func TestLookalikeNames(t *testing.T) {
	f := newFixture(t)
	f.run(session(sshtest.NewKey(t), "redevil", "whoami"))
	f.run(session(sshtest.NewKey(t), "Ünïcødé", "whoami"))
	mallory := sshtest.NewKey(t)
	for _, name := range []string{"r\u0435devil", "Ünı\u0308cødé", "REDEVIL"} {
		code, out, errOut := f.run(session(mallory, "mallory", "name", name))
		if code != 1 || out != "" || !strings.Contains(errOut, "taken") {
			t.Errorf("name %q: exit %d, %q %q; want it refused as taken", name, code, out, errOut)
		}
	}
	_, _, errOut := f.run(session(mallory, "mallory", "name", "r\u0435devil"))
	if !strings.Contains(errOut, "looks too much like") {
		t.Errorf("look-alike refusal: %q", errOut)
	}
	// The SSH user name of a new key is not given when it looks alike.
	_, out, _ := f.run(session(sshtest.NewKey(t), "r\u0435devil", "whoami"))
	if strings.Contains(out, "r\u0435devil") {
		t.Errorf("a new key got a look-alike name:\n%s", out)
	}
}

// TestCommandOnATerminal: with a terminal (ssh -t HOST help) a command's
// lines end in CR LF, for the client's raw terminal.
func TestCommandOnATerminal(t *testing.T) {
	f := newFixture(t)
	s := session(sshtest.NewKey(t), "alice", "help")
	s.PTY = true
	code, out, _ := f.run(s)
	if code != 0 || !strings.Contains(out, "\r\n") || strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
		t.Errorf("help on a terminal: exit %d, %q", code, out)
	}
}

// TestCustomRulesName: a custom rule set is named in stats and top as the
// tui names it, by its nearest preset and the knobs apart from it, with
// the short spec that plays it, not the canonical ID of every knob.
func TestCustomRulesName(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	p, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	custom := engine.MustRules("classic,cover=overlap")
	rec := engine.Record{Rules: custom.ID(), Deal: 42, Moves: []string{"d"}}
	if _, err := plainGames(f.st, "s").Save(ctx, p.ID, tui.SavedGame{Record: rec, Status: tui.StatusAbandoned, Played: time.Minute}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := f.run(session(key, "ann", "stats"))
	if code != 0 || !strings.Contains(out, "\nclassic,cover=overlap ") || strings.Contains(out, "decks=") {
		t.Errorf("stats: exit %d %q\n%s", code, errOut, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 80 {
			t.Errorf("stats line of %d columns: %q", len(line), line)
		}
	}
	code, out, errOut = f.run(session(key, "ann", "top", "classic,cover=overlap"))
	if want := "Classic, cover=overlap (classic,cover=overlap): most wins"; code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("top: exit %d %q\n%s\nwant it to start %q", code, errOut, out, want)
	}
}
