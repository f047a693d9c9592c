package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
)

// fakeArenas is a server's arenas as one session sees them: it lists
// the events it holds, hands out its view and records what the session
// asks.
type fakeArenas struct {
	// clock, when set, is the harness's: a call made inside Update (I/O
	// there) fails the test.
	clock    *fakeClock
	mu       sync.Mutex
	list     []arena.Event
	view     lobby.ArenaView
	joinErr  error
	joins    []int64
	views    int
	pauses   []bool
	left     []int64
	berserks []string
	lists    int
}

// io fails the test when it is called inside Update.
func (f *fakeArenas) io() {
	if c := f.clock; c != nil {
		c.mu.Lock()
		in := c.inUpdate
		c.mu.Unlock()
		if in {
			c.t.Errorf("an arena call inside Update")
		}
	}
}

func (f *fakeArenas) List(ctx context.Context) ([]arena.Event, error) {
	f.io()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	return slices.Clone(f.list), nil
}

func (f *fakeArenas) Join(ctx context.Context, id int64) (lobby.ArenaView, error) {
	f.io()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.joins = append(f.joins, id)
	if f.joinErr != nil {
		return lobby.ArenaView{}, f.joinErr
	}
	return f.view, nil
}

func (f *fakeArenas) View(ctx context.Context, id int64) (lobby.ArenaView, error) {
	f.io()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views++
	return f.view, nil
}

// Pause records the pause and changes the player's state, as the
// server's next view would show it.
func (f *fakeArenas) Pause(id int64, paused bool) error {
	f.io()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pauses = append(f.pauses, paused)
	f.view.You.State, f.view.You.Idle = lobby.ArenaFree, false
	if paused {
		f.view.You.State = lobby.ArenaPaused
	}
	return nil
}

func (f *fakeArenas) Leave(id int64) error {
	f.io()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left = append(f.left, id)
	return nil
}

func (f *fakeArenas) Berserk(code string) error {
	f.io()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.berserks = append(f.berserks, code)
	return nil
}

// testArena is the arena of the tests: Friday Blitz, Classic, an hour
// from 20 minutes before epoch.
func testArena() lobby.ArenaInfo {
	return lobby.ArenaInfo{ID: 7, Name: "Friday Blitz", RulesID: engine.Classic().ID(), Start: epoch.Add(-20 * time.Minute),
		End: epoch.Add(40 * time.Minute), GameTime: 4 * time.Minute}
}

// arenaNames are the players of the test arena's standings, best first.
var arenaNames = []string{"bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory"}

// standing is line n (1-based) of a 40-player standings: alice, the
// player, is 38th; the two leaders are on a streak.
func standing(n int) lobby.ArenaStanding {
	name := "player" + strconv.Itoa(n)
	if n <= len(arenaNames) {
		name = arenaNames[n-1]
	}
	id := "p" + strconv.Itoa(n)
	if n == 38 {
		name, id = "alice", testPlayer.ID
	}
	s := lobby.ArenaStanding{Rank: n, ID: id, Name: name, State: lobby.ArenaPlaying,
		Line: arena.Line{Points: max(0, 30-n*3/4), Games: 8 - n/8, Wins: max(0, 5-n/5)}}
	if n <= 2 {
		s.Streak = 3
	}
	if n%3 == 0 {
		s.State = lobby.ArenaFree
	}
	return s
}

// arenaView is the view of alice, 38th of 40, in state st.
func arenaView(st lobby.ArenaState) lobby.ArenaView {
	v := lobby.ArenaView{Arena: testArena(), Now: epoch, Players: 40, Playing: 12, TopGame: "QRSV", TopNames: []string{"bob", "carol", "dave"}}
	for n := 1; n <= 10; n++ {
		v.Top = append(v.Top, standing(n))
	}
	for n := 36; n <= 40; n++ {
		v.Near = append(v.Near, standing(n))
	}
	v.You = standing(38)
	v.You.State = st
	if st == lobby.ArenaFree {
		v.FreeSince = epoch.Add(-time.Second)
	}
	if st == lobby.ArenaPlaying {
		v.You.Code = "ARNA"
	}
	for i := range v.Near {
		if v.Near[i].ID == v.You.ID {
			v.Near[i] = v.You
		}
	}
	return v
}

