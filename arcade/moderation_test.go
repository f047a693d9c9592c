package arcade

import (
	"context"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/cluster"
	"pyramid/lobby"
	"pyramid/server/sshtest"
)

// TestResyncAccounts: when the bus lost account events, each server
// checks its sessions against the store: a banned player's session ends
// saying why, an unlinked key's ends, a renamed player's takes the name.
func TestResyncAccounts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	catKey, danKey, eveKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	fp := func(k gossh.Signer) string { return gossh.FingerprintSHA256(k.PublicKey()) }
	for _, k := range []gossh.Signer{catKey, danKey, eveKey} {
		f.app.Model(session(k, "player"))
	}
	sessionOf := func(k gossh.Signer) *lobby.Session {
		t.Helper()
		ls := f.app.sessionsOf(cluster.AccountEvent{Player: fp(k)})
		if len(ls) != 1 {
			t.Fatalf("%d sessions tracked for %s, want 1", len(ls), fp(k))
		}
		return ls[0].lobby
	}
	cat, dan, eve := sessionOf(catKey), sessionOf(danKey), sessionOf(eveKey)

	// Behind the bus's back: cat banned, dan's key unlinked (dan's
	// account keeps another key), eve renamed.
	if err := f.st.Ban(ctx, fp(catKey), time.Time{}, "spam"); err != nil {
		t.Fatal(err)
	}
	dp, err := f.st.Player(ctx, fp(danKey))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.CreateLinkCode(ctx, dp.ID, "RESYNC01", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.RedeemLinkCode(ctx, "RESYNC01", "SHA256:dan-laptop"); err != nil {
		t.Fatal(err)
	}
	if err := f.st.UnlinkKey(ctx, fp(danKey), fp(danKey)); err != nil {
		t.Fatal(err)
	}
	if err := f.st.RenamePlayer(ctx, fp(eveKey), "evelyn"); err != nil {
		t.Fatal(err)
	}

	f.app.resyncAccounts()
	wantEvent := func(s *lobby.Session, what string, ok func(lobby.Event) bool) {
		t.Helper()
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		for {
			ev, err := s.Queue().Next(qctx)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if ok(ev) {
				return
			}
		}
	}
	wantEvent(cat, "cat's session ended for the ban", func(ev lobby.Event) bool {
		e, ok := ev.(lobby.Ended)
		return ok && e.Text == "you are banned from this server: spam"
	})
	wantEvent(dan, "dan's unlinked key's session ended", func(ev lobby.Event) bool {
		e, ok := ev.(lobby.Ended)
		return ok && e.Text == "this key was unlinked from your account"
	})
	wantEvent(eve, "eve's session renamed", func(ev lobby.Event) bool {
		e, ok := ev.(lobby.Renamed)
		return ok && e.Name == "evelyn"
	})
}
