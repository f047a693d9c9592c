package arcade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/rating"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/sqlstore"
	"pyramid/tui"
)

// TestChallengeResult: the better result wins: cleared first, by time;
// then cards removed; then the earlier last removal; a side that did not
// play loses; neither played is no result; an assisted side keeps its
// place.
func TestChallengeResult(t *testing.T) {
	a := func(s challengeSide) challengeSide { s.ID = "a"; return s }
	b := func(s challengeSide) challengeSide { s.ID = "b"; return s }
	sec := time.Second
	tests := []struct {
		name       string
		a, b       challengeSide
		ok         bool
		winner     string
		placeA     int
		placeB     int
		outA, outB store.Outcome
	}{
		{"both cleared, faster wins", a(challengeSide{Moves: 40, Removed: 28, Cleared: true, Over: true, Time: 90 * sec}),
			b(challengeSide{Moves: 40, Removed: 28, Cleared: true, Over: true, Time: 80 * sec}), true, "b", 2, 1, store.OutcomeCleared, store.OutcomeCleared},
		{"cleared beats more time", a(challengeSide{Moves: 40, Removed: 28, Cleared: true, Over: true, Time: 300 * sec}),
			b(challengeSide{Moves: 30, Removed: 20, Over: true, Time: 60 * sec}), true, "a", 1, 2, store.OutcomeCleared, store.OutcomeStuck},
		{"more removed wins", a(challengeSide{Moves: 30, Removed: 18, Over: true, Time: 60 * sec}),
			b(challengeSide{Moves: 30, Removed: 20, Over: true, Time: 90 * sec}), true, "b", 2, 1, store.OutcomeStuck, store.OutcomeStuck},
		{"same removed, earlier last removal", a(challengeSide{Moves: 30, Removed: 20, Over: true, Time: 60 * sec}),
			b(challengeSide{Moves: 31, Removed: 20, Time: 70 * sec}), true, "a", 1, 2, store.OutcomeStuck, store.OutcomeTimeUp},
		{"a tie", a(challengeSide{Moves: 30, Removed: 20, Over: true, Time: 60 * sec}),
			b(challengeSide{Moves: 31, Removed: 20, Over: true, Time: 60 * sec}), true, "", 1, 1, store.OutcomeStuck, store.OutcomeStuck},
		{"one did not play", a(challengeSide{}), b(challengeSide{Moves: 2, Time: 3 * sec}), true, "b", 2, 1, store.OutcomeLeft, store.OutcomeTimeUp},
		{"neither played", a(challengeSide{}), b(challengeSide{}), false, "", 0, 0, "", ""},
		{"assisted keeps its place", a(challengeSide{Moves: 40, Removed: 28, Cleared: true, Over: true, Time: 9 * sec, Assisted: true}),
			b(challengeSide{Moves: 40, Removed: 28, Cleared: true, Over: true, Time: 80 * sec}), true, "a", 1, 2, store.OutcomeCleared, store.OutcomeCleared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, winner, ok := challengeResult(tt.a, tt.b)
			if ok != tt.ok || winner != tt.winner {
				t.Fatalf("got winner %q ok %v, want %q %v", winner, ok, tt.winner, tt.ok)
			}
			if !ok {
				return
			}
			if ps[0].Place != tt.placeA || ps[1].Place != tt.placeB || ps[0].Outcome != tt.outA || ps[1].Outcome != tt.outB {
				t.Fatalf("got placings %+v, want places %d %d, outcomes %s %s", ps, tt.placeA, tt.placeB, tt.outA, tt.outB)
			}
			if ps[0].Assisted != tt.a.Assisted || ps[0].PlayerID != "a" || ps[1].PlayerID != "b" {
				t.Fatalf("got placings %+v", ps)
			}
		})
	}
}