// arenaRoom is the arena's race in room code, of alice (p0) and three
// others, in phase.
func arenaRoom(code string, phase lobby.Phase) lobby.Snapshot {
	s := raceRoom(4, phase)
	s.Code, s.Host, s.Arena, s.TimeLimit = code, "", testArena(), 4*time.Minute
	s.Deadline = epoch.Add(4 * time.Minute)
	for i := range s.Members {
		s.Members[i].Host = false
	}
	return s
}

// arenaHarness opens a session with arenas and races, at the menu.
func arenaHarness(t *testing.T, st lobby.ArenaState, w, h int) (*harness, *fakeArenas, *fakeRaces) {
	t.Helper()
	fa := &fakeArenas{view: arenaView(st)}
	fa.list = []arena.Event{testArena().Event(), {ID: 8, Name: "Sunday Double", RulesID: engine.MustRules("double").ID(),
		Start: epoch.Add(85 * time.Minute), Duration: 2 * time.Hour}}
	fr := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: arenaRoom("ARNA", lobby.PhaseCountdown)}}
	hs := newHarness(t, Deps{Arenas: fa, Races: fr, Player: testPlayer, Unicode: true, Width: w, Height: h})
	fa.clock = hs.clock
	return hs, fa, fr
}

// joinArena opens the menu's Arenas and joins the first, running one.
func joinArena(h *harness) {
	h.t.Helper()
	h.open(itemArenas)
	h.keys("enter")
	if h.m.cur != screenArena || h.m.arena().stage != arenaIn {
		h.t.Fatalf("not in the arena:\n%s", h.screen())
	}
}

// TestArenaMenuItem: the menu offers Arenas only with Deps.Arenas.
func TestArenaMenuItem(t *testing.T) {
	h, _, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	h.menuTo(itemArenas)
	h.wantScreen("Arenas")
	plain := newHarness(t, Deps{Races: &fakeRaces{}, Player: testPlayer, Unicode: true})
	plain.m.menu().show(true)
	if plain.m.menu().firstOf(itemArenas) >= 0 {
		t.Error("the menu offers Arenas without Deps.Arenas")
	}
}

// TestArenaGolden: the list of arenas, the arena screen (free, playing,
// paused; your line near the bottom of 40 players, the leaders on a
// streak) and the arena's results, at 80×24, and the arena screen at
// 40×20; every screen fits 200×60.
func TestArenaGolden(t *testing.T) {
	tests := []struct {
		name  string
		st    lobby.ArenaState
		w, h  int
		setup func(h *harness, fa *fakeArenas)
		want  []string
	}{
		{"arena_list_80x24", lobby.ArenaFree, 80, 24, func(h *harness, fa *fakeArenas) { h.open(itemArenas) },
			[]string{"Friday Blitz", "running · 40:00 left", "Sunday Double", "in 1 h 25 min, 13:25 UTC", "enter join"}},
		{"arena_free_80x24", lobby.ArenaFree, 80, 24, func(h *harness, fa *fakeArenas) { joinArena(h) },
			[]string{"40:00 left of 1 h", "40 players", "free: paired in 1 s", "> 38. alice", "🔥", "w watch"}},
		{"arena_playing_80x24", lobby.ArenaFree, 80, 24, func(h *harness, fa *fakeArenas) {
			joinArena(h)
			fa.view = arenaView(lobby.ArenaPlaying)
			h.send(ArenaEventMsg{Event: lobby.ArenaChanged{ID: 7}})
		},
			[]string{"playing in room ARNA (enter: back to your race)", "Top game: bob, carol, dave"}},
		{"arena_paused_80x24", lobby.ArenaFree, 80, 24, func(h *harness, fa *fakeArenas) { joinArena(h); h.keys("p") },
			[]string{"paused: you are not paired until p resumes", "p resume"}},
		{"arena_paused_idle_80x24", lobby.ArenaFree, 80, 24, func(h *harness, fa *fakeArenas) {
			joinArena(h)
			fa.view = arenaView(lobby.ArenaPaused)
			fa.view.You.Idle = true
			h.send(ArenaEventMsg{Event: lobby.ArenaChanged{ID: 7}})
		}, []string{"paused: no move in your last race's first 30 s; p resumes", "p resume"}},
		{"arena_free_40x20", lobby.ArenaFree, 40, 20, func(h *harness, fa *fakeArenas) { joinArena(h) },
			[]string{"> 38. alice", "free: paired in 1 s"}},
		{"arena_results_80x24", lobby.ArenaFree, 80, 24, func(h *harness, fa *fakeArenas) {
			joinArena(h)
			fa.view.Over = true
			h.send(ArenaEventMsg{Event: lobby.ArenaEnded{ID: 7}})
		}, []string{"Friday Blitz · results", "1st  bob", "You: 38th of 40", "q menu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, fa, _ := arenaHarness(t, tt.st, tt.w, tt.h)
			tt.setup(h, fa)
			s := h.screen()
			checkShape(t, h.m.View(), tt.w, tt.h)
			for _, want := range tt.want {
				if !strings.Contains(s, want) {
					t.Errorf("the screen lacks %q:\n%s", want, s)
				}
			}
			golden(t, tt.name, s)
			h.resize(200, 60)
			checkShape(t, h.m.View(), 200, 60)
			h.resize(40, 20)
			checkShape(t, h.m.View(), 40, 20)
		})
	}
}

