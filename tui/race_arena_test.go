package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/rating"
)

// pairInto sends the arena's pairing into room code, whose seat the fake
// rooms hold in phase.
func pairInto(h *harness, fr *fakeRaces, code string, phase lobby.Phase) {
	h.t.Helper()
	fr.seat = RaceSeat{You: "p0", Snapshot: arenaRoom(code, phase)}
	h.send(ArenaEventMsg{Event: lobby.ArenaPaired{ID: 7, Code: code}})
	rs := h.m.race()
	if h.m.cur != screenRace || rs == nil || rs.snap.Code != code {
		h.t.Fatalf("not in room %s:\n%s", code, h.screen())
	}
}

// startRace starts the race of the room the player is in.
func startRace(h *harness, code string) {
	h.t.Helper()
	h.send(RaceEventMsg{Event: lobby.RaceStarted{Code: code, Round: 1, Deadline: epoch.Add(4 * time.Minute)}})
	if h.m.race().mode() != modeRacing {
		h.t.Fatalf("not racing:\n%s", h.screen())
	}
}

// endRace ends the race of the room the player is in, alice second.
func endRace(h *harness, code string) {
	h.t.Helper()
	h.send(RaceEventMsg{Event: lobby.RaceEnded{Code: code, Round: 1, Results: []lobby.Placing{
		{Place: 1, ID: "p1", Name: "racer1", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 83 * time.Second},
		{Place: 2, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 38, Time: 75 * time.Second},
		{Place: 3, ID: "p2", Name: "racer2", State: lobby.RacerStuck, Removed: 12, Moves: 30, Time: 65 * time.Second},
		{Place: 4, ID: "p3", Name: "racer3", State: lobby.RacerStuck, Removed: 2, Moves: 3, Time: 5 * time.Second},
	}}})
	if h.m.race().mode() != modeResults {
		h.t.Fatalf("no results:\n%s", h.screen())
	}
}

// TestArenaRaceFlow: paired, the race screen joins the room; the race
// runs under the arena's name and the player's points; its results say
// the next game comes soon and go back to the arena after a while; paired
// again, the next race shows; paired while its results show, the next
// one straight away (the room of the results left first).
func TestArenaRaceFlow(t *testing.T) {
	h, fa, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseCountdown)
	h.wantScreen("Friday Blitz · 2 points · room ARNA", "The race starts in", "b berserk")
	h.wantNotScreen("ready", "host")
	startRace(h, "ARNA")
	h.wantScreen("Friday Blitz · 2 points · Classic · hidden deal")
	// Another race of the arena scored the player: the header follows.
	fa.view.You.Points = 5
	h.send(ArenaEventMsg{Event: lobby.ArenaChanged{ID: 7}})
	h.wantScreen("Friday Blitz · 5 points · Classic · hidden deal")
	endRace(h, "ARNA")
	h.wantScreen("Next game soon: back to the arena in a few seconds (enter: now).", "enter arena")
	// The server closes an arena's room after its race: the results
	// stay.
	h.send(RaceEventMsg{Event: lobby.RoomClosed{Code: "ARNA", Reason: "the race is over"}})
	if h.m.cur != screenRace {
		t.Fatalf("the room's close took the results away:\n%s", h.screen())
	}
	h.wantNotScreen("rematch")
	h.keys("r")
	h.wantScreen("the arena pairs your next race")

	views := fa.views
	h.send(arenaNextMsg{code: "ARNA", round: 1})
	if h.m.cur != screenArena || h.m.race() != nil {
		t.Fatalf("not back in the arena:\n%s", h.screen())
	}
	if fr.left != 1 {
		t.Errorf("rooms left %d, want 1", fr.left)
	}
	if fa.views != views+1 {
		t.Errorf("the arena was not asked for anew (views %d, want %d)", fa.views, views+1)
	}

	pairInto(h, fr, "BRNB", lobby.PhaseCountdown)
	startRace(h, "BRNB")
	endRace(h, "BRNB")
	pairInto(h, fr, "CRNC", lobby.PhaseCountdown)
	if fr.left != 2 {
		t.Errorf("rooms left %d, want 2: the results' room is left for the next race", fr.left)
	}
	// The old room's timer, when it comes, changes nothing.
	h.send(arenaNextMsg{code: "BRNB", round: 1})
	if h.m.cur != screenRace || h.m.race().snap.Code != "CRNC" {
		t.Fatalf("the old results' timer left the new race:\n%s", h.screen())
	}
}

