package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// The findings of playing the arcade through real OpenSSH clients, one
// test each.

// TestRacePresenceFollowsTheRound: after a rematch, who and the Lobby
// said the racers were still on the first round's deal with 28/28
// removed until each made a move of the new race; the race screen now
// tells the lobby the room's deal and the cards the room has of the
// player, round after round.
func TestRacePresenceFollowsTheRound(t *testing.T) {
	fl := newFakeLobby()
	snap := raceRoom(3, lobby.PhaseResults)
	snap.Members[0].Removed = 28
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Lobby: fl, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	if d := fl.last(); d.What != lobby.Racing || d.Room != "KMTX" || d.Deal != 42 || d.Removed != 28 {
		t.Fatalf("on the results the lobby is told %+v, want racing in KMTX, deal 42, 28 removed", d)
	}
	next := raceRoom(3, lobby.PhaseWaiting)
	next.Round, next.Seq, next.Deal = 2, 2, 43
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	if d := fl.last(); d.What != lobby.Racing || d.Room != "KMTX" || d.Deal != 43 || d.Removed != 0 {
		t.Fatalf("after the rematch the lobby is told %+v, want racing in KMTX, deal 43, 0 removed", d)
	}
	next.Phase, next.Seq = lobby.PhaseRacing, 3
	for i := range next.Members {
		next.Members[i].State = lobby.RacerPlaying
	}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	me := h.m.race().racers[0]
	me.Removed = 2
	h.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 2, Racer: me}})
	if d := fl.last(); d.Deal != 43 || d.Removed != 2 {
		t.Fatalf("after a removal the lobby is told %+v, want deal 43, 2 removed", d)
	}
	// A spectator's presence is the server's (watching room KMTX): the
	// screen tells nothing of its own.
	fl2 := newFakeLobby()
	h2 := newHarness(t, Deps{Races: f, Lobby: fl2, Args: []string{"race", "watch", snap.Code}, Width: 80, Height: 24, Unicode: true})
	h2.wantScreen("room KMTX")
	for _, d := range fl2.doing {
		if d.What == lobby.Racing {
			t.Fatalf("a spectator's session told the lobby %+v", d)
		}
	}
}

// lineOf returns the first line of s holding sub.
func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

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

// TestGhostFromTheBoardAfterAnAssistedDaily: a player who finished
// today's daily with an undo (assisted: off the board) pressed g on the
// daily board and read "finish today's daily deal first", while `race
// ghost daily` let them race; the menu knows the daily is done, and so
// does the board now.
func TestGhostFromTheBoardAfterAnAssistedDaily(t *testing.T) {
	acc := newFakeAccount()
	for i := range acc.boards["2026-03-01"] {
		acc.boards["2026-03-01"][i].GameID = "10" + string(rune('0'+i%10))
		acc.boards["2026-03-01"][i].You = false
	}
	line, _ := heuristicLine(t, "classic", 3)
	gh := &refGhosts{fakeGhosts: fakeGhosts{ghost: Ghost{Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Played: time.Minute}}}
	d := accountDeps(acc)
	d.Ghosts = gh
	h := newHarness(t, d)
	h.send(dailyTodayMsg{done: true})
	h.open(itemLeaders)
	h.keys("g")
	h.wantNotScreen("finish today's daily deal first")
	if gh.ref != "100" {
		t.Fatalf("g raced %q, want the first line's game, 100", gh.ref)
	}
}

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

// TestDailyShareLineFits80: the share line of an assisted daily ended
// "… 45 moves · assis…" at 80 columns, cut where a player copies it
// from; when "share: " does not leave room for it, the line shows alone.
func TestDailyShareLineFits80(t *testing.T) {
	store := &recordingGames{res: SaveResult{Status: StatusWon}}
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store,
		Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: 3}})
	h.keys("d", "u")
	endGame(t, h, "daily", 3, engine.Won)
	want := h.m.table().shareLine()
	if !strings.HasSuffix(want, "· assisted") {
		t.Fatalf("share line %q, want it assisted", want)
	}
	h.wantScreen(" " + want + "\n")
	h.resize(120, 40)
	h.wantScreen("share: " + want)
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

// TestLobbyBarOnARoom: on a room's line the Lobby's help bar said "w
// watch" (enter joins); it says what enter does there.
func TestLobbyBarOnARoom(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1}}
	fl.rooms = []lobby.RoomInfo{{Code: "KXQR", RulesTitle: "Classic", Players: 2, MaxPlayers: 8, Host: "bob", Phase: lobby.PhaseWaiting}}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: &fakeRaces{}, Unicode: true})
	h.open(itemLobby)
	h.keys("down")
	if l := lineOf(h.screen(), "q menu"); !strings.Contains(l, "enter join") || strings.Contains(l, "w watch") {
		t.Errorf("the bar on a waiting room: %q, want enter join", l)
	}
}

// TestLobbyRacerFits80: at 80 columns a racer's line in the Lobby ended
// "… deal 845224 · 6/28 remo…"; the deal number (the room says which)
// goes first, the cards stay.
func TestLobbyRacerFits80(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "b", Name: "bob"}, Doing: lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 845224, Room: "CMYV", Removed: 6}, Session: 2},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: &fakeRaces{}, Unicode: true})
	h.open(itemLobby)
	h.wantScreen("racing in room CMYV · Classic · 6/28 removed")
	h.resize(120, 30)
	h.wantScreen("racing in room CMYV · Classic · deal 845224 · 6/28 removed")
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

// createRaces records the options of Create.
type createRaces struct {
	*fakeRaces
	opt RoomOptions
}

func (c *createRaces) Create(ctx context.Context, opt RoomOptions) (RaceSeat, error) {
	c.opt = opt
	return c.fakeRaces.Create(ctx, opt)
}

// TestNewRaceAfterTheDaily: after a move of the daily, the menu's New
// race… opened "room DHYW · Daily", a room of the daily's rule set on
// another deal (`race new daily` is refused: a race has its own deal),
// and Deal by number… offered "Daily or any rule set" although a number
// deals Classic; both take the daily's knobs as Classic.
func TestNewRaceAfterTheDaily(t *testing.T) {
	c := &createRaces{fakeRaces: &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: raceRoom(1, lobby.PhaseWaiting)}}}
	h := newHarness(t, Deps{Races: c, Args: []string{"daily"}, Width: 80, Height: 24, Unicode: true})
	h.keys("d", "q")
	if h.m.cur != screenMenu {
		t.Fatalf("q from the daily: screen %d, want the menu", h.m.cur)
	}
	h.wantNotScreen("Daily or any rule set")
	h.open(itemRaceNew)
	if c.opt.Rules.Daily || c.opt.Rules.Title() != "Classic" {
		t.Fatalf("New race… after the daily asked for a room of %q (daily %v), want Classic", c.opt.Rules.Title(), c.opt.Rules.Daily)
	}
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

// TestRaceHostPassesSays: when the host dropped, their part passed to
// another racer without a word: that racer learnt it from the results'
// "r: a rematch"; they are told.
func TestRaceHostPassesSays(t *testing.T) {
	snap := raceRoom(3, lobby.PhaseRacing)
	f := &fakeRaces{seat: RaceSeat{You: "p1", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	next := snap
	next.Seq, next.Host = 2, "p1"
	next.Members = slices.Clone(snap.Members)
	next.Members[0].Present, next.Members[0].Host, next.Members[1].Host = false, false, true
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: next}})
	h.wantScreen("you host the room now")
}