// TestArenaJoinRefused: a refused join says why on the list.
func TestArenaJoinRefused(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	fa.joinErr = errors.New("arenas need a key: guests may watch")
	h.open(itemArenas)
	h.keys("enter")
	if a := h.m.arena(); h.m.cur != screenArena || a.stage != arenaListing {
		t.Fatalf("not back on the list:\n%s", h.screen())
	}
	h.wantScreen("arenas need a key: guests may watch")
}

// TestArenaClock: the time left ticks on the clock's readings, from the
// view's time, and the wait of a free player counts down.
func TestArenaClock(t *testing.T) {
	h, _, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	fa := h.m.env.arenas.(*fakeArenas)
	// Nobody else is free: the player waits for the games that run.
	for i := range fa.view.Top {
		fa.view.Top[i].State = lobby.ArenaPlaying
	}
	for i := range fa.view.Near {
		if fa.view.Near[i].ID != testPlayer.ID {
			fa.view.Near[i].State = lobby.ArenaPlaying
		}
	}
	joinArena(h)
	h.wantScreen("40:00 left", "free: waiting for players (a solo deal in 19 s if nobody comes)")
	h.send(arenaClockMsg{now: epoch.Add(5 * time.Second)})
	h.wantScreen("39:55 left", "a solo deal in 14 s")
	h.send(arenaClockMsg{now: epoch.Add(30 * time.Second)})
	h.wantScreen("39:30 left", "free: waiting for players (a solo deal any moment)")
}

// TestArenaLastMinute: as the clock reaches the arena's last minute, in
// which no race is paired (one needs a minute after its countdown before
// the end), a free player is told so rather than that pairing comes.
func TestArenaLastMinute(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	fa.view.Arena.End = epoch.Add(lobby.MinTimeLimit + lobby.CountdownTime + time.Second)
	joinArena(h)
	h.wantScreen("1:04 left", "free: paired in 1 s")
	h.send(arenaClockMsg{now: epoch.Add(2 * time.Second)})
	h.wantScreen("1:02 left", "free: no new race in the arena's last minute")
	h.wantNotScreen("paired in", "solo deal")
}

// TestArenaPause: p pauses and resumes the player's pairing.
func TestArenaPause(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	h.keys("p")
	h.wantScreen("paused: you are not paired until p resumes")
	h.keys("p")
	h.wantScreen("free: paired in")
	if !slices.Equal(fa.pauses, []bool{true, false}) {
		t.Errorf("pauses %v, want [true false]", fa.pauses)
	}
}

// TestArenaLeave: q leaves the arena's pairing and goes back to the
// menu; the arena screen is let go of.
func TestArenaLeave(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	h.keys("q")
	if h.m.cur != screenMenu || h.m.arena() != nil {
		t.Fatalf("not back at the menu:\n%s", h.screen())
	}
	if !slices.Equal(fa.left, []int64{7}) {
		t.Errorf("left %v, want [7]", fa.left)
	}
}