// TestArenaSoloResults: the results of an arena's solo deal say it is
// one, and leave out the ratings' "no race", which said nothing of the
// arena's points.
func TestArenaSoloResults(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	fr.seat = RaceSeat{You: "p0", Snapshot: arenaRoom("SOLO", lobby.PhaseRacing)}
	fr.seat.Snapshot.Members = fr.seat.Snapshot.Members[:1]
	h.send(ArenaEventMsg{Event: lobby.ArenaPaired{ID: 7, Code: "SOLO"}})
	h.send(RaceEventMsg{Event: lobby.RaceEnded{Code: "SOLO", Round: 1, Results: []lobby.Placing{
		{Place: 1, ID: "p0", Name: "racer0", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 63, Time: 35 * time.Second,
			Rating: &lobby.RatingChange{ID: "p0", Standing: rating.Aborted, Reason: rating.ReasonFewMovers}},
	}}})
	h.wantScreen("A solo deal of the arena (nobody else was free)", "Next game soon")
	h.wantNotScreen("no race", "fewer than two racers")
	// A race of two where the other never moved is a race: the ratings
	// say why it did not count.
	pairInto(h, fr, "DUOS", lobby.PhaseRacing)
	h.send(RaceEventMsg{Event: lobby.RaceEnded{Code: "DUOS", Round: 1, Results: []lobby.Placing{
		{Place: 1, ID: "p0", Name: "racer0", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 63, Time: 35 * time.Second,
			Rating: &lobby.RatingChange{ID: "p0", Standing: rating.Aborted, Reason: rating.ReasonFewMovers}},
		{Place: 2, ID: "p1", Name: "racer1", State: lobby.RacerLeft,
			Rating: &lobby.RatingChange{ID: "p1", Standing: rating.Aborted, Reason: rating.ReasonFewMovers}},
	}}})
	h.wantScreen("no race: fewer than two racers with a key moved")
	h.wantNotScreen("A solo deal of the arena")
}

// TestArenaRaceResultsKey: enter on an arena race's results goes back
// to the arena at once.
func TestArenaRaceResultsKey(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseRacing)
	endRace(h, "ARNA")
	h.keys("enter")
	if h.m.cur != screenArena {
		t.Fatalf("not back in the arena:\n%s", h.screen())
	}
}

// TestArenaBerserk: b in the countdown goes berserk; the race then
// refuses undo, and the panel marks the berserk racers.
func TestArenaBerserk(t *testing.T) {
	h, fa, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseCountdown)
	checkShape(t, h.m.View(), 80, 24)
	golden(t, "arena_countdown_80x24", h.screen())
	h.keys("b")
	if !slices.Equal(fa.berserks, []string{"ARNA"}) {
		t.Fatalf("berserks %v, want [ARNA]", fa.berserks)
	}
	h.wantScreen("You went berserk: no undo in this race")
	h.wantNotScreen("b berserk")
	// The room's snapshot marks it, and another racer's.
	snap := arenaRoom("ARNA", lobby.PhaseCountdown)
	snap.Seq++
	snap.Members[0].Berserk, snap.Members[2].Berserk = true, true
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: snap}})
	golden(t, "arena_countdown_berserk_80x24", h.screen())
	h.keys("b")
	if len(fa.berserks) != 1 {
		t.Errorf("berserk asked again: %v", fa.berserks)
	}

	startRace(h, "ARNA")
	// 8♣ (7.1) and 5♠ (7.5) of deal 42 make 13.
	h.keys(":")
	h.typeText("7.1+7.5")
	h.keys("enter")
	rs := h.m.race()
	if got := rs.table.game.Removed(); got != 2 {
		t.Fatalf("removed %d, want 2:\n%s", got, h.screen())
	}
	h.keys("u")
	if got := rs.table.game.Removed(); got != 2 {
		t.Errorf("undo took the pair back in a berserk race: removed %d", got)
	}
	h.wantScreen("berserk: no undo in this race")
	h.wantNotScreen("u undo")
	if l := lineOf(h.screen(), "racer2"); !strings.Contains(l, "racer2!") {
		t.Errorf("racer2's panel line has no berserk mark: %q", l)
	}
	h.wantScreen(">racer0!")
}

// TestArenaRaceGolden: an arena race's header names the arena and the
// player's points, at 80×24, and its results say the next game comes.
func TestArenaRaceGolden(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseCountdown)
	startRace(h, "ARNA")
	s := h.screen()
	checkShape(t, h.m.View(), 80, 24)
	if first := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(first, "Friday Blitz · 2 points · Classic · hidden deal") {
		t.Errorf("the header: %q", first)
	}
	golden(t, "arena_race_80x24", s)
	endRace(h, "ARNA")
	checkShape(t, h.m.View(), 80, 24)
	golden(t, "arena_race_results_80x24", h.screen())
}

// TestArenaLeaveRace: q q in an arena race leaves the race for the
// arena screen, not the menu; enter there goes back to the race while it
// runs.
func TestArenaLeaveRace(t *testing.T) {
	h, fa, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseRacing)
	h.keys("q", "q")
	if h.m.cur != screenArena {
		t.Fatalf("not back in the arena:\n%s", h.screen())
	}
	if fr.left != 1 {
		t.Errorf("rooms left %d, want 1", fr.left)
	}
	// The race runs on: enter goes back to it.
	fa.view = arenaView(lobby.ArenaPlaying)
	h.send(ArenaEventMsg{Event: lobby.ArenaChanged{ID: 7}})
	h.keys("enter")
	if rs := h.m.race(); h.m.cur != screenRace || rs == nil || rs.snap.Code != "ARNA" {
		t.Fatalf("not back in the race:\n%s", h.screen())
	}
}

