package tui

import (
	"testing"
	"time"

	"pyramid/lobby"
)

// The waiting room: leaving asks first, and the screen says what a start
// waits for and who hosts.

// TestWaitingRoomEscAsks: esc in the waiting room left the room at once,
// giving up the place and the ready mark; it now asks, another key
// stays, and a second esc (or q) leaves.
func TestWaitingRoomEscAsks(t *testing.T) {
	h, f := raceHarness(t, raceRoom(3, lobby.PhaseWaiting), 80, 24)
	h.keys("esc")
	h.wantScreen("room KMTX", "q or esc again leaves room KMTX; any other key stays")
	if h.m.cur != screenRace {
		t.Fatalf("one esc left the waiting room for screen %v", h.m.cur)
	}
	h.keys("r", "esc")
	if h.m.cur != screenRace {
		t.Fatalf("esc after another key left the waiting room for screen %v", h.m.cur)
	}
	h.keys("esc")
	if h.m.cur == screenRace {
		t.Fatalf("a second esc stayed in the waiting room:\n%s", h.screen())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.left != 1 {
		t.Errorf("%d leaves, want 1", f.left)
	}
}

// TestWaitingRoomSaysWhoIsReady: the host's line says the start waits for
// everybody to be ready, until they are; a racer is told how the race
// starts; an idle host's part passing is said to everybody.
func TestWaitingRoomSaysWhoIsReady(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseWaiting)
	snap.Members[1].Ready = true
	h, _ := raceHarness(t, snap, 80, 24)
	h.wantScreen("You host: s starts the race once everybody is ready (1 not yet).")
	next := snap
	next.Seq = 2
	next.Members = append([]lobby.Racer(nil), snap.Members...)
	next.Members[2].Ready = true
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	h.wantScreen("You host, and everybody is ready: s starts the race.")

	h.send(RaceEventMsg{Event: lobby.HostPassed{Code: "KMTX", From: "racer0", To: "racer1", ToID: "p1"}})
	h.wantScreen("racer0 was idle: racer1 hosts the room now")

	other := raceRoom(3, lobby.PhaseWaiting)
	other.Host, other.Members[0].Host, other.Members[1].Host = "p1", false, true
	h2, _ := raceHarness(t, other, 80, 24)
	h2.wantScreen("r marks you ready: the race starts once everybody is ready.")
	h2.send(RaceEventMsg{Event: lobby.HostPassed{Code: "KMTX", From: "racer1", To: "racer0", ToID: "p0"}})
	h2.wantScreen("racer1 was idle: you host the room now")
}

// TestCountdownTick: the countdown is read again a moment after the
// second it shows changes, never later than a second, and every fifth
// of a second without a reading or once the start is due.
func TestCountdownTick(t *testing.T) {
	start := time.Date(2026, 12, 6, 20, 0, 3, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, c := range []struct {
		left time.Duration
		want time.Duration
	}{
		{3 * time.Second, time.Second}, // shows 3 until 2 s are left
		{ms(2300), ms(320)},
		{ms(2990), time.Second},
		{ms(1010), ms(30)},
		{ms(5), ms(25)},
		{0, ms(200)},
		{-time.Second, ms(200)},
	} {
		now := start.Add(-c.left)
		if got := countdownTick(now, start); got != c.want {
			t.Errorf("%s before the start: next reading in %s, want %s", c.left, got, c.want)
		}
		if got := countdownTick(now, start); c.left > 0 && countdownSecond(start.Sub(now.Add(got))) != countdownSecond(c.left)-1 {
			t.Errorf("%s before the start: the reading %s later shows %d, want %d", c.left, got, countdownSecond(start.Sub(now.Add(got))), countdownSecond(c.left)-1)
		}
	}
	if got := countdownTick(time.Time{}, start); got != ms(200) {
		t.Errorf("no reading yet: next in %s, want 200ms", got)
	}
}
