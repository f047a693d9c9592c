package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// fakeLobby is a Lobby in memory that records what it is told.
type fakeLobby struct {
	mu        sync.Mutex
	doing     []lobby.Doing
	viewer    bool
	daily     bool
	who       []lobby.Presence
	rooms     []lobby.RoomInfo
	watched   map[string]lobby.Watched // what Watch answers, by name
	watching  string
	published []lobby.Board
	watchable bool
	setErr    error
	playing   int
}

func newFakeLobby() *fakeLobby {
	return &fakeLobby{watchable: true, watched: map[string]lobby.Watched{}}
}

func (f *fakeLobby) SetDoing(d lobby.Doing) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.doing = append(f.doing, d)
}

func (f *fakeLobby) last() lobby.Doing {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.doing) == 0 {
		return lobby.Doing{}
	}
	return f.doing[len(f.doing)-1]
}

func (f *fakeLobby) WatchPresence(on bool) { f.mu.Lock(); f.viewer = on; f.mu.Unlock() }
func (f *fakeLobby) Who() []lobby.Presence { f.mu.Lock(); defer f.mu.Unlock(); return f.who }

func (f *fakeLobby) Listed() []lobby.Presence { return f.Who() }
func (f *fakeLobby) Online() int              { f.mu.Lock(); defer f.mu.Unlock(); return len(f.who) }
func (f *fakeLobby) PublicRooms() []lobby.RoomInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rooms
}

func (f *fakeLobby) Watch(name string) (lobby.Watched, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.watched[strings.ToLower(name)]
	if !ok {
		return lobby.Watched{}, lobby.ErrNotOnline
	}
	if name == "shy" {
		return lobby.Watched{}, lobby.ErrNotWatchable
	}
	f.watching = name
	return w, nil
}

func (f *fakeLobby) Unwatch() { f.mu.Lock(); f.watching = ""; f.mu.Unlock() }
func (f *fakeLobby) Publish(b lobby.Board) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.published = append(f.published, b)
}
func (f *fakeLobby) WatchDaily(on bool) { f.mu.Lock(); f.daily = on; f.mu.Unlock() }
func (f *fakeLobby) PlayingRules(string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.playing
}
func (f *fakeLobby) Watchable(context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watchable, nil
}
func (f *fakeLobby) SetWatchable(_ context.Context, on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.setErr != nil {
		return f.setErr
	}
	f.watchable = on
	return nil
}

// TestPresenceDoing: the session tells the lobby what it does, a guest
// too: the menu, then the game with its cards removed after each move,
// then the menu again.
func TestPresenceDoing(t *testing.T) {
	for _, p := range []Player{testPlayer, {Name: "guest", Guest: true}} {
		t.Run(p.Name, func(t *testing.T) {
			fl := newFakeLobby()
			h := newHarness(t, Deps{Player: p, Lobby: fl, Args: []string{"classic", "42"}, Unicode: true})
			g := h.game()
			if d := fl.last(); d.What != lobby.Playing || d.Rules != "classic" || d.Deal != 42 || d.Removed != 0 || d.Custom {
				t.Fatalf("at the table the lobby is told %+v", d)
			}
			var pair engine.Move
			for _, mv := range g.Legal() {
				if mv.Kind == engine.RemovePair || mv.Kind == engine.RemoveKing {
					pair = mv
					break
				}
			}
			if pair.Kind == 0 {
				t.Skip("deal 42 has no removal at the start")
			}
			h.keys(":")
			h.typeText(pair.String())
			h.keys("enter")
			if d := fl.last(); d.Removed != h.game().Removed() || d.Removed == 0 {
				t.Fatalf("after a removal the lobby is told %+v, want %d removed", d, h.game().Removed())
			}
			if fl.viewer {
				t.Fatal("a session at the table watches presence")
			}
			h.keys("q")
			if d := fl.last(); d.What != lobby.AtMenu {
				t.Fatalf("back at the menu the lobby is told %+v", d)
			}
			if !fl.viewer {
				t.Fatal("the menu does not watch presence")
			}
			h.send(lobby.PresenceChanged{Online: 3})
			h.wantScreen("Pyramid Solitaire · 3 online", "With others")
			h.menuTo(itemLobby)
			h.wantScreen("Lobby")
			h.menuTo(itemWatchable)
			h.wantScreen("Others may watch me")
		})
	}
}

