package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// TestManyLoginsFromOneAddress: logins at once from one address, within
// --max-unauth-per-ip, were refused as "the server is busy … (limit
// 100)" with nobody else logging in: the random early drop counted the
// address's own logins, which --max-unauth-per-ip allows, as the
// server's load. They all log in now.
func TestManyLoginsFromOneAddress(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.MaxConnsPerIP, cfg.MaxUnauthPerIP = 32, 32 // the default startups: 10:30:100
	srv, addr := startServer(t, cfg, &testApp{})
	key := sshtest.NewKey(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []error
	for range 20 {
		wg.Go(func() {
			c, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("p", key))
			if err != nil {
				mu.Lock()
				failed = append(failed, err)
				mu.Unlock()
				return
			}
			_ = c.Close()
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Errorf("%d of 20 logins from one address refused, want none; the first: %v", len(failed), failed[0])
	}
	if n := srv.Stats().Refused[refusedStartupsDrop]; n != 0 {
		t.Errorf("%d dropped as the server busy, want none", n)
	}
}

// TestEarlyDropCountsOtherAddresses: the random early drop still holds
// for an address's second connection when other addresses have
// Startups.Start logging in, and says how many.
func TestEarlyDropCountsOtherAddresses(t *testing.T) {
	f := &fakeConns{now: time.Unix(1000, 0)}
	l := newLimiter(Config{MaxConns: 100, MaxConnsPerIP: 10, MaxUnauthPerIP: 10, Startups: Startups{Start: 2, Rate: 100, Full: 10}, Penalties: Penalties{Off: true}},
		func() time.Time { return f.now }, func() float64 { return 0.5 })
	for range 5 {
		if _, err := l.admit(f.conn("mine")); err != nil {
			t.Fatalf("one address's logins on a quiet server: %v", err)
		}
	}
	for _, other := range []string{"a", "b"} {
		if _, err := l.admit(f.conn(other)); err != nil {
			t.Fatalf("a first connection of %s: %v", other, err)
		}
	}
	_, err := l.admit(f.conn("mine"))
	if refusalKind(err) != refusedStartupsDrop || !strings.Contains(err.Error(), "2 connections from other addresses are logging in") {
		t.Fatalf("with two other addresses logging in: %v, want a drop that says so", err)
	}
}
