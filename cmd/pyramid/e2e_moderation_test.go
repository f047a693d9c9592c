package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/storetest"
)

// moderationServers runs fn with the servers an admin and a player use:
// one server on SQLite (both the same), and two instances on one
// PostgreSQL (the admin on one, the player's sessions on the other).
func moderationServers(t *testing.T, extra []string, fn func(t *testing.T, admin, player *testServer)) {
	t.Run("one server", func(t *testing.T) {
		ts := startServer(t, "", extra...)
		fn(t, ts, ts)
	})
	t.Run("two instances", func(t *testing.T) {
		dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
		args := append([]string{"--presence-ttl", clusterTTL.String()}, extra...)
		fn(t, startServer(t, dbURL, args...), startServer(t, dbURL, args...))
	})
}

// ended waits for a session to end showing want (in words, which may
// wrap over lines).
func ended(t *testing.T, term *sshtest.Term, what, want string) {
	t.Helper()
	term.WaitScreen(t, wait, what+" showing "+want, func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), want)
	})
	if term.ExitStatus(wait) == -2 {
		t.Fatalf("%s: the session did not end:\n%s", what, term.Screen())
	}
}

// TestE2EModeration: an admin's rename, ban and kick act at once on the
// player's open session, wherever it is connected: the rename shows in
// it and in who, the ban ends it saying why and until when, takes it out
// of who and refuses the next connection with the reason; a kick ends it
// without a ban.
func TestE2EModeration(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	admins := []string{"--admins", gossh.FingerprintSHA256(adminKey.PublicKey())}
	moderationServers(t, admins, func(t *testing.T, one, two *testServer) {
		catKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
		admin := one.user(adminKey)
		runOK(t, two.user(catKey), "name cat")
		cat := two.openAs(t, "cat", catKey, "")
		cat.WaitScreen(t, wait, "cat's menu", isMenu)
		waitWho(t, one.user(bobKey), "cat at the menu", func(w map[string]whoJSON) bool { return w["cat"].Doing == "menu" })

		// A rename reaches the open session and who, on every instance.
		runOK(t, admin, "rename cat kitty")
		cat.WaitScreen(t, wait, "cat's menu as kitty", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "your name is kitty now (an admin renamed you)")
		})
		for _, ts := range []*testServer{one, two} {
			waitWho(t, ts.user(bobKey), "kitty, no cat", func(w map[string]whoJSON) bool {
				_, old := w["cat"]
				return !old && w["kitty"].Doing == "menu"
			})
		}

		// A timed ban ends the open session, saying why and until when.
		out := runOK(t, admin, "ban kitty 1h cheating at cards")
		if !strings.Contains(out, "kitty is banned until") || !strings.Contains(out, "cheating at cards") {
			t.Errorf("ban said %q", out)
		}
		ended(t, cat, "the banned session", "banned from this server until")
		ended(t, cat, "the banned session", "cheating at cards")
		for _, ts := range []*testServer{one, two} {
			waitWho(t, ts.user(bobKey), "kitty gone", func(w map[string]whoJSON) bool { _, in := w["kitty"]; return !in })
		}
		// New connections are refused, with the reason and the end.
		_, errOut, status := two.user(catKey).exec(t, "whoami")
		if status != 1 || !strings.Contains(errOut, "banned from this server until") || !strings.Contains(errOut, "cheating at cards") {
			t.Errorf("a banned player's command: exit %d, %q", status, errOut)
		}
		again := two.openAs(t, "cat", catKey, "")
		ended(t, again, "a banned player's new session", "banned from this server until")
		ended(t, again, "a banned player's new session", "cheating at cards")

		if _, errOut, status := admin.exec(t, "ban kitty 0s"); status != 1 || !strings.Contains(errOut, "more than 0") {
			t.Errorf("ban for 0s: exit %d, %q", status, errOut)
		}
		runOK(t, admin, "unban kitty")
		if _, errOut, status := admin.exec(t, "unban kitty"); status != 1 || !strings.Contains(errOut, "not banned") {
			t.Errorf("unban twice: exit %d, %q", status, errOut)
		}

		// A kick ends the session without a ban.
		cat = two.openAs(t, "cat", catKey, "")
		cat.WaitScreen(t, wait, "kitty's menu", isMenu)
		waitWho(t, one.user(bobKey), "kitty back", func(w map[string]whoJSON) bool { return w["kitty"].Doing == "menu" })
		out = runOK(t, admin, "kick kitty take a break")
		if !strings.Contains(out, "kitty's open sessions end now") {
			t.Errorf("kick said %q", out)
		}
		ended(t, cat, "the kicked session", "take a break")
		runOK(t, two.user(catKey), "whoami")
		waitWho(t, one.user(bobKey), "kitty gone", func(w map[string]whoJSON) bool { _, in := w["kitty"]; return !in })
		if out := runOK(t, admin, "kick kitty"); !strings.Contains(out, "kitty is not online") {
			t.Errorf("a kick of a player not online said %q", out)
		}

		if _, errOut, status := two.user(catKey).exec(t, "kick kitty"); status != 1 || !strings.Contains(errOut, "admins") {
			t.Errorf("kick by a player: exit %d, %q", status, errOut)
		}

		// The audit log has every action, with who, whom and why; the
		// player reads the entries about them, and nobody else's.
		runOK(t, one.user(bobKey), "name bob")
		var log []auditJSON
		runJSON(t, admin, "audit --json", &log)
		// bob's key was new while "player", the name cat gave up, was
		// held: bob was given a name of "player-" and hex digits.
		got := fallbackNameRE.ReplaceAllString(auditLines(log), "player-…")
		want := "name bob player-… → bob|kick kitty|kick kitty take a break|unban kitty|ban kitty cheating at cards|rename kitty cat → kitty|name kitty player → cat"
		if got != want {
			t.Errorf("the admin's audit log:\n%s\nwant\n%s", got, want)
		}
		for _, e := range log {
			if e.Action == "ban" && (e.By == "" || !strings.HasPrefix(e.Subject, "until ")) {
				t.Errorf("the ban's entry: %+v", e)
			}
		}
		var kittys []auditJSON
		runJSON(t, two.user(catKey), "audit --json", &kittys)
		if got := auditLines(kittys); got != strings.TrimPrefix(want, "name bob player-… → bob|") {
			t.Errorf("kitty's audit log:\n%s", got)
		}
		if _, errOut, status := two.user(catKey).exec(t, "audit bob"); status != 1 || !strings.Contains(errOut, "only the entries about you") {
			t.Errorf("a player's audit of another: exit %d, %q", status, errOut)
		}
		if out := runOK(t, admin, "audit kitty"); !strings.Contains(out, "cheating at cards") || strings.Contains(out, "bob") {
			t.Errorf("the admin's audit kitty:\n%s", out)
		}
	})
}

