package main

// End-to-end tests of what the lobby and the unfinished-games query give
// players, over real SSH as in e2e_test.go.

import (
	"context"
	"strings"
	"testing"
	"time"

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
		if err := st.SaveGame(ctx, g.ID, "seed", g.Version, store.State{Status: store.StatusLost}); err != nil {
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
		typeKeys(t, a, "qqy")
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
		// The games in progress load after the menu's first frame.
		screen := b.WaitScreen(t, wait, "the menu with a Continue", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "Continue")
		})
		if first := menuFirst(screen); !strings.Contains(first, "> Continue") || !strings.Contains(first, "Classic · deal 42 · 1 move") {
			t.Fatalf("menu's first entry: got %q, want Continue to Classic · deal 42 · 1 move; screen:\n%s", first, screen)
		}
		typeKeys(t, b, "qy")
		if st := b.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0", st)
		}

		// A new Classic deal asks before abandoning the old game; yes
		// starts it, and its first save abandons the old one.
		c := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 7"})
		c.WaitScreen(t, wait, "the abandon question", func(s string) bool {
			return strings.Contains(s, "You have Classic deal 42 in progress (1 move): abandon it?")
		})
		typeKeys(t, c, "y")
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

// whoJSON is one entry of who --json.
type whoJSON struct {
	Name     string `json:"name"`
	Guest    bool   `json:"guest"`
	Doing    string `json:"doing"`
	Rules    string `json:"rules"`
	Deal     string `json:"deal"`
	Room     string `json:"room"`
	Private  bool   `json:"private"`
	Phase    string `json:"phase"`
	Removed  *int   `json:"removed"`
	Watching string `json:"watching"`
}

// openAs opens a terminal session as user name with key (nil: a guest).
func (ts *testServer) openAs(t *testing.T, name string, key gossh.Signer, command string) *sshtest.Term {
	t.Helper()
	c, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig(name, key))
	if err != nil {
		t.Fatalf("dial %s: %v", ts.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: command})
}

// waitWho polls who --json until cond holds of it.
func waitWho(t *testing.T, u user, what string, cond func(map[string]whoJSON) bool) map[string]whoJSON {
	t.Helper()
	var last []whoJSON
	for deadline := time.Now().Add(wait); ; {
		last = nil
		runJSON(t, u, "who --json", &last)
		byName := map[string]whoJSON{}
		for _, e := range last {
			byName[e.Name] = e
		}
		if cond(byName) {
			return byName
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s who --json says %+v; want %s", wait, last, what)
		}
		time.Sleep(20 * time.Millisecond) // polling the server, not synchronising
	}
}

// TestE2EWho: two players with different keys, and a guest, see each other
// in who --json with what each is doing; one who leaves is gone from it.
func TestE2EWho(t *testing.T) {
	ts := startServer(t, "")
	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	const big = "18446744073709551615" // above 2^53: JSON must carry it as a string
	ann := ts.openAs(t, "ann", annKey, "classic 42")
	bob := ts.openAs(t, "bob", bobKey, "classic "+big)
	guest := ts.openAs(t, "guest", nil, "")
	ga, gb := newGame(t, "classic", 42), newGame(t, "classic", 18446744073709551615)
	waitPosition(t, ann, ga)
	waitPosition(t, bob, gb)
	guest.WaitScreen(t, wait, "the guest's menu", isMenu)
	typeKeys(t, ann, ":7.2+7.3"+sshtest.KeyEnter)
	play(t, ga, "7.2+7.3")
	waitPosition(t, ann, ga)
	typeKeys(t, bob, "d")
	play(t, gb, "d")
	waitPosition(t, bob, gb)

	for _, u := range []user{ts.user(annKey), ts.user(bobKey)} {
		who := waitWho(t, u, "ann playing classic 42 with 2 removed, bob playing deal "+big, func(w map[string]whoJSON) bool {
			a, b := w["ann"], w["bob"]
			return a.Doing == "playing" && a.Deal == "42" && a.Removed != nil && *a.Removed == ga.Removed() &&
				b.Doing == "playing" && b.Deal == big && b.Removed != nil && *b.Removed == 0
		})
		if a := who["ann"]; a.Rules != "classic" || a.Guest {
			t.Fatalf("ann: %+v", a)
		}
		if g := guestOf(who); !g.Guest || g.Doing != "menu" || g.Removed != nil || g.Deal != "" {
			t.Fatalf("the guest: got %+v, want a guest at the menu with no game fields", g)
		}
		if len(who) != 3 {
			t.Fatalf("who --json lists %d, want ann, bob and the guest: %+v", len(who), who)
		}
	}
	out := runOK(t, ts.user(nil), "who")
	if !strings.Contains(out, "3 online") || !strings.Contains(lineWith(out, "ann"), "playing Classic · deal 42 · 2/28 removed") {
		t.Fatalf("who:\n%s", out)
	}

	// Back at the menu after the game is over; then gone.
	typeKeys(t, bob, "q")
	bob.WaitScreen(t, wait, "bob's menu", isMenu)
	typeKeys(t, bob, "qy")
	if st := bob.ExitStatus(wait); st != 0 {
		t.Fatalf("bob quit: exit status %d", st)
	}
	waitWho(t, ts.user(annKey), "bob gone", func(w map[string]whoJSON) bool {
		_, there := w["bob"]
		return !there && len(w) == 2
	})
}
