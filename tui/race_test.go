package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pyramid/engine"
	"pyramid/lobby"
)

// fakeRaces is a server's rooms as one session sees them: it hands out
// the seat it holds and records what the session asks.
type fakeRaces struct {
	mu     sync.Mutex
	seat   RaceSeat
	plays  []engine.Record
	said   []string
	starts int
	left   int
	seated string
	// rematches counts the rematches asked for.
	rematches int
	// removed is the player IDs the host removed.
	removed []string
	// leaveFrees: Leave gives the seat up (a waiting room's), which
	// Seated then no longer reports.
	leaveFrees bool
	// ended is what Ended reports: the room of a race that ended
	// without the player.
	ended string
	// joinErr, when set, is Join's answer.
	joinErr error
	// sayErr, when set, is Say's answer (the line is not said).
	sayErr error
	// mutes records the mutes asked for: "+ID" to mute, "-ID" to unmute.
	mutes []string
	// playErr, when set, is Play's answer.
	playErr error
}

func (f *fakeRaces) Create(ctx context.Context, opt RoomOptions) (RaceSeat, error) {
	return f.seat, nil
}
func (f *fakeRaces) Join(ctx context.Context, code string) (RaceSeat, error) {
	if f.joinErr != nil {
		return RaceSeat{}, f.joinErr
	}
	if code != f.seat.Snapshot.Code {
		return RaceSeat{}, lobby.ErrNoRoom
	}
	return f.seat, nil
}
func (f *fakeRaces) Quick(ctx context.Context) (RaceSeat, error) { return f.seat, nil }
func (f *fakeRaces) Watch(ctx context.Context, code string) (RaceSeat, error) {
	seat := f.seat
	seat.You = ""
	return seat, nil
}

// Board is racer pN's game: N draws.
func (f *fakeRaces) Board(ctx context.Context, code, id string) (engine.Record, error) {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "p"))
	rec := engine.Record{Rules: f.seat.Snapshot.RulesID, Deal: f.seat.Snapshot.Deal}
	for range n {
		rec.Moves = append(rec.Moves, "d")
	}
	return rec, nil
}
func (f *fakeRaces) Seated() (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seated, f.seated != ""
}
func (f *fakeRaces) Ended(ctx context.Context) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended, f.ended != ""
}
func (f *fakeRaces) Ready(code string, ready bool) error { return nil }
func (f *fakeRaces) Start(code string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	return nil
}
func (f *fakeRaces) Rematch(ctx context.Context, code string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rematches++
	return nil
}
func (f *fakeRaces) Say(code, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sayErr != nil {
		return f.sayErr
	}
	f.said = append(f.said, text)
	return nil
}
func (f *fakeRaces) Mute(code, playerID string, muted bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	sign := "-"
	if muted {
		sign = "+"
	}
	f.mutes = append(f.mutes, sign+playerID)
	return nil
}
func (f *fakeRaces) Remove(code, playerID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, playerID)
	return nil
}
func (f *fakeRaces) Leave(code string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left++
	if f.leaveFrees {
		f.seated = ""
	}
	return nil
}
func (f *fakeRaces) Play(ctx context.Context, code string, round, seq int, rec engine.Record) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plays = append(f.plays, rec)
	return "", f.playErr
}

// raceRoom is a snapshot of a room of n racers, the first of them "you".
func raceRoom(n int, phase lobby.Phase) lobby.Snapshot {
	s := lobby.Snapshot{Code: "KMTX", Phase: phase, Round: 1, Seq: 1, RulesID: engine.Classic().ID(),
		RulesTitle: engine.Classic().Title(), Deal: 42, Verdict: engine.Winnable, Rated: true, TimeLimit: 10 * time.Minute,
		MaxPlayers: 8, Cards: 28, Host: "p0", StartsAt: epoch, Deadline: epoch.Add(10 * time.Minute)}
	for i := range n {
		r := lobby.Racer{ID: "p" + strconv.Itoa(i), Name: "racer" + strconv.Itoa(i), Present: true, Cards: 28, Host: i == 0}
		if phase == lobby.PhaseRacing {
			r.State = lobby.RacerPlaying
		}
		s.Members = append(s.Members, r)
	}
	return s
}

