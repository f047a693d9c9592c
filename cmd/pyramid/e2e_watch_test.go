package main

// End-to-end tests of spectating and presence over real SSH, as in
// e2e_test.go: a player watched from a deep link and from the Lobby
// screen, the setting that refuses spectators, and a spectator that never
// reads.

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// menuSelect moves the menu's cursor down to the item label.
func menuSelect(t *testing.T, term *sshtest.Term, label string) {
	t.Helper()
	for range 40 {
		screen := term.Screen()
		cur := lineWith(screen, "> ")
		if strings.Contains(cur, label) {
			return
		}
		typeKeys(t, term, "j")
		term.WaitScreen(t, wait, "the menu's cursor to move", func(s string) bool { return lineWith(s, "> ") != cur })
	}
	t.Fatalf("no menu item %q:\n%s", label, term.Screen())
}

// firstRemoval is the first pair or King that g can remove now, in
// notation; empty when there is none.
func firstRemoval(g *engine.Game) string {
	for _, m := range g.Legal() {
		if m.Kind == engine.RemovePair || m.Kind == engine.RemoveKing {
			return m.String()
		}
	}
	return ""
}

// TestE2EWatch: bob watches ann with `watch ann`, a guest from the Lobby
// screen; both screens follow ann's moves, ann's header says how many
// watch, and who --json says who plays and who watches whom.
func TestE2EWatch(t *testing.T) {
	ts := startServer(t, "")
	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := ts.openAs(t, "ann", annKey, "classic 42")
	g := newGame(t, "classic", 42)
	waitPosition(t, ann, g)

	bob := ts.openAs(t, "bob", bobKey, "watch ann")
	screen := waitPosition(t, bob, g)
	if first := strings.SplitN(screen, "\n", 2)[0]; !strings.Contains(first, "ann · Classic · deal 42") {
		t.Fatalf("bob's header: %q, want ann's game", first)
	}
	ann.WaitFor(t, "1 watching", wait)

	guest := ts.openAs(t, "guest", nil, "")
	guest.WaitScreen(t, wait, "the guest's menu", isMenu)
	menuSelect(t, guest, "Lobby")
	typeKeys(t, guest, sshtest.KeyEnter)
	lobby := guest.WaitScreen(t, wait, "the Lobby listing ann playing and bob watching", func(s string) bool {
		return strings.Contains(lineWith(s, "ann"), "playing Classic · deal 42 · 0/28 removed") &&
			strings.Contains(lineWith(s, "bob"), "watching ann")
	})
	if !strings.Contains(lineWith(lobby, "> "), "ann") {
		t.Fatalf("the Lobby's cursor is not on ann:\n%s", lobby)
	}
	typeKeys(t, guest, "w")
	waitPosition(t, guest, g)
	ann.WaitFor(t, "2 watching", wait)

	// ann plays: a draw, then a removal; both spectators follow.
	typeKeys(t, ann, "d")
	play(t, g, "d")
	waitPosition(t, ann, g)
	mv := firstRemoval(g)
	if mv == "" {
		t.Fatal("deal 42 has no removal after one draw: pick another deal for this test")
	}
	typeKeys(t, ann, ":"+mv+sshtest.KeyEnter)
	play(t, g, mv)
	waitPosition(t, ann, g)
	for _, s := range []*sshtest.Term{bob, guest} {
		screen := waitPosition(t, s, g)
		if board(screen) != board(ann.Screen()) {
			t.Fatalf("a spectator's board differs from ann's:\n%s\nann:\n%s", screen, ann.Screen())
		}
	}
	// Keys do nothing to the watched game.
	typeKeys(t, bob, "d")
	typeKeys(t, ann, "d")
	play(t, g, "d")
	waitPosition(t, ann, g)
	waitPosition(t, bob, g)

	who := waitWho(t, ts.user(annKey), "ann playing, bob and a guest watching ann", func(w map[string]whoJSON) bool {
		a, b, gu := w["ann"], w["bob"], guestOf(w)
		return a.Doing == "playing" && a.Removed != nil && *a.Removed == g.Removed() &&
			b.Doing == "watching" && b.Watching == "ann" && gu.Doing == "watching" && gu.Watching == "ann"
	})
	if len(who) != 3 {
		t.Fatalf("who --json: %+v", who)
	}

	// bob stops watching: back to his menu, and ann sees one spectator.
	typeKeys(t, bob, "q")
	bob.WaitScreen(t, wait, "bob's menu", isMenu)
	ann.WaitFor(t, "1 watching", wait)
	waitWho(t, ts.user(bobKey), "bob at the menu", func(w map[string]whoJSON) bool { return w["bob"].Doing == "menu" })

	// ann leaves: the guest is told.
	typeKeys(t, ann, "qqy")
	if st := ann.ExitStatus(wait); st != 0 {
		t.Fatalf("ann quit: exit status %d", st)
	}
	guest.WaitFor(t, "ann left", wait)
}

