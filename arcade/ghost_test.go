package arcade

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/store"
	"pyramid/tui"
)

// TestGhostReadRule: a player races their own games, another player's
// daily once that day is over, and today's daily board only once they
// finished today's daily (no spoilers); a ghost race's game is practice.
func TestGhostReadRule(t *testing.T) {
	f := newRecordsFixture(t)
	ctx := context.Background()
	bob, _, err := f.st.GetOrCreatePlayer(ctx, "SHA256:bob", "bob")
	if err != nil {
		t.Fatal(err)
	}
	bobGames := plainGames(f.st, "bob-session")
	daily, _ := engine.Preset("daily")
	now := time.Now().UTC()
	today, yesterday := now.Format(time.DateOnly), now.AddDate(0, 0, -1).Format(time.DateOnly)
	_, won := loseAndWin(t)
	times := make([]time.Duration, len(won.Moves))
	for i := range times {
		times[i] = time.Duration(i+1) * 400 * time.Millisecond
	}
	// stored saves a finished game of player p: rules, daily date.
	stored := func(g *sessionGames, p, rules, day string) string {
		t.Helper()
		ng := store.NewGame{PlayerID: p, RulesID: rules, DealNumber: won.Deal, Daily: day, Owner: g.w.Owner()}
		created, err := f.st.CreateGame(ctx, ng)
		if err != nil {
			t.Fatal(err)
		}
		rec := won
		rec.Rules = rules
		id := strconv.FormatInt(created.ID, 10)
		if _, err := g.SaveRecord(ctx, p, tui.SavedGame{ID: id, Record: rec, Daily: day, Status: tui.StatusWon, Played: time.Minute, MoveTimes: times}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	own := stored(f.g, f.player, "classic", "")
	bobClassic := stored(bobGames, bob.ID, "classic", "")
	bobPast := stored(bobGames, bob.ID, daily.ID(), yesterday)
	bobToday := stored(bobGames, bob.ID, daily.ID(), today)

	gh := f.app.newGhosts(tui.Player{ID: f.player, Name: "ann"}, f.g.w)
	for _, tt := range []struct {
		ref, want, err string
	}{
		{own, own, ""},
		{bobClassic, "", "not found"},
		{bobPast, bobPast, ""},
		{bobToday, "", "finish today's daily deal first"},
		{"daily", "", "finish today's daily deal first"},
		{"99999", "", "not found"},
		{"x", "", "daily or a game ID"},
	} {
		g, err := gh.Ghost(ctx, tt.ref)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Ghost(%s) = %v, want an error saying %q", tt.ref, err, tt.err)
		case tt.err == "" && (err != nil || g.GameID != tt.want):
			t.Errorf("Ghost(%s) = %q, %v; want game %s", tt.ref, g.GameID, err, tt.want)
		}
	}
	if g, _ := gh.Ghost(ctx, own); len(g.Times) != len(won.Moves) || g.Times[1] != times[1] || g.Name != "ann" {
		t.Errorf("own ghost: %d times, name %q; want the stored times, ann", len(g.Times), g.Name)
	}
	// Once ann finished today's daily, today's board is hers to race.
	stored(f.g, f.player, daily.ID(), today)
	for _, ref := range []string{bobToday, "daily"} {
		if _, err := gh.Ghost(ctx, ref); err != nil {
			t.Errorf("Ghost(%s) after today's daily: %v", ref, err)
		}
	}
	// A guest races past days' dailies only.
	guest := f.app.newGhosts(tui.Player{Guest: true}, nil)
	if _, err := guest.Ghost(ctx, bobPast); err != nil {
		t.Errorf("a guest and a past daily: %v", err)
	}
	if _, err := guest.Ghost(ctx, own); err == nil {
		t.Errorf("a guest raced ann's classic game")
	}

	// The race's game is practice: stored with its times, no result.
	before := f.stats("classic")
	rec := engine.Record{Rules: "classic", Deal: won.Deal, Moves: won.Moves}
	if note, err := gh.Play(ctx, 1, engine.Record{Rules: "classic", Deal: won.Deal, Moves: won.Moves[:1]}, times[:1]); err != nil || note != "" {
		t.Fatalf("Play: %q, %v", note, err)
	}
	if note, err := gh.Play(ctx, 2, rec, times); err != nil || note != "" {
		t.Fatalf("Play: %q, %v", note, err)
	}
	if _, err := gh.Play(ctx, 1, rec, nil); err != nil { // a late report
		t.Fatal(err)
	}
	sg, err := f.st.Game(ctx, gh.gameID)
	if err != nil || !sg.Practice || sg.Status != store.StatusWon || len(sg.MoveTimes) != len(times) {
		t.Fatalf("the ghost race's game: %+v, %v; want won practice with its times", sg, err)
	}
	if after := f.stats("classic"); after.Played != before.Played {
		t.Errorf("a ghost race counted: played %d, then %d", before.Played, after.Played)
	}
	// Nor is it a race: no race record, no rating.
	if recs, err := f.st.RaceRecords(ctx, f.player); err != nil || len(recs) != 0 {
		t.Errorf("race records after a ghost race: %+v, %v; want none", recs, err)
	}
	// A second race of the session makes a game of its own; left before
	// its end, that game is abandoned rather than left waiting.
	first := gh.gameID
	if _, err := gh.Ghost(ctx, own); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Play(ctx, 1, engine.Record{Rules: "classic", Deal: won.Deal, Moves: won.Moves[:2]}, times[:2]); err != nil {
		t.Fatal(err)
	}
	second := gh.gameID
	if second == 0 || second == first {
		t.Fatalf("the second race's game is %d (the first's was %d), want a new one", second, first)
	}
	if err := gh.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if sg, err := f.st.Game(ctx, second); err != nil || sg.Status != store.StatusAbandoned || !sg.Practice {
		t.Errorf("the left race's game: %v %v, want abandoned practice", sg.Status, err)
	}
}