// raceHarness opens a session on a race deep link with the seat given.
func raceHarness(t *testing.T, snap lobby.Snapshot, w, h int) (*harness, *fakeRaces) {
	t.Helper()
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	hs := newHarness(t, Deps{Races: f, Args: []string{"race", snap.Code}, Width: w, Height: h, Unicode: true})
	return hs, f
}

func screenOf(h *harness) string { return ansi.Strip(h.m.View()) }

func TestParseRaceLink(t *testing.T) {
	tests := []struct {
		args    []string
		want    raceReq
		wantErr string
	}{
		{nil, raceReq{kind: raceQuick}, ""},
		{[]string{"kmtx"}, raceReq{kind: raceJoin, code: "kmtx"}, ""},
		{[]string{"new"}, raceReq{kind: raceNew, opt: RoomOptions{Rules: engine.Classic()}}, ""},
		{[]string{"new", "42"}, raceReq{kind: raceNew, opt: RoomOptions{Rules: engine.Classic(), Deal: 42, HasDeal: true}}, ""},
		{[]string{"new", "double", "7", "--public", "--time", "5m", "--max=4"},
			raceReq{kind: raceNew, opt: RoomOptions{Rules: engine.MustRules("double"), Deal: 7, HasDeal: true, Public: true, TimeLimit: 5 * time.Minute, Max: 4}}, ""},
		{[]string{"new", "--time", "30s"}, raceReq{}, "--time"},
		{[]string{"new", "--max", "9"}, raceReq{}, "--max"},
		{[]string{"new", "--fast"}, raceReq{}, "unknown option"},
		{[]string{"new", "daily"}, raceReq{}, "its own deal"},
		{[]string{"new", "nosuchrules"}, raceReq{}, "nosuchrules"},
		{[]string{"ABCD", "EFGH"}, raceReq{}, "room code"},
		{[]string{"kdx", "wyc"}, raceReq{kind: raceJoin, code: "KDXWYC"}, ""},
		{[]string{"watch", "KDX", "WYC"}, raceReq{kind: raceWatch, code: "KDXWYC"}, ""},
		{[]string{"watch", "kdx-wyc"}, raceReq{kind: raceWatch, code: "kdx-wyc"}, ""},
		{[]string{"watch"}, raceReq{}, "race watch takes a room code"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parseRaceLink(tt.args)
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("got error %v, want one saying %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatalf("got error %v", err)
			case tt.wantErr == "" && (got.kind != tt.want.kind || got.code != tt.want.code || got.opt.Rules.ID() != tt.want.opt.Rules.ID() && tt.want.kind == raceNew ||
				got.opt.Deal != tt.want.opt.Deal || got.opt.HasDeal != tt.want.opt.HasDeal || got.opt.Public != tt.want.opt.Public ||
				got.opt.TimeLimit != tt.want.opt.TimeLimit || got.opt.Max != tt.want.opt.Max):
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRaceFits80x24: eight racers, their panel and the player's board fit
// 80×24, every line within the width.
func TestRaceFits80x24(t *testing.T) {
	for _, rules := range []string{"classic", "double"} {
		t.Run(rules, func(t *testing.T) {
			snap := raceRoom(8, lobby.PhaseRacing)
			r := engine.MustRules(rules)
			snap.RulesID, snap.RulesTitle, snap.Cards = r.ID(), r.Title(), r.PyramidSize()
			h, _ := raceHarness(t, snap, 80, 24)
			s := screenOf(h)
			ls := strings.Split(s, "\n")
			if len(ls) != 24 {
				t.Fatalf("got %d lines, want 24:\n%s", len(ls), s)
			}
			for i, l := range ls {
				if cells(l) > 80 {
					t.Errorf("line %d is %d cells wide: %q", i+1, cells(l), l)
				}
			}
			for i := range 8 {
				if !strings.Contains(s, "racer"+strconv.Itoa(i)) {
					t.Errorf("racer%d is not on the screen:\n%s", i, s)
				}
			}
			if !strings.Contains(s, "room KMTX") || !strings.Contains(s, "0/"+strconv.Itoa(r.PyramidSize())+" removed") {
				t.Errorf("want the room and the board's header:\n%s", s)
			}
		})
	}
}

// TestRaceKeys: the usual keys play, every change is reported, no hints,
// and undo never takes back a draw.
func TestRaceKeys(t *testing.T) {
	h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	h.keys("H")
	if s := screenOf(h); !strings.Contains(s, "no hints in a race") {
		t.Errorf("H: want \"no hints in a race\":\n%s", s)
	}
	h.keys("d")
	if len(f.plays) != 1 || strings.Join(f.plays[0].Moves, " ") != "d" {
		t.Fatalf("after a draw: reports %+v, want one with the draw", f.plays)
	}
	h.keys("u")
	if s := screenOf(h); !strings.Contains(s, "never a draw or a redeal") || len(f.plays) != 1 {
		t.Errorf("undo of a draw: want it refused, %d reports:\n%s", len(f.plays), s)
	}
	h.keys("n")
	if s := screenOf(h); !strings.Contains(s, "no new deal in a race") {
		t.Errorf("n: want it refused:\n%s", s)
	}
	// Another racer's progress shows in the panel.
	other := h.m.race().racers[1]
	other.Removed, other.Moves = 6, 9
	h.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 1, Racer: other}})
	if l := lineWith(screenOf(h), "racer1"); !strings.Contains(l, " 6/28") || !strings.Contains(l, "9 mv") {
		t.Errorf("racer1's line: got %q, want 6/28 and 9 moves", l)
	}
	// A progress report of an earlier round is left alone.
	other.Removed = 20
	h.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 0, Racer: other}})
	if l := lineWith(screenOf(h), "racer1"); strings.Contains(l, "20/28") {
		t.Errorf("a report of another round changed the panel: %q", l)
	}
	// Chat.
	h.keys("t")
	h.typeText("gl hf")
	h.keys("enter")
	if len(f.said) != 1 || f.said[0] != "gl hf" {
		t.Errorf("chat: said %q, want gl hf", f.said)
	}
	h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: "you too"}})
	if s := screenOf(h); !strings.Contains(s, "<racer1> you too") {
		t.Errorf("chat line: not shown:\n%s", s)
	}
	// q asks twice during the race.
	h.keys("q")
	if h.m.cur != screenRace || f.left != 0 {
		t.Fatalf("one q left the race")
	}
	f.seated = "KMTX" // the seat stays until the race ends
	h.keys("q")
	if h.m.cur != screenMenu || f.left != 1 {
		t.Fatalf("two q: screen %d, %d leaves; want the menu and one leave", h.m.cur, f.left)
	}
	if s := screenOf(h); !strings.Contains(s, "> Back to race KMTX") {
		t.Fatalf("the menu does not offer the race back first:\n%s", s)
	}
	h.keys("enter")
	if h.m.cur != screenRace || !strings.Contains(screenOf(h), "room KMTX") {
		t.Fatalf("Back to race: want the race again:\n%s", screenOf(h))
	}
}

