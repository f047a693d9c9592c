package main

// End-to-end tests of what the lobby and the unfinished-games query give
// players, over real SSH as in e2e_test.go.

import (
	"context"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/sqlstore"
)

// seedFinishedGames stores n finished games of rules for the player of key,
// straight into the server's database, each newer than every game before.
func (ts *testServer) seedFinishedGames(t *testing.T, key gossh.Signer, rules string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*wait)
	defer cancel()
	st, err := sqlstore.OpenConfig(ctx, sqlstore.Config{DataDir: ts.data, DatabaseURL: ts.dbURL})
	if err != nil {
		t.Fatalf("open the server's store: %v", err)
	}
	defer st.Close()
	p, err := st.PlayerByKey(ctx, gossh.FingerprintSHA256(key.PublicKey()))
	if err != nil {
		t.Fatalf("the key's player: %v", err)
	}
	for i := range n {
		g, err := st.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: rules, DealNumber: uint64(i), Owner: "seed"})
		if err != nil {
			t.Fatalf("seed game %d: %v", i, err)
		}
		if err := st.SaveGame(ctx, g.ID, "seed", store.State{Status: store.StatusLost}); err != nil {
			t.Fatalf("seed game %d: %v", i, err)
		}
	}
}

// TestE2EOldUnfinishedGame: an unfinished game older than a hundred newer
// finished games still shows as Continue, and a new game of the same rules
// saves (it abandons the old one) instead of failing on every move.
func TestE2EOldUnfinishedGame(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		cmds := ts.user(key)
		a := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 42"})
		g := newGame(t, "classic", 42)
		waitPosition(t, a, g)
		typeKeys(t, a, "d")
		play(t, g, "d")
		waitPosition(t, a, g)
		waitStored(t, cmds, "classic", 42, []string{"d"})
		typeKeys(t, a, "qq")
		if st := a.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0", st)
		}

		ts.seedFinishedGames(t, key, "easy", store.MaxListLimit+5)
		for _, gm := range games(t, cmds) {
			if gm.Rules == "classic" {
				t.Fatalf("the test's premise is wrong: games --json still lists the classic game %+v", gm)
			}
		}

		b := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{})
		screen := b.WaitScreen(t, wait, "the menu", isMenu)
		if first := menuFirst(screen); !strings.Contains(first, "> Continue") || !strings.Contains(first, "Classic · deal 42 · 1 move") {
			t.Fatalf("menu's first entry: got %q, want Continue to Classic · deal 42 · 1 move; screen:\n%s", first, screen)
		}
		typeKeys(t, b, "q")
		if st := b.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0", st)
		}

		c := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 7"})
		g7 := newGame(t, "classic", 7)
		waitPosition(t, c, g7)
		typeKeys(t, c, "d")
		play(t, g7, "d")
		screen = waitPosition(t, c, g7)
		waitStored(t, cmds, "classic", 7, []string{"d"})
		if strings.Contains(c.Screen(), "not saved") {
			t.Fatalf("the new game's save failed:\n%s", screen)
		}
		db := ts.db(t)
		if n := count(t, db, "SELECT count(*) FROM games WHERE rules_id = 'classic' AND deal_number = 42 AND status = 'abandoned'"); n != 1 {
			t.Fatalf("the old classic game: %d abandoned, want 1", n)
		}
	})
}