// TestArenaChangedAsksView: an ArenaChanged asks for the view, which
// redraws the standings.
func TestArenaChangedAsksView(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	before := fa.views
	fa.view.Top[0].Points = 99
	h.send(ArenaEventMsg{Event: lobby.ArenaChanged{ID: 7}})
	if fa.views != before+1 {
		t.Errorf("views %d, want %d", fa.views, before+1)
	}
	if l := lineOf(h.screen(), "bob"); !strings.Contains(l, "99") {
		t.Errorf("bob's line %q does not show the new points", l)
	}
	h.send(ArenaEventMsg{Event: lobby.ArenaChanged{ID: 8}})
	if fa.views != before+1 {
		t.Error("another arena's change asked for a view")
	}
}

// TestArenaWatchTopGame: w watches the top game through the race's
// spectating, and q comes back to the arena.
func TestArenaWatchTopGame(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	fr.seat = RaceSeat{You: "p0", Snapshot: arenaRoom("QRSV", lobby.PhaseRacing)}
	joinArena(h)
	h.keys("w")
	rs := h.m.race()
	if h.m.cur != screenRace || rs == nil || !rs.watching || rs.snap.Code != "QRSV" {
		t.Fatalf("not watching room QRSV:\n%s", h.screen())
	}
	h.keys("q")
	if h.m.cur != screenArena {
		t.Fatalf("not back in the arena:\n%s", h.screen())
	}
}

// TestArenaEnded: ArenaEnded shows the results (asked for anew), and a
// key goes back to the menu.
func TestArenaEnded(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	fa.view.Over = true
	fa.view.You.Points = 7
	h.send(ArenaEventMsg{Event: lobby.ArenaEnded{ID: 7}})
	if a := h.m.arena(); a.stage != arenaOver {
		t.Fatalf("stage %v, want the results", a.stage)
	}
	h.wantScreen("1st  bob", "2nd  carol", "3rd  dave", "You: 38th of 40 · 7 points")
	h.keys("enter")
	if h.m.cur != screenMenu || h.m.arena() != nil {
		t.Fatalf("not back at the menu:\n%s", h.screen())
	}
	if len(fa.left) != 0 {
		t.Errorf("left an arena that is over: %v", fa.left)
	}
}

// TestArenaTakenOver: another session of the player joined the arena:
// this one goes back to the list, saying why, and leaves nothing (the
// other session holds the arena).
func TestArenaTakenOver(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	h.send(ArenaEventMsg{Event: lobby.ArenaTakenOver{ID: 8}})
	if h.m.arena().stage != arenaIn {
		t.Fatal("another arena's takeover moved this one")
	}
	h.send(ArenaEventMsg{Event: lobby.ArenaTakenOver{ID: 7}})
	if a := h.m.arena(); a.stage != arenaListing {
		t.Fatalf("stage %v, want the list", a.stage)
	}
	h.wantScreen("you joined this arena in another session", "Sunday Double")
	if len(fa.left) != 0 {
		t.Errorf("left %v: the other session holds the arena", fa.left)
	}
}

// TestArenaEndedWithoutPoints: an arena nobody scored in has no podium,
// and says so, rather than crowning players who played nothing.
func TestArenaEndedWithoutPoints(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	fa.view.Over = true
	for i := range fa.view.Top {
		fa.view.Top[i].Points, fa.view.Top[i].Rank = 0, 0
	}
	h.send(ArenaEventMsg{Event: lobby.ArenaEnded{ID: 7}})
	h.wantScreen("Nobody scored a point.")
	h.wantNotScreen("1st  bob")
}