// TestRaceWaitingRoom: the host starts with s; the results show places.
func TestRaceWaitingRoom(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	s := screenOf(h)
	if !strings.Contains(s, "room KMTX") || !strings.Contains(s, "s starts the race") {
		t.Fatalf("waiting room:\n%s", s)
	}
	h.keys("s")
	if f.starts != 1 {
		t.Fatalf("s: %d starts, want 1", f.starts)
	}
	snap := raceRoom(2, lobby.PhaseResults)
	snap.Seq = 5
	snap.Results = []lobby.Placing{
		{Place: 1, ID: "p1", Name: "racer1", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 83 * time.Second},
		{Place: 2, ID: "p0", Name: "racer0", State: lobby.RacerStuck, Removed: 20, Moves: 38, Time: 75 * time.Second},
	}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: snap}})
	s = screenOf(h)
	if !strings.Contains(lineWith(s, "1. racer1"), "cleared in 1:23.0") || !strings.Contains(lineWith(s, "2. racer0"), "20/28 at 1:15.0") ||
		!strings.Contains(s, "The deal was winnable") || !strings.Contains(s, "r: a rematch") {
		t.Errorf("results:\n%s", s)
	}
}

// lineWith is the first line of s with sub in it.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestRaceMinis: at 120 columns each racer gets a mini pyramid, one cell
// per card, removed or not.
func TestRaceMinis(t *testing.T) {
	snap := raceRoom(8, lobby.PhaseRacing)
	snap.Members[1].Board = 1<<27 | 1<<21 // two cards of the bottom row
	snap.Members[1].Removed = 2
	h, _ := raceHarness(t, snap, 120, 30)
	s := screenOf(h)
	ls := strings.Split(s, "\n")
	if len(ls) != 30 {
		t.Fatalf("got %d lines, want 30", len(ls))
	}
	bottom := ls[len(ls)-4] // above the figures, the state and the help bar
	if got := strings.Count(bottom, "·"); got != 2 {
		t.Errorf("the bottom rows of the mini pyramids show %d removed cards, want 2:\n%s", got, s)
	}
	if got := strings.Count(s, "▲"); got != 8*28-2 {
		t.Errorf("%d cards in the mini pyramids, want %d:\n%s", got, 8*28-2, s)
	}
}

