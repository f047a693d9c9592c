package main

// Spectating across instances, end to end: a player on one instance is
// watched from another, move by move; her header counts the spectators of
// both; "Others may watch me" off ends the watch and refuses a new one
// with the message of one instance; the spectators of an instance killed
// with SIGKILL stop counting within the presence TTL.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pyramid/server/sshtest"
	"pyramid/store/storetest"
)

// TestE2EClusterWatch: instance one (in-process) serves the players,
// instance two (the binary, so that it can die without a word) the
// spectators.
func TestE2EClusterWatch(t *testing.T) {
	dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
	bin := buildPyramid(t)
	ttl := []string{"--presence-ttl", clusterTTL.String()}
	one := startServer(t, dbURL, ttl...)
	c2 := startClusterChild(t, bin, dbURL, ttl...)
	two := &testServer{addr: c2.addr, dbURL: dbURL, logs: c2.stderr}

	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := one.openAs(t, "ann", annKey, "classic 42")
	g := newGame(t, "classic", 42)
	waitPosition(t, ann, g)
	waitWho(t, two.user(annKey), "ann playing, on instance two", func(w map[string]whoJSON) bool {
		return w["ann"].Doing == "playing"
	})

	// bob, on instance two, watches ann on instance one.
	bob := two.openAs(t, "bob", bobKey, "watch ann")
	screen := waitPosition(t, bob, g)
	if first := strings.SplitN(screen, "\n", 2)[0]; !strings.Contains(first, "ann · Classic · deal 42") {
		t.Fatalf("bob's header: %q, want ann's game", first)
	}
	ann.WaitFor(t, "1 watching", wait)

	// Each of ann's moves shows on bob's screen: moves at a player's
	// pace (further apart than the 100 ms over which the boards of a game
	// are coalesced) at once, the last of a burst within those 100 ms.
	var took []time.Duration
	for range 8 {
		time.Sleep(200 * time.Millisecond) // a player's pace, not a wait for anything
		start := time.Now()
		typeKeys(t, ann, "d")
		play(t, g, "d")
		waitPosition(t, bob, g)
		took = append(took, time.Since(start))
	}
	start := time.Now()
	typeKeys(t, ann, "ddd")
	play(t, g, "d", "d", "d")
	waitPosition(t, bob, g)
	burst := time.Since(start)
	slices.Sort(took)
	t.Logf("a move on instance one on the spectator's screen on instance two: median %s, worst %s of %d; the last of 3 keys at once %s (10 ms polls)",
		took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), len(took), burst.Round(time.Millisecond))
	mv := firstRemoval(g)
	if mv == "" {
		t.Fatal("deal 42 has no removal after eleven draws: pick another deal for this test")
	}
	typeKeys(t, ann, ":"+mv+sshtest.KeyEnter)
	play(t, g, mv)
	waitPosition(t, ann, g)
	if screen := waitPosition(t, bob, g); board(screen) != board(ann.Screen()) {
		t.Fatalf("bob's board differs from ann's:\n%s\nann:\n%s", screen, ann.Screen())
	}

	// A guest on instance two watches too, from the Lobby screen: ann
	// counts both.
	guest := two.openAs(t, "guest", nil, "")
	guest.WaitScreen(t, wait, "the guest's menu", isMenu)
	menuSelect(t, guest, "Lobby")
	typeKeys(t, guest, sshtest.KeyEnter)
	list := guest.WaitScreen(t, wait, "the Lobby listing ann playing and bob watching", func(s string) bool {
		return strings.Contains(lineWith(s, "ann"), "playing Classic · deal 42") && strings.Contains(lineWith(s, "bob"), "watching ann")
	})
	if !strings.Contains(lineWith(list, "> "), "ann") {
		t.Fatalf("the Lobby's cursor is not on ann:\n%s", list)
	}
	typeKeys(t, guest, "w")
	waitPosition(t, guest, g)
	ann.WaitFor(t, "2 watching", wait)

	// ann turns "Others may watch me" off: both are told, and a new
	// spectator on instance two is refused as on ann's own.
	typeKeys(t, ann, "q")
	ann.WaitScreen(t, wait, "ann's menu", isMenu)
	menuSelect(t, ann, "Others may watch me")
	typeKeys(t, ann, sshtest.KeyEnter)
	ann.WaitScreen(t, wait, "the setting off", func(s string) bool {
		return strings.Contains(lineWith(s, "Others may watch me"), "[ ] off")
	})
	bob.WaitFor(t, "ann no longer lets others watch", wait)
	guest.WaitFor(t, "ann no longer lets others watch", wait)
	late := two.openAs(t, "guest", nil, "watch ann")
	late.WaitScreen(t, wait, "the late spectator refused", func(s string) bool {
		return isMenu(s) && strings.Contains(s, "ann does not let others watch their games")
	})

	// cat plays on instance one, dan watches from instance two; instance
	// two dies: cat's spectator stops counting within the TTL.
	catKey := sshtest.NewKey(t)
	cat := one.openAs(t, "cat", catKey, "classic 7")
	waitPosition(t, cat, newGame(t, "classic", 7))
	waitWho(t, two.user(catKey), "cat playing, on instance two", func(w map[string]whoJSON) bool {
		return w["cat"].Doing == "playing"
	})
	dan := two.openAs(t, "dan", sshtest.NewKey(t), "watch cat")
	dan.WaitFor(t, "cat · Classic · deal 7", wait)
	cat.WaitFor(t, "1 watching", wait)
	c2.kill(t)
	killed := time.Now()
	cat.WaitScreen(t, clusterTTL+wait, "cat's spectator gone", func(s string) bool { return !strings.Contains(s, "watching") })
	gone := time.Since(killed)
	t.Logf("the spectator of a killed instance stopped counting %s after SIGKILL (TTL %s)", gone.Round(time.Millisecond), clusterTTL)
	if gone > clusterTTL+2*time.Second {
		t.Fatalf("cat's spectator counted %s after its instance died, want within the TTL %s", gone, clusterTTL)
	}
}