// TestArenaPodiumThirdWithoutPoint: a third without a point has no
// place on the results' podium, as arena ID prints it, and the
// standings under it list every player, that one too.
func TestArenaPodiumThirdWithoutPoint(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	line := func(rank int, name string, points int) lobby.ArenaStanding {
		return lobby.ArenaStanding{Rank: rank, ID: "id-" + name, Name: name, Line: arena.Line{Points: points, Games: 1}}
	}
	fa.view = lobby.ArenaView{Arena: testArena(), Now: epoch, Over: true, Players: 4,
		Top: []lobby.ArenaStanding{line(1, "ann", 4), line(2, "cat", 2), line(3, "bob", 0), line(4, "dan", 0)}}
	fa.view.You = fa.view.Top[2]
	fa.view.You.ID = testPlayer.ID
	h.send(ArenaEventMsg{Event: lobby.ArenaEnded{ID: 7}})
	h.wantScreen("1st  ann  4 points", "2nd  cat  2 points", "You: 3rd of 4 · 0 points", "3. bob", "4. dan")
	if s := h.screen(); strings.Contains(s, "3rd  bob") || strings.Contains(s, "Nobody") {
		t.Errorf("the podium: want ann and cat only:\n%s", s)
	}

	// Two sharing third place with a point are both on the podium, as
	// their trophies are; a fourth is not.
	fa.view.Top = []lobby.ArenaStanding{line(1, "ann", 4), line(2, "cat", 3), line(3, "bob", 1), line(3, "dan", 1), line(5, "eve", 1)}
	h.send(ArenaEventMsg{Event: lobby.ArenaEnded{ID: 7}})
	h.wantScreen("1st  ann  4 points", "2nd  cat  3 points", "3rd  bob  1 point", "3rd  dan  1 point")
	h.wantNotScreen("5th  eve")
}

// TestArenaJoinOver: joining an arena that is over (its deep link after
// its end) shows its results rather than a refusal.
func TestArenaJoinOver(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	fa.joinErr = lobby.ErrArenaOver
	fa.view.Over = true
	h.open(itemArenas)
	h.keys("enter")
	if a := h.m.arena(); h.m.cur != screenArena || a.stage != arenaOver {
		t.Fatalf("not at the arena's results:\n%s", h.screen())
	}
	h.wantScreen("Friday Blitz · results", "1st  bob", "You: 38th of 40")
}

// TestArenaASCII: without Unicode the arena screens, the streak mark
// and an arena race's countdown are plain ASCII.
func TestArenaASCII(t *testing.T) {
	fa := &fakeArenas{view: arenaView(lobby.ArenaFree), list: []arena.Event{testArena().Event()}}
	fr := &fakeRaces{}
	h := newHarness(t, Deps{Arenas: fa, Races: fr, Player: testPlayer})
	h.open(itemArenas)
	screens := []string{h.screen()}
	h.keys("enter")
	screens = append(screens, h.screen())
	if l := lineOf(h.screen(), "bob"); !strings.Contains(l, "*") {
		t.Errorf("bob's line has no streak mark: %q", l)
	}
	fr.seat = RaceSeat{You: "p0", Snapshot: arenaRoom("ARNA", lobby.PhaseCountdown)}
	h.send(ArenaEventMsg{Event: lobby.ArenaPaired{ID: 7, Code: "ARNA"}})
	screens = append(screens, h.screen())
	fa.view.Over = true
	h.send(ArenaEventMsg{Event: lobby.ArenaEnded{ID: 7}})
	h.send(arenaNextMsg{code: "ARNA", round: 1}) // no results: stays
	for _, s := range screens {
		for _, r := range s {
			if r > 127 {
				t.Errorf("%q in an ASCII screen:\n%s", r, s)
				break
			}
		}
	}
}

// TestArenaStandingsNearTop: a player just under the top lines has their
// lines after the top's without a gap (in a window that holds them all),
// and lines both hold are drawn once.
func TestArenaStandingsNearTop(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 30)
	v := &fa.view
	v.Near = nil
	for n := 9; n <= 13; n++ {
		s := standing(n)
		if n == 11 {
			s.ID, s.Name = testPlayer.ID, "alice"
			v.You = s
		}
		v.Near = append(v.Near, s)
	}
	joinArena(h)
	s := h.screen()
	if strings.Contains(s, "⋮") {
		t.Errorf("a gap between lines that follow each other:\n%s", s)
	}
	if n := strings.Count(s, "judy"); n != 1 {
		t.Errorf("judy (9th, in both) drawn %d times:\n%s", n, s)
	}
	h.wantScreen("> 11. alice")
}