// TestRaceWatch: a spectator sees a racer's board and switches with tab;
// the game's keys do nothing; t opens the chat, which esc closes.
func TestRaceWatch(t *testing.T) {
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Unicode: true})
	if s := screenOf(h); !strings.Contains(s, "watching racer0") || !strings.Contains(s, "0 moves") {
		t.Fatalf("want racer0's board:\n%s", s)
	}
	h.send(tea.KeyMsg{Type: tea.KeyTab})
	if s := screenOf(h); !strings.Contains(s, "watching racer1") || !strings.Contains(s, "1 move") {
		t.Fatalf("tab: want racer1's board with one move:\n%s", s)
	}
	h.keys("d", "t")
	if len(f.plays) != 0 || !h.m.race().inputOpen {
		t.Errorf("a spectator played %d moves; chat line open %v", len(f.plays), h.m.race().inputOpen)
	}
	h.keys("esc")
	h.keys("q")
	if h.m.cur != screenMenu || f.left != 1 {
		t.Errorf("q: want the menu and the room left")
	}
}

// TestRaceHold: a move shows once the server has taken it, as at the
// table; keys typed meanwhile still play, and wait for the report in
// flight (TestRaceMoveShowsOnlyOnceStored follows the whole rule).
func TestRaceHold(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseRacing), 80, 24)
	if _, cmd := h.m.Update(keyMsg("d")); cmd == nil {
		t.Fatal("a draw sent nothing to the server")
	}
	if s := screenOf(h); !strings.Contains(s, "0 moves") {
		t.Fatalf("the draw shows before the server has it:\n%s", s)
	}
	h.keys("d") // played; its report waits for the first one's answer
	if s := screenOf(h); !strings.Contains(s, "0 moves") || len(f.plays) != 0 {
		t.Fatalf("a second report went while the first is on its way (%d sent):\n%s", len(f.plays), s)
	}
	h.send(raceDoneMsg{what: "move", play: true, seq: 1, round: 1})
	if s := screenOf(h); !strings.Contains(s, "2 moves") || len(f.plays) != 1 || len(f.plays[0].Moves) != 2 {
		t.Fatalf("the first answer: want the second report sent (%d) and both moves shown:\n%s", len(f.plays), s)
	}
}

// TestRaceResultsPar: the results name the race deal's par once the
// analyst knows it: every race deal shows its par.
func TestRaceResultsPar(t *testing.T) {
	a := &analystSolver{par: 41}
	snap := raceRoom(2, lobby.PhaseRacing)
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Solver: a, Args: []string{"race", snap.Code}, Width: 80, Height: 24, Unicode: true})
	done := raceRoom(2, lobby.PhaseResults)
	done.Seq = snap.Seq + 1
	done.Results = []lobby.Placing{{Place: 1, ID: "p0", Name: "racer0", Cleared: true, State: lobby.RacerCleared, Removed: 28, Moves: 50, Time: time.Minute}}
	h.send(RaceEventMsg{Event: lobby.RoomChanged{Snapshot: done}})
	if s := screenOf(h); !strings.Contains(s, "Par: 41 moves") {
		t.Fatalf("results without the par (%d asked):\n%s", a.pars, s)
	}
}

