package games

import (
	"time"

	"pyramid/engine"
)

// The pace past which input is not a person's play (Assisted): a burst of
// removals within a second, or a run of them kept up for ten seconds.
//
// Why removals: a removal (a King, or a pair summing to 13) takes finding
// the cards and two selections; a draw or a redeal is one key, which a
// person may hold down, so draws never count.
//
// Why these numbers, from the games stored with their move times (see
// humanGames in the tests): played key by key over SSH at 80×24, a
// removal followed the one before after 2.6 s at the quickest (5 to 19 s
// in a whole game); a racer's moves that came in one report had two
// removals at the same millisecond (a racer's move times are the
// server's, taken as a report comes, and a report may carry the moves
// made while the store was slow). A line pasted through ":" arrives as
// one input, every move of it at the same moment (a solver's winning line
// holds twenty or more removals); a program typing the line at five moves
// a second makes fifteen removals in eight seconds. The limits leave
// three times the most removals a person was seen to make in one second
// (two, batched), and a sustained pace of one and a half removals a
// second, twice the quickest single gap, for ten seconds.
const (
	// BurstRemovals removals within BurstWindow are faster than play.
	BurstRemovals = 6
	BurstWindow   = time.Second
	// RunRemovals removals within RunWindow are faster than play.
	RunRemovals = 15
	RunWindow   = 10 * time.Second
)

// Assisted reports whether a game's moves came faster than a person plays:
// BurstRemovals removals within BurstWindow, or RunRemovals within
// RunWindow, by the times the moves were made (times[i] is when moves[i]
// was made, from the game's start; a move without a time, in a game
// stored before times were kept, is not counted). A move that is not
// notation is not a removal. Such a game sets no record, is on no board,
// and is unrated for a racer.
func Assisted(moves []string, times []time.Duration) bool {
	var at []time.Duration // the times of the removals, in order
	for i, s := range moves[:min(len(moves), len(times))] {
		m, err := engine.ParseMove(s)
		if err != nil || (m.Kind != engine.RemoveKing && m.Kind != engine.RemovePair) {
			continue
		}
		at = append(at, times[i])
	}
	return within(at, BurstRemovals, BurstWindow) || within(at, RunRemovals, RunWindow)
}

// within reports whether some n of the times at (in order) span less than
// w.
func within(at []time.Duration, n int, w time.Duration) bool {
	for i := n - 1; i < len(at); i++ {
		if at[i]-at[i-n+1] < w {
			return true
		}
	}
	return false
}
