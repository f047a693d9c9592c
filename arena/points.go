package arena

import "time"

// The points of an arena game (docs/arenas.md says the same in words).
const (
	// WinPoints is a race won alone in first place (or a solo deal
	// cleared); a shared first place or a place between first and last
	// scores PlacePoints; last place scores nothing.
	WinPoints   = 2
	PlacePoints = 1
	// ClearBonus is for clearing the pyramid.
	ClearBonus = 1
	// BerserkBonus is for clearing the pyramid after going berserk (no
	// undo in that game).
	BerserkBonus = 1
	// StreakAfter is how many wins in a row make a streak: from then on
	// each game's points count double, until a game is not won.
	StreakAfter = 2
)

// The rules against games nobody really played.
const (
	// PlayedCards is how many pyramid cards a racer removes to have
	// played a race: one who gave up (stuck), left, forfeited or ran
	// out of time with fewer is not counted as beaten by the others
	// (PlacingGame), so that a second key losing on purpose wins its
	// owner nothing a solo deal would not.
	PlayedCards = 6
	// FirstMoveTime is how long from a race's start a racer has to make
	// their first move: one who has not forfeits the game (it counts as
	// left) and is paused in the arena, so that a session nobody plays
	// does not hold its opponents' races to the time limit again and
	// again.
	FirstMoveTime = 30 * time.Second
)

// Game is one player's arena game as it ended, what scoring looks at.
type Game struct {
	// Racers is how many raced (1 for a solo deal).
	Racers int
	// Place is the player's place (1 is first; ties share a place), and
	// Shared whether another racer has the same place.
	Place  int
	Shared bool
	// Cleared: the player cleared the pyramid.
	Cleared bool
	// Berserk: the player gave up undo for this game before it began.
	Berserk bool
	// Void: the game scores nothing (the player was assisted, left or was
	// dropped, or the race was void or cut short by an outage).
	Void bool
	// Walkover: every other racer quit before playing (PlayedCards), so
	// the game scores as a solo deal (Racers is 1) whose win does not
	// extend a streak.
	Walkover bool
}

// Won reports whether the game is a win: first place alone in a race of
// two or more, or a solo deal cleared; never a void game.
func (g Game) Won() bool {
	if g.Void {
		return false
	}
	if g.Racers <= 1 {
		return g.Cleared
	}
	return g.Place == 1 && !g.Shared
}

// Line is a player's line of an arena's standings.
type Line struct {
	Points int
	// Streak is the wins in a row up to the last game; the player is on
	// a streak (their next game counts double) when it is StreakAfter or
	// more.
	Streak int
	Games  int
	Wins   int
	// Berserks counts the games the player went berserk in.
	Berserks int
}

// OnStreak reports whether the player's next game counts double.
func (l Line) OnStreak() bool { return l.Streak >= StreakAfter }

// Points returns what the game scores for a player whose line before it
// is l: the place's points plus the clear bonus, doubled on a streak,
// plus the berserk bonus for a clear. A void game scores nothing.
func Points(l Line, g Game) int {
	if g.Void {
		return 0
	}
	p := 0
	switch {
	case g.Won():
		p = WinPoints
	case g.Place < g.Racers:
		p = PlacePoints
	}
	if g.Cleared {
		p += ClearBonus
	}
	if l.OnStreak() {
		p *= 2
	}
	if g.Berserk && g.Cleared {
		p += BerserkBonus
	}
	return p
}

// Score returns the game's points and the player's line after it: the
// points added, one more game, the streak one longer on a win and back
// to none otherwise; a walkover won leaves the streak as it was.
func Score(l Line, g Game) (int, Line) {
	p := Points(l, g)
	l.Points += p
	l.Games++
	if g.Berserk {
		l.Berserks++
	}
	switch {
	case g.Won() && g.Walkover:
		l.Wins++
	case g.Won():
		l.Wins++
		l.Streak++
	default:
		l.Streak = 0
	}
	return p, l
}

// Placing is one racer's result of an arena race, what PlacingGame
// reads.
type Placing struct {
	// Place is the racer's place in the race (ties share one).
	Place int
	// Removed is how many pyramid cards they removed, Cleared whether
	// they cleared the pyramid.
	Removed int
	Cleared bool
}

// Played reports whether the racer played the race: cleared it, or
// removed PlayedCards or more before their race ended.
func (p Placing) Played() bool { return p.Cleared || p.Removed >= PlayedCards }

// PlacingGame returns the arena game of the racer ps[i] of a race of
// racers racers (at least len(ps); those without a placing count as
// having played): its place and racers are counted among the racers
// who played (Played) and the racer themself, so that an opponent who
// quit before playing is not counted as beaten; a racer all of whose
// opponents quit so has a walkover, scored as a solo deal. Berserk and
// Void are the caller's to set.
func PlacingGame(racers int, ps []Placing, i int) Game {
	me := ps[i]
	g := Game{Racers: max(racers, len(ps)), Place: me.Place, Cleared: me.Cleared}
	for j, o := range ps {
		switch {
		case j == i:
		case !o.Played():
			g.Racers--
			if o.Place < me.Place {
				g.Place--
			}
		case o.Place == me.Place:
			g.Shared = true
		}
	}
	if g.Racers == 1 && racers > 1 {
		g.Walkover, g.Place = true, 1
	}
	return g
}
