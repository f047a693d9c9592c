package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// TestRaceHelpBarAtBottom: during a race the help bar is the screen's
// last line, whatever the window, with the racer panel above it (it used
// to come after the bar, which then showed in mid-screen in a tall
// window).
func TestRaceHelpBarAtBottom(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h, _ := raceHarness(t, raceRoom(3, lobby.PhaseRacing), size[0], size[1])
			s := screenOf(h)
			lines := strings.Split(s, "\n")
			if len(lines) != size[1] {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), size[1], s)
			}
			bar, panel := -1, -1
			for i, l := range lines {
				if strings.Contains(l, "q leave") {
					bar = i
				}
				if strings.Contains(l, "left") && strings.Contains(l, "room KMTX") {
					panel = i
				}
			}
			if bar != len(lines)-1 || panel < 0 || panel > bar {
				t.Errorf("help bar on line %d, panel's room line on line %d, want the bar last (%d) and the panel above it:\n%s",
					bar+1, panel+1, len(lines), s)
			}
		})
	}
}

// drawnOut finds a deal of One pass that is lost by drawing out the
// stock with no removal: a racer stuck before the first pair, the whole
// pyramid left.
func drawnOut(t *testing.T) (uint64, []string) {
	t.Helper()
	for n := uint64(1); n < 5000; n++ {
		g, err := engine.NewNumbered(engine.MustRules("one-pass"), n)
		if err != nil {
			t.Fatal(err)
		}
		var moves []string
		for g.Status() == engine.Playing && g.Apply(engine.Move{Kind: engine.Draw}) == nil {
			moves = append(moves, "d")
		}
		if g.Status() == engine.Lost {
			return n, moves
		}
	}
	t.Fatal("no deal of One pass is lost by drawing out the stock")
	return 0, nil
}

// TestRaceStuckBoxHidesNothing: a stuck racer's "No moves left" box goes
// beside what is left of the pyramid, shrunk to fit (to its title alone
// beside a whole pyramid), and covers none of its cards (at 80×24 it used
// to lie over them): the window's header and message line tell the rest.
func TestRaceStuckBoxHidesNothing(t *testing.T) {
	moves, status := heuristicLine(t, "one-pass", 1)
	if status != engine.Lost {
		t.Fatalf("the heuristic does not lose one-pass 1 any more (%s); pick another deal", status)
	}
	full, draws := drawnOut(t)
	tests := []struct {
		name  string
		deal  uint64
		moves []string
		left  int
		w, h  int
	}{
		{"race_stuck_80x24", 1, moves, 12, 80, 24},
		{"race_stuck_120x40", 1, moves, 12, 120, 40},
		{"race_stuck_full_80x24", full, draws, 28, 80, 24},
		{"race_stuck_full_120x40", full, draws, 28, 120, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := raceRoom(3, lobby.PhaseRacing)
			snap.RulesID, snap.RulesTitle, snap.Deal = engine.MustRules("one-pass").ID(), "One pass", tt.deal
			h, _ := raceHarness(t, snap, tt.w, tt.h)
			h.keys(":")
			h.typeText(strings.Join(tt.moves, " "))
			h.keys("enter")
			s := screenOf(h)
			checkShape(t, s, tt.w, tt.h)
			if !strings.Contains(s, "No moves left") {
				t.Fatalf("no summary:\n%s", s)
			}
			tb := h.m.race().table
			left := 0
			for p := range engine.Place(tb.game.Rules().PyramidSize()) {
				c, _ := tb.game.PyramidCard(p)
				if !tb.d.present[p] {
					continue
				}
				left++
				if face := strings.TrimSpace(string(h.m.env.gl.faces[c][:])); !strings.Contains(s, face) {
					t.Errorf("card %s at %v is hidden", face, p)
				}
			}
			if left != tt.left || t.Failed() {
				t.Fatalf("%d cards left (want %d):\n%s", left, tt.left, s)
			}
			golden(t, tt.name, s)
		})
	}
}

