package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pyramid/lobby"
	"pyramid/rating"
)

// TestRaceUnratedSaid: a room on a chosen deal says so on the waiting
// room, the race panel's header and the results, at 80×24; a rated
// room's screens do not.
func TestRaceUnratedSaid(t *testing.T) {
	results := []lobby.Placing{
		{Place: 1, ID: "p1", Name: "racer1", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 83 * time.Second},
		{Place: 2, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 38, Time: 75 * time.Second},
		{Place: 3, ID: "p2", Name: "racer2", State: lobby.RacerStuck, Removed: 12, Moves: 30, Time: 65 * time.Second},
		{Place: 4, ID: "p3", Name: "racer3", State: lobby.RacerLeft, Removed: 2, Moves: 3, Time: 5 * time.Second},
	}
	for _, rated := range []bool{false, true} {
		for _, phase := range []lobby.Phase{lobby.PhaseWaiting, lobby.PhaseRacing, lobby.PhaseResults} {
			name := "race_" + phase.String() + "_unrated_80x24"
			if rated {
				name = "race_" + phase.String() + "_rated_80x24"
			}
			t.Run(name, func(t *testing.T) {
				snap := raceRoom(4, phase)
				snap.Rated = rated
				if phase == lobby.PhaseResults {
					snap.Results = results
				}
				h, _ := raceHarness(t, snap, 80, 24)
				s := screenOf(h)
				checkShape(t, s, 80, 24)
				if has := strings.Contains(s, "unrated: chosen deal"); has == rated {
					t.Errorf("rated %v: the screen says \"unrated: chosen deal\" %v, want %v:\n%s", rated, has, !rated, s)
				}
				golden(t, name, s)
			})
		}
	}
}

// TestLobbyRoomUnrated: the Lobby's list of public rooms says which are
// unrated (a deal their host chose).
func TestLobbyRoomUnrated(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1}}
	fl.rooms = []lobby.RoomInfo{
		{Code: "KMTX", RulesTitle: "Classic", Phase: lobby.PhaseWaiting, Players: 2, MaxPlayers: 8, Host: "bob", Rated: true},
		{Code: "QRSV", RulesTitle: "Classic", Phase: lobby.PhaseWaiting, Players: 1, MaxPlayers: 8, Host: "cat"},
	}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
	h.open(itemLobby)
	s := h.screen()
	if l := lineWith(s, "KMTX"); l == "" || strings.Contains(l, "unrated") {
		t.Errorf("a rated room's line: %q", l)
	}
	if l := lineWith(s, "QRSV"); !strings.HasSuffix(strings.TrimSpace(l), "host cat · unrated") {
		t.Errorf("an unrated room's line: %q", l)
	}
}

// TestRaceResultsRatingChange: the results come first; the ratings come
// a moment later (the lease holder stored the race) and show each
// racer's change, "?" for a provisional rating, and why the race did not
// count for those it did not count for, at 80×24.
func TestRaceResultsRatingChange(t *testing.T) {
	snap := raceRoom(4, lobby.PhaseResults)
	snap.Results = []lobby.Placing{
		{Place: 1, ID: "p1", Name: "racer1", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 83 * time.Second},
		{Place: 2, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 38, Time: 75 * time.Second},
		{Place: 3, ID: "p2", Name: "racer2", State: lobby.RacerStuck, Removed: 12, Moves: 30, Time: 65 * time.Second},
		{Place: 4, ID: "p3", Name: "racer3", State: lobby.RacerLeft, Removed: 0, Moves: 0},
		{Place: 5, ID: "g1", Name: "guest1", Guest: true, State: lobby.RacerLeft},
	}
	h, _ := raceHarness(t, snap, 80, 24)
	before := screenOf(h)
	if strings.Contains(before, "→") || strings.Contains(before, "unrated:") {
		t.Errorf("ratings shown before they came:\n%s", before)
	}
	next := snap
	next.Seq++
	next.Results = slices.Clone(snap.Results)
	next.Results[0].Rating = &lobby.RatingChange{ID: "p1", Standing: rating.Rated, Before: 1512.4, After: 1527.2}
	next.Results[1].Rating = &lobby.RatingChange{ID: "p0", Standing: rating.Rated, Before: 1500, After: 1393.8, Provisional: true}
	next.Results[2].Rating = &lobby.RatingChange{ID: "p2", Standing: rating.Unrated, Reason: rating.ReasonAssisted}
	next.Results[3].Rating = &lobby.RatingChange{ID: "p3", Standing: rating.Aborted, Reason: rating.ReasonNeverMoved}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	s := screenOf(h)
	checkShape(t, s, 80, 24)
	for _, want := range []string{
		"1512 → 1527 +15", "1500 → 1394? −106", "unrated: moves faster than play: racer2", "no race: never moved: racer3",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the results do not say %q:\n%s", want, s)
		}
	}
	if l := lineWith(s, "guest1"); !strings.HasSuffix(strings.TrimSpace(l), "guest") {
		t.Errorf("the guest's line: %q", l)
	}
	golden(t, "race_results_ratings_80x24", s)
}
