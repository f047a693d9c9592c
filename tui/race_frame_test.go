package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// TestRaceFrameCache: after every kind of change the race screen sees,
// the frame drawn from its cache is the frame drawn afresh.
func TestRaceFrameCache(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"100x34", 100, 34}, {"100x40", 100, 40}, {"120x40", 120, 40}} {
		t.Run(size.name, func(t *testing.T) {
			h, _ := raceHarness(t, raceRoom(8, lobby.PhaseRacing), size.w, size.h)
			check := func(step string) {
				t.Helper()
				rs := h.m.race()
				if rs == nil {
					t.Fatalf("%s: the race screen is gone", step)
				}
				got := h.m.View()
				if again := h.m.View(); again != got {
					t.Fatalf("%s: two views in a row differ", step)
				}
				if parts := strings.Join(h.m.ViewParts(nil), "\n"); parts != got {
					t.Fatalf("%s: the view in parts differs from View:\nparts:\n%s\nview:\n%s", step, parts, got)
				}
				vc := rs.vc
				rs.vc = nil
				want := h.m.View()
				rs.vc = vc
				if got != want {
					t.Fatalf("%s: the cached frame differs from a fresh one:\ngot:\n%s\nwant:\n%s", step, got, want)
				}
			}
			check("start")
			progress := func(i, removed, moves int, st lobby.RacerState) {
				r := h.m.race().racers[i]
				r.Removed, r.Moves, r.State, r.Board = removed, moves, st, 1<<27|uint64(removed)
				h.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 1, Racer: r}})
			}
			progress(1, 2, 3, lobby.RacerPlaying)
			check("an opponent's move")
			progress(7, 1, 1, lobby.RacerPlaying)
			check("the last racer's move")
			progress(2, 28, 40, lobby.RacerCleared)
			check("an opponent cleared")
			h.keys("l")
			check("a cursor key")
			h.keys("d")
			check("a draw on its way")
			h.send(raceDoneMsg{what: "move", play: true, seq: 1})
			check("the draw taken")
			h.send(raceClockMsg{now: epoch.Add(61 * time.Second)})
			check("the clock")
			h.send(raceClockMsg{now: epoch.Add(61*time.Second + 300*time.Millisecond)})
			check("the clock within the second")
			h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: "gl"}})
			check("a chat line")
			h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: "hf"}})
			check("another chat line")
			h.keys("t")
			h.typeText("hi")
			check("the chat input")
			h.keys("esc")
			check("the chat input closed")
			h.keys(":")
			h.typeText("d")
			check("the move prompt")
			h.keys("esc")
			check("the move prompt closed")
			snap := h.m.race().snap
			snap.Seq++
			snap.Spectators = 2
			snap.Members = h.m.race().racers
			h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: snap}})
			check("spectators")
			h.send(tea.WindowSizeMsg{Width: size.w + 1, Height: size.h})
			check("a resize")
			h.keys("H")
			check("a message")
			left := h.m.race().racers[3]
			left.Present = false
			h.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 1, Racer: left}})
			check("a racer left")
			if h.m.race().table.d.status != engine.Playing {
				t.Fatalf("the game ended")
			}
		})
	}
}

// TestRaceTickOneMessage: the race's clock tick is one command that waits
// and brings the clock's reading: one message a second, not two.
func TestRaceTickOneMessage(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(2, lobby.PhaseRacing), 80, 24)
	rs := h.m.race()
	var waited time.Duration
	rs.env.wait = func(d time.Duration, read func() tea.Msg) tea.Cmd {
		return func() tea.Msg { waited = d; return read() }
	}
	rs.ticking = false
	cmd := rs.tick()
	if cmd == nil {
		t.Fatal("no tick during the race")
	}
	h.clock.advance(time.Second)
	msg, ok := cmd().(raceClockMsg)
	if !ok || !msg.now.Equal(epoch.Add(time.Second)) || waited != time.Second {
		t.Fatalf("the tick brought %#v after %v, want the clock's reading after a second", msg, waited)
	}
	if rs.tick() != nil {
		t.Fatal("a second tick while one is on its way")
	}
}