// TestResultsNameTheHost: the results say who the host is, the one who
// may start a rematch (the part passes to another racer when the host
// goes, a killed server's included), and r from anybody else asks for
// no rematch the server would refuse: it says whom to ask.
func TestResultsNameTheHost(t *testing.T) {
	tests := []struct {
		name      string
		host      int // the member who hosts; the player is member 0
		wantText  []string
		wantAsked int
	}{
		{"the player hosts", 0, []string{"r: a rematch in this room"}, 1},
		{"another racer hosts", 1, []string{"racer1, the host, may start a rematch", "ask racer1, the host, for a rematch"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := raceRoom(3, lobby.PhaseResults)
			snap.Results = []lobby.Placing{{Place: 1, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 38}}
			for i := range snap.Members {
				snap.Members[i].Host = i == tt.host
			}
			snap.Host = snap.Members[tt.host].ID
			h, f := raceHarness(t, snap, 80, 24)
			h.keys("r")
			s := screenOf(h)
			for _, want := range tt.wantText {
				if !strings.Contains(s, want) {
					t.Errorf("want %q on the screen:\n%s", want, s)
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.rematches != tt.wantAsked {
				t.Errorf("%d rematches asked, want %d", f.rematches, tt.wantAsked)
			}
		})
	}
}

// TestRaceMinisApart: at 160 columns the bottom rows of the racers' mini
// pyramids ran together into one row of 21 cards (one blank between
// pyramids, as between cards); two blanks part them now, and eight still
// fit at 120 columns.
func TestRaceMinisApart(t *testing.T) {
	for _, w := range []int{120, 160} {
		snap := raceRoom(8, lobby.PhaseRacing)
		h, _ := raceHarness(t, snap, w, 40)
		s := screenOf(h)
		if got := strings.Count(s, "▲"); got != 8*28 {
			t.Fatalf("at %d columns %d cards in the mini pyramids, want %d:\n%s", w, got, 8*28, s)
		}
		ls := strings.Split(s, "\n")
		bottom := ls[len(ls)-4] // above the figures, the state and the help bar
		if strings.Count(bottom, "▲ ▲ ▲ ▲ ▲ ▲ ▲ ▲") > 0 || strings.Count(bottom, "▲  ▲") != 7 {
			t.Errorf("at %d columns the bottom rows are not apart: %q", w, bottom)
		}
		for i, l := range ls {
			if cells(l) > w {
				t.Errorf("at %d columns line %d is %d wide", w, i, cells(l))
			}
		}
	}
}

// TestRaceWaitingSubtitleFits80: the waiting room's second line ended
// "no hints; undo takes back removal…" at 80 columns.
func TestRaceWaitingSubtitleFits80(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	l := lineOf(screenOf(h), "the same deal for everybody")
	if !strings.HasSuffix(strings.TrimSpace(l), "no hints · undo: removals only") {
		t.Errorf("the waiting room's second line: %q", l)
	}
}

// TestRaceResultsTimeUp: at the time limit the results said "7/45 at
// 0:05.8 (playing)" of racers whose race was over; "(time up)".
func TestRaceResultsTimeUp(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(2, lobby.PhaseRacing), 80, 24)
	done := raceRoom(2, lobby.PhaseResults)
	done.Seq = 2
	done.Results = []lobby.Placing{
		{Place: 1, ID: "p0", Name: "racer0", State: lobby.RacerPlaying, Removed: 7, Moves: 7, Time: 5 * time.Second},
		{Place: 2, ID: "p1", Name: "racer1", State: lobby.RacerPlaying},
	}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: done}})
	h.wantScreen("7/28 at 0:05.0 (time up)", "0/28 (time up)")
	h.wantNotScreen("(playing)")
}

// TestRaceCountdownNoReadyMarks: during the countdown every racer read
// "not ready", those who had marked themselves ready too (the room
// clears the marks at the start); the countdown shows no marks.
func TestRaceCountdownNoReadyMarks(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseCountdown)
	snap.StartsAt = epoch.Add(3 * time.Second)
	h, _ := raceHarness(t, snap, 80, 24)
	h.wantScreen("The race starts in")
	h.wantNotScreen("not ready")
}
