package main

import (
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// TestE2EAccountCommands drives the account commands over SSH on both
// databases: look-alike names are refused (playtest E4), a code tried by
// the key that made it stays good (E1), whoami lists the keys and unlink
// removes one but never the session's own (E3), and help hides the admin
// commands (F3).
func TestE2EAccountCommands(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		aliceKey, bobKey, laptopKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
		alice, bob, laptop := ts.user(aliceKey), ts.user(bobKey), ts.user(laptopKey)
		runOK(t, alice, "name redevil")
		runOK(t, bob, "whoami")
		for _, name := range []string{"r\u0435devil", "REDEVIL", "redevi1"} {
			if out, errOut, status := bob.exec(t, "name "+name); status != 1 || out != "" || !strings.Contains(errOut, "taken") {
				t.Errorf("name %q: exit %d, %q %q; want it refused as taken", name, status, out, errOut)
			}
		}

		if out := runOK(t, alice, "help"); strings.Contains(out, "ban NAME") || !strings.Contains(out, "unlink") {
			t.Errorf("help for a player:\n%s", out)
		}

		fields := strings.Fields(runOK(t, alice, "link"))
		code := strings.TrimSuffix(fields[2], ",")
		if out, errOut, status := alice.exec(t, "link "+code); status != 1 || out != "" || !strings.Contains(errOut, "already") {
			t.Errorf("own code: exit %d, %q %q", status, out, errOut)
		}
		if out := runOK(t, laptop, "link "+code); !strings.Contains(out, "now plays as redevil") {
			t.Errorf("the code after its own key's try: %q", out)
		}
		laptopFP := gossh.FingerprintSHA256(laptopKey.PublicKey())
		aliceFP := gossh.FingerprintSHA256(aliceKey.PublicKey())
		if out := runOK(t, alice, "whoami"); !strings.Contains(out, laptopFP) || !strings.Contains(out, aliceFP) {
			t.Errorf("whoami does not list both keys:\n%s", out)
		}
		if _, errOut, status := laptop.exec(t, "unlink "+laptopFP); status != 1 || !strings.Contains(errOut, "key of this session") {
			t.Errorf("unlink own key: exit %d, %q", status, errOut)
		}
		if out := runOK(t, alice, "unlink "+laptopFP); !strings.Contains(out, "unlinked "+laptopFP) {
			t.Errorf("unlink: %q", out)
		}
		if out := runOK(t, laptop, "whoami"); strings.Contains(out, "redevil") {
			t.Errorf("the unlinked key still plays as redevil:\n%s", out)
		}
	})
}

// menuTo moves the menu's cursor down to the item labelled label.
func menuTo(t *testing.T, term *sshtest.Term, label string) {
	t.Helper()
	for range 40 {
		if strings.Contains(term.Screen(), "> "+label) {
			return
		}
		before := term.Screen()
		typeKeys(t, term, sshtest.KeyDown)
		sshtest.Poll(wait, func() bool { return term.Screen() != before })
	}
	t.Fatalf("no menu item %q:\n%s", label, term.Screen())
}

// TestE2ELinkScreenAndKeys: the link screen sees its code used by another
// key (playtest E2), and Your keys… lists that key and unlinks it (E3).
func TestE2ELinkScreenAndKeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		aliceKey, laptopKey := sshtest.NewKey(t), sshtest.NewKey(t)
		laptop := ts.user(laptopKey)
		runOK(t, ts.user(aliceKey), "name redevil")
		a := sshtest.OpenTerm(t, ts.dial(t, aliceKey), sshtest.TermOptions{})
		a.WaitScreen(t, wait, "the menu", isMenu)
		menuTo(t, a, "Link another key")
		typeKeys(t, a, sshtest.KeyEnter)
		var code string
		a.WaitScreen(t, wait, "a link code", func(s string) bool {
			for _, f := range strings.Fields(s) {
				if len(f) == 9 && f[4] == '-' {
					code = f
				}
			}
			return code != "" && strings.Contains(s, "minutes from now")
		})
		if out := runOK(t, laptop, "link "+code); !strings.Contains(out, "now plays as redevil") {
			t.Fatalf("link %s: %q", code, out)
		}
		laptopFP := gossh.FingerprintSHA256(laptopKey.PublicKey())
		a.WaitScreen(t, wait, "the code seen used", func(s string) bool {
			return strings.Contains(s, "Linked "+laptopFP[:7+16]) && strings.Contains(s, "was used")
		})
		typeKeys(t, a, "q")
		a.WaitScreen(t, wait, "the menu", isMenu)
		menuTo(t, a, "Your keys")
		typeKeys(t, a, sshtest.KeyEnter)
		a.WaitScreen(t, wait, "the keys", func(s string) bool {
			return strings.Contains(s, "this key") && strings.Contains(s, laptopFP[:7+16])
		})
		typeKeys(t, a, sshtest.KeyDown+"u")
		a.WaitScreen(t, wait, "the question", func(s string) bool { return strings.Contains(s, "unlink "+laptopFP[:7+16]) })
		typeKeys(t, a, "y")
		a.WaitScreen(t, wait, "the key unlinked", func(s string) bool { return strings.Contains(s, "that key no longer plays as you") })
		if out := runOK(t, laptop, "whoami"); strings.Contains(out, "redevil") {
			t.Errorf("the unlinked key still plays as redevil:\n%s", out)
		}

		// The name field says why a name cannot be one as it is typed,
		// in the server's words (E4).
		typeKeys(t, a, "q")
		a.WaitScreen(t, wait, "the menu", isMenu)
		menuTo(t, a, "Change name")
		typeKeys(t, a, sshtest.KeyEnter+"\x15"+strings.Repeat("x", 20))
		a.WaitScreen(t, wait, "the width refused", func(s string) bool {
			return strings.Contains(s, "at most 16 characters wide; this one is 20")
		})
	})
}

// TestE2EAssistedWinSaysSo: a hint makes the game assisted; its win says
// so on the win screen, as the server recorded it, and sets no record
// (found in a play-test). The deal is one the player chose, which the
// screen says too: without a hint, it is still practice for records.
func TestE2EAssistedWinSaysSo(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		deal, moves := hintGame(t, "classic", engine.Won)
		g := newGame(t, "classic", deal)
		term := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic " + strconv.FormatUint(deal, 10)})
		waitPosition(t, term, g)
		typeKeys(t, term, "H")
		term.WaitFor(t, "hint:", wait)
		typeKeys(t, term, ":"+strings.Join(moves, " ")+sshtest.KeyEnter)
		term.WaitScreen(t, wait, "the win screen, assisted", func(s string) bool {
			return strings.Contains(s, "You cleared the pyramid!") && strings.Contains(s, "assisted: 1 hint, 0 undos") &&
				strings.Contains(s, "practice: chosen deal")
		})
		if strings.Contains(term.Screen(), "new record") {
			t.Errorf("an assisted win says new record:\n%s", term.Screen())
		}
		// The same deal again, unassisted: a chosen deal's win, no record.
		term2 := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic " + strconv.FormatUint(deal, 10)})
		waitPosition(t, term2, newGame(t, "classic", deal))
		typeKeys(t, term2, ":"+strings.Join(moves, " ")+sshtest.KeyEnter)
		s := term2.WaitScreen(t, wait, "the win screen, practice", func(s string) bool {
			return strings.Contains(s, "You cleared the pyramid!") && strings.Contains(s, "practice: chosen deal")
		})
		if strings.Contains(s, "new record") || strings.Contains(s, "assisted: 1 hint") {
			t.Errorf("an unassisted chosen deal's win says a record or a hint:\n%s", s)
		}
	})
}
