package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/lobby"
)

// Spectating a race room (race_spectate.go): watching a racer from the
// Lobby or a deep link, joining a race that started, the boards.

// TestWatchARacer: `ssh -t HOST watch NAME` on a player who races said
// "NAME is not at a game right now"; it opens their room now, on their
// board, as w on them in the Lobby does, and w in the Lobby shows the
// racer it was pressed on, not the room's first.
func TestWatchARacer(t *testing.T) {
	who := func() []lobby.Presence {
		return []lobby.Presence{
			{Player: lobby.Player{ID: "p1", Name: "racer1"}, Doing: lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 42, Room: "KMTX"}, Session: 2},
			{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
		}
	}
	t.Run("deep link", func(t *testing.T) {
		fl := newFakeLobby()
		fl.who = who()
		f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
		h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: f, Args: []string{"watch", "RACER1"}, Unicode: true})
		if h.m.cur != screenRace {
			t.Fatalf("watch on a racer: screen %d, want the race room:\n%s", h.m.cur, h.screen())
		}
		h.wantScreen("watching racer1 · room KMTX")
		h.wantNotScreen("not at a game")
		if fl.watching != "" {
			t.Fatalf("watch on a racer asked the lobby to watch %q's solo game", fl.watching)
		}
	})
	t.Run("lobby", func(t *testing.T) {
		fl := newFakeLobby()
		fl.who = who()
		f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
		h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: f, Unicode: true})
		h.open(itemLobby)
		h.keys("w")
		h.wantScreen("watching racer1 · room KMTX")
	})
}

// underwayRaces refuses every join: the race has started.
type underwayRaces struct{ *fakeRaces }

func (u underwayRaces) Join(ctx context.Context, code string) (RaceSeat, error) {
	return RaceSeat{}, fmt.Errorf("room %s: %w", code, lobby.ErrRaceUnderway)
}

// TestJoinAStartedRaceWatches: enter on a room the Lobby still listed as
// waiting, whose race had just started, sent the player back to the menu
// with "the race has started; you can watch it"; so did `race CODE`. The
// player watches it now.
func TestJoinAStartedRaceWatches(t *testing.T) {
	u := underwayRaces{&fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}}
	h := newHarness(t, Deps{Races: u, Args: []string{"race", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	if h.m.cur != screenRace || h.m.race() == nil || !h.m.race().watching {
		t.Fatalf("race CODE of a race underway: screen %d, want to watch it:\n%s", h.m.cur, h.screen())
	}
	h.wantScreen("watching racer0 · room KMTX")
}

// TestSpectatorToldAtTheStart: a spectator read "go!" under the board
// for the whole race, meant for the racers; they are told how to switch
// boards.
func TestSpectatorToldAtTheStart(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseCountdown)
	f := &fakeRaces{seat: RaceSeat{Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	h.send(RaceEventMsg{Event: lobby.RaceStarted{Code: "KMTX", Round: 1, Deadline: epoch.Add(10 * time.Minute)}})
	h.wantScreen("the race is on: tab switches between the racers' boards")
	h.wantNotScreen("go!")
}

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

// TestSpectatorBoardAfterTheEnd: a spectator's board asked for just
// before the race ended (the last racer's leave) came back refused,
// the racer's seat gone with the end, and the results said "their board:
// you are not in this room"; an answer about a race that is over is
// dropped.
func TestSpectatorBoardAfterTheEnd(t *testing.T) {
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(2, lobby.PhaseRacing)}}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	h.wantScreen("room KMTX")
	watched := h.m.race().watched
	h.send(RaceEventMsg{Event: lobby.RaceEnded{Code: "KMTX", Round: 1, Results: []lobby.Placing{{Place: 1, ID: "p0", Name: "racer0"}}}})
	h.send(raceBoardMsg{id: watched, err: lobby.ErrNotMember})
	h.wantNotScreen("their board")
	h.wantScreen("room KMTX · results")
}

// TestJoinAfterTheStart: race CODE on a room whose race had started made
// the player a spectator saying only "you watch room X"; it now says why.
func TestJoinAfterTheStart(t *testing.T) {
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(2, lobby.PhaseRacing)}, joinErr: lobby.ErrRaceUnderway}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	h.wantScreen("the race in room KMTX had started: you watch it")
}
