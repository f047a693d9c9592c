package arcade

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
	"pyramid/store"
)

func TestShareLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    store.Game
		want string
	}{
		{"a daily cleared", store.Game{RulesID: "classic", Daily: "2026-12-01",
			State: store.State{Status: store.StatusWon, Removed: 28, Elapsed: 192 * time.Second, Moves: make([]string, 41)}},
			"Pyramid · daily 2026-12-01 · Classic · cleared · 3:12 · 41 moves"},
		{"a deal lost", store.Game{RulesID: "classic", DealNumber: 42,
			State: store.State{Status: store.StatusLost, Removed: 19, Elapsed: 301 * time.Second, Moves: make([]string, 60), Undos: 2}},
			"Pyramid · Classic · deal 42 · 19/28 · 5:01 · 60 moves · assisted"},
		{"a game that runs", store.Game{RulesID: "classic", DealNumber: 7,
			State: store.State{Status: store.StatusPlaying, Removed: 4, Elapsed: time.Minute, Moves: make([]string, 1)}},
			"Pyramid · Classic · deal 7 · 4/28 so far · 1:00 · 1 move"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := shareLine(tc.g)
			if err != nil || got != tc.want {
				t.Fatalf("shareLine = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestShareCommand: share prints the player's own game's line, nothing
// of the deal's cards or moves, and no other player's game.
func TestShareCommand(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	ann, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	rec := winningRecord(t)
	g, err := f.st.CreateGame(ctx, store.NewGame{PlayerID: ann.ID, RulesID: rec.Rules, DealNumber: rec.Deal, Owner: "s"})
	if err != nil {
		t.Fatal(err)
	}
	st := store.State{Moves: rec.Moves, Status: store.StatusWon, Removed: 28, Elapsed: 90 * time.Second}
	if err := f.st.FinishGame(ctx, g.ID, "s", st, &store.Result{GameID: g.ID, Won: true, Removed: 28, Moves: len(rec.Moves), Elapsed: st.Elapsed}); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(g.ID, 10)
	code, out, errOut := f.run(session(key, "ann", "share", id))
	if code != 0 || !strings.HasPrefix(out, "Pyramid · Classic · deal ") || !strings.Contains(out, "cleared · 1:30") {
		t.Fatalf("share: exit %d, %q %q", code, out, errOut)
	}
	for _, r := range strings.TrimSuffix(out, "\n") {
		if !unicode.IsPrint(r) {
			t.Errorf("share prints %U", r)
		}
	}
	for _, m := range rec.Moves {
		if strings.Contains(m, "+") && strings.Contains(out, m) {
			t.Errorf("share gives away move %s: %q", m, out)
		}
	}
	if code, _, errOut := f.run(session(f.admin, "root", "share", id)); code != 1 || !strings.Contains(errOut, "not found among yours") {
		t.Errorf("another player's share: exit %d, %q", code, errOut)
	}
	if code, _, _ := f.run(session(key, "ann", "share", "x")); code != 2 {
		t.Errorf("share x: exit %d, want 2", code)
	}
}