// TestLobbyScreenAndSpectate: the Lobby screen lists who is online, w
// on a player watches their game, read-only, as it moves; q goes back
// and stops watching.
func TestLobbyScreenAndSpectate(t *testing.T) {
	fl := newFakeLobby()
	rec := engine.Record{Rules: "classic", Deal: 42}
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "b", Name: "bob\x1b[2J"}, Doing: lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 42, Removed: 2}, Session: 2},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	fl.rooms = []lobby.RoomInfo{{Code: "KXQR", RulesTitle: "Classic", Players: 2, MaxPlayers: 8, Host: "bob"}}
	fl.watched["bob\x1b[2j"] = lobby.Watched{Name: "bob\x1b[2J", Board: lobby.Board{Record: rec}, Spectators: 1}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
	h.open(itemLobby)
	h.wantScreen("lobby", "2 online", "playing Classic · deal 42 · 2/28 removed", "(you)", "in the menu", "KXQR", "2/8 players")
	wantClean(t, h.m.View())
	h.keys("w")
	if h.m.cur != screenSpectate {
		t.Fatalf("w did not open the spectate screen:\n%s", h.screen())
	}
	if d := fl.last(); d.What != lobby.Watching || !strings.HasPrefix(d.Watched, "bob") {
		t.Fatalf("watching, the lobby is told %+v", d)
	}
	h.wantScreen("Classic · hidden deal", "0 moves", "1 watching")
	wantClean(t, h.m.View())
	g, _ := engine.Replay(rec)
	_ = g.Apply(engine.Move{Kind: engine.Draw})
	moved := g.Record()
	h.send(lobby.Watched{Name: "bob", Board: lobby.Board{Record: moved}, Spectators: 2})
	h.wantScreen("1 move", "2 watching")
	if got := h.m.spectate().board.game.MovesMade(); got != 1 {
		t.Fatalf("the spectator's board has %d moves, want 1", got)
	}
	h.keys("d") // read-only: the spectator cannot draw
	if got := h.m.spectate().board.game.MovesMade(); got != 1 {
		t.Fatal("a key changed the watched board")
	}
	h.send(lobby.Watched{Name: "bob", Spectators: 2})
	h.wantScreen("not at a game right now")
	h.send(lobby.WatchEnded{Name: "bob", Reason: "bob left"})
	h.wantScreen("bob left")
	h.wantNotScreen("spectator")
	if d := fl.last(); d.What != lobby.AtMenu {
		t.Fatalf("once watching ended the lobby is told %+v, want the menu", d)
	}
	h.keys("q")
	if h.m.cur != screenLobby || fl.watching != "" {
		t.Fatalf("q: screen %d, still watching %q", h.m.cur, fl.watching)
	}
	h.keys("down", "w")
	h.wantScreen("that is you")
}

func testLobbyPlayer() lobby.Player {
	return lobby.Player{ID: testPlayer.ID, Name: testPlayer.Name}
}

// TestSpectateDeepLink: ssh -t HOST watch NAME opens the watched game at
// once; a refusal says why on the menu.
func TestSpectateDeepLink(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"watch", "bob"}, "bob · Classic · hidden deal"},
		{[]string{"watch", "dan"}, "dan · Classic · deal 8"},
		{[]string{"watch", "carol"}, "nobody called carol is online"},
		{[]string{"watch", "shy"}, "shy does not let others watch their games"},
		{[]string{"watch"}, "watch needs a player's name"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fl := newFakeLobby()
			fl.watched["bob"] = lobby.Watched{Name: "bob", Board: lobby.Board{Record: engine.Record{Rules: "classic", Deal: 7}}}
			fl.watched["dan"] = lobby.Watched{Name: "dan", Board: lobby.Board{Record: engine.Record{Rules: "classic", Deal: 8}, Chosen: true}}
			fl.watched["shy"] = lobby.Watched{Name: "shy"}
			h := newHarness(t, Deps{Player: Player{Name: "guest", Guest: true}, Lobby: fl, Args: tt.args, Unicode: true})
			h.wantScreen(tt.want)
		})
	}
}

// TestPresencePublish: with spectators the session publishes its board
// after every move, and the header says how many watch; without, it
// publishes nothing.
func TestPresencePublish(t *testing.T) {
	fl := newFakeLobby()
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Args: []string{"classic", "42"}, Unicode: true})
	h.keys("d")
	if len(fl.published) != 0 {
		t.Fatalf("published %d boards without spectators", len(fl.published))
	}
	h.send(lobby.Spectators{N: 2})
	if len(fl.published) != 1 || len(fl.published[0].Record.Moves) != 1 {
		t.Fatalf("a new spectator gets %v, want the board with 1 move", fl.published)
	}
	h.wantScreen("2 watching")
	h.keys("d")
	if len(fl.published) != 2 || len(fl.published[1].Record.Moves) != 2 {
		t.Fatalf("after a move: %v", fl.published)
	}
	h.keys("q")
	if n := len(fl.published); n != 3 || fl.published[2].Playing() {
		t.Fatalf("back at the menu the spectators get %v, want no game", fl.published)
	}
	h.send(lobby.Spectators{N: 0})
	h.open(itemContinue)
	h.keys("d")
	if n := len(fl.published); n != 3 {
		t.Fatalf("published %d boards, want none more without spectators", n)
	}
}

