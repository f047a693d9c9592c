package lobby

import (
	"strconv"
	"time"

	"pyramid/arena"
)

// Arenas in the rooms: an arena (package arena has its rules) is a set of
// players the lease holder pairs into short races again and again until
// the arena ends. Its players, their state (free, playing, paused, away)
// and the standings are part of the rooms' fold, so that every server of
// a cluster pairs and shows the same: joins, pauses, pairings, scores and
// the end are ops of the rooms' log. The standings are the store's (the
// holder scores each arena race when it stores it and logs the players'
// new lines); the fold keeps them for the screens.

// ArenaInfo is an arena as the rooms know it: what every server needs to
// run its races. A join carries it, so that a server learns of an arena
// from its first player.
type ArenaInfo struct {
	ID       int64
	Name     string
	RulesID  string
	Start    time.Time
	End      time.Time
	GameTime time.Duration
}

// Event returns the arena's rules as package arena reads them.
func (a ArenaInfo) Event() arena.Event {
	return arena.Event{ID: a.ID, Name: a.Name, RulesID: a.RulesID, Start: a.Start, Duration: a.End.Sub(a.Start), GameTime: a.GameTime}
}

// PairsAt reports whether the arena's holder pairs races at at (the
// cluster's time): a race paired then starts after CountdownTime and
// must get MinTimeLimit at the least before the arena ends, so none is
// paired in its last minute.
func (a ArenaInfo) PairsAt(at time.Time) bool {
	return a.Event().TimeLimit(at.Add(CountdownTime)) >= MinTimeLimit
}

// ArenaState is where a player of an arena stands.
type ArenaState int

// The states of an arena's player.
const (
	// ArenaFree: waiting to be paired.
	ArenaFree ArenaState = iota
	// ArenaPlaying: in one of the arena's races.
	ArenaPlaying
	// ArenaPaused: in the arena, not to be paired until they resume.
	ArenaPaused
	// ArenaAway: no session in the arena (they left or dropped); their
	// points stay, and they may come back while it runs.
	ArenaAway
)

var arenaStateNames = [...]string{"free", "playing", "paused", "away"}

// String returns the state's name as the standings show it.
func (s ArenaState) String() string {
	if s < 0 || int(s) >= len(arenaStateNames) {
		return "unknown"
	}
	return arenaStateNames[s]
}

// MarshalText writes the state's name, for JSON.
func (s ArenaState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ArenaStanding is one player's line of an arena's standings.
type ArenaStanding struct {
	// Rank is the player's place by points (ties share it); 0 for a
	// player with no game yet.
	Rank int
	ID   string
	Name string // already safe to print
	arena.Line
	// Reached is when their points last went up (the tie-break).
	Reached time.Time
	State   ArenaState
	// Code is the room of the race they play (ArenaPlaying).
	Code string
	// Idle is set for a player the arena paused because they made no
	// move in their race's first arena.FirstMoveTime (ArenaPaused, or
	// ArenaAway when their session was gone by then): their screen says
	// why.
	Idle bool
}

// ArenaView is an arena as one of its players (or a visitor) sees it:
// what the arena screen draws.
type ArenaView struct {
	Arena ArenaInfo
	// Now is the cluster's time the view was made at.
	Now time.Time
	// Over is set once the arena ended (its last races scored).
	Over bool
	// Players is how many joined; Playing how many are in a race now.
	Players, Playing int
	// Top is the standings' first lines (at most the limit asked for),
	// Near the lines around the viewer's own when it is not among them.
	Top, Near []ArenaStanding
	// You is the viewer's own line, zero (ID "") for a visitor or a
	// player not joined; FreeSince is when they became free (their
	// State ArenaFree), for "paired in N s".
	You       ArenaStanding
	FreeSince time.Time
	// TopGame is the room of the best ranked player's race that runs,
	// to watch, "" when none; TopNames its racers, TopPlayer that
	// player's ID.
	TopGame   string
	TopNames  []string
	TopPlayer string
}

// Events of an arena, posted to its players' sessions.
type (
	// ArenaChanged is coalesced under ArenaKey(id) whenever the arena's
	// players or standings change: the screen asks for a new view.
	ArenaChanged struct{ ID int64 }
	// ArenaPaired tells a player they were paired into a race of the
	// arena, in the room with this code.
	ArenaPaired struct {
		ID   int64
		Code string
	}
	// ArenaEnded tells the arena's players that it ended.
	ArenaEnded struct{ ID int64 }
	// ArenaTakenOver tells a session that another session of its player
	// joined the arena: this one is no longer paired.
	ArenaTakenOver struct{ ID int64 }
)

// ArenaKey is the coalescing key of an arena's ArenaChanged events.
func ArenaKey(id int64) string { return "arena/" + strconv.FormatInt(id, 10) }

// ArenaInfoOf is an arena as the rooms know it, from its event.
func ArenaInfoOf(e arena.Event) ArenaInfo {
	return ArenaInfo{ID: e.ID, Name: e.Name, RulesID: e.RulesID, Start: e.Start, End: e.End(), GameTime: e.Game()}
}
