package arcade

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/race"
	"pyramid/store/sqlstore"
	"pyramid/tui"
)

// playFixture is the arcade with a solver (arena deals are winnable), a
// short lease (the holder pairs every 200 ms), and a clock that the test
// moves on (a racer's moves are timed by it: at a person's pace, they are
// not assisted).
func playFixture(t *testing.T) (*fixture, *testClock) {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := &testClock{}
	clock.at.Store(time.Now().UnixNano())
	app := New(Config{Store: st, Solver: NewSolver(0, 2), LeaseTTL: 600 * time.Millisecond, Now: clock.Now, Logger: log.New(&bytes.Buffer{})})
	t.Cleanup(app.Close)
	return &fixture{t: t, st: st, app: app}, clock
}

// testClock is a clock that moves only when told.
type testClock struct{ at atomic.Int64 }

// Now reads the clock.
func (c *testClock) Now() time.Time { return time.Unix(0, c.at.Load()) }

// Advance moves the clock on by d.
func (c *testClock) Advance(d time.Duration) { c.at.Add(int64(d)) }

// arenaPlayer is a session of a player with its rooms and arenas.
type arenaPlayer struct {
	rs *races
	as *arenas
}

func (f *fixture) arenaPlayer(t *testing.T, name string, guest bool) arenaPlayer {
	rs, _ := f.racer(t, name, guest)
	return arenaPlayer{rs: rs, as: f.app.newArenas(rs)}
}

// waitArena polls the player's view of the arena until cond holds.
func waitArena(t *testing.T, p arenaPlayer, id int64, what string, cond func(lobby.ArenaView) bool) lobby.ArenaView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := p.as.View(context.Background(), id)
		if err == nil && cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s: view %+v, %v", p.rs.me.Name, what, v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestArenaRace: two players join an arena and are paired by the lease