// auditJSON is one entry of audit --json.
type auditJSON struct {
	By      string `json:"by"`
	Action  string `json:"action"`
	Player  string `json:"player"`
	Subject string `json:"subject"`
	Reason  string `json:"reason"`
}

// fallbackNameRE finds the name a new key is given when the name it
// asks for is taken or held.
var fallbackNameRE = regexp.MustCompile(`player-[0-9a-f]+`)

// auditLines sums an audit log up as action, player, subject (but a
// ban's end) and reason, newest first.
func auditLines(log []auditJSON) string {
	var lines []string
	for _, e := range log {
		subject := e.Subject
		if e.Action == "ban" {
			subject = ""
		}
		lines = append(lines, strings.Join(strings.Fields(e.Action+" "+e.Player+" "+subject+" "+e.Reason), " "))
	}
	return strings.Join(lines, "|")
}

// TestE2EUnlinkEndsSessions: a key unlinked from the account in one
// session ends that key's open sessions at once, wherever they are, and
// the account's other sessions are told.
func TestE2EUnlinkEndsSessions(t *testing.T) {
	moderationServers(t, nil, func(t *testing.T, one, two *testServer) {
		annKey, laptopKey := sshtest.NewKey(t), sshtest.NewKey(t)
		ann := one.user(annKey)
		runOK(t, ann, "name ann")
		code := strings.TrimSuffix(strings.Fields(runOK(t, ann, "link"))[2], ",")
		runOK(t, two.user(laptopKey), "link "+code)

		laptop := two.openAs(t, "ann", laptopKey, "")
		laptop.WaitScreen(t, wait, "the laptop's menu", isMenu)
		annTerm := one.openAs(t, "ann", annKey, "")
		annTerm.WaitScreen(t, wait, "ann's menu", isMenu)

		// The key linked first is unlinked from the newer one only with
		// --yes: without it, nothing changes.
		annFP, laptopFP := gossh.FingerprintSHA256(annKey.PublicKey()), gossh.FingerprintSHA256(laptopKey.PublicKey())
		out, errOut, status := two.user(laptopKey).exec(t, "unlink "+annFP)
		if status != 1 || out != "" || !strings.Contains(errOut, annFP+" was linked before the key you are using") ||
			!strings.Contains(errOut, "unlink "+annFP+" --yes") {
			t.Errorf("unlink of the older key without --yes: exit %d, %q %q", status, out, errOut)
		}
		if out := runOK(t, ann, "whoami"); !strings.Contains(out, laptopFP) || !strings.Contains(out, annFP) {
			t.Errorf("a refused unlink changed the keys:\n%s", out)
		}

		runOK(t, ann, "unlink "+laptopFP)
		ended(t, laptop, "the unlinked key's session", "was unlinked")
		var log []auditJSON
		runJSON(t, ann, "audit --json", &log)
		if got, want := auditLines(log), "unlink ann "+laptopFP+"|link ann "+gossh.FingerprintSHA256(laptopKey.PublicKey())+"|name ann player → ann"; got != want {
			t.Errorf("ann's audit log:\n%s\nwant\n%s", got, want)
		}
		annTerm.WaitFor(t, "was unlinked: its sessions are closed", wait)
		if out := runOK(t, two.user(laptopKey), "whoami"); strings.Contains(out, "ann") {
			t.Errorf("the unlinked key still plays as ann:\n%s", out)
		}

		// Linked again, the laptop removes the first key with --yes: its
		// open session ends.
		code = strings.TrimSuffix(strings.Fields(runOK(t, ann, "link"))[2], ",")
		runOK(t, two.user(laptopKey), "link "+code)
		if out := runOK(t, two.user(laptopKey), "unlink "+annFP+" --yes"); !strings.Contains(out, "unlinked "+annFP) {
			t.Errorf("unlink --yes: %q", out)
		}
		ended(t, annTerm, "the first key's session", "was unlinked")
	})
}

