package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// The table's clock: the time played shows in the header, ticking once a
// second while the game goes on and the table shows. It stops while the
// player is in the menu (and while disconnected): the time spent there
// is not played. Update reads no clock: every reading comes in a
// clockMsg, asked for in a command, and the pause and the start that
// follow each other are ordered (a start waits for the pause's reading).

// tickMsg asks for the next reading of the table's clock.
type tickMsg struct{ token int }

// Readings of the clock beyond the start and the win (see clockWhat).
const (
	clockPause clockWhat = iota + 16 // the player left the table for the menu
	clockTick                        // the header's clock moves on
)

// clockStep is the time between two ticks of the header's clock.
const clockStep = time.Second

// clockTickSlack is how long the frame of a tick of the header's clock
// may wait for another frame to carry it (FrameSlack): the seconds go on
// once a second, each shown with the player's next key within that
// time, or after it (the tick's phase is the session's own: the second
// shown was up to a second late anyway).
const clockTickSlack = 400 * time.Millisecond

// FrameSlack is how long the frame after a reading of the clock may
// wait for another (server.FrameSlacker: the session's renderer asks): a
// tick's may wait
// clockTickSlack; the start, the pause and the win go at once.
func (msg clockMsg) FrameSlack() time.Duration {
	if msg.what == clockTick {
		return clockTickSlack
	}
	return 0
}

// elapsed is the time played as the header shows it.
func (t *tableScreen) elapsed() time.Duration {
	if t.wonKnown {
		return t.wonIn
	}
	d := t.played
	if !t.since.IsZero() && t.lastTick.After(t.since) {
		d += t.lastTick.Sub(t.since)
	}
	return d
}

// showClock writes the elapsed time into the header.
func (t *tableScreen) showClock() { t.clock = clock(t.elapsed()) }

// clocked takes a reading of the clock: the start of play, the pause
// for the menu, a tick or the win.
func (t *tableScreen) clocked(msg clockMsg) tea.Cmd {
	var cmd tea.Cmd
	switch msg.what {
	case clockStart:
		if t.since.IsZero() && !t.away {
			t.since, t.lastTick = msg.now, msg.now
		}
		cmd = t.startTicking()
	case clockPause:
		t.pausing = false
		if !t.since.IsZero() {
			t.played += max(0, msg.now.Sub(t.since))
			t.since, t.lastTick = time.Time{}, time.Time{}
		}
		if !t.away {
			cmd = t.env.readClock(t.token, clockStart) // back at the table already
		}
	case clockTick:
		t.ticking = false
		if t.away || t.d.status != engine.Playing {
			break
		}
		if msg.now.After(t.lastTick) {
			t.lastTick = msg.now
		}
		cmd = t.startTicking()
	case clockMove:
		t.movesTimed(msg.now) // movetimes.go
		return nil
	case clockWon:
		if !t.since.IsZero() {
			t.wonIn = t.played + msg.now.Sub(t.since)
		} else {
			t.wonIn = t.played
		}
		t.wonKnown = true
	}
	t.showClock()
	return cmd
}

// startTicking schedules the next tick, unless one is on its way or the
// clock stands.
func (t *tableScreen) startTicking() tea.Cmd {
	if t.ticking || t.away || t.since.IsZero() || t.d.status != engine.Playing {
		return nil
	}
	t.ticking = true
	return t.env.after(clockStep, tickMsg{token: t.token})
}

// leave stops the clock: the player goes to the menu.
func (t *tableScreen) leave() tea.Cmd {
	if t.away {
		return nil
	}
	t.away = true
	if t.pausing {
		return nil
	}
	t.pausing = true
	return t.env.readClock(t.token, clockPause)
}

// back starts the clock again: the player is back at the table. While
// the pause's reading is on its way, that reading starts it.
func (t *tableScreen) back() tea.Cmd {
	if !t.away {
		return nil
	}
	t.away = false
	if t.pausing {
		return nil
	}
	return t.env.readClock(t.token, clockStart)
}
