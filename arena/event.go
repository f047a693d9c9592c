// Package arena holds the rules of arena tournaments, pure and without
// I/O: what an event is (its rules, start, duration and recurrence), how
// each arena game scores (points for the place, the clear bonus, streaks
// and berserk) and how free players are grouped into races. The rooms
// (package lobby) run an arena's races; the store keeps its events and
// scores; the arcade wires them. docs/arenas.md is the rule as players
// read it.
package arena

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The bounds of an arena's duration.
const (
	MinDuration = 5 * time.Minute
	MaxDuration = 3 * time.Hour
)

// The bounds and default of the time limit of one arena game.
const (
	DefaultGameTime = 4 * time.Minute
	MinGameTime     = time.Minute
	MaxGameTime     = 15 * time.Minute
)

// MaxNameLen is the longest name an arena may have, in characters.
const MaxNameLen = 40

// Recurrence is how an arena repeats: not at all, every day or every
// week at the same time.
type Recurrence string

// The recurrences.
const (
	Once   Recurrence = ""
	Daily  Recurrence = "day"
	Weekly Recurrence = "week"
)

// ParseRecurrence reads "day", "daily", "week", "weekly", or "" and
// "once" for none.
func ParseRecurrence(s string) (Recurrence, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "once", "none":
		return Once, nil
	case "day", "daily":
		return Daily, nil
	case "week", "weekly":
		return Weekly, nil
	}
	return Once, fmt.Errorf("arena: repeat %q: say day or week", s)
}

// Period is how far apart two occurrences are; 0 for Once.
func (r Recurrence) Period() time.Duration {
	switch r {
	case Daily:
		return 24 * time.Hour
	case Weekly:
		return 7 * 24 * time.Hour
	}
	return 0
}

// Phase is where an arena stands at a moment.
type Phase string

// The phases of an arena.
const (
	Upcoming  Phase = "upcoming"
	Running   Phase = "running"
	Finished  Phase = "finished"
	Cancelled Phase = "cancelled"
)

// Event is an arena as its organiser set it up.
type Event struct {
	ID       int64
	Name     string
	RulesID  string // the engine's canonical rules ID
	Start    time.Time
	Duration time.Duration
	// GameTime is the time limit of each of its races (DefaultGameTime
	// when 0); a race never runs past the arena's end.
	GameTime time.Duration
	// Every is its recurrence: when one occurrence ends, the next is
	// set up at Start plus its period.
	Every Recurrence
	// Series is the ID of the first occurrence of a recurring arena (its
	// own ID for that one), 0 for a one-off.
	Series int64
	// CreatedBy is the player ID of who set it up.
	CreatedBy string
	// Cancelled is set once an admin cancelled it.
	Cancelled bool
}

// Errors of an event's settings, meant for the organiser as they are.
var (
	ErrDuration = fmt.Errorf("arena: the duration must be %v to %v", MinDuration, MaxDuration)
	ErrGameTime = fmt.Errorf("arena: a game's time must be %v to %v", MinGameTime, MaxGameTime)
	ErrName     = fmt.Errorf("arena: a name is 1 to %d characters", MaxNameLen)
	ErrStart    = errors.New("arena: the start must not be in the past")
	ErrRules    = errors.New("arena: no rules")
)

// End is when the arena ends.
func (e Event) End() time.Time { return e.Start.Add(e.Duration) }

// Game is the time limit of each of its races.
func (e Event) Game() time.Duration {
	if e.GameTime <= 0 {
		return DefaultGameTime
	}
	return e.GameTime
}

// PhaseAt is where the arena stands at now.
func (e Event) PhaseAt(now time.Time) Phase {
	switch {
	case e.Cancelled:
		return Cancelled
	case now.Before(e.Start):
		return Upcoming
	case now.Before(e.End()):
		return Running
	}
	return Finished
}

// Check reports the first thing wrong with the event's settings, or nil;
// the start is checked against now (an arena may not be set up in the
// past, but may start now).
func (e Event) Check(now time.Time) error {
	name := strings.TrimSpace(e.Name)
	if name == "" || len([]rune(name)) > MaxNameLen {
		return ErrName
	}
	if e.RulesID == "" {
		return ErrRules
	}
	if e.Duration < MinDuration || e.Duration > MaxDuration {
		return ErrDuration
	}
	if e.GameTime != 0 && (e.GameTime < MinGameTime || e.GameTime > MaxGameTime) {
		return ErrGameTime
	}
	if e.Start.Before(now.Add(-time.Minute)) {
		return ErrStart
	}
	return nil
}

// Next returns the occurrence after e of a recurring arena (ok false for
// a one-off): the same settings at Start plus the period, in the series
// of e, not yet stored (ID 0).
func (e Event) Next() (Event, bool) {
	p := e.Every.Period()
	if p == 0 {
		return Event{}, false
	}
	n := e
	n.ID, n.Cancelled = 0, false
	if n.Series == 0 {
		n.Series = e.ID
	}
	n.Start = e.Start.Add(p)
	return n, true
}

// TimeLimit is the time limit of a race paired at now: the game's time,
// cut to what is left of the arena (0 when nothing is).
func (e Event) TimeLimit(now time.Time) time.Duration {
	left := e.End().Sub(now)
	if left <= 0 {
		return 0
	}
	return min(e.Game(), left)
}