// TestE2ERenameReachesSessions: a name changed from another session, on
// another instance, shows at once in the open session, in who on every
// instance and in the room that session opens next; the old name is
// held a few seconds (store.NameHold), then free for another player.
func TestE2ERenameReachesSessions(t *testing.T) {
	moderationServers(t, nil, func(t *testing.T, one, two *testServer) {
		danKey, fayKey := sshtest.NewKey(t), sshtest.NewKey(t)
		runOK(t, two.user(danKey), "name dan")
		dan := two.openAs(t, "dan", danKey, "")
		dan.WaitScreen(t, wait, "dan's menu", isMenu)

		runOK(t, one.user(danKey), "name dån")
		dan.WaitScreen(t, wait, "dan's menu as dån", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "playing as dån") && strings.Contains(s, "your name is dån now")
		})
		for _, ts := range []*testServer{one, two} {
			waitWho(t, ts.user(fayKey), "dån, no dan", func(w map[string]whoJSON) bool {
				_, old := w["dan"]
				return !old && w["dån"].Doing == "menu"
			})
		}
		if _, errOut, status := one.user(fayKey).exec(t, "name dan"); status != 1 || !strings.Contains(errOut, "was just freed; try again in") {
			t.Errorf("fay takes dan at once: exit %d, %q; want the name held", status, errOut)
		}
		// fay tries again twice a second, as a person might.
		var last time.Time
		sshtest.Eventually(t, store.NameHold+wait, func() bool {
			if time.Since(last) < 500*time.Millisecond {
				return false
			}
			last = time.Now()
			_, _, status := one.user(fayKey).exec(t, "name dan")
			return status == 0
		}, "fay takes dan once its hold is over")

		menuTo(t, dan, "New race")
		typeKeys(t, dan, sshtest.KeyEnter)
		dan.WaitScreen(t, wait, "dån's room", func(s string) bool {
			return strings.Contains(s, "room ") && strings.Contains(s, "dån") && strings.Contains(s, "(you)")
		})
	})
}