// TestE2EWatchRefused: turning "Others may watch me" off ends the
// spectators watching, and refuses new ones with a clear message; the
// setting is kept for the player's next session.
func TestE2EWatchRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
		ann := ts.openAs(t, "ann", annKey, "")
		ann.WaitScreen(t, wait, "ann's menu", isMenu)
		early := ts.openAs(t, "bob", bobKey, "watch ann")
		early.WaitFor(t, "ann is not at a game right now", wait)
		menuSelect(t, ann, "Others may watch me")
		if !strings.Contains(lineWith(ann.Screen(), "Others may watch me"), "[x] on") {
			t.Fatalf("the setting is not on by default:\n%s", ann.Screen())
		}
		typeKeys(t, ann, sshtest.KeyEnter)
		ann.WaitScreen(t, wait, "the setting off", func(s string) bool {
			return strings.Contains(lineWith(s, "Others may watch me"), "[ ] off")
		})

		early.WaitFor(t, "ann no longer lets others watch", wait)
		waitWho(t, ts.user(bobKey), "bob no longer watching", func(w map[string]whoJSON) bool { return w["bob"].Doing == "menu" })
		bob := ts.openAs(t, "bob", bobKey, "watch ann")
		bob.WaitScreen(t, wait, "bob refused", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "ann does not let others watch their games")
		})
		typeKeys(t, ann, "qy")
		if st := ann.ExitStatus(wait); st != 0 {
			t.Fatalf("ann quit: exit status %d", st)
		}

		// A new session of ann's starts with the setting off.
		ann2 := ts.openAs(t, "ann", annKey, "classic 7")
		waitPosition(t, ann2, newGame(t, "classic", 7))
		guest := ts.openAs(t, "guest", nil, "watch ann")
		guest.WaitScreen(t, wait, "the guest refused", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "ann does not let others watch their games")
		})
		nobody := ts.openAs(t, "guest", nil, "watch nobody")
		nobody.WaitFor(t, "nobody called nobody is online", wait)
	})
}

// TestE2EWatchStuckSpectator: a spectator whose client never reads does
// not slow the player: every move of a long run shows at once on the
// player's screen and on a reading spectator's.
func TestE2EWatchStuckSpectator(t *testing.T) {
	ts := startServer(t, "")
	annKey := sshtest.NewKey(t)
	ann := ts.openAs(t, "ann", annKey, "classic 42")
	g := newGame(t, "classic", 42)
	waitPosition(t, ann, g)

	// The stuck spectator: a PTY session whose output nobody reads, at a
	// large size so that each frame is large.
	c, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig("stuck", sshtest.NewKey(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 100, 300, gossh.TerminalModes{gossh.ECHO: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.StdoutPipe(); err != nil { // never read
		t.Fatal(err)
	}
	if err := sess.Start("watch ann"); err != nil {
		t.Fatal(err)
	}
	ann.WaitFor(t, "1 watching", wait)
	watcher := ts.openAs(t, "bob", sshtest.NewKey(t), "watch ann")
	waitPosition(t, watcher, g)
	ann.WaitFor(t, "2 watching", wait)

	// Draw through the stock, pass after pass, one key at a time.
	start := time.Now()
	var slowest time.Duration
	for g.Status() == engine.Playing && g.MovesMade() < 80 {
		k, n := "d", "d"
		if g.StockCount() == 0 {
			n = "r"
		}
		if err := g.ApplyNotation(n); err != nil {
			break
		}
		t0 := time.Now()
		typeKeys(t, ann, k)
		waitPosition(t, ann, g)
		slowest = max(slowest, time.Since(t0))
	}
	waitPosition(t, watcher, g)
	t.Logf("%d moves in %s with a stuck spectator; slowest move to screen %s", g.MovesMade(), time.Since(start), slowest)
	if slowest > 2*time.Second {
		t.Fatalf("a move took %s to show on the player's screen", slowest)
	}
}

// TestE2ELiveDailyBoard: the daily board says how many play the daily
// now, and shows a result the moment it is recorded, without a reload.
func TestE2ELiveDailyBoard(t *testing.T) {
	ts := startServer(t, "")
	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	bob := ts.openAs(t, "bob", bobKey, "")
	bob.WaitScreen(t, wait, "bob's menu", isMenu)
	menuSelect(t, bob, "Daily board")
	typeKeys(t, bob, sshtest.KeyEnter)
	bob.WaitFor(t, "0 players are playing today's deal now", wait)

	ann := ts.openAs(t, "ann", annKey, "daily")
	ann.WaitScreen(t, wait, "ann's daily game", func(s string) bool { _, ok := readHeader(s); return ok })
	bob.WaitFor(t, "1 player is playing today's deal now", wait)
	typeKeys(t, ann, "d")
	ann.WaitFor(t, "1 move", wait)
	// A new deal abandons the day's first attempt: that is ann's result.
	typeKeys(t, ann, "n")
	ann.WaitFor(t, "This will be your result on today's board", wait)
	typeKeys(t, ann, "y")
	bob.WaitScreen(t, wait, "ann on the board", func(s string) bool {
		return strings.Contains(lineWith(s, "ann"), "0/28")
	})
}
