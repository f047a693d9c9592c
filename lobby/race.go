package lobby

import (
	"pyramid/rating"
	"sort"
	"time"

	"pyramid/engine"
)

// RacerState is where a racer stands in a race.
type RacerState int

// The states of a racer. RacerStuck, RacerCleared and RacerLeft end a
// racer's race (a racer who left may come back while the race runs);
// RacerAway does not, until the seat's grace runs out.
const (
	// RacerWaiting: the race has not started.
	RacerWaiting RacerState = iota
	// RacerPlaying: racing.
	RacerPlaying
	// RacerStuck: no move left; the racer's game is lost.
	RacerStuck
	// RacerCleared: the racer cleared the pyramid.
	RacerCleared
	// RacerLeft: the racer's session left or was dropped.
	RacerLeft
	// RacerAway: the racer's server died in the race: their seat waits
	// for them to come back, to any server, for the seat's grace
	// (RoomsConfig.SeatGrace), and the race waits for them meanwhile.
	RacerAway
)

var racerStateNames = [...]string{"waiting", "playing", "stuck", "cleared", "left", "away"}

// String returns the state's name as a racer panel shows it.
func (s RacerState) String() string {
	if s < 0 || int(s) >= len(racerStateNames) {
		return "unknown"
	}
	return racerStateNames[s]
}

// MarshalText writes the state's name, for JSON.
func (s RacerState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Progress is what a racer's session reports after each move.
type Progress struct {
	// Removed is the number of pyramid cards removed so far.
	Removed int
	// Moves is the number of moves made.
	Moves int
	// Pass is the pass through the stock (1 on the first).
	Pass int
	// Board has bit i set when pyramid slot i (row by row from the top,
	// left to right) is removed, for the mini pyramids.
	Board uint64
	// State is RacerPlaying, RacerStuck or RacerCleared (the others
	// are the room's to set).
	State RacerState
	// GameID is the stored game the racer plays, 0 for a guest.
	GameID int64
}

// ProgressOf is the progress report of a racer's game: a won game is
// RacerCleared, a lost one RacerStuck.
func ProgressOf(g *engine.Game, gameID int64) Progress {
	p := Progress{Removed: g.Removed(), Moves: g.MovesMade(), Pass: g.Pass(), State: RacerPlaying, GameID: gameID}
	for s := range g.Rules().PyramidSize() {
		if _, there := g.PyramidCard(engine.Place(s)); !there {
			p.Board |= 1 << s
		}
	}
	switch g.Status() {
	case engine.Won:
		p.State = RacerCleared
	case engine.Lost:
		p.State = RacerStuck
	}
	return p
}

// Racer is one racer as everybody sees them: a line of the racer panel.
type Racer struct {
	ID      string // player ID
	Name    string // display name, already safe to print
	Guest   bool
	Host    bool
	Ready   bool // ready mark in the waiting room
	Present bool // has a session in the room now
	Muted   bool
	Progress
	// Cards is the size of the pyramid (28 or 45), the N of "removed/N".
	Cards int
	// LastRemoval is when the racer last removed a card, from the start
	// of the race; 0 before the first removal.
	LastRemoval time.Duration
	// Finish is when the racer cleared the pyramid, from the start of the
	// race; 0 unless cleared.
	Finish time.Duration
	// Place is the racer's place when the race is over (equal for a tie),
	// 0 before.
	Place int
	// Berserk is set for an arena racer who gave up undo for this race
	// before it began, for a bonus point if they clear (package arena).
	Berserk bool
	// Away is set while the racer's server is gone and their seat waits
	// for them (RacerAway); Lost once the seat's grace ran out without
	// them: they count as left, and the race as void (RaceResult.Void).
	Away, Lost bool
}

// Placing is a racer's line of a race's results.
type Placing struct {
	Place   int // 1 is the winner; ties share a place
	ID      string
	Name    string
	Guest   bool
	GameID  int64
	State   RacerState // RacerCleared, RacerStuck, RacerLeft, or RacerPlaying at the time limit
	Cleared bool
	Removed int
	Moves   int
	// Time is the finish time for a racer who cleared, else the time of
	// the last removal, from the start of the race.
	Time time.Duration
	// Berserk: an arena racer who gave up undo in the race.
	Berserk bool
	// Rating is how the stored race counted for the racer: nil until the
	// lease holder stored the race and logged its ratings (OpRated), and
	// for a guest.
	Rating *RatingChange
}

// RatingChange is how a stored race counted for one racer with a key, as
// the store decided it (rating.Decide) and the lease holder read it back.
type RatingChange struct {
	ID       string // the racer's
	Standing rating.Standing
	// Reason is why the race did not count for the racer (not Rated).
	Reason rating.Reason
	// Before and After are the racer's rating in the race's rules before
	// and after the race, on the display scale (rating.Model.Display);
	// zero unless Rated. Provisional is whether After is
	// (rating.Provisional).
	Before, After float64
	Provisional   bool
}

// rankKey is what the ranking looks at.
type rankKey struct {
	cleared     bool
	left        bool
	finish      time.Duration
	removed     int
	lastRemoval time.Duration
}

// better reports whether a ranks above b: cleared first, by finish time;
// then those still in the race (playing or stuck at the end) before those
// who left; within each, more cards removed first, then the earlier last
// removal.
func (a rankKey) better(b rankKey) bool {
	switch {
	case a.cleared != b.cleared:
		return a.cleared
	case a.cleared:
		return a.finish < b.finish
	case a.left != b.left:
		return !a.left
	case a.removed != b.removed:
		return a.removed > b.removed
	}
	return a.lastRemoval < b.lastRemoval
}

// rank sorts racers into their placings (competition ranking: 1, 2, 2, 4)
// and sets each racer's Place.
func rank(racers []Racer) []Placing {
	key := func(r *Racer) rankKey {
		return rankKey{cleared: r.State == RacerCleared, left: r.State == RacerLeft || r.State == RacerAway, finish: r.Finish,
			removed: r.Removed, lastRemoval: r.LastRemoval}
	}
	order := make([]int, len(racers))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return key(&racers[order[i]]).better(key(&racers[order[j]])) })
	out := make([]Placing, len(racers))
	for n, i := range order {
		r := &racers[i]
		place := n + 1
		if n > 0 {
			prev := &racers[order[n-1]]
			if !key(prev).better(key(r)) {
				place = out[n-1].Place
			}
		}
		r.Place = place
		t := r.LastRemoval
		if r.State == RacerCleared {
			t = r.Finish
		}
		out[n] = Placing{Place: place, ID: r.ID, Name: r.Name, Guest: r.Guest, GameID: r.GameID,
			State: r.State, Cleared: r.State == RacerCleared, Removed: r.Removed, Moves: r.Moves, Time: t, Berserk: r.Berserk}
	}
	return out
}