// TestE2EKeyLabels: whoami shows each key's label, type, when it was
// added and last used; a player labels their own keys and no other's.
func TestE2EKeyLabels(t *testing.T) {
	ts := startServer(t, "")
	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := ts.user(annKey)
	annFP := gossh.FingerprintSHA256(annKey.PublicKey())
	runOK(t, ann, "name ann")
	if out := runOK(t, ann, "label "+annFP+" my laptop"); !strings.Contains(out, `is "my laptop" now`) {
		t.Errorf("label: %q", out)
	}
	out := runOK(t, ann, "whoami")
	if !strings.Contains(out, annFP+`  "my laptop" · ed25519 · added `) || !strings.Contains(out, "· last used ") || !strings.Contains(out, "UTC · this session") {
		t.Errorf("whoami:\n%s", out)
	}
	var who struct {
		KeyInfo []struct {
			Fingerprint, Type, Label string
			LastUsed                 *string `json:"last_used"`
		} `json:"key_info"`
	}
	runJSON(t, ann, "whoami --json", &who)
	if len(who.KeyInfo) != 1 || who.KeyInfo[0].Label != "my laptop" || who.KeyInfo[0].Type != "ssh-ed25519" || who.KeyInfo[0].LastUsed == nil {
		t.Errorf("whoami --json key_info: %+v", who.KeyInfo)
	}
	runOK(t, ts.user(bobKey), "whoami")
	if _, errOut, status := ts.user(bobKey).exec(t, "label "+annFP+" mine"); status != 1 || !strings.Contains(errOut, "not one of your keys") {
		t.Errorf("labelling another's key: exit %d, %q", status, errOut)
	}
	if _, errOut, status := ann.exec(t, "label "+annFP+" "+strings.Repeat("x", 30)); status != 1 || !strings.Contains(errOut, "at most 24 characters") {
		t.Errorf("a label too long: exit %d, %q", status, errOut)
	}
	if out := runOK(t, ann, "label "+annFP); !strings.Contains(out, "no label now") {
		t.Errorf("label without a name: %q", out)
	}
}

// TestE2EReports: a player reports another to the admins, five times a
// day at most; admins read the reports, players may not; the reported
// player's audit does not name the reporter.
func TestE2EReports(t *testing.T) {
	adminKey, annKey, catKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	ts := startServer(t, "", "--admins", gossh.FingerprintSHA256(adminKey.PublicKey()))
	ann, cat, admin := ts.user(annKey), ts.user(catKey), ts.user(adminKey)
	runOK(t, ann, "name ann")
	runOK(t, cat, "name cat")
	if out := runOK(t, ann, "report cat rude in chat"); !strings.Contains(out, "reported cat to the admins: rude in chat") {
		t.Errorf("report: %q", out)
	}
	for _, tt := range []struct{ cmd, want string }{
		{"report cat", "needs the player's name and why"},
		{"report ann me", "cannot report yourself"},
		{"report nobody spam", "not found"},
	} {
		if _, errOut, status := ann.exec(t, tt.cmd); status == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q; want %q", tt.cmd, status, errOut, tt.want)
		}
	}
	for i := range 4 {
		runOK(t, ann, "report cat again "+string(rune('a'+i)))
	}
	if _, errOut, status := ann.exec(t, "report cat once more"); status != 1 || !strings.Contains(errOut, "5 reports in the last 24 hours") {
		t.Errorf("a sixth report: exit %d, %q", status, errOut)
	}
	var reports []struct {
		By, Player, Reason string
	}
	runJSON(t, admin, "reports --json", &reports)
	if len(reports) != 5 || reports[4].By != "ann" || reports[4].Player != "cat" || reports[4].Reason != "rude in chat" {
		t.Errorf("reports: %+v", reports)
	}
	if out := runOK(t, admin, "reports"); !strings.Contains(out, "rude in chat") {
		t.Errorf("reports:\n%s", out)
	}
	if _, errOut, status := cat.exec(t, "reports"); status != 1 || !strings.Contains(errOut, "admins") {
		t.Errorf("reports by a player: exit %d, %q", status, errOut)
	}
	if out := runOK(t, cat, "audit"); strings.Contains(out, "ann") || strings.Contains(out, "rude") {
		t.Errorf("the reported player's audit names the report:\n%s", out)
	}
}
