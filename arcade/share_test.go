package arcade

import (
	"context"
	"encoding/json"
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
			"Pyramid · Classic · a hidden deal · 4/28 so far · 1:00 · 1 move"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := shareLine(tc.g, tc.g.Status.Finished())
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
	if err := f.st.FinishGame(ctx, g.ID, "s", g.Version, st, &store.Result{GameID: g.ID, Won: true, Removed: 28, Moves: len(rec.Moves), Elapsed: st.Elapsed}); err != nil {
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

// TestShareRaceGame: share of a race's game gives the place of how many
// raced, as the results screen's share line does; before the race is
// stored it is the game's plain line, its deal hidden (in games too):
// the racers still at it play that deal.
func TestShareRaceGame(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	ann, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	rec := winningRecord(t)
	g, err := f.st.CreateGame(ctx, store.NewGame{PlayerID: ann.ID, RulesID: rec.Rules, DealNumber: rec.Deal, Owner: "s",
		Practice: true, Kind: store.KindRace})
	if err != nil {
		t.Fatal(err)
	}
	st := store.State{Moves: rec.Moves[:10], Status: store.StatusLost, Removed: 6, Elapsed: 50 * time.Second}
	if err := f.st.FinishGame(ctx, g.ID, "s", g.Version, st, nil); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(g.ID, 10)
	if code, out, errOut := f.run(session(key, "ann", "share", id)); code != 0 || !strings.HasPrefix(out, "Pyramid · Classic · a hidden deal · ") {
		t.Fatalf("share before the race is stored: exit %d, %q %q", code, out, errOut)
	}
	dealOf := func() (string, gameReport) {
		t.Helper()
		code, out, errOut := f.run(session(key, "ann", "games", "--json"))
		var reps []gameReport
		if err := json.Unmarshal([]byte(out), &reps); code != 0 || err != nil || len(reps) == 0 {
			t.Fatalf("games --json: exit %d, %q %q (%v)", code, out, errOut, err)
		}
		_, text, _ := f.run(session(key, "ann", "games"))
		return text, reps[0]
	}
	deal := strconv.FormatUint(rec.Deal, 10)
	if text, rep := dealOf(); !rep.DealHidden || rep.Deal != 0 || !strings.Contains(text, " hidden ") || strings.Contains(text, " "+deal+" ") {
		t.Fatalf("games before the race is stored: %+v\n%s", rep, text)
	}
	_, replayed, _ := f.run(session(key, "ann", "replay", id))
	if strings.Contains(replayed, "deal "+deal) {
		t.Fatalf("replay before the race is stored names the deal:\n%s", replayed)
	}
	now := time.Now()
	if _, err := f.st.RecordRace(ctx, store.NewRace{Key: "k1", Code: "ABCD", RulesID: rec.Rules, DealNumber: rec.Deal, Rated: true,
		Started: now, Ended: now, Racers: 5, Placings: []store.RacePlacing{
			{PlayerID: f.adminID(t), Place: 1, Cleared: true, Removed: 28, Moves: 60, Time: 95 * time.Second},
			{PlayerID: ann.ID, Place: 2, Removed: 6, Moves: 10, Time: 47300 * time.Millisecond, GameID: g.ID},
		}}); err != nil {
		t.Fatal(err)
	}
	if text, rep := dealOf(); rep.DealHidden || rep.Deal != rec.Deal || !strings.Contains(text, " "+deal+" ") {
		t.Fatalf("games after the race is stored: %+v\n%s", rep, text)
	}
	code, out, errOut := f.run(session(key, "ann", "share", id))
	if want := "Pyramid race · Classic · 2nd of 5 · 6/28 · 0:47.3 · 10 moves\n"; code != 0 || out != want {
		t.Fatalf("share of a race's game: exit %d, %q %q; want %q", code, out, errOut, want)
	}

	// A race on a chosen deal says it is unrated.
	g2, err := f.st.CreateGame(ctx, store.NewGame{PlayerID: ann.ID, RulesID: rec.Rules, DealNumber: rec.Deal, Owner: "s", Kind: store.KindRace, Practice: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.FinishGame(ctx, g2.ID, "s", g2.Version, st, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.RecordRace(ctx, store.NewRace{Key: "k2", Code: "ABCD", RulesID: rec.Rules, DealNumber: rec.Deal,
		Started: now, Ended: now, Racers: 2, Placings: []store.RacePlacing{
			{PlayerID: ann.ID, Place: 1, Removed: 6, Moves: 10, Time: 47300 * time.Millisecond, GameID: g2.ID},
		}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = f.run(session(key, "ann", "share", strconv.FormatInt(g2.ID, 10)))
	if want := "Pyramid race · Classic · 1st of 2 · 6/28 · 0:47.3 · 10 moves · unrated\n"; code != 0 || out != want {
		t.Fatalf("share of an unrated race's game: exit %d, %q %q; want %q", code, out, errOut, want)
	}
}

// adminID is the store's player of the fixture's admin key.
func (f *fixture) adminID(t *testing.T) string {
	t.Helper()
	p, _, err := f.st.GetOrCreatePlayer(context.Background(), gossh.FingerprintSHA256(f.admin.PublicKey()), "root")
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}