// TestRaceSeatGoneSaysWhere: a racer whose seat went to another session
// of theirs is told whether that session took the seat over or went into
// another room (one room at a time), and a spectator that another of
// their sessions watches the room.
func TestRaceSeatGoneSaysWhere(t *testing.T) {
	tests := []struct {
		name, seated string
		watch        bool
		want         string
	}{
		{"taken over", "KMTX", false, "your race continues in another session"},
		{"another room", "EFGH", false, "you left room KMTX for room EFGH in another session"},
		{"no room", "", false, "your race continues in another session"},
		{"spectator", "", true, "you watch room KMTX in another session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
			if tt.watch {
				h.m.race().watching = true
			}
			f.mu.Lock()
			f.seated = tt.seated
			f.mu.Unlock()
			h.send(RaceEventMsg{Event: lobby.SeatTakenOver{Code: "KMTX"}})
			if h.m.cur != screenMenu {
				t.Fatalf("want the menu:\n%s", h.screen())
			}
			h.wantScreen(tt.want)
		})
	}
}

// blockingRace starts a session racing in room KMTX with racers racers,
// whose reports wait for the test's answer.
func blockingRace(t *testing.T, racers int) (*asyncDriver, *blockingRaces) {
	t.Helper()
	f := &blockingRaces{fakeRaces: fakeRaces{seat: RaceSeat{You: "p0", Snapshot: raceRoom(racers, lobby.PhaseRacing)}},
		calls: make(chan engine.Record), answers: make(chan error)}
	d := newAsyncDriver(t, Deps{Races: f, Args: []string{"race", "KMTX"}, Unicode: true})
	d.until("the race", func() bool { return d.shows("room KMTX", "0 moves") })
	return d, f
}

// blockingRaces is a fakeRaces whose Play waits until the test answers
// it: calls brings each report, answers takes the outcome.
type blockingRaces struct {
	fakeRaces
	calls   chan engine.Record
	answers chan error
}

func (b *blockingRaces) Play(ctx context.Context, code string, round, seq int, rec engine.Record) (string, error) {
	b.calls <- rec
	select {
	case err := <-b.answers:
		return "", err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// nextPlay delivers messages until the room is sent a report, and
// returns the game reported (the call waits for an answer).
func (d *asyncDriver) nextPlay(b *blockingRaces) engine.Record {
	d.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case rec := <-b.calls:
			return rec
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for a report; screen:\n%s", d.screen())
		}
	}
}

// TestRaceMoveShowsOnlyOnceStored: a race board follows the table's hold
// rule. A move shows once the server has stored it; one report is in
// flight at a time, the moves made meanwhile merged into the next; a
// report the server could not store takes the board back to the last
// stored position and says so.
func TestRaceMoveShowsOnlyOnceStored(t *testing.T) {
	d, f := blockingRace(t, 3)

	d.keys("d")
	if got := len(d.nextPlay(f).Moves); got != 1 {
		t.Fatalf("first report has %d moves, want 1", got)
	}
	d.wantScreen("0 moves", "stock [▒▒▒] 24")
	d.keys("d", "d") // wait for the one in flight
	d.wantScreen("0 moves")
	f.answers <- nil
	if got := len(d.nextPlay(f).Moves); got != 3 {
		t.Fatalf("second report has %d moves, want the two draws merged into it", got)
	}
	d.wantScreen("0 moves")
	f.answers <- nil
	d.until("the three draws on screen", func() bool { return d.shows("3 moves", "stock [▒▒▒] 21") })

	// A failed save takes the board back; the room never showed the move.
	d.keys("d")
	d.nextPlay(f)
	d.keys("d")
	f.answers <- errors.New("disk full")
	d.until("the warning", func() bool {
		return d.shows("not saved: disk full: back to your last saved position (3 moves)", "your last 2", "3 moves")
	})
	if got := d.m.race().table.game.MovesMade(); got != 3 {
		t.Fatalf("%d moves after the failed save, want the stored 3", got)
	}
	// And play goes on from there.
	d.keys("d")
	if got := len(d.nextPlay(f).Moves); got != 4 {
		t.Fatalf("the report after the failure has %d moves, want 4", got)
	}
	f.answers <- nil
	d.until("the draw on screen", func() bool { return d.shows("4 moves") })
}

