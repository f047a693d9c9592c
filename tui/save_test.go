package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"pyramid/engine"
)

// blockingGames is a Games whose Save waits until the test answers it:
// calls brings each game to store, answers takes the outcome (nil stores
// it).
type blockingGames struct {
	fakeGames
	calls   chan SavedGame
	answers chan error
	// deaf makes Save wait for its answer even when its context ends.
	deaf bool
}

func newBlockingGames() *blockingGames {
	return &blockingGames{calls: make(chan SavedGame), answers: make(chan error)}
}

func (b *blockingGames) Save(ctx context.Context, player string, g SavedGame) (string, error) {
	b.calls <- g
	done := ctx.Done()
	if b.deaf {
		done = nil
	}
	select {
	case err := <-b.answers:
		if err != nil {
			return "", err
		}
	case <-done:
		return "", fmt.Errorf("save: %w", ctx.Err())
	}
	return b.fakeGames.Save(ctx, player, g)
}

// asyncDriver runs a model as Bubble Tea does: every command in its own
// goroutine, and their messages delivered one at a time, on the test's
// goroutine, when the test waits for something.
type asyncDriver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	quit bool
}

func newAsyncDriver(t *testing.T, d Deps) *asyncDriver {
	t.Helper()
	clock := newClock(t)
	d.Now = clock.Now
	d.Renderer = renderer(termenv.ANSI256)
	if d.Width == 0 {
		d.Width, d.Height = 80, 24
	}
	ad := &asyncDriver{t: t, m: New(d), msgs: make(chan tea.Msg, 64)}
	ad.run(ad.m.Init())
	return ad
}

// run runs a command in a goroutine and queues its messages.
func (d *asyncDriver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.run(c)
			}
			return
		}
		if cmds, ok := sequence(msg); ok {
			for _, c := range cmds {
				if m := c(); m != nil {
					d.msgs <- m
				}
			}
			return
		}
		if msg != nil {
			d.msgs <- msg
		}
	}()
}

// send delivers one message.
func (d *asyncDriver) send(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		d.quit = true
		return
	}
	next, cmd := d.m.Update(msg)
	d.m = next.(*Model)
	d.run(cmd)
}

// keys sends key presses by name, as harness.keys does.
func (d *asyncDriver) keys(names ...string) {
	for _, n := range names {
		d.send(keyMsg(n))
	}
}

// screen is the view without escape sequences.
func (d *asyncDriver) screen() string { return ansi.Strip(d.m.View()) }

// until delivers messages until cond holds, and fails the test when it
// does not hold within a few seconds.
func (d *asyncDriver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(5 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.screen())
		}
	}
}

// nextSave delivers messages until the store is asked to save, and
// returns the game it is asked to store (the call waits for an answer).
func (d *asyncDriver) nextSave(b *blockingGames) SavedGame {
	d.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case g := <-b.calls:
			return g
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for a save; screen:\n%s", d.screen())
		}
	}
}

