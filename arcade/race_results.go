package arcade

import (
	"context"
	"errors"
	"slices"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/race"
	"pyramid/store"
	"pyramid/tui"
)

// RecentResults is how long after a race ended the menu offers its
// results ("Results of race CODE") to a racer who was not in the room
// when it ended: they pressed q mid-race, or dropped and came back.
const RecentResults = 5 * time.Minute

// Ended returns the code of the room of the player's last race when that
// race is over and the player may still see its results (tui.Races),
// RecentResults at most after it ended: the room this session last raced
// in, while it shows the results of a race the player was placed in, or
// the player's last stored race, whose room has gone or shows its
// results still.
// A room that went on to its next race (a rematch) offers nothing: the
// player may join that one.
func (rs *races) Ended(ctx context.Context) (string, bool) {
	if _, ok := rs.Seated(); ok {
		return "", false
	}
	if code := rs.lastRoom(); code != "" {
		if r, ok := rs.a.rooms.Room(code); ok {
			if snap := r.Snapshot(); placedIn(snap, rs.me.ID) && rs.a.cfg.Now().Sub(snap.Ended) <= RecentResults {
				return code, true
			}
		}
	}
	race, ok := rs.lastStoredRace(ctx)
	if !ok || rs.a.cfg.Now().Sub(race.Ended) > RecentResults {
		return "", false
	}
	if r, ok := rs.a.rooms.Room(race.Code); ok {
		snap := r.Snapshot()
		if snap.Phase != lobby.PhaseClosed && !placedIn(snap, rs.me.ID) {
			return "", false // the room went on to its next race
		}
	}
	return race.Code, true
}

// placedIn reports whether the room shows the results of a race the
// player was placed in.
func placedIn(snap lobby.Snapshot, playerID string) bool {
	return snap.Phase == lobby.PhaseResults &&
		slices.ContainsFunc(snap.Results, func(p lobby.Placing) bool { return p.ID == playerID })
}

// lastRoom is the code of the room this session last took a seat in as
// a racer, or "".
func (rs *races) lastRoom() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.last
}

// lastStoredRace is the stored race of the player's last game, when that
// game is a race's: a player with a key whose last race was stored.
func (rs *races) lastStoredRace(ctx context.Context) (store.Race, bool) {
	st := rs.a.cfg.Store
	if st == nil || rs.w == nil || rs.me.Guest {
		return store.Race{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	gs, err := st.ListGames(ctx, rs.me.ID, store.Page{Limit: 1})
	if err != nil || len(gs) == 0 || gs[0].Kind != store.KindRace {
		return store.Race{}, false
	}
	race, err := st.RaceOfGame(ctx, gs[0].ID)
	if err != nil {
		return store.Race{}, false
	}
	return race, true
}

// StoredResultsFor is how long after a race a code of a room that has
// closed still brings the player's race in it (race CODE): room codes
// are given out again once a room closes.
const StoredResultsFor = 24 * time.Hour

// storedResults is the seat Join gives for a room that is gone when the
// player raced in a room of that code in the last StoredResultsFor: the
// newest such race's results, read from the store (tui.RaceSeat.Over).
func (rs *races) storedResults(ctx context.Context, text string) (tui.RaceSeat, bool) {
	code, err := lobby.ParseCode(text)
	st := rs.a.cfg.Store
	if err != nil || st == nil || rs.w == nil || rs.me.Guest {
		return tui.RaceSeat{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	race, err := st.RaceInRoom(ctx, rs.me.ID, code, rs.a.cfg.Now().Add(-StoredResultsFor))
	if err != nil {
		return tui.RaceSeat{}, false
	}
	return tui.RaceSeat{You: rs.me.ID, Snapshot: raceSnapshot(race), Over: true,
		Guests: max(race.Racers-len(race.Placings), 0)}, true
}

// raceSnapshot is a stored race as the results screen shows it. The store
// keeps the placings of the players with a key (Racers counts the guests
// too), what the solver said of the deal and how each racer's race ended;
// a race stored before outcomes were has RacerWaiting for a racer who did
// not clear, which the results screen shows as no state at all.
func raceSnapshot(stored store.Race) lobby.Snapshot {
	snap := lobby.Snapshot{Code: stored.Code, Phase: lobby.PhaseResults, RulesID: stored.RulesID, RulesTitle: stored.RulesID,
		Deal: stored.DealNumber, Rated: stored.Rated, Verdict: stored.Verdict, StartsAt: stored.Started, Ended: stored.Ended, Round: 1}
	if r, err := engine.ParseRules(stored.RulesID); err == nil {
		snap.RulesTitle, snap.Cards = r.Title(), r.PyramidSize()
	}
	changes := race.RatingChanges(stored)
	for i, p := range stored.Placings {
		snap.Results = append(snap.Results, lobby.Placing{Place: p.Place, ID: p.PlayerID, Name: p.PlayerName,
			GameID: p.GameID, Cleared: p.Cleared, Removed: p.Removed, Moves: p.Moves, Time: p.Time,
			State: racerStateOf(p), Rating: &changes[i]})
	}
	return snap
}

// racerStateOf is the racer state a stored placing shows.
func racerStateOf(p store.RacePlacing) lobby.RacerState {
	switch {
	case p.Cleared:
		return lobby.RacerCleared
	case p.Outcome == store.OutcomeStuck:
		return lobby.RacerStuck
	case p.Outcome == store.OutcomeLeft:
		return lobby.RacerLeft
	case p.Outcome == store.OutcomeTimeUp:
		return lobby.RacerPlaying // the results screen says "time up"
	}
	return lobby.RacerWaiting // not known
}

// gone is Join's answer for a code of no open room that is the code of
// the player's last stored race: that race's results. It comes before
// the look-up, which spends a wrong code from the player's budget (and
// refuses a player whose budget is spent): going back to a race's
// results is none.
func (rs *races) gone(ctx context.Context, text string) (tui.RaceSeat, bool) {
	code, err := lobby.ParseCode(text)
	if err != nil {
		return tui.RaceSeat{}, false
	}
	if _, open := rs.a.rooms.Room(code); open {
		return tui.RaceSeat{}, false
	}
	return rs.storedResults(ctx, code)
}

// joinGone is Join's answer when the room closed between its lookup and
// the join (err): the stored results as gone gives them, else err.
func (rs *races) joinGone(ctx context.Context, code string, err error) (tui.RaceSeat, error) {
	if !errors.Is(err, lobby.ErrNoRoom) && !errors.Is(err, lobby.ErrRoomClosed) {
		return tui.RaceSeat{}, err
	}
	if seat, ok := rs.storedResults(ctx, code); ok {
		return seat, nil
	}
	return tui.RaceSeat{}, err
}
