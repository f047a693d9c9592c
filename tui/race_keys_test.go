package tui

import (
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// The race screen's keys (race_keys.go): help, the move prompt, the
// host's rematch and mute, the chat line.

// TestRaceHelp: ? in a race showed the table's help (hints, an undo
// without limit, n for a new deal, the solver's line) and its help bar
// did not have ?; it has, and the help is the race's.
func TestRaceHelp(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	if l := lineOf(screenOf(h), "enter select"); !strings.Contains(l, "? help") {
		t.Errorf("the race's help bar has no ? help: %q", l)
	}
	h.keys("?")
	h.wantScreen("A race", "no hints in a race", "never a draw or a redeal", "q q", "t")
	h.wantNotScreen("Undo and redo have no limit", "new deal", "watch the solver")
	h.keys("q")
	if h.m.cur != screenRace {
		t.Fatalf("q on the race's help: screen %d, want the race", h.m.cur)
	}
	// A spectator's help is theirs.
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
	hs := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	hs.keys("?")
	hs.wantScreen("A race", "the next racer's board", "stop watching")
	hs.wantNotScreen("Waiting room", "Undo and redo")
}

// TestRacePromptEsc: in a race, esc on the open move prompt did not
// close it: it armed "q again leaves the race", and a second esc left
// the race. It closes the prompt, as at the table, and keys typed in
// the prompt (? t q) go to the prompt.
func TestRacePromptEsc(t *testing.T) {
	h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	h.keys(":")
	h.keys("esc")
	if h.m.race() == nil || h.m.race().table.promptOpen {
		t.Fatalf("esc left the move prompt open:\n%s", screenOf(h))
	}
	h.wantNotScreen("q again leaves")
	h.keys(":", "esc", "esc")
	if h.m.cur != screenRace || f.left != 0 {
		t.Fatalf("esc twice on the prompt left the race: screen %d, %d leaves", h.m.cur, f.left)
	}
	h.keys(":")
	h.typeText("7.1+7.4 tq?")
	if h.m.cur != screenRace || h.m.race().inputOpen || !h.m.race().table.promptOpen {
		t.Fatalf("t, q or ? typed in the move prompt left it:\n%s", screenOf(h))
	}
	// So in a ghost race.
	line, _ := heuristicLine(t, "classic", 3)
	gh := &fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Played: time.Minute}}
	hg := newHarness(t, Deps{Args: []string{"race", "ghost", "7"}, Unicode: true, Player: testPlayer, Ghosts: gh})
	hg.send(ghostTickMsg{})
	if rs := hg.m.race(); rs == nil || rs.ghost == nil || rs.snap.Phase != lobby.PhaseRacing {
		t.Fatalf("no ghost race:\n%s", hg.screen())
	}
	hg.keys(":", "esc", "esc")
	if hg.m.cur != screenRace || hg.m.race().table.promptOpen {
		t.Fatalf("esc twice on a ghost race's prompt: screen %d, prompt open %v", hg.m.cur, hg.m.race() != nil && hg.m.race().table.promptOpen)
	}
}

// TestRaceRematchAndMuteSay: the host's r left "dealing a new race…" on
// the message line of the new waiting room (the others kept "the race is
// over"), and /mute NAME said nothing to the host; both say what
// happened now.
func TestRaceRematchAndMuteSay(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseRacing)
	h, _ := raceHarness(t, snap, 80, 24)
	done := raceRoom(3, lobby.PhaseResults)
	done.Seq = 2
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: done}})
	h.keys("r")
	next := raceRoom(3, lobby.PhaseWaiting)
	next.Round, next.Seq, next.Deal = 2, 3, 43
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	h.wantNotScreen("dealing a new race", "the race is over")
	h.wantScreen("a rematch on a new deal")
	h.keys("t")
	h.typeText("/mute racer2")
	h.keys("enter")
	h.wantScreen("racer2 is muted in this room")
	h.keys("t")
	h.typeText("/unmute racer2")
	h.keys("enter")
	h.wantScreen("racer2 may chat again")
}

// TestRaceRemove: the host's /remove NAME on the chat line removes the
// member and says so; the removed member's screen leaves the room
// saying why.
func TestRaceRemove(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseWaiting)
	h, f := raceHarness(t, snap, 80, 24)
	h.keys("t")
	h.typeText("/remove racer2")
	h.keys("enter")
	h.wantScreen("racer2 is out of this room")
	f.mu.Lock()
	removed := len(f.removed)
	f.mu.Unlock()
	if removed != 1 {
		t.Fatalf("%d removals asked for, want racer2's", removed)
	}
	h.send(RaceEventMsg{Event: lobby.Removed{Code: snap.Code}})
	h.wantScreen("the host removed you from room " + snap.Code)
}

// TestDeepLinkedRaceUsesTheSavedKeys: a race opened by a deep link (a
// ghost race here) moves with the player's saved keys, which come after
// the race's table is made.
func TestDeepLinkedRaceUsesTheSavedKeys(t *testing.T) {
	acc := newFakeAccount()
	acc.settings = map[string]string{"keys": "wasd"}
	gh := &fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: []string{"d"}}, Times: []time.Duration{time.Second}}}
	d := accountDeps(acc)
	d.Args, d.Ghosts = []string{"race", "ghost", "7"}, gh
	h := newHarness(t, d)
	rs := h.m.race()
	if rs == nil || rs.table == nil {
		t.Fatalf("no ghost race:\n%s", h.screen())
	}
	if rs.scheme != SchemeWASD || rs.table.scheme != SchemeWASD {
		t.Errorf("the race's keys: %v, its table's %v; want the saved wasd", rs.scheme, rs.table.scheme)
	}
}