// TestArenaStandingsWideRanks: ranks of three digits keep the names in
// one column.
func TestArenaStandingsWideRanks(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	fa.view.Players = 120
	for i := range fa.view.Near {
		fa.view.Near[i].Rank += 80
	}
	fa.view.You.Rank += 80
	joinArena(h)
	s := h.screen()
	bob, alice := lineOf(s, "bob"), lineOf(s, "alice")
	if strings.Index(bob, "bob") != strings.Index(alice, "alice") || !strings.Contains(alice, "118. alice") {
		t.Errorf("the names are not in one column:\n%s\n%s", bob, alice)
	}
}

// TestArenaAwaitsItsStart: the list's "starts in" counts down on the
// clock; a player who asks to join an arena that has not started (enter
// on it, or ssh -t HOST arena ID before its start) is told when it starts
// and joined as it does, with no key pressed; the list is asked anew as
// an arena of it starts.
func TestArenaAwaitsItsStart(t *testing.T) {
	h, fa, _ := arenaHarness(t, lobby.ArenaFree, 80, 24)
	h.open(itemArenas)
	h.wantScreen("Sunday Double", "in 1 h 25 min, 13:25 UTC")
	h.keys("down", "enter")
	h.wantScreen("Sunday Double starts at 13:25 UTC: you join it then")
	if len(fa.joins) != 0 {
		t.Fatalf("joins %v before the start", fa.joins)
	}
	tickTo(h, epoch.Add(84*time.Minute))
	h.wantScreen("in 1 min, 13:25 UTC")
	lists := fa.lists
	tickTo(h, epoch.Add(85*time.Minute+time.Second))
	if !slices.Equal(fa.joins, []int64{8}) || h.m.arena().stage != arenaIn {
		t.Fatalf("joins %v, stage %v as the arena starts, want in arena 8:\n%s", fa.joins, h.m.arena().stage, h.screen())
	}
	if fa.lists != lists {
		t.Errorf("the list was asked again on the way into the arena")
	}

	// The deep link, before the start: the server refuses the join; the
	// screen lists the arenas and waits for it.
	soon := &fakeArenas{view: arenaView(lobby.ArenaFree), list: []arena.Event{{ID: 8, Name: "Sunday Double",
		RulesID: engine.MustRules("double").ID(), Start: epoch.Add(time.Minute), Duration: time.Hour}},
		joinErr: fmt.Errorf("Sunday Double starts at 12:01 Mar 1 UTC, in 1m0s: %w", lobby.ErrArenaNotYet)}
	link := newHarness(t, Deps{Args: []string{"arena", "8"}, Arenas: soon, Races: &fakeRaces{}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	soon.clock = link.clock
	link.wantScreen("Sunday Double starts at 12:01 UTC: you join it then")
	soon.mu.Lock()
	soon.joinErr = nil
	soon.mu.Unlock()
	tickTo(link, epoch.Add(30*time.Second))
	if len(soon.joins) != 1 {
		t.Fatalf("joins %v before the start, want the link's one", soon.joins)
	}
	tickTo(link, epoch.Add(time.Minute))
	if len(soon.joins) != 2 || link.m.arena().stage != arenaIn {
		t.Fatalf("joins %v, stage %v at the start, want in the arena:\n%s", soon.joins, link.m.arena().stage, link.screen())
	}

	// An arena that ends while the list shows: the list is asked anew.
	over := &fakeArenas{list: []arena.Event{{ID: 9, Name: "Short", RulesID: engine.MustRules("classic").ID(), Start: epoch.Add(-time.Hour), Duration: time.Hour + time.Minute}}}
	ol := newHarness(t, Deps{Args: []string{"arena"}, Arenas: over, Races: &fakeRaces{}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	over.clock = ol.clock
	ol.wantScreen("running · 1:00 left")
	before := over.lists
	tickTo(ol, epoch.Add(2*time.Minute))
	if over.lists != before+1 {
		t.Errorf("lists %d after the arena ended, want %d", over.lists, before+1)
	}
}

// tickTo sets the harness's clock to at and ticks the arena screen.
func tickTo(h *harness, at time.Time) {
	h.t.Helper()
	h.clock.advance(at.Sub(h.clock.Now()))
	h.send(arenaClockMsg{now: at})
}
