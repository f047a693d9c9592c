package tui

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// fakeGhosts is a Ghosts in memory that records the reports.
type fakeGhosts struct {
	mu    sync.Mutex
	ghost Ghost
	err   error
	plays []engine.Record
	times [][]time.Duration
	left  int
}

func (f *fakeGhosts) Ghost(ctx context.Context, ref string) (Ghost, error) {
	if f.err != nil {
		return Ghost{}, f.err
	}
	return f.ghost, nil
}

func (f *fakeGhosts) Leave(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left++
	return nil
}

func (f *fakeGhosts) Play(ctx context.Context, seq int, rec engine.Record, times []time.Duration) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plays = append(f.plays, rec)
	f.times = append(f.times, times)
	return "", nil
}

// TestGhostRace: the ghost plays its recorded moves at their recorded
// times (a tick set for its next move, on a fake clock), the player's
// game is reported with its move times, and the results rank the two.
func TestGhostRace(t *testing.T) {
	line, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s)", status)
	}
	step := 700 * time.Millisecond
	times := make([]time.Duration, len(line))
	for i := range times {
		times[i] = step * time.Duration(i+1)
	}
	ghostEnd := times[len(times)-1]
	for _, tt := range []struct {
		name  string
		wait  time.Duration // before the player types the winning line
		first string
		say   string
	}{
		{"the player is faster", 2*step + step/2, ghostYou, "You beat the ghost!"},
		{"the ghost is faster", ghostEnd + time.Second, ghostID, "You lost to the ghost."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gh := &fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Times: times}}
			h := newHarness(t, Deps{Args: []string{"race", "ghost", "7"}, Unicode: true, Player: testPlayer, Ghosts: gh})
			var asked []time.Duration
			h.m.env.wait = func(d time.Duration, read func() tea.Msg) tea.Cmd {
				msg := read()
				if _, ok := msg.(ghostTickMsg); ok {
					asked = append(asked, d)
				}
				return nil
			}
			h.send(ghostTickMsg{}) // the first tick, asked for before the hook
			rs := h.m.race()
			if rs == nil || rs.ghost == nil || rs.snap.Phase != lobby.PhaseRacing {
				t.Fatalf("no ghost race:\n%s", h.screen())
			}
			h.wantScreen("ghost of bob")
			if len(asked) == 0 || asked[len(asked)-1] != step {
				t.Errorf("next tick asked in %v, want %v (the ghost's first move)", asked, step)
			}
			// The ghost moves at its pace: two moves by 2.5 steps.
			h.clock.advance(2*step + step/2)
			h.send(ghostTickMsg{})
			if got := rs.racers[1].Moves; got != 2 {
				t.Errorf("ghost at %d moves after 2.5 steps, want 2", got)
			}
			// At 1.75 s: the panel's clock turns at 2 s, before the
			// ghost's third move at 2.1 s.
			if got := asked[len(asked)-1]; got != 250*time.Millisecond {
				t.Errorf("next tick asked in %v, want 250ms", got)
			}
			h.clock.advance(tt.wait - (2*step + step/2))
			h.send(ghostTickMsg{})
			h.keys(":")
			h.typeText(strings.Join(line, " "))
			h.keys("enter")
			if rs.snap.Phase != lobby.PhaseResults {
				t.Fatalf("no results after the player won:\n%s", h.screen())
			}
			if got := rs.snap.Results[0].ID; got != tt.first {
				t.Errorf("first place %q, want %q (%+v)", got, tt.first, rs.snap.Results)
			}
			h.wantScreen(tt.say, "practice")
			gh.mu.Lock()
			defer gh.mu.Unlock()
			if len(gh.plays) == 0 || !reflect.DeepEqual(gh.plays[len(gh.plays)-1].Moves, line) {
				t.Fatalf("reports %v, want the winning line", gh.plays)
			}
			for _, d := range gh.times[len(gh.times)-1] {
				if d != tt.wait {
					t.Fatalf("reported times %v, want every move at %v", gh.times[len(gh.times)-1], tt.wait)
				}
			}
			h.keys("enter")
			if h.m.race() != nil || h.m.cur != screenMenu {
				t.Errorf("enter on the results did not go back to the menu")
			}
		})
	}
}

func TestGhostRefused(t *testing.T) {
	gh := &fakeGhosts{err: errors.New("finish today's daily deal first: its best play would spoil it")}
	h := newHarness(t, Deps{Args: []string{"race", "ghost", "daily"}, Unicode: true, Player: testPlayer, Ghosts: gh})
	h.wantScreen("finish today's daily deal first")
	if h.m.race() != nil {
		t.Errorf("the race screen stays after a refusal")
	}
}

