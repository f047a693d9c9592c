package arcade

import (
	"time"

	"pyramid/lobby"
)

// offersBack reports whether the menu may offer the player to go back to
// the room of snap ("Back to race CODE"): never to a race that is over,
// or about to be. A race is over for the menu once it has ended (its
// results, or a closed room), its time is up at now, the player's own
// game in it is done (cleared or stuck: nothing to go back to), or
// nobody in the room still plays (the race ends at once: the end often
// comes just after the last racer left, and a menu asked in between must
// not offer it).
func offersBack(snap lobby.Snapshot, playerID string, now time.Time) bool {
	me, ok := snap.Member(playerID)
	if !ok {
		return false
	}
	switch snap.Phase {
	case lobby.PhaseWaiting, lobby.PhaseCountdown:
		return true
	case lobby.PhaseRacing:
	default:
		return false
	}
	if !snap.Deadline.IsZero() && !now.Before(snap.Deadline) {
		return false
	}
	if me.State != lobby.RacerPlaying && me.State != lobby.RacerLeft && me.State != lobby.RacerAway {
		return false
	}
	for _, m := range snap.Members {
		if m.Present && m.State == lobby.RacerPlaying || m.State == lobby.RacerAway {
			return true
		}
	}
	return false
}