// TestArenaPairedWhileRacing: a pairing that comes while the player
// still plays a race does not take them from it.
func TestArenaPairedWhileRacing(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseRacing)
	fr.seat = RaceSeat{You: "p0", Snapshot: arenaRoom("BRNB", lobby.PhaseCountdown)}
	h.send(ArenaEventMsg{Event: lobby.ArenaPaired{ID: 7, Code: "BRNB"}})
	if rs := h.m.race(); rs.snap.Code != "ARNA" || rs.table.game.Status() != engine.Playing {
		t.Errorf("the race in room ARNA was left for %s", rs.snap.Code)
	}
}

// TestArenaBackMidRace: joining an arena again after a drop, in the
// middle of a race, goes back to that race.
func TestArenaBackMidRace(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaPlaying, 80, 24)
	fr.seat = RaceSeat{You: "p0", Snapshot: arenaRoom("ARNA", lobby.PhaseRacing)}
	h.open(itemArenas)
	h.keys("enter")
	if rs := h.m.race(); h.m.cur != screenRace || rs == nil || rs.snap.Code != "ARNA" || rs.mode() != modeRacing {
		t.Fatalf("not back in the race of room ARNA:\n%s", h.screen())
	}
}

// TestArenaRaceHostLeaves: the racer the arena's room names its host
// drops mid-race; the room's host passes to the player, who is told
// nothing of it (no host starts an arena's races).
func TestArenaRaceHostLeaves(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	snap := arenaRoom("ARNA", lobby.PhaseRacing)
	snap.Host = "p1"
	fr.seat = RaceSeat{You: "p0", Snapshot: snap}
	h.send(ArenaEventMsg{Event: lobby.ArenaPaired{ID: 7, Code: "ARNA"}})
	if rs := h.m.race(); rs == nil || rs.mode() != modeRacing {
		t.Fatalf("not racing in room ARNA:\n%s", h.screen())
	}
	next := snap
	next.Seq, next.Host = snap.Seq+1, "p0"
	next.Members = slices.Clone(snap.Members)
	for i := range next.Members {
		if next.Members[i].ID == "p1" {
			next.Members[i].Present = false
		}
	}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	h.wantNotScreen("host", "s starts")
}

// TestArenaRaceFits: an arena race's countdown, race and results fit
// 40×20 and 200×60.
func TestArenaRaceFits(t *testing.T) {
	h, _, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseCountdown)
	check := func(what string) {
		t.Helper()
		for _, sz := range [][2]int{{40, 20}, {200, 60}, {80, 24}} {
			h.resize(sz[0], sz[1])
			if h.m.tooSmall() {
				t.Errorf("%s at %d×%d: too small:\n%s", what, sz[0], sz[1], h.screen())
			}
			checkShape(t, h.m.View(), sz[0], sz[1])
		}
	}
	h.keys("b")
	check("the countdown")
	startRace(h, "ARNA")
	check("the race")
	endRace(h, "ARNA")
	check("the results")
}

// TestArenaForfeited: the arena takes the player out of a race they made
// no move in: back on the arena screen, told why, paused for not moving
// until p resumes; a forfeit of another room or round changes nothing.
func TestArenaForfeited(t *testing.T) {
	h, fa, fr := arenaHarness(t, lobby.ArenaFree, 80, 24)
	joinArena(h)
	pairInto(h, fr, "ARNA", lobby.PhaseCountdown)
	startRace(h, "ARNA")
	h.send(RaceEventMsg{Event: lobby.Forfeited{Code: "ARNA", Round: 2, Arena: 7}})
	h.send(RaceEventMsg{Event: lobby.Forfeited{Code: "ZZZZ", Round: 1, Arena: 7}})
	if h.m.cur != screenRace {
		t.Fatalf("a forfeit of another race took the player out of theirs:\n%s", h.screen())
	}
	fa.view = arenaView(lobby.ArenaPaused)
	fa.view.You.Idle = true
	h.send(RaceEventMsg{Event: lobby.Forfeited{Code: "ARNA", Round: 1, Arena: 7}})
	if h.m.cur != screenArena {
		t.Fatalf("not back on the arena screen after a forfeit:\n%s", h.screen())
	}
	h.wantScreen("no move in the race's first 30 s: you are out of it (as left) and paused",
		"paused: no move in your last race's first 30 s; p resumes", "p resume")
	h.keys("p")
	h.wantScreen("free")
	h.wantNotScreen("no move in your last race")
	if !slices.Equal(fa.pauses, []bool{false}) {
		t.Errorf("pauses %v, want one resume", fa.pauses)
	}
}
