package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// TestRaceWatchMinisMark: a spectator's panel marks the racer whose
// board it shows, with the mini pyramids (120 columns and more) as with
// the lines at 80 (seen at 200×60: no racer marked, tab moved no mark).
func TestRaceWatchMinisMark(t *testing.T) {
	for _, w := range []int{80, 200} {
		f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
		h := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: w, Height: 60, Unicode: true})
		for _, name := range []string{"racer0", "racer1"} {
			s := screenOf(h)
			if !strings.Contains(s, "watching "+name) {
				t.Fatalf("at %d columns: want %s's board:\n%s", w, name, s)
			}
			if got := strings.Count(s, ">racer"); got != 1 || !strings.Contains(s, ">"+name) {
				t.Errorf("at %d columns watching %s: %d racers marked, want %s alone:\n%s", w, name, got, name, s)
			}
			h.send(tea.KeyMsg{Type: tea.KeyTab})
		}
	}
}

// TestRaceClearedPanelPar: a racer who cleared the pyramid reads "N
// moves, par P" in the panel over the board, as the solo win screen
// says it (issue 11), once the par is known.
func TestRaceClearedPanelPar(t *testing.T) {
	line, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s)", status)
	}
	a := &analystSolver{par: 41}
	snap := raceRoom(2, lobby.PhaseRacing)
	snap.Deal = 3
	snap.Members[0].Finish = 3*time.Second + 300*time.Millisecond // a clock that makes the line long
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Solver: a, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	h.keys(":")
	h.typeText(strings.Join(line, " "))
	h.keys("enter")
	h.send(raceDoneMsg{what: "move", play: true, seq: 1, round: 1})
	want := strconv.Itoa(len(line)) + " moves, par 41"
	s := screenOf(h)
	if !strings.Contains(s, "You cleared the pyramid!") || !strings.Contains(s, want) {
		t.Fatalf("want the cleared panel with %q:\n%s", want, s)
	}
	// At 80 columns the line is too long for the panel: it breaks
	// between its parts, none of them cut (seen: "ime 0:03.3 · … passe").
	for _, part := range []string{"time 0:03.3", "3 of 3 passes"} {
		if !strings.Contains(s, part) {
			t.Errorf("the panel cuts %q:\n%s", part, s)
		}
	}
}

// TestGhostRaceBarHasNoChat: a ghost race's help bar does not offer t
// chat, which a ghost race has not ("a ghost does not chat"); a race
// room's does.
func TestGhostRaceBarHasNoChat(t *testing.T) {
	line, _ := heuristicLine(t, "classic", 3)
	times := make([]time.Duration, len(line))
	for i := range times {
		times[i] = time.Duration(i+1) * time.Second
	}
	gh := &fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Times: times}}
	h := newHarness(t, Deps{Args: []string{"race", "ghost", "7"}, Width: 80, Height: 24, Unicode: true, Player: testPlayer, Ghosts: gh})
	h.send(ghostTickMsg{})
	h.wantScreen("ghost of bob", "q leave")
	h.wantNotScreen("t chat")
	h.keys(":")
	h.typeText(strings.Join(line, " "))
	h.keys("enter")
	h.wantScreen("You beat the ghost!")
	h.wantNotScreen("t chat")
	hr, _ := raceHarness(t, raceRoom(2, lobby.PhaseRacing), 80, 24)
	hr.wantScreen("t chat")
}

// TestRaceChatTooLongKeepsTheLine: a chat line over the limit is refused
// at once and stays in the open input to be shortened, rather than sent,
// refused and lost (seen over SSH with a pasted line of 300 characters).
func TestRaceChatTooLongKeepsTheLine(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	h.keys("t")
	h.typeText(strings.Repeat("x", lobby.MaxChatLen+1))
	h.keys("enter")
	rs := h.m.race()
	if !rs.inputOpen || rs.input.Value() != strings.Repeat("x", lobby.MaxChatLen+1) {
		t.Fatalf("the long line is gone (input open %v, %d characters kept)", rs.inputOpen, len(rs.input.Value()))
	}
	h.wantScreen("at most 200 characters")
	h.keys("backspace", "enter")
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.said) != 1 || len(f.said[0]) != lobby.MaxChatLen {
		t.Errorf("said %d lines, want the shortened one", len(f.said))
	}
}
