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
// person may hold down, so draws never count. Why these numbers: in the
// games stored with their move times (played over SSH at a person's pace,
// see humanGames in the tests), a removal followed the one before after
// one second at the quickest and after two to four seconds as a rule: no
// second held two removals. A line pasted through ":" arrives as one
// input, every move of it at the same moment (twenty or more removals at
// once); a line typed in by a program at five moves a second makes
// fifteen removals in eight seconds. The limits leave a person a margin of
// three times their quickest burst, and room for a race's moves that
// arrive together after a slow store (a racer's move times are the
// server's, taken when a move arrives).
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
