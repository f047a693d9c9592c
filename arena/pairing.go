package arena

import (
	"slices"
	"time"
)

// The pairing's timing.
const (
	// GatherTime is how long a player who became free waits before
	// pairing looks at them, so that players whose games ended together
	// are grouped together, not in pairs as each comes back.
	GatherTime = 2 * time.Second
	// AloneAfter is how long a player free and alone waits before they
	// are given a solo deal.
	AloneAfter = 20 * time.Second
	// MinRacers and MaxRacers bound the racers of one arena race.
	MinRacers = 2
	MaxRacers = 4
)

// Free is a player free to be paired.
type Free struct {
	ID string
	// Rank is their place in the standings (1 is the leader; a player
	// with no game yet ranks after everybody with one).
	Rank int
	// Since is when they became free.
	Since time.Time
	// Last is whom they raced in their last RecentGames games: pairing
	// keeps them apart where another player is free.
	Last []string
}

// RecentGames is how many of a player's last games pairing looks at to
// keep them from racing the same opponents again: two, so that a second
// key of one person does not meet its owner every other game of a small
// arena.
const RecentGames = 2

// Pair groups the players free at now into races of MinRacers to
// MaxRacers, each with the players closest to them in the standings:
// the free players in standings order are cut into the fewest groups
// of at most MaxRacers, as even as can be, and a player whose group
// holds a recent opponent (Free.Last) trades places with the nearest
// player of the next group where that makes fewer such meetings. Players free for less than
// GatherTime are left for the next round unless another is waiting for
// them; a player left alone is given a solo game (a group of one) once
// free for AloneAfter. The result is deterministic for the same input.
func Pair(free []Free, now time.Time) [][]string {
	ready := slices.Clone(free)
	slices.SortFunc(ready, func(a, b Free) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	waited := func(f Free) bool { return !now.Before(f.Since.Add(GatherTime)) }
	if !slices.ContainsFunc(ready, waited) {
		return nil
	}
	if len(ready) == 1 {
		if !now.Before(ready[0].Since.Add(AloneAfter)) {
			return [][]string{{ready[0].ID}}
		}
		return nil
	}
	n := len(ready)
	groups := (n + MaxRacers - 1) / MaxRacers
	cut := make([][]Free, 0, groups)
	at := 0
	for g := range groups {
		size := n / groups
		if g < n%groups {
			size++
		}
		cut = append(cut, ready[at:at+size])
		at += size
	}
	for g := 0; g+1 < len(cut); g++ {
		untangle(cut[g], cut[g+1])
	}
	out := make([][]string, len(cut))
	for g, grp := range cut {
		for _, f := range grp {
			out[g] = append(out[g], f.ID)
		}
	}
	return out
}

// PairAt is the first moment at which Pair pairs any of the players
// free (zero when none is): GatherTime after the earliest became free,
// or for a player alone, AloneAfter after they did. Pair(free, t) pairs
// somebody exactly when t is not before it, so that whoever pairs may
// sleep until then rather than look again and again.
func PairAt(free []Free) time.Time {
	switch len(free) {
	case 0:
		return time.Time{}
	case 1:
		return free[0].Since.Add(AloneAfter)
	}
	first := free[0].Since
	for _, f := range free[1:] {
		if f.Since.Before(first) {
			first = f.Since
		}
	}
	return first.Add(GatherTime)
}

// untangle trades a player of a with one of b where a group holds
// recent opponents (Free.Last) and the trade leaves fewer such meetings
// in the two: of the trades that do, the one between the nearest two
// players in the standings (a's last and b's first are nearest), the
// one with b's nearer player on a tie.
func untangle(a, b []Free) {
	before := rematches(a) + rematches(b)
	if before == 0 {
		return
	}
	for d := 0; d < len(a)+len(b)-1; d++ {
		for j := 0; j <= d && j < len(b); j++ {
			i := len(a) - 1 - (d - j)
			if i < 0 || !tangled(a, i) && !tangled(b, j) {
				continue
			}
			a[i], b[j] = b[j], a[i]
			if rematches(a)+rematches(b) < before {
				return
			}
			a[i], b[j] = b[j], a[i]
		}
	}
}

// tangled reports whether grp[i] raced another player of grp in their
// recent games, either way round.
func tangled(grp []Free, i int) bool {
	for j, o := range grp {
		if j != i && (slices.Contains(grp[i].Last, o.ID) || slices.Contains(o.Last, grp[i].ID)) {
			return true
		}
	}
	return false
}

// rematches counts the players of the group who raced another of it in
// their recent games.
func rematches(grp []Free) int {
	n := 0
	for i := range grp {
		if tangled(grp, i) {
			n++
		}
	}
	return n
}