// TestRacePanelColumns: eight racers share lines two by two when the
// board would otherwise lose its large cards, and take a line each when
// there is room.
func TestRacePanelColumns(t *testing.T) {
	for _, tt := range []struct {
		w, h, lines int
	}{{80, 24, 4}, {100, 34, 4}, {100, 40, 8}} {
		h, _ := raceHarness(t, raceRoom(8, lobby.PhaseRacing), tt.w, tt.h)
		s := screenOf(h)
		n := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, " mv p") {
				n++
			}
		}
		if n != tt.lines {
			t.Errorf("%dx%d: the panel has %d racer lines, want %d:\n%s", tt.w, tt.h, n, tt.lines, s)
		}
		if got := len(strings.Split(s, "\n")); got != tt.h {
			t.Errorf("%dx%d: %d lines, want %d", tt.w, tt.h, got, tt.h)
		}
	}
}

// TestRaceFramePace: the room's events that only change the panel, the
// chat or the room's line are drawn at most once per raceEventGap, and
// the ticks of the race's time left let their frame wait (the server's
// renderer reads FrameGap and FrameSlack); the start, the end, a seat
// taken over, the countdown's ticks and anything else go at once, and a
// batch is paced only when all of it may be.
func TestRaceFramePace(t *testing.T) {
	progress := RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 1}}
	chat := RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX"}}
	started := RaceEventMsg{Event: lobby.RaceStarted{Code: "KMTX", Round: 1}}
	for _, tt := range []struct {
		name string
		msg  inboxMsg
		want time.Duration
	}{
		{"progress", inboxMsg{progress}, raceEventGap},
		{"chat", inboxMsg{chat}, raceEventGap},
		{"room changed", inboxMsg{RaceEventMsg{Event: lobby.RoomChanged{}}}, raceEventGap},
		{"race started", inboxMsg{started}, 0},
		{"race ended", inboxMsg{RaceEventMsg{Event: lobby.RaceEnded{}}}, 0},
		{"seat taken over", inboxMsg{RaceEventMsg{Event: lobby.SeatTakenOver{}}}, 0},
		{"presence", inboxMsg{lobby.PresenceChanged{}}, 0},
		{"batch of progress and chat", inboxMsg{InboxBatch{progress, chat, progress}}, raceEventGap},
		{"batch with the start", inboxMsg{InboxBatch{progress, started}}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.msg.FrameGap(); got != tt.want {
				t.Errorf("FrameGap() = %v, want %v", got, tt.want)
			}
		})
	}
	if got := (raceClockMsg{slack: true}).FrameSlack(); got != raceTickSlack {
		t.Errorf("the race clock's FrameSlack() = %v, want %v", got, raceTickSlack)
	}
	if got := (raceClockMsg{}).FrameSlack(); got != 0 {
		t.Errorf("the countdown clock's FrameSlack() = %v, want 0", got)
	}
	for _, phase := range []lobby.Phase{lobby.PhaseCountdown, lobby.PhaseRacing} {
		h, _ := raceHarness(t, raceRoom(2, phase), 80, 24)
		rs := h.m.race()
		rs.env.wait = func(_ time.Duration, read func() tea.Msg) tea.Cmd { return read }
		rs.ticking = false
		msg, _ := rs.tick()().(raceClockMsg)
		if want := phase == lobby.PhaseRacing; msg.slack != want {
			t.Errorf("%v: the tick's slack is %v, want %v", phase, msg.slack, want)
		}
	}
}

// TestClockFrameSlack: a tick of the table's clock lets its frame wait
// for the next key's; the start, the pause and the win go at once.
func TestClockFrameSlack(t *testing.T) {
	for _, tt := range []struct {
		what clockWhat
		want time.Duration
	}{{clockTick, clockTickSlack}, {clockStart, 0}, {clockPause, 0}, {clockWon, 0}, {clockMove, 0}, {clockSeed, 0}} {
		if got := (clockMsg{what: tt.what}).FrameSlack(); got != tt.want {
			t.Errorf("clockMsg{what: %d}.FrameSlack() = %v, want %v", tt.what, got, tt.want)
		}
	}
}