// shows reports whether the screen holds every string.
func (d *asyncDriver) shows(subs ...string) bool {
	s := d.screen()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// wantScreen fails unless the screen holds every string.
func (d *asyncDriver) wantScreen(subs ...string) {
	d.t.Helper()
	if !d.shows(subs...) {
		d.t.Errorf("screen lacks one of %q:\n%s", subs, d.screen())
	}
}

func TestMoveShowsOnlyOnceStored(t *testing.T) {
	store := newBlockingGames()
	d := newAsyncDriver(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	d.until("the deal", func() bool { return d.m.playing })
	d.wantScreen("0 moves", "stock │▒▒▒│ 24")

	// A draw: the screen keeps the position before it until the store
	// has the draw.
	d.keys("d")
	if got := len(d.nextSave(store).Record.Moves); got != 1 {
		t.Fatalf("first save has %d moves, want 1", got)
	}
	d.wantScreen("0 moves", "stock │▒▒▒│ 24")
	// Keys typed meanwhile are played, in order, and wait for one save.
	d.keys("d", "d")
	if got := d.m.table().Game().MovesMade(); got != 3 {
		t.Fatalf("%d moves played, want 3", got)
	}
	d.wantScreen("0 moves")
	store.answers <- nil
	if got := len(d.nextSave(store).Record.Moves); got != 3 {
		t.Fatalf("second save has %d moves, want the three draws merged", got)
	}
	d.wantScreen("0 moves") // the first answer covered one move of three
	store.answers <- nil
	d.until("the three draws on screen", func() bool { return d.shows("3 moves", "stock │▒▒▒│ 21") })

	// A failed save takes the screen back to the stored position: the
	// move it showed never reached the player.
	d.keys("u")
	d.nextSave(store)
	d.wantScreen("3 moves")
	store.answers <- errors.New("disk full")
	d.until("the warning", func() bool {
		return d.shows("not saved: disk full: back to your last saved position (3 moves)", "3 moves")
	})
	if got := d.m.table().Game().MovesMade(); got != 3 {
		t.Fatalf("%d moves after the failed save, want the stored 3", got)
	}

	// A resize while a move waits lays the stored position out anew.
	d.keys("d")
	d.nextSave(store)
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.wantScreen("3 moves")
	checkShape(t, d.m.View(), 120, 40)
	d.send(tea.WindowSizeMsg{Width: 30, Height: 10}) // too small shows no position at all
	d.wantScreen("make the window")
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.wantScreen("3 moves")
	checkShape(t, d.m.View(), 80, 24)
	// A notice shows on the held screen.
	d.send(NoticeMsg{Text: "server restarts in 10 s"})
	d.wantScreen("server restarts in 10 s", "3 moves")
	store.answers <- nil
	d.until("the draw on screen", func() bool { return d.shows("4 moves") })

	// Quitting while a move waits quits once it is stored.
	d.keys("d")
	d.nextSave(store)
	d.keys("ctrl+c")
	if d.quit {
		t.Fatal("quit with a move not stored")
	}
	d.wantScreen("4 moves", "saving your game…")
	store.answers <- nil
	d.until("the quit", func() bool { return d.quit })
	store.mu.Lock()
	defer store.mu.Unlock()
	if got := len(store.games["g1"].Record.Moves); got != 5 {
		t.Errorf("stored %d moves before quitting, want 5", got)
	}
}

func TestWinShowsOnceStored(t *testing.T) {
	moves, status := heuristicLine(t, "classic", 3)
	if status != engine.Won {
		t.Fatalf("the heuristic does not win classic 3 any more (%s)", status)
	}
	store := newBlockingGames()
	d := newAsyncDriver(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Player: testPlayer, Games: store})
	d.until("the deal", func() bool { return d.m.playing })
	d.keys(":")
	for _, r := range strings.Join(moves, " ") {
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	d.keys("enter")
	if sg := d.nextSave(store); sg.Status != StatusWon {
		t.Fatalf("the winning save has status %q", sg.Status)
	}
	if d.shows("You cleared the pyramid!") || d.shows("won") {
		t.Errorf("the win shows before the store has it:\n%s", d.screen())
	}
	d.wantScreen("0 moves")
	store.answers <- nil
	d.until("the win screen", func() bool { return d.shows("You cleared the pyramid!", "74 moves") })
}

func TestUnstoredGamesShowAtOnce(t *testing.T) {
	// A guest's game and a game without a store are never held.
	for _, deps := range []Deps{
		{Args: []string{"classic", "42"}, Player: Player{Guest: true}, Games: newBlockingGames()},
		{Args: []string{"classic", "42"}, Player: testPlayer},
	} {
		h := newHarness(t, deps)
		h.keys("d")
		h.wantScreen("1 move")
		if h.m.saves.held.shown != nil {
			t.Error("an unstored game holds its screen")
		}
	}
}

func TestTakenOverWhileHeld(t *testing.T) {
	store := newBlockingGames()
	d := newAsyncDriver(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	d.until("the deal", func() bool { return d.m.playing })
	d.keys("d")
	d.nextSave(store)
	store.answers <- nil
	d.until("the draw", func() bool { return d.shows("1 move") })
	d.keys("d")
	d.nextSave(store)
	store.answers <- ErrTakenOver
	d.until("the menu", func() bool { return d.shows("your game continues in another session") })
	if d.m.saves.held.shown != nil || d.m.playing {
		t.Error("the game taken over is still held or on the table")
	}
}

// TestStaleSaveReloads: a save refused because the stored game moved on
// without this session (ErrStale) takes the screen to the game as stored,
// saying so; the game goes on from there.
func TestStaleSaveReloads(t *testing.T) {
	store := newBlockingGames()
	d := newAsyncDriver(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	d.until("the deal", func() bool { return d.m.playing })
	d.keys("d")
	d.nextSave(store)
	store.answers <- nil
	d.until("the draw", func() bool { return d.shows("1 move") })
	// Another session of the player drew three more and stored them.
	store.mu.Lock()
	elsewhere := store.games["g1"]
	elsewhere.Record.Moves = []string{"d", "d", "d", "d"}
	store.games["g1"] = elsewhere
	claims := store.claims
	store.mu.Unlock()
	d.keys("d")
	d.nextSave(store)
	store.answers <- fmt.Errorf("save game 1: %w", ErrStale)
	d.until("the stored game", func() bool { return d.shows("your game changed in another session: back to it as stored (4 moves)") })
	if !d.m.playing || d.m.saves.held.shown != nil || d.m.table().game.MovesMade() != 4 {
		t.Fatalf("after the reload: playing %v, held %v, %d moves; want the stored 4 moves on the table",
			d.m.playing, d.m.saves.held.shown != nil, d.m.table().game.MovesMade())
	}
	if store.claims != claims+1 {
		t.Errorf("the stored game was taken %d times, want once", store.claims-claims)
	}
	d.keys("d")
	d.nextSave(store)
	store.answers <- nil
	d.until("the next draw", func() bool { return d.shows("5 moves") })
	if got := len(store.games["g1"].Record.Moves); got != 5 {
		t.Errorf("stored %d moves, want 5", got)
	}
}

func TestShutdownTellsWhatIsSaved(t *testing.T) {
	tests := []struct {
		name string
		// play runs the session up to the shutdown; it returns the wait
		// the shutdown message gives.
		play   func(d *asyncDriver, store *blockingGames) time.Duration
		want   []string
		stored int // moves in the store at the end, -1 for no game
	}{
		{
			name: "every move stored",
			play: func(d *asyncDriver, store *blockingGames) time.Duration {
				d.keys("d")
				d.nextSave(store)
				store.answers <- nil
				d.until("the draw", func() bool { return d.shows("1 move") })
				return time.Minute
			},
			want:   []string{"The server is restarting.", "Your game is saved (Classic · deal 42, 1 move)."},
			stored: 1,
		},
		{
			name: "a save stopped at the deadline",
			play: func(d *asyncDriver, store *blockingGames) time.Duration {
				d.keys("d")
				d.nextSave(store)
				store.answers <- nil
				d.until("the draw", func() bool { return d.shows("1 move") })
				d.keys("d", "d")
				d.nextSave(store) // never answered: the shutdown stops it
				return 50 * time.Millisecond
			},
			want: []string{"Your game is saved (Classic · deal 42, 1 move). " +
				"Your last 2 moves (d d) are not confirmed by the store and may be lost: the store did not answer in time."},
			stored: 1,
		},
		{
			name: "a save that does not stop",
			play: func(d *asyncDriver, store *blockingGames) time.Duration {
				d.keys("d")
				d.nextSave(store)
				store.answers <- nil
				d.until("the draw", func() bool { return d.shows("1 move") })
				store.deaf = true
				d.keys("d", "d")
				d.nextSave(store)
				return 50 * time.Millisecond
			},
			want:   []string{"Your game is saved up to move 1: moves 2–3 (d d) are not confirmed by the store and may be lost."},
			stored: 1,
		},
		{
			name: "the first save in flight at the deadline",
			play: func(d *asyncDriver, store *blockingGames) time.Duration {
				store.deaf = true
				d.keys("d")
				d.nextSave(store)
				return 50 * time.Millisecond
			},
			want:   []string{"Your game is not confirmed by the store: its 1 move may be lost."},
			stored: -1,
		},
		{
			name: "a save that fails",
			play: func(d *asyncDriver, store *blockingGames) time.Duration {
				d.keys("d")
				d.nextSave(store)
				store.answers <- nil
				d.until("the draw", func() bool { return d.shows("1 move") })
				d.keys("d")
				d.nextSave(store)
				go func() { store.answers <- errors.New("database is locked") }()
				return time.Minute
			},
			want:   []string{"Your game is saved (Classic · deal 42, 1 move). Your last move (d) could not be saved: database is locked."},
			stored: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newBlockingGames()
			d := newAsyncDriver(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
			d.until("the deal", func() bool { return d.m.playing })
			wait := tt.play(d, store)
			d.send(ShutdownMsg{Text: "the server is restarting", Wait: wait})
			d.until("the end of the session", func() bool { return d.quit })
			// The farewell is the last frame, drawn outside the alternate
			// screen: one paragraph, no table.
			got := strings.Join(strings.Fields(d.screen()), " ")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("farewell %q lacks %q", got, w)
				}
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			sg, ok := store.games["g1"]
			switch {
			case tt.stored < 0 && ok:
				t.Errorf("stored %d moves, want none", len(sg.Record.Moves))
			case tt.stored >= 0 && len(sg.Record.Moves) != tt.stored:
				t.Errorf("stored %d moves, want %d", len(sg.Record.Moves), tt.stored)
			}
		})
	}
}

func TestQuitWithAFailedSave(t *testing.T) {
	// The player quits while a move is being saved, and the save fails:
	// the last frame, left on the terminal, says so.
	store := newBlockingGames()
	d := newAsyncDriver(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	d.until("the deal", func() bool { return d.m.playing })
	d.keys("d")
	d.nextSave(store)
	store.answers <- nil
	d.until("the draw", func() bool { return d.shows("1 move") })
	d.keys("d")
	d.nextSave(store)
	d.keys("ctrl+c")
	store.answers <- errors.New("disk full")
	d.until("the end of the session", func() bool { return d.quit })
	got := strings.Join(strings.Fields(d.screen()), " ")
	if want := "Your game is saved (Classic · deal 42, 1 move). Your last move (d) could not be saved: disk full."; got != want {
		t.Errorf("farewell %q, want %q", got, want)
	}
}