// TestWatchableSetting: the menu's "Others may watch me" starts as
// stored, switches through the lobby, and goes back with a message when
// the server cannot keep it.
func TestWatchableSetting(t *testing.T) {
	fl := newFakeLobby()
	fl.watchable = false
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
	h.menuTo(itemWatchable)
	h.wantScreen("Others may watch me", "[ ] off")
	h.keys("enter")
	h.wantScreen("[x] on")
	if !fl.watchable {
		t.Fatal("the setting was not kept")
	}
	fl.setErr = errors.New("the server could not keep the setting now, try again")
	h.keys("enter")
	h.wantScreen("[x] on", "could not keep")
}

// TestLiveDailyBoard: the daily board says how many play the daily now
// and reloads when a result is recorded.
func TestLiveDailyBoard(t *testing.T) {
	fl := newFakeLobby()
	fl.playing = 3
	acc := newFakeAccount()
	d := accountDeps(acc)
	d.Lobby = fl
	h := newHarness(t, d)
	h.open(itemLeaders)
	h.wantScreen("3 players are playing today's deal now")
	if !fl.daily {
		t.Fatal("the daily board does not ask for DailyChanged")
	}
	asked := len(acc.dates)
	h.send(lobby.DailyChanged{Rules: "daily", Date: "2026-03-01"})
	if len(acc.dates) != asked+1 {
		t.Fatalf("DailyChanged: the board was asked %d times, want %d", len(acc.dates), asked+1)
	}
	fl.playing = 1
	h.send(lobby.PresenceChanged{Online: 4})
	h.wantScreen("1 player is playing today's deal now")
	h.keys("q")
	if fl.daily {
		t.Fatal("the menu still asks for DailyChanged")
	}
}

// TestSpectateEarlyBoard: a board that comes before the lobby's answer to
// Watch (the player published at once) is shown over that answer.
func TestSpectateEarlyBoard(t *testing.T) {
	fl := newFakeLobby()
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
	h.m.live.asking = true
	g, _ := engine.Replay(engine.Record{Rules: "classic", Deal: 7})
	_ = g.Apply(engine.Move{Kind: engine.Draw})
	h.send(lobby.Watched{Name: "bob", Board: lobby.Board{Record: g.Record()}, Spectators: 1})
	h.send(spectateMsg{name: "bob", watched: lobby.Watched{Name: "bob", Spectators: 1}})
	h.wantScreen("bob · Classic · hidden deal", "1 move")
}

// TestLobbyWatchesARacer: w on a racer in the Lobby watches their race
// room, where their board is, instead of "not at a game".
func TestLobbyWatchesARacer(t *testing.T) {
	fl := newFakeLobby()
	fl.who = []lobby.Presence{
		{Player: lobby.Player{ID: "b", Name: "bob"}, Doing: lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 3, Room: "KMTX"}, Session: 2},
		{Player: testLobbyPlayer(), Doing: lobby.Doing{What: lobby.AtMenu}, Session: 1},
	}
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Races: f, Unicode: true})
	h.open(itemLobby)
	h.wantScreen("racing in room KMTX")
	h.keys("w")
	if h.m.cur != screenRace {
		t.Fatalf("w on a racer: screen %d, want the race room:\n%s", h.m.cur, h.screen())
	}
	if fl.watching != "" {
		t.Fatalf("w on a racer asked the lobby to watch %q's solo game", fl.watching)
	}
}