// TestRaceStaleMoveShowsTheStoredGame: a race move refused because the
// racer's stored game moved on elsewhere (a *StaleError) puts the stored
// game on the board, saying so, and the race goes on from it.
func TestRaceStaleMoveShowsTheStoredGame(t *testing.T) {
	d, f := blockingRace(t, 3)
	d.keys("d")
	d.nextPlay(f)
	f.answers <- nil
	d.until("the draw on screen", func() bool { return d.shows("1 move") })
	d.keys("d")
	d.nextPlay(f)
	stored := engine.Record{Rules: engine.Classic().ID(), Deal: 42, Moves: []string{"d", "d", "d", "d", "d"}}
	f.answers <- fmt.Errorf("race KMTX: %w", &StaleError{Record: stored})
	d.until("the stored game", func() bool {
		return d.shows("your game changed in another session: back to it as stored (5 moves)")
	})
	if got := d.m.race().table.game.MovesMade(); got != 5 || d.m.race().held.shown != nil {
		t.Fatalf("after the refusal: %d moves, held %v; want the stored 5", got, d.m.race().held.shown != nil)
	}
	d.keys("d")
	if got := len(d.nextPlay(f).Moves); got != 6 {
		t.Fatalf("the next report has %d moves, want 6", got)
	}
	f.answers <- nil
	d.until("the draw on screen", func() bool { return d.shows("6 moves") })
}

// TestRaceMarksFollowWhileHeld: while a move waits for the store, keys
// that change no card still show at once on the held board (the cursor,
// the prompt), and the cards still wait.
func TestRaceMarksFollowWhileHeld(t *testing.T) {
	d, f := blockingRace(t, 3)
	d.keys("d")
	d.nextPlay(f)
	rs := d.m.race()
	if rs.held.shown == nil {
		t.Fatal("no held table while the draw is on its way")
	}
	before := d.m.View()
	d.keys("right")
	if rs.held.shown.cursor != rs.table.cursor {
		t.Errorf("held cursor %v, live %v: the cursor key does not show", rs.held.shown.cursor, rs.table.cursor)
	}
	if d.m.View() == before {
		t.Error("the cursor key drew nothing while the draw is on its way")
	}
	d.wantScreen("0 moves", "stock [▒▒▒] 24") // the cards wait
	d.keys(":", "7")
	if !rs.held.shown.promptOpen || rs.held.shown.prompt.Value() != "7" {
		t.Errorf("held prompt open %v %q: the typing does not show", rs.held.shown.promptOpen, rs.held.shown.prompt.Value())
	}
	d.keys("esc")
	f.answers <- nil
	d.until("the draw on screen", func() bool { return d.shows("1 move", "stock [▒▒▒] 23") })
	if rs.table.promptOpen {
		t.Error("the prompt is still open after esc")
	}
}