// clock is a test clock for the arcade.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// challengeFixture is a fixture whose arcade has a solver and reads the
// time from a test clock.
func challengeFixture(t *testing.T) (*fixture, *clock) {
	t.Helper()
	c := &clock{now: time.Now()}
	st, err := sqlstore.OpenConfig(context.Background(), sqlstore.Config{DataDir: t.TempDir(), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	admin := sshtest.NewKey(t)
	admins, err := keys.ParseAdmins(gossh.FingerprintSHA256(admin.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	app := New(Config{Store: st, Admins: admins, Logger: log.New(&bytes.Buffer{}), Connect: "ssh -p 23234 test",
		Now: c.Now, Solver: NewSolver(0, 1)})
	return &fixture{t: t, st: st, app: app, admin: admin}, c
}

// aliceAndBob makes the accounts of two players, alice and bob, by a
// command of each, and returns their keys.
func (f *fixture) aliceAndBob() (alice, bob gossh.Signer) {
	alice, bob = sshtest.NewKey(f.t), sshtest.NewKey(f.t)
	f.run(session(alice, "alice", "whoami"))
	f.run(session(bob, "bob", "whoami"))
	return alice, bob
}

// challengesOf runs challenges --json for key.
func (f *fixture) challengesOf(key gossh.Signer, name string) []challengeJSON {
	f.t.Helper()
	code, out, errOut := f.run(session(key, name, "challenges", "--json"))
	var list []challengeJSON
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		f.t.Fatalf("challenges --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	return list
}

// playChallenge plays n moves of the solver's winning line (all of it
// for n < 0) in player's game of challenge id, a move every 3 seconds,
// and returns the game's ID.
func (f *fixture) playChallenge(player string, id int64, n int) int64 {
	f.t.Helper()
	ctx := context.Background()
	w := f.app.newWriter(nil)
	cg := &challengeGames{a: f.app, player: player, w: w}
	sg, err := cg.Open(ctx, fmt.Sprint(id))
	if err != nil {
		f.t.Fatalf("open challenge %d: %v", id, err)
	}
	g, err := engine.Replay(sg.Record)
	if err != nil {
		f.t.Fatal(err)
	}
	sol := engine.Solve(ctx, g, 0)
	if sol.Verdict != engine.Winnable {
		f.t.Fatalf("the challenge's deal: %v, want winnable", sol.Verdict)
	}
	line := sol.Moves
	if n >= 0 {
		line = line[:n]
	}
	rec := sg.Record
	var times []time.Duration
	for i, m := range line {
		rec.Moves = append(rec.Moves, m.String())
		times = append(times, time.Duration(i+1)*3*time.Second)
	}
	var gameID int64
	fmt.Sscan(sg.ID, &gameID)
	if _, err := w.Save(ctx, player, gameID, games.Play{Record: rec, MoveTimes: times, Played: times[len(times)-1]}, nil); err != nil {
		f.t.Fatalf("save the challenge's game: %v", err)
	}
	return gameID
}

// TestChallengeOfferAndPlay: an offer is refused for oneself, a guest,
// nobody, a look-alike and a banned player; the challenged player is told
// at connection and in challenges; the deal stays hidden until the end;
// each plays once; the result is stored as a rated race of two.
func TestChallengeOfferAndPlay(t *testing.T) {
	f, clk := challengeFixture(t)
	alice, bob, carol := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	for _, k := range []struct {
		key  gossh.Signer
		name string
	}{{alice, "alice"}, {bob, "bob"}, {carol, "carol"}} {
		if code, _, errOut := f.run(session(k.key, k.name, "whoami")); code != 0 {
			t.Fatalf("whoami %s: %s", k.name, errOut)
		}
	}
	if code, _, errOut := f.run(session(f.admin, "root", "ban", "carol")); code != 0 {
		t.Fatalf("ban: %s", errOut)
	}
	for _, tt := range []struct {
		key  gossh.Signer
		args []string
		want string
	}{
		{alice, []string{"challenge", "alice"}, "you cannot challenge yourself"},
		{nil, []string{"challenge", "bob"}, "guests have no records"},
		{alice, []string{"challenge", "nobody"}, "no player is named \"nobody\""},
		{alice, []string{"challenge", "bоb"}, "no player is named"}, // a Cyrillic о
		{alice, []string{"challenge", "carol"}, "carol is banned"},
		{alice, []string{"challenge", "bob", "daily"}, "not the daily"},
		{alice, []string{"challenge", "accept", "99"}, "challenge 99 is no offer to you"},
		{alice, []string{"challenge", "7"}, "challenge opens a screen, which needs a terminal"},
	} {
		code, _, errOut := f.run(session(tt.key, "alice", tt.args...))
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want %q", tt.args, code, errOut, tt.want)
		}
	}

	code, out, errOut := f.run(session(alice, "alice", "challenge", "BOB", "classic"))
	if code != 0 || !strings.Contains(out, "offered to bob") || !strings.Contains(out, "challenge 1") {
		t.Fatalf("challenge bob: exit %d, %q %q", code, out, errOut)
	}
	bobID, aliceID := gossh.FingerprintSHA256(bob.PublicKey()), gossh.FingerprintSHA256(alice.PublicKey())
	if note := f.app.challengeNote(context.Background(), bobID); !strings.Contains(note, "alice challenges you") || !strings.Contains(note, "challenge accept 1") {
		t.Fatalf("bob's notice: %q", note)
	}
	if note := f.app.challengeNote(context.Background(), aliceID); note != "" {
		t.Fatalf("alice's notice: %q, want none", note)
	}
	list := f.challengesOf(bob, "bob")
	if len(list) != 1 || list[0].State != "offered" || list[0].Deal != "hidden" || !strings.Contains(list[0].Next, "challenge accept 1") {
		t.Fatalf("bob's challenges: %+v", list)
	}
	c, _ := f.st.Challenge(context.Background(), 1)
	if strings.Contains(out, fmt.Sprint(c.DealNumber)) {
		t.Fatalf("the offer shows the deal: %q", out)
	}
	if _, err := (&challengeGames{a: f.app, player: aliceID, w: f.app.newWriter(nil)}).Open(context.Background(), "1"); err == nil || !strings.Contains(err.Error(), "waits for bob") {
		t.Fatalf("play before the answer: %v", err)
	}
	if code, out, errOut := f.run(session(bob, "bob", "challenge", "accept", "1")); code != 0 || !strings.Contains(out, "accepted challenge 1 of alice") {
		t.Fatalf("accept: exit %d, %q %q", code, out, errOut)
	}
	if list := f.challengesOf(alice, "alice"); list[0].State != "accepted" || !strings.Contains(list[0].Next, "challenge 1") {
		t.Fatalf("alice's challenges: %+v", list)
	}

	aliceGame := f.playChallenge(aliceID, 1, -1)
	if list := f.challengesOf(alice, "alice"); list[0].State != "accepted" || list[0].Deal != "hidden" || list[0].YourGame != aliceGame ||
		!strings.Contains(list[0].Next, "you played it (won): the result comes once bob has played") {
		t.Fatalf("alice's challenges after her game: %+v", list)
	}
	if _, err := (&challengeGames{a: f.app, player: aliceID, w: f.app.newWriter(nil)}).Open(context.Background(), "1"); err == nil || !strings.Contains(err.Error(), "one attempt") {
		t.Fatalf("a second attempt: %v", err)
	}
	// Her game's deal stays hidden while bob may play it, hours later too.
	clk.Advance(3 * time.Hour)
	if code, out, _ := f.run(session(alice, "alice", "games", "--json")); code != 0 || !strings.Contains(out, `"deal_hidden": true`) ||
		strings.Contains(out, fmt.Sprint(c.DealNumber)) {
		t.Fatalf("alice's games while the challenge is open:\n%s", out)
	}
	f.playChallenge(bobID, 1, 10) // bob stops after 10 moves of the line, and gives up
	bobGame, _ := f.st.RaceGame(context.Background(), bobID, store.ChallengeRaceKey(1))
	if err := f.app.newWriter(nil).Abandon(context.Background(), bobID, bobGame.ID); err != nil {
		t.Fatal(err)
	}

	list = f.challengesOf(bob, "bob")
	if len(list) != 1 || list[0].State != "finished" || list[0].Result != "lost" || list[0].Deal != fmt.Sprint(c.DealNumber) ||
		list[0].TheirGame != aliceGame || !strings.Contains(list[0].Next, fmt.Sprintf("race ghost %d", aliceGame)) {
		t.Fatalf("bob's finished challenge: %+v", list)
	}
	race, err := f.st.Race(context.Background(), list[0].RaceID)
	if err != nil || len(race.Placings) != 2 || race.Placings[0].PlayerID != aliceID || race.Placings[0].Standing != rating.Rated ||
		race.Placings[1].Standing != rating.Rated {
		t.Fatalf("the race: %+v, %v", race, err)
	}
	if list := f.challengesOf(alice, "alice"); list[0].Result != "won" || !strings.HasPrefix(list[0].Counted, "1500 → ") {
		t.Fatalf("alice's result: %+v", list)
	}
	if code, out, _ := f.run(session(alice, "alice", "stats", "--json")); code != 0 || !strings.Contains(out, `"wins": 1`) {
		t.Fatalf("alice's stats: %s", out)
	}
	// Now both may race the other's play as a ghost.
	gh := f.app.newGhosts(tui.Player{ID: bobID, Name: "bob"}, f.app.newWriter(nil))
	if _, err := gh.Ghost(context.Background(), fmt.Sprint(aliceGame)); err != nil {
		t.Fatalf("bob's ghost of alice's game: %v", err)
	}
}

// TestChallengeDeadline: at the deadline a side that did not play loses
// (no rating: it never moved) and an unanswered offer or an accepted
// challenge nobody played expires, decided once.
func TestChallengeDeadline(t *testing.T) {
	f, clk := challengeFixture(t)
	alice, bob := f.aliceAndBob()
	aliceID := gossh.FingerprintSHA256(alice.PublicKey())
	for range 3 {
		if code, _, errOut := f.run(session(alice, "alice", "challenge", "bob")); code != 0 {
			t.Fatal(errOut)
		}
	}
	f.run(session(bob, "bob", "challenge", "accept", "1"))
	f.run(session(bob, "bob", "challenge", "accept", "2"))
	// Challenge 3 never gets an answer; 2 is never played.
	f.playChallenge(aliceID, 1, 6)
	clk.Advance(store.ChallengeTime + time.Minute)
	if code, _, errOut := f.run(session(bob, "bob", "challenge", "accept", "3")); code == 0 || !strings.Contains(errOut, "no longer open") {
		t.Fatalf("a late answer: %q", errOut)
	}
	list := f.challengesOf(bob, "bob")
	states := map[int64]challengeJSON{}
	for _, c := range list {
		states[c.ID] = c
	}
	if states[1].State != "finished" || states[1].Result != "lost" || states[2].State != "expired" || states[3].State != "expired" {
		t.Fatalf("after the deadline: %+v", list)
	}
	race, err := f.st.Race(context.Background(), states[1].RaceID)
	if err != nil || race.Placings[0].PlayerID != aliceID || race.Placings[1].Standing != rating.Aborted || race.Placings[1].Reason != rating.ReasonNeverMoved {
		t.Fatalf("the race of a challenge not played: %+v, %v", race, err)
	}
	if again := f.challengesOf(alice, "alice"); len(again) != 3 || again[2].RaceID != states[1].RaceID {
		t.Fatalf("alice's list: %+v", again)
	}
}

// TestChallengeOfferedFromAScreen: the Lobby's and the daily board's c
// offers on the rules the screen gives (the player's last game's) and
// says them; never the daily's.
func TestChallengeOfferedFromAScreen(t *testing.T) {
	f, _ := challengeFixture(t)
	ctx := context.Background()
	alice, bob := f.aliceAndBob()
	cg := &challengeGames{a: f.app, player: gossh.FingerprintSHA256(alice.PublicKey()), w: f.app.newWriter(nil)}
	text, err := cg.Offer(ctx, "bob", engine.MustRules("double"))
	if err != nil || !strings.Contains(text, "challenge 1 offered to bob (Double) until ") {
		t.Fatalf("offer on double: %q, %v", text, err)
	}
	c, err := f.st.Challenge(ctx, 1)
	if err != nil || c.RulesID != engine.MustRules("double").ID() {
		t.Fatalf("the stored challenge: %+v, %v; want double's rules", c, err)
	}
	if note := f.app.challengeNote(ctx, gossh.FingerprintSHA256(bob.PublicKey())); !strings.Contains(note, "alice challenges you (Double)") {
		t.Fatalf("bob's notice: %q, want the rules' title", note)
	}
	if _, err := cg.Offer(ctx, "bob", engine.MustRules("daily")); !errors.Is(err, errChallengeDaily) {
		t.Fatalf("offer on the daily's rules: %v, want %v", err, errChallengeDaily)
	}
}

// TestChallengeSessionSaves: the save that ends the last game of a
// challenge decides it, and a save past the deadline is refused.
func TestChallengeSessionSaves(t *testing.T) {
	f, clk := challengeFixture(t)
	ctx := context.Background()
	alice, bob := f.aliceAndBob()
	aliceID, bobID := gossh.FingerprintSHA256(alice.PublicKey()), gossh.FingerprintSHA256(bob.PublicKey())
	for range 2 {
		f.run(session(alice, "alice", "challenge", "bob"))
	}
	f.run(session(bob, "bob", "challenge", "accept", "1"))
	f.run(session(bob, "bob", "challenge", "accept", "2"))
	sessionOf := func(player string) *sessionGames {
		w := f.app.newWriter(nil)
		sg := f.app.sessionGames(player, w)
		sg.challenges = &challengeGames{a: f.app, player: player, w: w}
		return sg
	}
	outcome := "" // what the last save said of the challenge
	play := func(sg *sessionGames, ref string, pace time.Duration, n int) error {
		g, err := sg.challenges.Open(ctx, ref)
		if err != nil {
			return err
		}
		eg, _ := engine.Replay(g.Record)
		line := engine.Solve(ctx, eg, 0).Moves
		if n >= 0 {
			line = line[:n]
		}
		for i, m := range line {
			g.Record.Moves = append(g.Record.Moves, m.String())
			g.MoveTimes = append(g.MoveTimes, time.Duration(i+1)*pace)
		}
		g.Played = g.MoveTimes[len(g.MoveTimes)-1]
		res, err := sg.SaveRecord(ctx, sg.challenges.player, g)
		outcome = res.Challenge
		return err
	}
	as, bs := sessionOf(aliceID), sessionOf(bobID)
	if err := play(as, "1", 3*time.Second, -1); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.st.Challenge(ctx, 1); c.State != store.ChallengeAccepted {
		t.Fatalf("after alice's game: %s, want accepted", c.State)
	}
	if outcome != "" {
		t.Errorf("alice's game, the first: its save says %q of the challenge", outcome)
	}
	if err := play(bs, "1", 4*time.Second, -1); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.st.Challenge(ctx, 1); c.State != store.ChallengeFinished || c.Winner != aliceID {
		t.Fatalf("after bob's game: %+v, want finished, won by alice", c)
	}
	if want := "challenge 1 is over: you lost"; !strings.HasPrefix(outcome, want) {
		t.Errorf("bob's game, the last: its save says %q, want %q…", outcome, want)
	}

	// A session that opened its game before the deadline saves no move
	// after it.
	g, err := as.challenges.Open(ctx, "2")
	if err != nil {
		t.Fatal(err)
	}
	g.Record.Moves, g.MoveTimes = []string{"d"}, []time.Duration{time.Second}
	if _, err := as.SaveRecord(ctx, aliceID, g); err != nil {
		t.Fatal(err)
	}
	clk.Advance(store.ChallengeTime)
	g.Record.Moves, g.MoveTimes = []string{"d", "d"}, []time.Duration{time.Second, 2 * time.Second}
	if _, err := as.SaveRecord(ctx, aliceID, g); err == nil || !strings.Contains(err.Error(), "24 hours are over") {
		t.Fatalf("a save past the deadline: %v", err)
	}
}

// TestChallengeDecidedOnce: two servers on one database that look at a
// challenge past its deadline at once store one result and close it
// once.
func TestChallengeDecidedOnce(t *testing.T) {
	f, clk := challengeFixture(t)
	ctx := context.Background()
	other := New(Config{Store: f.st, Logger: log.New(&bytes.Buffer{}), Now: clk.Now})
	alice, bob := f.aliceAndBob()
	aliceID := gossh.FingerprintSHA256(alice.PublicKey())
	f.run(session(alice, "alice", "challenge", "bob"))
	f.run(session(bob, "bob", "challenge", "accept", "1"))
	f.playChallenge(aliceID, 1, 6)
	clk.Advance(store.ChallengeTime)
	c, err := f.st.Challenge(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]store.Challenge, 2)
	errs := make([]error, 2)
	for i, a := range []*App{f.app, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = a.settleChallenge(ctx, c)
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i].State != store.ChallengeFinished || got[i].Winner != aliceID || got[i].RaceID != got[0].RaceID {
			t.Fatalf("server %d decided %+v, %v; want finished, won by alice, one race", i, got[i], errs[i])
		}
	}
	// The race's key is the challenge's: one row, whoever stored it.
	if r, err := f.st.Race(ctx, got[0].RaceID); err != nil || len(r.Placings) != 2 {
		t.Fatalf("the race: %+v, %v", r, err)
	}
}

// TestChallengeClockRunsAway: a cleared side's time runs from when its
// game was dealt, not only while it was on the screen: seeing the deal,
// closing the terminal to solve it elsewhere and coming back to play the
// line counts the time away.
func TestChallengeClockRunsAway(t *testing.T) {
	dealt := time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC)
	g := store.Game{ID: 1, Started: dealt, Finished: dealt.Add(time.Hour),
		State: store.State{Status: store.StatusWon, Removed: 28, Elapsed: 2 * time.Minute, Moves: []string{"d"}, MoveTimes: []time.Duration{time.Second}}}
	if s := sideOf("ann", g, true); s.Time != time.Hour {
		t.Errorf("cleared an hour after the deal, 2 minutes on screen: time %v, want 1h", s.Time)
	}
	g.Finished = dealt.Add(time.Minute) // a store's clock behind the play time: never less than the play time
	if s := sideOf("ann", g, true); s.Time != 2*time.Minute {
		t.Errorf("time %v, want the play time, 2m", s.Time)
	}
}
