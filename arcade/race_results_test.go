package arcade

import (
	"context"
	"errors"
	"strings"
	"testing"

	"pyramid/budget"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// TestResultsOfARaceEndedWithoutMe: a racer who left mid-race (or
// dropped and came back in a new session) is offered the race's results
// once it ends (Ended), and race CODE brings them: the room's while it
// shows them, the stored ones once the room is gone, instead of "no
// room".
func TestResultsOfARaceEndedWithoutMe(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	if _, err := bob.Play(ctx, code, 1, 1, engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: []string{"d"}}); err != nil {
		t.Fatal(err)
	}
	if err := bob.Leave(code); err != nil {
		t.Fatal(err)
	}
	if got, ok := bob.Ended(ctx); ok {
		t.Fatalf("while the race runs Ended says %q", got)
	}
	playLine(t, ann, code, 1, rec)
	waitPhase(t, room, lobby.PhaseResults)
	if got, ok := bob.Ended(ctx); !ok || got != code {
		t.Fatalf("the race over, bob's session: Ended %q %v, want %s", got, ok, code)
	}
	seat, err := bob.Join(ctx, code)
	if err != nil || seat.Over || seat.Snapshot.Phase != lobby.PhaseResults || len(seat.Snapshot.Results) != 2 {
		t.Fatalf("race %s at its results: seat %+v, %v; want the room's results", code, seat, err)
	}
	verdict := seat.Snapshot.Verdict
	if err := bob.Leave(code); err != nil {
		t.Fatal(err)
	}
	// bob comes back later in a new session; the room is gone by then.
	bob2, _ := f.racer(t, "bob", false)
	waitEndedOffers(t, bob2, code)
	room.Close("test")
	if got, ok := bob2.Ended(ctx); !ok || got != code {
		t.Fatalf("the room gone: Ended %q %v, want %s", got, ok, code)
	}
	seat, err = bob2.Join(ctx, strings.ToLower(code))
	if err != nil || !seat.Over || seat.You != bob2.me.ID || seat.Snapshot.Phase != lobby.PhaseResults {
		t.Fatalf("race %s once its room is gone: seat %+v, %v; want its stored results", code, seat, err)
	}
	if r := seat.Snapshot.Results; len(r) != 2 || r[0].ID != ann.me.ID || !r[0].Cleared || r[1].ID != bob.me.ID || r[1].Moves != 1 || r[0].Name != "ann" {
		t.Fatalf("the stored results: %+v, want ann first (cleared), bob second with his one move", r)
	}
	if r := seat.Snapshot.Results; r[0].State != lobby.RacerCleared || r[1].State != lobby.RacerLeft || seat.Snapshot.Verdict != verdict ||
		seat.Guests != 0 {
		t.Fatalf("the stored results: states %v, %v, verdict %v, %d guests; want cleared, left, the room's %v, none",
			r[0].State, r[1].State, seat.Snapshot.Verdict, seat.Guests, verdict)
	}
	// Going back to them is no wrong code: it is never refused.
	for i := range budget.WrongCode.Default().N + 1 {
		if seat, err := bob2.Join(ctx, code); err != nil || !seat.Over {
			t.Fatalf("race %s, the %dth time: %+v, %v", code, i+1, seat, err)
		}
	}
	// A code of no race of bob's is still no room.
	if _, err := bob2.Join(ctx, "XXXXXX"); !errors.Is(err, lobby.ErrNoRoom) {
		t.Fatalf("join XXXX: %v, want ErrNoRoom", err)
	}
	// bob races again: the last race's results are no longer offered.
	if _, err := bob2.Create(ctx, tui.RoomOptions{Rules: engine.Classic()}); err != nil {
		t.Fatal(err)
	}
	if got, ok := bob2.Ended(ctx); ok {
		t.Fatalf("seated in a new room, Ended still offers %q", got)
	}
}

// TestStoredRaceSnapshot: the results of a stored race say what the
// solver said of the deal and how each racer's race ended, and nothing
// for a race stored before the store kept it.
func TestStoredRaceSnapshot(t *testing.T) {
	race := store.Race{Code: "KMTX", RulesID: "classic", DealNumber: 42, Verdict: engine.Winnable, Placings: []store.RacePlacing{
		{PlayerID: "a", Place: 1, Cleared: true, Removed: 28, Outcome: store.OutcomeCleared},
		{PlayerID: "b", Place: 2, Removed: 20, Outcome: store.OutcomeTimeUp},
		{PlayerID: "c", Place: 3, Removed: 12, Outcome: store.OutcomeStuck},
		{PlayerID: "d", Place: 4, Removed: 3, Outcome: store.OutcomeLeft},
		{PlayerID: "e", Place: 5, Removed: 1}, // stored before outcomes were
	}}
	snap := raceSnapshot(race)
	if snap.Verdict != engine.Winnable || snap.Cards != 28 || snap.Phase != lobby.PhaseResults || len(snap.Results) != 5 {
		t.Fatalf("snapshot %+v", snap)
	}
	want := []lobby.RacerState{lobby.RacerCleared, lobby.RacerPlaying, lobby.RacerStuck, lobby.RacerLeft, lobby.RacerWaiting}
	for i, p := range snap.Results {
		if p.State != want[i] || p.ID != race.Placings[i].PlayerID {
			t.Errorf("placing %d: %s in state %v, want %s in %v", i+1, p.ID, p.State, race.Placings[i].PlayerID, want[i])
		}
	}
}

// TestStoredResultsCountGuests: the stored results of a race a guest ran
// in say so (a guest's placing is not stored, its place is a gap).
func TestStoredResultsCountGuests(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	guest, _ := f.racer(t, "guest-1", true)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, guest)
	if err := guest.Leave(code); err != nil {
		t.Fatal(err)
	}
	playLine(t, ann, code, 1, rec)
	waitPhase(t, room, lobby.PhaseResults)
	ann2, _ := f.racer(t, "ann", false)
	waitEndedOffers(t, ann2, code)
	room.Close("test")
	seat, err := ann2.Join(ctx, code)
	if err != nil || !seat.Over || len(seat.Snapshot.Results) != 1 || seat.Guests != 1 {
		t.Fatalf("race %s once its room is gone: seat %+v, %v; want ann's placing and one guest", code, seat, err)
	}
}
