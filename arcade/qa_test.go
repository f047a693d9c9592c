package arcade

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/bus"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/tui"
)

// TestClusterRaceGameNotContinue: played through HAProxy, a racer whose
// server was killed mid-race came back on the other and found her race
// game under the menu's cursor as "Continue  Classic · deal N · 10
// moves" beside "Back to race CODE": Continue would play the race's game
// at the solo table, out of the race. The game her seat holds is the
// race's on every server of the cluster, not only on the one she raced
// on.
func TestClusterRaceGameNotContinue(t *testing.T) {
	f := newFixture(t)
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	lease := lobby.NewMemoryLease(nil)
	// Nothing here waits for a lease to run out: a long one keeps a
	// loaded machine (a renewal late by more than a short time to live)
	// from having two take the races over and reap one as dead, whose
	// sessions then left the room under ann's move ("you are not in this
	// room", 2 runs in 30 under load with 300 ms).
	newApp := func(instance string) *App {
		a := New(Config{Store: f.st, Logger: log.New(&bytes.Buffer{}), Bus: b, Instance: instance, Lease: lease,
			LeaseTTL: time.Minute, Cluster: lobby.ClusterConfig{Heartbeat: 50 * time.Millisecond}})
		t.Cleanup(a.Close)
		return a
	}
	one := newApp("one")
	waitFor(t, "one holds the lease", one.rooms.Holder)
	two := newApp("two")
	type racer struct {
		rs *races
		g  *sessionGames
	}
	seat := func(a *App, name string) racer {
		sp, _, err := f.st.GetOrCreatePlayer(context.Background(), "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		sess := a.lobby.Join(lobby.Player{ID: sp.ID, Name: name})
		g := a.sessionGames(sp.ID, a.newWriter(sess))
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return racer{a.newRaces(ctx, tui.Player{ID: sp.ID, Name: name}, sess, g.w), g}
	}
	ctx := context.Background()
	rec := winningRecord(t)
	ann, bob := seat(one, "ann"), seat(two, "bob")
	s, err := ann.rs.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := s.Snapshot.Code
	waitFor(t, "two knows the room", func() bool { _, ok := two.rooms.Room(code); return ok })
	if _, err := bob.rs.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := ann.rs.Start(code); err != nil {
		t.Fatal(err)
	}
	// Each server starts the race on its own timer at the start moment:
	// ann plays on one, which under load may start it after two did.
	r1, _ := one.rooms.Room(code)
	r2, _ := two.rooms.Room(code)
	waitPhase(t, r1, lobby.PhaseRacing)
	waitPhase(t, r2, lobby.PhaseRacing)
	r := rec
	r.Moves = rec.Moves[:2]
	if _, err := ann.rs.Play(ctx, code, 1, 1, r); err != nil {
		t.Fatalf("ann's first move, on one: %v", err)
	}
	if list, err := ann.g.Unfinished(ctx, ann.rs.me.ID); err != nil || len(list) != 0 {
		t.Fatalf("on her own server ann's Continue lists %+v (%v), want nothing", list, err)
	}
	waitFor(t, "two sees ann's stored game", func() bool { m, _ := r2.Snapshot().Member(ann.rs.me.ID); return m.GameID > 0 })
	one.Close()
	ann2 := seat(two, "ann")
	list, err := ann2.g.Unfinished(ctx, ann2.rs.me.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range list {
		t.Errorf("back on two, ann's Continue lists her race game %s (%s deal %d, %d moves)", sg.ID, sg.Record.Rules, sg.Record.Deal, len(sg.Record.Moves))
	}
}

// TestStatsRacesOnly: a player with race results and no solo game read
// "no finished games yet" above the race lines of their finished races;
// it says no solo game is finished.
func TestStatsRacesOnly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	ann, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := f.st.RecordRace(ctx, store.NewRace{Key: "k1", Code: "ABCD", RulesID: "classic", DealNumber: 3,
		Started: now, Ended: now, Racers: 2, Rated: true, Placings: []store.RacePlacing{
			{PlayerID: f.adminID(t), Place: 1, Cleared: true, Removed: 28, Moves: 60, Time: 95 * time.Second},
			{PlayerID: ann.ID, Place: 2, Removed: 6, Moves: 10, Time: 47 * time.Second},
		}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := f.run(session(key, "ann", "stats"))
	if code != 0 || strings.Contains(out, "no finished games yet") || !strings.Contains(out, "no solo game finished yet") || !strings.Contains(out, "classic  1") {
		t.Fatalf("stats of races only: exit %d, %q %q", code, out, errOut)
	}
}

// TestSoloGameBesideARace: a racer who left her race with q q (her seat
// kept) and opened Classic from the menu saw her first move stored, and
// her race game of Classic, still racing, was abandoned without a word:
// its later moves were stored nowhere. A race that runs keeps its game;
// a race's game is apart from the player's own games (one per rules), so
// the solo game is stored beside it.
func TestSoloGameBesideARace(t *testing.T) {
	f := newFixture(t)
	a := f.app
	ctx := context.Background()
	seat := func(name string) (*races, *sessionGames) {
		sp, _, err := f.st.GetOrCreatePlayer(ctx, "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		sess := a.lobby.Join(lobby.Player{ID: sp.ID, Name: name})
		g := a.sessionGames(sp.ID, a.newWriter(sess))
		cctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		return a.newRaces(cctx, tui.Player{ID: sp.ID, Name: name}, sess, g.w), g
	}
	ann, annGames := seat("ann")
	bob, _ := seat("bob")
	rec := winningRecord(t)
	s, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := s.Snapshot.Code
	if _, err := bob.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := ann.Start(code); err != nil {
		t.Fatal(err)
	}
	r, _ := a.rooms.Room(code)
	waitPhase(t, r, lobby.PhaseRacing)
	race := rec
	race.Moves = rec.Moves[:2]
	if _, err := ann.Play(ctx, code, 1, 1, race); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Snapshot().Member(ann.me.ID)
	if m.GameID <= 0 {
		t.Fatal("ann's race game is not stored")
	}
	solo := engine.Record{Rules: rec.Rules, Deal: rec.Deal + 1, Moves: []string{"d"}}
	if _, err := annGames.SaveRecord(ctx, ann.me.ID, tui.SavedGame{Record: solo, Status: tui.StatusPlaying}); err != nil {
		t.Errorf("a solo Classic game beside ann's Classic race: %v", err)
	}
	sg, err := f.st.Game(ctx, m.GameID)
	if err != nil {
		t.Fatal(err)
	}
	if sg.Status != store.StatusPlaying {
		t.Fatalf("ann's race game is %s after a solo game of its rules, want playing", sg.Status)
	}
}

// TestRaceNobodyPlayedNotStored: three racers whose connections all
// dropped before a move (room WJCN) were stored all first, each with a
// race won and a rating up; a race in which no card was removed ranks
// nobody, and is not stored.
func TestRaceNobodyPlayedNotStored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var ids []string
	for _, name := range []string{"ann", "bob", "cat"} {
		p, _, err := f.st.GetOrCreatePlayer(ctx, "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	now := time.Now()
	res := lobby.RaceResult{Code: "WJCN", Round: 1, RulesID: "classic", Deal: 3, Rated: true, Started: now, Ended: now.Add(time.Second)}
	for i, id := range ids {
		res.Placings = append(res.Placings, lobby.Placing{Place: 1, ID: id, Name: "p" + strconv.Itoa(i), State: lobby.RacerLeft, Moves: i})
	}
	if err := f.app.race.Store(res); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if recs, err := f.st.RaceRecords(ctx, id); err != nil || len(recs) != 0 {
			t.Errorf("race records of %s after a race nobody played: %+v (%v), want none", id, recs, err)
		}
	}
	// A race with a card removed is stored.
	res.Code, res.Placings[1].Removed, res.Placings[1].Place = "WJCM", 2, 1
	res.Placings[0].Place, res.Placings[2].Place = 2, 2
	if err := f.app.race.Store(res); err != nil {
		t.Fatal(err)
	}
	if recs, err := f.st.RaceRecords(ctx, ids[1]); err != nil || len(recs) != 1 || recs[0].Wins != 1 {
		t.Errorf("bob's race records: %+v (%v), want one race won", recs, err)
	}
}
