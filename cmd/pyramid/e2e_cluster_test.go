package main

// Several servers on one PostgreSQL, end to end: one instance is the real
// binary (so that it can die by SIGKILL, without a word to the others),
// the other runs in-process; players on each meet in who, a takeover
// crosses from one to the other at once, and the players of the killed
// instance leave who on the survivor within its presence TTL.

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"pyramid/server/sshtest"
	"pyramid/store/storetest"
)

// clusterTTL is the instances' presence TTL in these tests (a heartbeat
// every third of it).
const clusterTTL = 3 * time.Second

// startClusterChild starts the binary as one instance of a cluster on
// dbURL, with the serve flags extra, as startChild does.
func startClusterChild(t *testing.T, bin, dbURL string, extra ...string) *child {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(),
		"--connect", "ssh -p PORT cluster.test", "--database-url", dbURL}, extra...)
	c := &child{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, done: make(chan struct{})}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYRAMID_") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	out := &addrWriter{addr: make(chan string, 1)}
	c.cmd.Stdout, c.cmd.Stderr = out, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.kill(t)
		if t.Failed() {
			t.Logf("instance one's log:\n%s", c.stderr)
		}
	})
	select {
	case c.addr = <-out.addr:
	case <-c.done:
		t.Fatalf("the server exited before listening: %v\n%s", c.cmd.ProcessState, c.stderr)
	case <-time.After(wait):
		t.Fatalf("the server did not listen within %s\n%s", wait, c.stderr)
	}
	return c
}

// TestE2ECluster: two instances on one PostgreSQL.
func TestE2ECluster(t *testing.T) {
	dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
	bin := buildPyramid(t)
	ttl := []string{"--presence-ttl", clusterTTL.String()}
	c1 := startClusterChild(t, bin, dbURL, ttl...)
	one := &testServer{addr: c1.addr, dbURL: dbURL, logs: c1.stderr}
	two := startServer(t, dbURL, ttl...)

	annKey, bobKey, catKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	ann := one.openAs(t, "ann", annKey, "classic 42")
	bob := two.openAs(t, "bob", bobKey, "classic 7")
	cat := one.openAs(t, "cat", catKey, "")
	ga, gb := newGame(t, "classic", 42), newGame(t, "classic", 7)
	waitPosition(t, ann, ga)
	waitPosition(t, bob, gb)
	cat.WaitScreen(t, wait, "cat's menu", isMenu)
	typeKeys(t, ann, ":7.2+7.3"+sshtest.KeyEnter)
	play(t, ga, "7.2+7.3")
	waitPosition(t, ann, ga)
	waitStored(t, one.user(annKey), "classic", 42, ga.Record().Moves)
	typeKeys(t, bob, "d") // a game is in the lobby from its first save
	play(t, gb, "d")
	waitPosition(t, bob, gb)

	// Each instance lists the players of both.
	for _, u := range []user{one.user(bobKey), two.user(annKey)} {
		who := waitWho(t, u, "ann playing 42 with 2 removed, bob playing 7, cat at the menu", func(w map[string]whoJSON) bool {
			a, b, c := w["ann"], w["bob"], w["cat"]
			return len(w) == 3 && a.Doing == "playing" && a.Deal == "42" && a.Removed != nil && *a.Removed == ga.Removed() &&
				b.Doing == "playing" && b.Deal == "7" && c.Doing == "menu"
		})
		if who["ann"].Rules != "classic" {
			t.Fatalf("ann: %+v", who["ann"])
		}
	}

	// A second session of ann's key, on the other instance, takes her
	// game over: the first is sent back to the menu at once, without a
	// key pressed on it.
	start := time.Now()
	ann2 := two.openAs(t, "ann", annKey, "classic 42")
	waitPosition(t, ann2, ga)
	ann.WaitScreen(t, wait, "ann's first session at the menu, told the game went on elsewhere", func(s string) bool {
		return isMenu(s) && strings.Contains(s, "your game continues in another session")
	})
	t.Logf("takeover across instances: the first session was at the menu %s after the second connected", time.Since(start).Round(time.Millisecond))
	typeKeys(t, ann2, "d")
	play(t, ga, "d")
	waitPosition(t, ann2, ga)
	waitStored(t, two.user(annKey), "classic", 42, ga.Record().Moves)

	// Instance one dies without a word: cat (only there) leaves who on
	// instance two within the TTL plus a heartbeat; ann stays, with her
	// session on two.
	c1.kill(t)
	killed := time.Now()
	waitWho(t, two.user(bobKey), "cat gone, ann and bob still there", func(w map[string]whoJSON) bool {
		_, catThere := w["cat"]
		return !catThere && len(w) == 2 && w["ann"].Doing == "playing" && w["bob"].Doing == "playing"
	})
	gone := time.Since(killed)
	t.Logf("the killed instance's player left who on the other %s after SIGKILL (TTL %s)", gone.Round(time.Millisecond), clusterTTL)
	if gone > clusterTTL+clusterTTL/3+2*time.Second {
		t.Fatalf("cat left who %s after his instance died, want within the TTL %s and a heartbeat", gone, clusterTTL)
	}
}