// TestDailyBoardCursor: the daily board has a row cursor, on the
// player's own line at first; a live update keeps it on the same player
// wherever their line went; enter watches the player under it, and q
// on their game comes back to the board.
func TestDailyBoardCursor(t *testing.T) {
	fl := newFakeLobby()
	fl.watched["player04"] = lobby.Watched{Name: "player04", Board: lobby.Board{Record: engine.Record{Rules: "daily", Deal: 7}}, Spectators: 1}
	acc := newFakeAccount()
	d := accountDeps(acc)
	d.Lobby = fl
	h := newHarness(t, d)
	h.open(itemLeaders)
	b := h.m.screens[screenLeaders].(*leadersScreen)
	if en := b.selected(); en == nil || !en.You {
		t.Fatalf("the cursor starts on %+v, want the player's own line", en)
	}
	h.keys("down")
	if en := b.selected(); en == nil || en.Name != "player04" {
		t.Fatalf("down: the cursor is on %+v, want player04", en)
	}
	h.wantScreen(">   4  player04")
	// Somebody finishes above player04: the cursor follows player04.
	acc.mu.Lock()
	board := acc.boards["2026-03-01"]
	acc.boards["2026-03-01"] = append([]BoardEntry{{Rank: 1, Name: "zoe", Removed: 28, Time: time.Minute, Won: true}}, board...)
	acc.mu.Unlock()
	h.send(lobby.DailyChanged{Rules: "daily", Date: "2026-03-01"})
	if en := b.selected(); en == nil || en.Name != "player04" || b.cur != 4 {
		t.Fatalf("after a live update the cursor is on %+v (line %d), want player04 on line 4", en, b.cur)
	}
	// Up to the player's own line: enter says it is them.
	h.keys("up", "enter")
	h.wantScreen("that is you")
	h.keys("down", "enter")
	if h.m.cur != screenSpectate || fl.watching != "player04" {
		t.Fatalf("enter on player04: screen %d, watching %q:\n%s", h.m.cur, fl.watching, h.screen())
	}
	h.keys("q")
	if h.m.cur != screenLeaders {
		t.Fatalf("q on the watched game: screen %d, want the daily board", h.m.cur)
	}
}

// TestWatchEndsWhenRacing: a session watching a game, or a race room,
// is told when its player took a seat in a race room elsewhere, and
// stops watching (presence: at the menu).
func TestWatchEndsWhenRacing(t *testing.T) {
	t.Run("a game", func(t *testing.T) {
		fl := newFakeLobby()
		fl.watched["bob"] = lobby.Watched{Name: "bob", Board: lobby.Board{Record: engine.Record{Rules: "classic", Deal: 7}}, Spectators: 1}
		h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
		h.send(spectateOpenMsg{name: "bob"})
		if h.m.cur != screenSpectate {
			t.Fatalf("not watching bob:\n%s", h.screen())
		}
		h.send(lobby.WatchEnded{Name: "bob", Reason: "you joined room KMTX"})
		h.wantScreen("you joined room KMTX")
		if d, _ := h.m.doing(); d.What != lobby.AtMenu {
			t.Errorf("presence says %+v, want the menu", d)
		}
	})
	t.Run("a race room", func(t *testing.T) {
		f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
		h := newHarness(t, Deps{Player: testPlayer, Lobby: newFakeLobby(), Races: f, Args: []string{"race", "watch", "KMTX"}, Unicode: true})
		if rs := h.m.race(); rs == nil || !rs.watching {
			t.Fatalf("not watching the room:\n%s", h.screen())
		}
		h.send(lobby.WatchEnded{Name: "room KMTX", Reason: "you joined room EFGH"})
		if h.m.cur != screenMenu || f.left != 1 {
			t.Fatalf("want the menu and the room left (%d):\n%s", f.left, h.screen())
		}
		h.wantScreen("you joined room EFGH")
	})
}

// TestSpectateLostPanel: a spectator of a lost game is told the player
// has no moves left, not that they cleared the pyramid.
func TestSpectateLostPanel(t *testing.T) {
	moves, _ := heuristicLine(t, "one-pass", 1)
	fl := newFakeLobby()
	fl.watched["bob"] = lobby.Watched{Name: "bob", Board: lobby.Board{Record: engine.Record{Rules: engine.MustRules("one-pass").ID(), Deal: 1, Moves: moves}}, Spectators: 1}
	h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Unicode: true})
	h.send(spectateOpenMsg{name: "bob"})
	h.wantScreen("bob has no moves left", "lost")
	h.wantNotScreen("cleared the pyramid")
}

// TestDailyBoardEmptyAfterAssisted: a player whose own daily was assisted
// (off the board) is not asked to be the first to finish it.
func TestDailyBoardEmptyAfterAssisted(t *testing.T) {
	h := newHarness(t, accountDeps(newFakeAccount()))
	h.open(itemLeaders)
	b := h.m.screens[screenLeaders].(*leadersScreen)
	b.loading, b.entries, b.msg, b.date = false, nil, "", b.today
	for _, tc := range []struct {
		done bool
		want string
	}{
		{false, "be the first"},
		{true, "assisted games stay off it"},
	} {
		b.dailyDone = tc.done
		if v := b.view(); !strings.Contains(v, tc.want) {
			t.Errorf("done %v: the empty board does not say %q:\n%s", tc.done, tc.want, v)
		}
	}
}