// holder into a race of a winnable deal; one goes berserk, may not take
// a move back, and clears; the other leaves. The store scores it (win,
// clear and berserk bonus; a racer who left scores nothing), the views
// show it, and both are free again.
func TestArenaRace(t *testing.T) {
	f, clock := playFixture(t)
	ctx := context.Background()
	now := clock.Now()
	ann, bob := f.arenaPlayer(t, "ann", false), f.arenaPlayer(t, "bob", false)
	e, err := f.st.CreateArena(ctx, arena.Event{Name: "Test arena", RulesID: engine.Classic().ID(), Start: now, Duration: 10 * time.Minute, CreatedBy: ann.rs.me.ID})
	if err != nil {
		t.Fatal(err)
	}
	soon, err := f.st.CreateArena(ctx, arena.Event{Name: "Later", RulesID: engine.Classic().ID(), Start: now.Add(time.Hour), Duration: 10 * time.Minute, CreatedBy: ann.rs.me.ID})
	if err != nil {
		t.Fatal(err)
	}
	guest := f.arenaPlayer(t, "guest-7QK2", true)
	if _, err := guest.as.Join(ctx, e.ID); !errors.Is(err, lobby.ErrArenaGuest) {
		t.Fatalf("a guest joins: %v", err)
	}
	if _, err := ann.as.Join(ctx, soon.ID); err == nil || !strings.Contains(err.Error(), "starts at") {
		t.Fatalf("join an arena not started: %v", err)
	}
	if _, err := ann.as.Join(ctx, 999); err == nil || !strings.Contains(err.Error(), "no arena 999") {
		t.Fatalf("join no arena: %v", err)
	}
	list, err := ann.as.List(ctx)
	if err != nil || len(list) != 2 || list[0].ID != e.ID || list[1].ID != soon.ID {
		t.Fatalf("List: %+v, %v", list, err)
	}
	for _, p := range []arenaPlayer{ann, bob} {
		if _, err := p.as.Join(ctx, e.ID); err != nil {
			t.Fatalf("%s joins: %v", p.rs.me.Name, err)
		}
	}
	v := waitArena(t, ann, e.ID, "paired", func(v lobby.ArenaView) bool { return v.You.State == lobby.ArenaPlaying })
	code := v.You.Code
	if err := ann.as.Berserk(code); err != nil {
		t.Fatalf("berserk: %v", err)
	}
	seat, err := ann.rs.Join(ctx, code)
	if err != nil {
		t.Fatalf("ann takes her seat: %v", err)
	}
	if seat.Snapshot.Arena.ID != e.ID || len(seat.Snapshot.Members) != 2 {
		t.Fatalf("ann's seat: arena %+v, %d members", seat.Snapshot.Arena, len(seat.Snapshot.Members))
	}
	if _, err := bob.rs.Join(ctx, code); err != nil {
		t.Fatalf("bob takes his seat: %v", err)
	}
	room, _ := f.app.rooms.Room(code)
	waitPhase(t, room, lobby.PhaseRacing)
	round := room.Round()
	// The race started on the rooms' clock (the real one): the arcade's,
	// which times the moves, is set to it, as a server's are one clock.
	clock.Advance(max(0, round.StartsAt.Sub(clock.Now())))
	if v := room.Snapshot().Verdict; v != engine.Winnable {
		t.Fatalf("the arena deal: %v", v)
	}
	g, err := engine.NewNumbered(engine.Classic(), round.Deal)
	if err != nil {
		t.Fatal(err)
	}
	sol := engine.Solve(ctx, g, 0)
	if sol.Verdict != engine.Winnable {
		t.Fatalf("solve the arena deal: %v", sol.Verdict)
	}
	// The club's page follows the arena: the top game's board, and a
	// change at each move.
	page := lobby.NewQueue(0, nil)
	stop := f.app.WatchArena(e.ID, page)
	defer stop()
	rec := engine.Record{Rules: round.RulesID, Deal: round.Deal}
	seq := 0
	for i, mv := range sol.Moves {
		rec.Moves = append(rec.Moves, mv.String())
		clock.Advance(time.Second) // a person's pace
		seq++
		if _, err := ann.rs.Play(ctx, code, round.Round, seq, rec); err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
		if i == len(sol.Moves)-2 {
			// ann, on top, still plays: hers is the top game.
			b, name, ok, err := f.app.ArenaTopBoard(ctx, e.ID)
			if err != nil || !ok || b.Record.Deal != round.Deal || len(b.Record.Moves) != i+1 || name != ann.rs.me.Name {
				t.Errorf("the top board while ann plays: %+v %q %v %v", b.Record, name, ok, err)
			}
		}
		if i == 2 {
			back := rec
			back.Moves = rec.Moves[:2]
			seq++
			if _, err := ann.rs.Play(ctx, code, round.Round, seq, back); !errors.Is(err, race.ErrBerserkUndo) {
				t.Fatalf("an undo after berserk: %v", err)
			}
		}
	}
	// ann cleared: she is free for her next game, and the game still
	// played, bob's, is the top one.
	waitArena(t, ann, e.ID, "ann free once her game is over", func(v lobby.ArenaView) bool { return v.You.State == lobby.ArenaFree })
	b, name, ok, err := f.app.ArenaTopBoard(ctx, e.ID)
	if err != nil || !ok || b.Record.Deal != round.Deal || len(b.Record.Moves) != 0 || name != bob.rs.me.Name {
		t.Errorf("the top board after ann's clear: %+v %q %v %v", b.Record, name, ok, err)
	}
	if evs, err := page.NextAll(ctx, nil); err != nil || len(evs) == 0 || evs[0] != (lobby.ArenaChanged{ID: e.ID}) {
		t.Errorf("the page heard %v, %v", evs, err)
	}
	if v, err := f.app.ArenaView(ctx, e.ID, 1); err != nil || len(v.Top) != 1 || v.Players != 2 || v.You.ID != "" {
		t.Errorf("a visitor's view: %+v, %v", v, err)
	}
	if err := bob.rs.Leave(code); err != nil {
		t.Fatalf("bob leaves: %v", err)
	}
	want := arena.WinPoints + arena.ClearBonus + arena.BerserkBonus
	v = waitArena(t, ann, e.ID, "scored", func(v lobby.ArenaView) bool { return v.You.Games == 1 })
	if v.You.Points != want || v.You.Rank != 1 || v.You.Berserks != 1 || v.You.State != lobby.ArenaFree {
		t.Errorf("ann's line: %+v", v.You)
	}
	stored, err := f.st.ArenaPlayer(ctx, e.ID, bob.rs.me.ID)
	if err != nil || stored.Points != 0 || stored.Games != 1 {
		t.Errorf("bob's stored line: %+v, %v", stored, err)
	}
	games, err := f.st.ArenaGames(ctx, e.ID, ann.rs.me.ID)
	if err != nil || len(games) != 1 || !games[0].Cleared || !games[0].Berserk || games[0].Points != want {
		t.Errorf("ann's games: %+v, %v", games, err)
	}
	// The two are paired again (bob left the race, not the arena).
	waitArena(t, bob, e.ID, "paired again", func(v lobby.ArenaView) bool { return v.You.State == lobby.ArenaPlaying && v.You.Code != code })
	if err := ann.as.Leave(e.ID); err != nil {
		t.Fatalf("ann leaves: %v", err)
	}
}

// TestArenaEventsReachTheTui: the arena's events are the tui's
// ArenaEventMsg.
func TestArenaEventsReachTheTui(t *testing.T) {
	for _, ev := range []lobby.Event{lobby.ArenaChanged{ID: 1}, lobby.ArenaPaired{ID: 1, Code: "K7QX"}, lobby.ArenaEnded{ID: 1}, lobby.ArenaTakenOver{ID: 1}} {
		msg, ok := message(ev)
		if am, is := msg.(tui.ArenaEventMsg); !ok || !is || am.Event != ev {
			t.Errorf("%T: %T %v", ev, msg, ok)
		}
	}
}