func TestGhostTimes(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		name   string
		ts     []time.Duration
		n      int
		played time.Duration
		want   []time.Duration
	}{
		{"recorded", []time.Duration{s, 2 * s}, 2, 9 * s, []time.Duration{s, 2 * s}},
		{"none: an even pace", nil, 4, 8 * s, []time.Duration{2 * s, 4 * s, 6 * s, 8 * s}},
		{"some, then even", []time.Duration{7 * s}, 2, 4 * s, []time.Duration{7 * s, 7 * s}},
		{"never back in time", []time.Duration{3 * s, s}, 2, 0, []time.Duration{3 * s, 3 * s}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ghostTimes(tt.ts, tt.n, tt.played); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ghostTimes = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGhostFromTheBoard: g on the daily board races the ghost of the
// first line shown; scrolling picks another.
func TestGhostFromTheBoard(t *testing.T) {
	acc := newFakeAccount()
	for i := range acc.boards["2026-03-01"] {
		acc.boards["2026-03-01"][i].GameID = strconv.Itoa(100 + i)
	}
	line, _ := heuristicLine(t, "classic", 3)
	gh := &refGhosts{fakeGhosts: fakeGhosts{ghost: Ghost{Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Played: time.Minute}}}
	d := accountDeps(acc)
	d.Ghosts = gh
	d.Width, d.Height = 80, 16 // the board scrolls
	h := newHarness(t, d)
	h.open(itemLeaders)
	h.wantScreen("g race its ghost")
	// Not before the player is on today's board: no spoilers.
	b := h.m.screens[screenLeaders].(*leadersScreen)
	for i := range b.entries {
		b.entries[i].You = false
	}
	h.keys("g")
	h.wantScreen("finish today's daily deal first")
	if gh.ref != "" || h.m.cur != screenLeaders {
		t.Fatalf("g before the player's daily raced %q", gh.ref)
	}
	b.entries[2].You = true
	h.send(tea.KeyMsg{Type: tea.KeyHome})
	h.keys("down", "g")
	if gh.ref != "101" {
		t.Fatalf("g raced %q, want the line under the cursor, game 101:\n%s", gh.ref, h.screen())
	}
	if rs := h.m.race(); rs == nil || rs.ghost == nil || h.m.cur != screenRace {
		t.Fatalf("no ghost race after g:\n%s", h.screen())
	}
}

// refGhosts remembers the ref asked for.
type refGhosts struct {
	fakeGhosts
	ref string
}

func (r *refGhosts) Ghost(ctx context.Context, ref string) (Ghost, error) {
	r.mu.Lock()
	r.ref = ref
	r.mu.Unlock()
	g := r.ghost
	g.GameID = ref
	return g, nil
}

// TestGhostLeave: q twice leaves a ghost race; the server is told, so
// that the unfinished practice game does not wait in Continue.
func TestGhostLeave(t *testing.T) {
	line, _ := heuristicLine(t, "classic", 3)
	gh := &fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Played: time.Minute}}
	h := newHarness(t, Deps{Args: []string{"race", "ghost", "7"}, Unicode: true, Player: testPlayer, Ghosts: gh})
	h.keys("d", "q")
	h.wantScreen("q again leaves the ghost race")
	h.keys("q")
	if h.m.race() != nil || h.m.cur != screenMenu {
		t.Fatalf("q twice did not leave:\n%s", h.screen())
	}
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if gh.left != 1 || len(gh.plays) != 1 {
		t.Errorf("left %d times after %d reports, want 1 and 1", gh.left, len(gh.plays))
	}
}

// blockingGhosts is a fakeGhosts whose Play waits until the test answers
// it: calls brings each report, answers takes the outcome.
type blockingGhosts struct {
	fakeGhosts
	calls   chan engine.Record
	answers chan error
}

func (b *blockingGhosts) Play(ctx context.Context, seq int, rec engine.Record, times []time.Duration) (string, error) {
	b.calls <- rec
	select {
	case err := <-b.answers:
		return "", err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// nextGhostPlay delivers messages until the ghost race stores the
// player's game, and returns the game stored (the call waits for an
// answer).
func (d *asyncDriver) nextGhostPlay(b *blockingGhosts) engine.Record {
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

// TestGhostMoveShowsOnlyOnceStored: a ghost race holds the player's board
// as the table and a race do (hold.go): a move shows once the server has
// stored it, one report is in flight at a time, and a report it could not
// store takes the board back to the last stored position, in the same
// words.
func TestGhostMoveShowsOnlyOnceStored(t *testing.T) {
	line, _ := heuristicLine(t, "classic", 3)
	gh := &blockingGhosts{fakeGhosts: fakeGhosts{ghost: Ghost{GameID: "7", Name: "bob", Record: engine.Record{Rules: "classic", Deal: 3, Moves: line}, Played: time.Hour}},
		calls: make(chan engine.Record), answers: make(chan error)}
	d := newAsyncDriver(t, Deps{Args: []string{"race", "ghost", "7"}, Unicode: true, Player: testPlayer, Ghosts: gh})
	d.until("the ghost race", func() bool { return d.shows("ghost of bob", "0 moves") })

	d.keys("d")
	if got := len(d.nextGhostPlay(gh).Moves); got != 1 {
		t.Fatalf("first report has %d moves, want 1", got)
	}
	d.wantScreen("0 moves", "stock [▒▒▒] 24")
	d.keys("d") // waits for the one in flight
	d.wantScreen("0 moves")
	gh.answers <- nil
	if got := len(d.nextGhostPlay(gh).Moves); got != 2 {
		t.Fatalf("second report has %d moves, want 2", got)
	}
	d.wantScreen("0 moves")
	gh.answers <- nil
	d.until("the two draws on screen", func() bool { return d.shows("2 moves", "stock [▒▒▒] 22") })

	d.keys("d")
	d.nextGhostPlay(gh)
	gh.answers <- errors.New("disk full")
	d.until("the warning", func() bool {
		return d.shows("not saved: disk full: back to your last saved position (2 moves)", "2 moves")
	})
	if got := d.m.race().table.game.MovesMade(); got != 2 {
		t.Fatalf("%d moves after the failed save, want the stored 2", got)
	}
	d.keys("d")
	if got := len(d.nextGhostPlay(gh).Moves); got != 3 {
		t.Fatalf("the report after the failure has %d moves, want 3", got)
	}
	gh.answers <- nil
	d.until("the draw on screen", func() bool { return d.shows("3 moves") })
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
