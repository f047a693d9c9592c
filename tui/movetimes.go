package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// When each move was made (for the ghost race's pace): the table keeps,
// beside the game's move log, the played-time clock at each move, so that
// a replay or a ghost keeps the real pace. Update reads no clock: a move
// gets a pending time and asks for a reading (clockMove); the reading
// fills every pending time. A save that leaves before the reading comes
// fills them with its own reading, taken a moment later. Undo drops the
// times of the moves it takes back; redo times a move anew.

// Marks of a move whose time is not known.
const (
	timePending time.Duration = -1 // the reading is on its way
	timeUnknown time.Duration = -2 // never known: a game stored before times were kept
)

// clockMove: a reading for the moves just made.
const clockMove clockWhat = clockTick + 1

// timeMoves brings the table's move times in line with the game after a
// change: the times of undone moves go, new moves wait for a reading,
// which the returned command asks for.
func (t *tableScreen) timeMoves() tea.Cmd {
	n := t.game.MovesMade()
	if n <= len(t.times) {
		t.times = t.times[:n]
		return nil
	}
	for len(t.times) < n {
		t.times = append(t.times, timePending)
	}
	return t.env.readClock(t.token, clockMove)
}

// movesTimed fills the pending move times with the play time at now.
func (t *tableScreen) movesTimed(now time.Time) {
	at := t.playedAt(now)
	for i, d := range t.times {
		if d == timePending {
			t.times[i] = at
		}
	}
}

// playedAt is the time played at now, by the table's clock.
func (t *tableScreen) playedAt(now time.Time) time.Duration {
	if t.wonKnown {
		return t.wonIn
	}
	d := t.played
	if !t.since.IsZero() && now.After(t.since) {
		d += now.Sub(t.since)
	}
	return d
}

// resumeTimes takes the stored move times of a game put back on the
// table: moves stored without a time stay unknown.
func (t *tableScreen) resumeTimes(stored []time.Duration) {
	n := t.game.MovesMade()
	t.times = make([]time.Duration, n, n+16)
	for i := range t.times {
		t.times[i] = timeUnknown
		if i < len(stored) && stored[i] >= 0 {
			t.times[i] = stored[i]
		}
	}
}

// sentTimes is the move times a save sends: those known, up to the first
// move without one; a pending time becomes played, the save's reading.
func sentTimes(times []time.Duration, played time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(times))
	for _, d := range times {
		switch {
		case d == timePending:
			d = played
		case d < 0:
			return out
		}
		out = append(out, d)
	}
	return out
}
