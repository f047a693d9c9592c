package rating

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// The races' policy: which racers a race counts for, and how. It is the
// one definition of a rated race, a win and a podium: the store decides
// each placing by it when it records a race and keeps the decision, and
// every count (stats, top race, the results, their JSON) sums what it
// decided.
//
// A racer with a key is, in each race, one of:
//   - Rated: the race changes their rating and counts as a rated race,
//     maybe a win or a podium.
//   - Unrated: they raced, but the race does not count for them (a chosen
//     deal, moves faster than play, a pair rated too often, no rated
//     opponent): it counts in their unrated races, and nowhere else.
//   - Aborted: there was no race for them (they never moved, they left
//     before removing a card, or fewer than two racers with a key moved):
//     it counts nowhere, like a game aborted before its first move on the
//     chess sites.
//
// Guests are never rated and never count for anyone: they are not
// entrants at all.

// Standing is how a race counts for one racer.
type Standing int

// The standings of a racer in a race.
const (
	Aborted Standing = iota
	Unrated
	Rated
)

var standingNames = [...]string{"aborted", "unrated", "rated"}

// String names the standing: "aborted", "unrated" or "rated".
func (s Standing) String() string {
	if s < 0 || int(s) >= len(standingNames) {
		return "unknown"
	}
	return standingNames[s]
}

// ParseStanding is String's inverse; ok is false for another word.
func ParseStanding(s string) (Standing, bool) {
	for i, n := range standingNames {
		if n == s {
			return Standing(i), true
		}
	}
	return Aborted, false
}

// Reason is why a race does not count for a racer (Standing Unrated or
// Aborted), as a short code the store keeps; Words says it to players.
type Reason string

// The reasons a race does not count for a racer.
const (
	// ReasonNone: the race counts (Rated).
	ReasonNone Reason = ""
	// ReasonGuest: a guest's race counts for nobody.
	ReasonGuest Reason = "guest"
	// ReasonNeverMoved: the racer made no move.
	ReasonNeverMoved Reason = "never-moved"
	// ReasonLeftEmpty: the racer left before clearing or being stuck, and
	// had removed no card.
	ReasonLeftEmpty Reason = "left-empty"
	// ReasonFewMovers: fewer than two racers with a key moved.
	ReasonFewMovers Reason = "few-movers"
	// ReasonChosenDeal: the host chose the deal; the race is unrated for
	// all.
	ReasonChosenDeal Reason = "chosen-deal"
	// ReasonVoid: a racer was lost with their server, or the database
	// was out of reach of a racer's server during the race; the race is
	// unrated for all.
	ReasonVoid Reason = "void"
	// ReasonVoided: an admin voided the race (a report showed it was not
	// fair play); it is unrated for all who raced it.
	ReasonVoided Reason = "voided"
	// ReasonAssisted: the racer's moves came faster than a person plays.
	ReasonAssisted Reason = "assisted"
	// ReasonPairLimit: the racer and a racer placed above them were
	// rated against each other PairLimit times in PairWindow already.
	ReasonPairLimit Reason = "pair-limit"
	// ReasonNoOpponent: nobody else in the race was a rated opponent.
	ReasonNoOpponent Reason = "no-opponent"
)

var reasonWords = map[Reason]string{
	ReasonGuest:      "guest",
	ReasonNeverMoved: "never moved",
	ReasonLeftEmpty:  "left before removing a card",
	ReasonFewMovers:  "fewer than two racers with a key moved",
	ReasonChosenDeal: "chosen deal",
	ReasonVoid:       "a racer's server or the database failed",
	ReasonVoided:     "voided by an admin",
	ReasonAssisted:   "moves faster than play",
	ReasonPairLimit:  fmt.Sprintf("rated against the same racer %d times in %d hours", PairLimit, int(PairWindow.Hours())),
	ReasonNoOpponent: "no rated opponent",
}

// Words says the reason to a player, after "unrated: ": "moves faster
// than play". An unknown code (a newer server's) is said as it is.
func (r Reason) Words() string {
	if w, ok := reasonWords[r]; ok {
		return w
	}
	return string(r)
}

// Limits of the policy.
const (
	// PairLimit is how many times the same two players may be rated
	// against each other within PairWindow, whatever the rules: a second
	// key cannot farm a rating faster than that.
	PairLimit = 3
	// PairWindow is the window PairLimit counts in.
	PairWindow = 24 * time.Hour
	// ProvisionalRaces and ProvisionalOpponents: a rating is provisional
	// (shown with "?", kept off the rating lists) until it counts this
	// many rated races against this many different opponents.
	ProvisionalRaces     = 10
	ProvisionalOpponents = 5
)

// Provisional reports whether a rating of this many rated races against
// this many different opponents is still provisional.
func Provisional(races, opponents int) bool {
	return races < ProvisionalRaces || opponents < ProvisionalOpponents
}