// TestRaceHeldTableReused: the copy held while a move waits for the
// server is given back when the server has it (to frozenTables, keeping
// its game's memory and nothing of the session), and the next move's copy
// is the position before that move, not a stale one.
func TestRaceHeldTableReused(t *testing.T) {
	d, f := blockingRace(t, 3)
	d.keys("d")
	d.nextPlay(f)
	first := d.m.race().held.shown
	if first == nil || first.env == nil {
		t.Fatal("no table held while the first move is on its way")
	}
	f.answers <- nil
	d.until("the first draw", func() bool { return d.shows("1 move", "stock [▒▒▒] 23") })
	if d.m.race().held.shown != nil {
		t.Fatal("the table is still held once the server has the move")
	}
	if first.env != nil || first.cache != nil || first.game == nil {
		t.Errorf("the held table given back keeps the session's env %p and view cache %p (or lost its game's memory: %v)",
			first.env, first.cache, first.game == nil)
	}
	d.keys("d")
	d.nextPlay(f)
	rs := d.m.race()
	if rs.held.shown == nil || rs.held.shown.game == rs.table.game || rs.held.shown.game.MovesMade() != 1 || rs.table.game.MovesMade() != 2 {
		t.Fatalf("held table %p, live game at %d moves: want a copy at 1 and the live game at 2", rs.held.shown, rs.table.game.MovesMade())
	}
	d.wantScreen("1 move", "stock [▒▒▒] 23") // the cards wait for the server
	f.answers <- nil
	d.until("the second draw", func() bool { return d.shows("2 moves", "stock [▒▒▒] 22") })
}

// TestRaceQuitWaitsForTheReport: a session that quits with a race move
// on its way to the server ends once the server has it, as with a save.
func TestRaceQuitWaitsForTheReport(t *testing.T) {
	d, f := blockingRace(t, 2)
	d.keys("d")
	d.nextPlay(f)
	d.keys("ctrl+c")
	if d.quit {
		t.Fatal("quit with a race move on its way")
	}
	f.answers <- nil
	d.until("the quit", func() bool { return d.quit })
}

// TestRaceStuckPanel: a racer with no moves left is told so over the
// board, not that they cleared the pyramid.
func TestRaceStuckPanel(t *testing.T) {
	moves, status := heuristicLine(t, "one-pass", 1)
	if status != engine.Lost {
		t.Fatalf("the heuristic does not lose one-pass 1 any more (%s); pick another deal", status)
	}
	snap := raceRoom(2, lobby.PhaseRacing)
	snap.RulesID, snap.RulesTitle, snap.Deal = engine.MustRules("one-pass").ID(), "One pass", 1
	h, _ := raceHarness(t, snap, 80, 24)
	h.keys(":")
	h.typeText(strings.Join(moves, " "))
	h.keys("enter")
	h.wantScreen("No moves left", "16/28 removed · 40 moves", "no moves left: your race is over")
	h.wantNotScreen("You cleared the pyramid")
}

// TestRaceInboxBatch: events the inbox had waiting together (a session
// that fell behind) are all taken, in order, in one update.
func TestRaceInboxBatch(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 100, 34)
	h.send(inboxMsg{InboxBatch{opponent(1, 3), opponent(2, 5), opponent(1, 4)}})
	s := screenOf(h)
	for _, want := range []string{lineWith(s, "racer1"), lineWith(s, "racer2")} {
		if want == "" {
			t.Fatalf("a racer's line is missing:\n%s", s)
		}
	}
	if l := lineWith(s, "racer1"); !strings.Contains(l, "4 mv") {
		t.Errorf("racer1's line %q, want the batch's last report (4 moves), in order", l)
	}
	if l := lineWith(s, "racer2"); !strings.Contains(l, "5 mv") {
		t.Errorf("racer2's line %q, want 5 moves", l)
	}
}

// joinGate is fakeRaces whose Join waits for its gate: the seat comes
// after whatever the test sends meanwhile.
type joinGate struct {
	fakeRaces
	gate chan struct{}
}

func (g *joinGate) Join(ctx context.Context, code string) (RaceSeat, error) {
	<-g.gate
	return g.fakeRaces.Join(ctx, code)
}

// TestRaceSeatTakenBeforeItCame: two sessions of a player join a room in
// the same moment; the first one's SeatTakenOver can come before its own
// seat. That session must not race on the seat that is the other's now.
func TestRaceSeatTakenBeforeItCame(t *testing.T) {
	f := &joinGate{fakeRaces: fakeRaces{seat: RaceSeat{You: "p0", Snapshot: raceRoom(3, lobby.PhaseRacing)}, seated: "KMTX"},
		gate: make(chan struct{})}
	d := newAsyncDriver(t, Deps{Races: f, Args: []string{"race", "KMTX"}, Unicode: true})
	d.send(RaceEventMsg{Event: lobby.SeatTakenOver{Code: "KMTX"}})
	close(f.gate)
	d.until("the menu", func() bool { return d.m.cur == screenMenu })
	d.wantScreen("your race continues in another session")
}

