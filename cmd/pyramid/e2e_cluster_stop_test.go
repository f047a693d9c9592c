package main

import (
	"strings"
	"testing"

	"pyramid/server/sshtest"
	"pyramid/store/storetest"
)

// TestE2EClusterJoiningARoomStopsWatching: ann watches bob from instance
// two, then joins a race room on instance one: her watching session on
// two ends saying why, and bob's count drops, on his instance one.
func TestE2EClusterJoiningARoomStopsWatching(t *testing.T) {
	dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
	bin := buildPyramid(t)
	ttl := []string{"--presence-ttl", clusterTTL.String()}
	one := startServer(t, dbURL, ttl...)
	c2 := startClusterChild(t, bin, dbURL, ttl...)
	two := &testServer{addr: c2.addr, dbURL: dbURL, logs: c2.stderr}

	annKey, bobKey, carolKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, one.user(annKey), "name ann")
	bob := one.openAs(t, "bob", bobKey, "classic 42")
	g := newGame(t, "classic", 42)
	waitPosition(t, bob, g)
	waitWho(t, two.user(annKey), "bob playing, on instance two", func(w map[string]whoJSON) bool {
		return w["bob"].Doing == "playing"
	})
	watching := two.openAs(t, "ann", annKey, "watch bob")
	waitPosition(t, watching, g)
	bob.WaitFor(t, "1 watching", wait)
	// Instance one tells the instances that presence lists with ann.
	waitWho(t, one.user(bobKey), "ann watching, on instance one", func(w map[string]whoJSON) bool {
		return w["ann"].Doing == "watching"
	})

	carol := sshtest.OpenTerm(t, one.dial(t, carolKey), sshtest.TermOptions{Command: "race new"})
	code := waitRoom(t, carol)
	sshtest.OpenTerm(t, one.dial(t, annKey), sshtest.TermOptions{Command: "race " + code}).WaitFor(t, "room "+code, wait)
	watching.WaitFor(t, "you joined room "+code, wait)
	bob.WaitScreen(t, wait, "nobody watching", func(s string) bool { return !strings.Contains(s, "watching") })
}