// Entrant is a racer with a key as the policy sees them.
type Entrant struct {
	ID string
	// Place is the racer's place in the race (1 the best, ties equal),
	// guests included.
	Place int
	// Moves and Removed count the racer's moves and the pyramid cards
	// they removed.
	Moves, Removed int
	// Cleared: they cleared the pyramid. Left: they left the race, or
	// were dropped, before it ended for them.
	Cleared, Left bool
	// Assisted: their moves came faster than a person plays.
	Assisted bool
}

// Decision is how a race counts for one entrant.
type Decision struct {
	Standing Standing
	Reason   Reason // ReasonNone when Rated
	// Rank is the entrant's place among the rated entrants (1 the best,
	// ties equal), the place the rating is updated by; 0 unless Rated.
	Rank int
	// Win: Rated and first among the rated entrants. Podium: Rated,
	// within the first three among the rated entrants, and a win or ahead
	// of a rated entrant (the last of three is not on a podium). Leaving
	// costs places already: the ranking puts those who left after those
	// who stayed.
	Win, Podium bool
}

// Decide decides how a race counts for each of its entrants (the racers
// with a key; guests count for nobody). unrated is ReasonNone for a race
// that may be rated, else why it is not for anybody (ReasonChosenDeal,
// ReasonVoid, ReasonVoided). limited reports whether two players (by ID)
// were rated against each other PairLimit times within PairWindow
// already; nil when none were.
//
// In order: an entrant who never moved, or left having removed no card,
// is aborted; if fewer than two entrants moved, the race is aborted for
// all; an unrated race is unrated for all who raced; an assisted entrant
// is unrated. The rest are taken best placed first (then by ID): one
// whose pair with an entrant already taken is at its limit is unrated
// (the one placed lower pays for it; their results stay); and if fewer
// than two are taken, those are unrated (no opponent). The rated
// entrants' ranks are their places among themselves.
func Decide(unrated Reason, es []Entrant, limited func(a, b string) bool) []Decision {
	out := make([]Decision, len(es))
	movers := 0
	for _, e := range es {
		if e.Moves > 0 {
			movers++
		}
	}
	var candidates []int
	for i, e := range es {
		switch {
		case e.Moves <= 0:
			out[i].Reason = ReasonNeverMoved
		case e.Left && !e.Cleared && e.Removed <= 0:
			out[i].Reason = ReasonLeftEmpty
		case movers < 2:
			out[i].Reason = ReasonFewMovers
		case unrated != ReasonNone:
			out[i] = Decision{Standing: Unrated, Reason: unrated}
		case e.Assisted:
			out[i] = Decision{Standing: Unrated, Reason: ReasonAssisted}
		default:
			candidates = append(candidates, i)
		}
	}
	sort.SliceStable(candidates, func(x, y int) bool {
		a, b := es[candidates[x]], es[candidates[y]]
		if a.Place != b.Place {
			return a.Place < b.Place
		}
		return a.ID < b.ID
	})
	var field []int
	for _, i := range candidates {
		ok := true
		for _, j := range field {
			if limited != nil && limited(es[i].ID, es[j].ID) {
				ok = false
				break
			}
		}
		if ok {
			field = append(field, i)
		} else {
			out[i] = Decision{Standing: Unrated, Reason: ReasonPairLimit}
		}
	}
	if len(field) < 2 {
		for _, i := range field {
			out[i] = Decision{Standing: Unrated, Reason: ReasonNoOpponent}
		}
		return out
	}
	// The field is in place order: competition ranks among it.
	for n, i := range field {
		rank := n + 1
		if n > 0 && es[field[n-1]].Place == es[i].Place {
			rank = out[field[n-1]].Rank
		}
		out[i] = Decision{Standing: Rated, Rank: rank}
	}
	last := out[field[len(field)-1]].Rank
	for _, i := range field {
		d := &out[i]
		d.Win = d.Rank == 1
		d.Podium = d.Rank <= 3 && (d.Rank == 1 || d.Rank < last)
	}
	return out
}

// DisplayBase is the display rating of a new player (Model.Display).
const DisplayBase = 1500

// Display is a rating on the scale players know from the chess sites:
// DisplayBase for a new player, and a difference of 400 between two
// settled players when the better one wins ten races of eleven between
// them, as in Elo. Two settled players (σ small) beat each other with the
// logistic odds of (μa − μb)/(β√2), so 400 of the scale is β√2·ln 10 of
// μ. It shows the mean μ, as the chess sites show theirs; how sure the
// rating is shows as provisional (Provisional), not in the number.
func (m Model) Display(r Rating) float64 {
	return DisplayBase + (r.Mu-m.Mu)*400/(m.Beta*math.Sqrt2*math.Ln10)
}