// TestRaceOwnLineWithTheBoard: the room tells the player's own progress
// before the store has the move; the panel's own line shows it with the
// board, once the store answers: one frame for the move, not two. An
// opponent's line shows at once meanwhile.
func TestRaceOwnLineWithTheBoard(t *testing.T) {
	d, f := blockingRace(t, 3)
	d.keys("d")
	d.nextPlay(f)
	progress := func(id string, moves int) {
		d.send(RaceEventMsg{Event: lobby.RacerProgress{Code: "KMTX", Round: 1, Racer: lobby.Racer{ID: id,
			Name: "racer" + id[1:], Present: true, Cards: 28, Progress: lobby.Progress{Moves: moves, Pass: 1, State: lobby.RacerPlaying}}}})
	}
	before := d.m.View()
	progress("p0", 1)
	if d.m.View() != before {
		t.Errorf("the own line changed before the store answered:\n%s", d.screen())
	}
	progress("p1", 5)
	if !strings.Contains(d.screen(), "5 mv") {
		t.Errorf("an opponent's move does not show while the player's is on its way:\n%s", d.screen())
	}
	if strings.Contains(d.screen(), " 1 mv") {
		t.Errorf("the own line shows the move before the board:\n%s", d.screen())
	}
	f.answers <- nil
	d.until("the draw and the own line", func() bool { return d.shows("1 move", " 1 mv") })
}

// TestRaceModes: the race screen's state follows from the stage, the
// player's part and the room's phase, and each mode takes its own keys.
func TestRaceModes(t *testing.T) {
	e := newHarness(t, Deps{}).m.env
	game, err := engine.NewNumbered(engine.Classic(), 1)
	if err != nil {
		t.Fatal(err)
	}
	table := newTable(e, KeyScheme(0), game, -1000, "", 0, 80, 24)
	for _, tt := range []struct {
		name     string
		stage    raceStage
		watching bool
		phase    lobby.Phase
		table    *tableScreen
		want     raceMode
	}{
		{"seat on its way", stageJoining, false, lobby.PhaseRacing, table, modeJoining},
		{"join form", stageCode, false, lobby.PhaseWaiting, nil, modeCode},
		{"waiting room", stageRoom, false, lobby.PhaseWaiting, nil, modeWaiting},
		{"countdown", stageRoom, false, lobby.PhaseCountdown, nil, modeWaiting},
		{"racing", stageRoom, false, lobby.PhaseRacing, table, modeRacing},
		{"racing, the deal not come", stageRoom, false, lobby.PhaseRacing, nil, modeWaiting},
		{"results", stageRoom, false, lobby.PhaseResults, table, modeResults},
		{"spectator, waiting", stageRoom, true, lobby.PhaseWaiting, nil, modeSpectating},
		{"spectator, racing", stageRoom, true, lobby.PhaseRacing, table, modeSpectating},
		{"spectator, results", stageRoom, true, lobby.PhaseResults, table, modeSpectating},
	} {
		rs := &raceScreen{stage: tt.stage, watching: tt.watching, table: tt.table, snap: lobby.Snapshot{Phase: tt.phase}}
		if got := rs.mode(); got != tt.want {
			t.Errorf("%s: mode %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestRaceCountdownTakesNoRoomKeys: during the countdown r and s do
// nothing: the race starts for everybody.
func TestRaceCountdownTakesNoRoomKeys(t *testing.T) {
	snap := raceRoom(2, lobby.PhaseCountdown)
	f := &fakeRaces{seat: RaceSeat{You: "p0", Snapshot: snap}}
	h := newHarness(t, Deps{Races: f, Args: []string{"race", "KMTX"}, Unicode: true})
	h.wantScreen("The race starts in")
	h.keys("r", "s")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.starts != 0 {
		t.Errorf("s during the countdown asked %d starts, want none", f.starts)
	}
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
