package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// fakeChallenges is a Challenges in memory: one challenge's game, and
// the names offered to, with the rules of each.
type fakeChallenges struct {
	game    SavedGame
	err     error
	offered []string
	rules   []string
}

func (f *fakeChallenges) Open(ctx context.Context, ref string) (SavedGame, error) {
	return f.game, f.err
}

func (f *fakeChallenges) Offer(ctx context.Context, name string, r engine.Rules) (string, error) {
	f.offered = append(f.offered, name)
	f.rules = append(f.rules, r.ID())
	return "challenge 3 offered to " + name, nil
}

// TestChallengeLink: ssh -t HOST challenge ID seats the player's game of
// the challenge: its deal hidden, no hints, undo of removals only; a
// refusal (a second attempt) goes to the menu saying why.
func TestChallengeLink(t *testing.T) {
	rec := engine.Record{Rules: "classic", Deal: 42}
	fc := &fakeChallenges{game: SavedGame{ID: "g7", Record: rec, Status: StatusPlaying}}
	games := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"challenge", "7"}, Unicode: true, Player: testPlayer, Games: games, Challenges: fc})
	h.wantScreen("Classic · hidden deal", "challenge 7: one attempt · no hints · undo: removals only")
	h.wantNotScreen("deal 42")
	h.wantNotScreen("H hint", "n new") // the bar offers neither: no hints, one deal
	h.keys("H")
	h.wantScreen("no hints in a challenge")
	h.m.tellLoaded(true)
	if h.m.table().live.on {
		t.Error("the live check is on at a challenge's table")
	}
	h.keys("d", "u")
	h.wantScreen("undo takes back removals in a challenge, never a draw or a redeal")
	if n := len(games.saves); n == 0 || games.saves[n-1].ID != "g7" {
		t.Fatalf("saves %+v, want the challenge's game g7", games.saves)
	}
	// Who hides its deal; spectators get no board of it.
	if d, ok := h.m.doing(); !ok || d.What != lobby.Playing || d.Deal != 0 || !d.Hidden {
		t.Errorf("doing %+v, want playing a hidden deal", d)
	}
	h.m.live.watchers = 1
	if b, _ := h.m.boardChange(); b.Playing() {
		t.Errorf("a spectator's board of a challenge's game: %+v, want none", b)
	}

	fc = &fakeChallenges{err: errors.New("you played this challenge already: one attempt each")}
	h = newHarness(t, Deps{Args: []string{"challenge", "7"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}, Challenges: fc})
	h.wantScreen("challenge 7: you played this challenge already: one attempt each")
	if !isMenuScreen(h) {
		t.Fatalf("a refused challenge stays off the menu:\n%s", h.screen())
	}
}

func isMenuScreen(h *harness) bool { return h.m.cur == screenMenu }

// TestChallengeFromLobby: c on a player's line of the Lobby challenges
// them, to the rules of the player's last game; not on one's own line,
// nor a guest's.
func TestChallengeFromLobby(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "b", Name: "bob"}, Doing: lobby.Doing{What: lobby.AtMenu}, Session: 2},
		{Player: lobby.Player{Name: "guest-VPJ9", Guest: true}, Doing: lobby.Doing{What: lobby.AtMenu}, Session: 3},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	fc := &fakeChallenges{}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Games: &fakeGames{}, Challenges: fc, Unicode: true})
	h.m.menu().rules = engine.MustRules("double") // the last game's
	h.open(itemLobby)
	if l := lineOf(h.screen(), "q menu"); !strings.Contains(l, "c challenge") {
		t.Errorf("the bar on bob's line: %q, want c challenge", l)
	}
	h.keys("c")
	h.wantScreen("challenge 3 offered to bob")
	h.keys("down", "c", "down", "c")
	if len(fc.offered) != 1 || fc.offered[0] != "bob" {
		t.Fatalf("offered to %v, want bob alone", fc.offered)
	}
	if fc.rules[0] != "double" {
		t.Errorf("offered on %s, want the last game's rules, double", fc.rules[0])
	}
}

// TestChallengeFromTheBoard: c on another player's line of the daily
// board challenges them; on one's own it does nothing.
func TestChallengeFromTheBoard(t *testing.T) {
	acc := newFakeAccount()
	fc := &fakeChallenges{}
	d := accountDeps(acc)
	d.Challenges = fc
	h := newHarness(t, d)
	h.open(itemLeaders)
	b := h.m.screens[screenLeaders].(*leadersScreen)
	if len(b.entries) < 2 {
		t.Fatalf("the board has %d lines, want 2 or more", len(b.entries))
	}
	b.entries[0].You, b.entries[1].You = true, false
	h.send(tea.KeyMsg{Type: tea.KeyHome})
	h.keys("c")
	if len(fc.offered) != 0 {
		t.Fatalf("c on one's own line offered to %v", fc.offered)
	}
	h.keys("down", "c")
	if len(fc.offered) != 1 || fc.offered[0] != b.entries[1].Name {
		t.Fatalf("offered to %v, want %s", fc.offered, b.entries[1].Name)
	}
	h.wantScreen("challenge 3 offered to mallory") // the name cleaned
	if fc.rules[0] != engine.Classic().ID() {
		t.Errorf("offered on %s before any game, want classic", fc.rules[0])
	}
}

// TestChallengeEndSaysItCounts: a challenge's game, once over, says it
// counts for the challenge, whose result comes once both have played,
// never that it is practice (it is, for the player's solo records).
func TestChallengeEndSaysItCounts(t *testing.T) {
	for _, want := range []engine.Status{engine.Won, engine.Lost} {
		n := uint64(3)
		if want == engine.Lost {
			n = 1
		}
		rec := engine.Record{Rules: "classic", Deal: n}
		fc := &fakeChallenges{game: SavedGame{ID: "g7", Record: rec, Status: StatusPlaying}}
		games := &recordingGames{res: SaveResult{Status: StatusWon, Practice: true}}
		h := newHarness(t, Deps{Args: []string{"challenge", "7"}, Unicode: true, Player: testPlayer, Games: games, Challenges: fc})
		endGame(t, h, "classic", n, want)
		h.wantScreen("challenge 7:", "your game counts;", "both have played", "q: menu")
		if want == engine.Lost {
			h.wantScreen("16/28 removed", "your game of challenge 7 is over")
		}
		h.wantNotScreen("practice", "new deal", "n: ")
	}
}

// TestChallengeEndSaysTheResult: the game that ends a challenge (the
// second of the two) says its result, as the notice on its way says it,
// not that the result comes.
func TestChallengeEndSaysTheResult(t *testing.T) {
	rec := engine.Record{Rules: "classic", Deal: 3}
	fc := &fakeChallenges{game: SavedGame{ID: "g7", Record: rec, Status: StatusPlaying}}
	games := &recordingGames{res: SaveResult{Status: StatusWon, Practice: true, Challenge: "challenge 7 is over: you won (challenges says how it counted)"}}
	h := newHarness(t, Deps{Args: []string{"challenge", "7"}, Unicode: true, Player: testPlayer, Games: games, Challenges: fc})
	endGame(t, h, "classic", 3, engine.Won)
	h.wantScreen("challenge 7 is over:", "you won (challenges says how it counted)", "q: menu")
	h.wantNotScreen("both have played", "practice")
}
