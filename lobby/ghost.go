package lobby

// RankRacers ranks racers as a race's results do (cleared first by
// finish time, then those still in before those who left, then more
// cards removed, then the earlier last removal; ties share a place) and
// sets each racer's Place. The tui ranks a ghost race with it: a race of
// one player against a recorded game, which no room holds.
func RankRacers(racers []Racer) []Placing { return rank(racers) }
