package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// recordingGames is a Games that says what each save recorded (a
// Recorder): res, with the game's ID and counts, on every save that
// finishes a game; a plain result otherwise.
type recordingGames struct {
	fakeGames
	res     SaveResult
	records int
}

func (r *recordingGames) SaveRecord(ctx context.Context, player string, g SavedGame) (SaveResult, error) {
	id, err := r.fakeGames.Save(ctx, player, g)
	if err != nil {
		return SaveResult{}, err
	}
	r.records++
	out := SaveResult{ID: id, Status: g.Status, Hints: g.Hints, Undos: g.Undos, Assisted: g.Hints > 0 || g.Undos > 0}
	if st, err := engine.Replay(g.Record); err == nil && st.Status() != engine.Playing {
		out = r.res
		out.ID, out.Hints, out.Undos = id, g.Hints, g.Undos
		out.Assisted = g.Hints > 0 || g.Undos > 0
	}
	return out, nil
}

func TestAssistsAreCountedAndSent(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.keys("H") // a hint alone is saved: the game is assisted from now on
	if n := len(store.saves); n != 1 || store.saves[0].Hints != 1 {
		t.Fatalf("after a hint: saves %+v, want one with Hints 1", store.saves)
	}
	h.keys("d", "u", "d", "H")
	last := store.saves[len(store.saves)-1]
	if last.Hints != 2 || last.Undos != 1 {
		t.Errorf("saved hints %d, undos %d; want 2 and 1", last.Hints, last.Undos)
	}
	// A resumed game counts on from the stored figures.
	h2 := newHarness(t, Deps{Unicode: true, Player: testPlayer, Games: store})
	h2.open(itemContinue)
	h2.keys("u")
	last = store.saves[len(store.saves)-1]
	if last.Hints != 2 || last.Undos != 2 {
		t.Errorf("resumed: saved hints %d, undos %d; want 2 and 2", last.Hints, last.Undos)
	}
}

func TestWatchingGivesTheGameUp(t *testing.T) {
	s := &fakeSolver{deal: engine.Winnable, line: solverLine(t, "one-pass", 18)}
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"one-pass", "18"}, Unicode: true, Solver: s, Player: testPlayer, Games: store})
	endGame(t, h, "one-pass", 18, engine.Lost)
	n := len(store.saves)
	if store.saves[n-1].Watched {
		t.Fatal("watched before watching")
	}
	h.keys("w")
	if h.m.cur != screenWatch {
		t.Fatalf("w did not open the watch screen:\n%s", h.screen())
	}
	if len(store.saves) != n+1 || !store.saves[n].Watched {
		t.Errorf("opening the watch screen: %d saves, want one more with Watched", len(store.saves)-n)
	}
}

func TestWinScreenSaysWhatWasRecorded(t *testing.T) {
	tests := []struct {
		name  string
		res   SaveResult
		hint  bool
		want  []string
		wantN []string
	}{
		{name: "new record", res: SaveResult{Status: StatusWon, NewBestTime: true, NewFewestMoves: true},
			want: []string{"new record: best time and fewest moves"}, wantN: []string{"assisted"}},
		{name: "first win", res: SaveResult{Status: StatusWon, FirstWin: true, NewBestTime: true, NewFewestMoves: true},
			want: []string{"first win of these rules: a new record"}},
		{name: "assisted", res: SaveResult{Status: StatusWon}, hint: true,
			want: []string{"assisted: 1 hint, 0 undos (no records)"}, wantN: []string{"new record"}},
		{name: "practice", res: SaveResult{Status: StatusWon, Practice: true},
			want: []string{"practice: no result is recorded"}, wantN: []string{"new record"}},
		{name: "daily rank", res: SaveResult{Status: StatusWon, DailyRank: 3, DailyPlayers: 12},
			want: []string{"#3 of 12 on today's daily board"}},
		{name: "chosen deal", res: SaveResult{Status: StatusWon, Chosen: true},
			want: []string{"practice: chosen deal — no record"}, wantN: []string{"new record", "first win"}},
		{name: "faster than play", res: SaveResult{Status: StatusWon, Fast: true, Assisted: true},
			want: []string{"assisted:", "moves faster than play — no record"}, wantN: []string{"new record", "daily board"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &recordingGames{res: tt.res}
			h := newHarness(t, Deps{Args: []string{"classic", "3"}, Unicode: true, Player: testPlayer, Games: store})
			if tt.hint {
				h.keys("H", "esc")
			}
			endGame(t, h, "classic", 3, engine.Won)
			if store.records == 0 {
				t.Fatal("SaveRecord was never called")
			}
			if last := store.saves[len(store.saves)-1]; !last.Chosen {
				t.Error("a deal number the player typed is saved as not chosen")
			}
			h.wantScreen(tt.want...)
			h.wantNotScreen(tt.wantN...)
		})
	}
}

func TestDailyItemSaysDoneToday(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.wantNotScreen("done today")
	acc.stats[1].DailyToday, acc.stats[1].TodayRank, acc.stats[1].TodayPlayers = true, 2, 5
	h = newHarness(t, accountDeps(acc))
	h.wantScreen("done today ✓ (#2 of 5) · replays are practice")
	// A daily finished in the session says so at once.
	store := &recordingGames{res: SaveResult{Status: StatusWon, DailyRank: 1, DailyPlayers: 1}}
	d := accountDeps(newFakeAccount())
	d.Args, d.Games = []string{"daily"}, store
	h = newHarness(t, d)
	h.m.table().recorded(SaveResult{})
	h.m.dailyRecorded(h.m.table(), SaveResult{Status: StatusLost, DailyRank: 4, DailyPlayers: 9})
	h.keys("q")
	h.wantScreen("done today ✓ (#4 of 9)")
}

func TestSettingsAreThePlayers(t *testing.T) {
	acc := newFakeAccount()
	acc.settings = map[string]string{"keys": "wasd", "cards": "letters", "winnable-only": "on"}
	d := accountDeps(acc)
	d.Solver = &fakeSolver{}
	h := newHarness(t, d)
	mn := h.m.menu()
	if mn.Scheme != SchemeWASD || !mn.ASCII || !mn.Winnable {
		t.Fatalf("settings at the start: scheme %v ascii %v winnable %v; want the player's wasd, letters, on", mn.Scheme, mn.ASCII, mn.Winnable)
	}
	wantASCII(t, "the menu with the player's letters", h.screen())
	h.open(itemKeys)
	if acc.settings["keys"] != "arrows" {
		t.Errorf("the changed keys are kept as %q, want arrows", acc.settings["keys"])
	}
	if acc.settings["cards"] != "letters" {
		t.Errorf("an unchanged setting was rewritten: cards %q", acc.settings["cards"])
	}
	// A refusal says so.
	acc.setErr = errors.New("the server could not keep the setting now, try again")
	h.open(itemWinnable)
	h.wantScreen("could not keep the setting")
}

func TestMenuJumpsAndGroups(t *testing.T) {
	h := newHarness(t, accountDeps(newFakeAccount()))
	mn := h.m.menu()
	at := func() itemKind { return mn.items[mn.cur].kind }
	group := func() string { return mn.groups[mn.group(mn.cur)].title }
	// The tabs name every group; the list shows the cursor's group only.
	h.wantScreen("Play", "Records", "Account", "Settings", "Classic")
	if at() != itemPreset || group() != "Play" {
		t.Fatalf("the cursor starts on %q in %q, want the first rule set", mn.items[mn.cur].label, group())
	}
	if strings.Contains(h.screen(), "Change name") {
		t.Errorf("the Play group shows the Account group's items:\n%s", h.screen())
	}
	h.send(tea.KeyMsg{Type: tea.KeyEnd})
	if at() != itemNumber {
		t.Errorf("end: on %q, want the Play group's last item", mn.items[mn.cur].label)
	}
	h.send(tea.KeyMsg{Type: tea.KeyHome})
	if mn.cur != 0 {
		t.Errorf("home: on %q (%d), want the first rule set", mn.items[mn.cur].label, mn.cur)
	}
	// Right (and page down) goes to the next group, left to the one
	// before, wrapping round.
	for _, want := range []string{"Records", "Account", "Settings", "Play"} {
		h.keys("right")
		if group() != want || mn.cur != mn.groups[mn.group(mn.cur)].from {
			t.Fatalf("right: in %q on %q, want the first item of %q", group(), mn.items[mn.cur].label, want)
		}
	}
	h.send(tea.KeyMsg{Type: tea.KeyPgUp})
	if group() != "Settings" {
		t.Errorf("pgup from Play: in %q, want Settings", group())
	}
	h.wantScreen("Keys", "Cards")
	// Down from a group's last item goes on into the next group; up from
	// the first item of all wraps to the last.
	h.keys("right", "left")
	h.send(tea.KeyMsg{Type: tea.KeyEnd})
	h.keys("down")
	if group() != "Play" || mn.cur != 0 {
		t.Errorf("down from Settings' last: in %q at %d, want Play's first", group(), mn.cur)
	}
	h.keys("up")
	if mn.cur != len(mn.items)-1 || group() != "Settings" {
		t.Errorf("up from the first: on %q, want the last item", mn.items[mn.cur].label)
	}
	h.wantScreen("Keys")
}

// dailySolver is a fakeSolver whose daily deal is deal.
type dailySolver struct {
	fakeSolver
	deal uint64
}

func (d *dailySolver) DailyDeal(context.Context, engine.Rules, time.Time) (uint64, error) {
	return d.deal, nil
}

// TestDailyEndShowsShareLine: the end of the day's daily, won or lost,
// shows its share line under the board (spoiler-free: the date, the
// rules, cleared or N/28, the time, the moves); a replay (practice) does
// not.
func TestDailyEndShowsShareLine(t *testing.T) {
	tests := []struct {
		name     string
		deal     uint64
		status   engine.Status
		practice bool
		want     string
	}{
		{"won", 3, engine.Won, false, "Pyramid · daily 2026-03-01 · Daily · cleared · 0:00 · 74 moves"},
		{"lost", 2, engine.Lost, false, "Pyramid · daily 2026-03-01 · Daily · 23/28 · 0:00 · 75 moves"},
		{"practice", 3, engine.Won, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &recordingGames{res: SaveResult{Status: StatusOf(tt.status), Practice: tt.practice}}
			h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store,
				Solver: &dailySolver{fakeSolver: fakeSolver{deal: engine.Unknown}, deal: tt.deal}})
			endGame(t, h, "daily", tt.deal, tt.status)
			if tt.want == "" {
				h.wantNotScreen("share:")
				return
			}
			h.wantScreen(tt.want)
			if line := h.m.table().shareLine(); strings.ContainsAny(line, "♠♥♦♣") {
				t.Errorf("the share line shows a card: %q", line)
			}
			golden(t, "daily_"+tt.name+"_80x24", h.screen())
			h.resize(120, 40)
			h.wantScreen(tt.want)
			golden(t, "daily_"+tt.name+"_120x40", h.screen())
		})
	}
}

// todayAccount is a fakeAccount that answers "done today" in one
// question, and counts the settings asked for.
type todayAccount struct {
	*fakeAccount
	mu            sync.Mutex
	settings, day int
}

func (a *todayAccount) Settings(ctx context.Context, player string) (map[string]string, error) {
	a.mu.Lock()
	a.settings++
	a.mu.Unlock()
	return a.fakeAccount.Settings(ctx, player)
}

func (a *todayAccount) DailyToday(ctx context.Context, player, rulesID string) (bool, int, int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.day++
	return rulesID == "daily", 3, 7, nil
}

// TestSessionStartAsksLittle: a session's start asks the account for
// the settings once (the menu's and "Tell me when a deal can no longer
// be won" alike) and, with an account that answers it, whether today's
// daily is done in one question rather than every stat.
func TestSessionStartAsksLittle(t *testing.T) {
	acc := &todayAccount{fakeAccount: newFakeAccount()}
	acc.fakeAccount.settings = map[string]string{settingTellLost: "on"}
	d := accountDeps(acc.fakeAccount)
	d.Account = acc
	d.Solver = &analystSolver{fakeSolver: fakeSolver{deal: engine.Winnable}}
	h := newHarness(t, d)
	h.wantScreen("done today ✓ (#3 of 7)")
	if acc.settings != 1 || acc.day != 1 || acc.fakeAccount.statsN != 0 {
		t.Errorf("the start asked settings %d times, done-today %d, stats %d; want 1, 1, 0", acc.settings, acc.day, acc.fakeAccount.statsN)
	}
	if !h.m.menu().TellLost {
		t.Error("the Tell me setting did not come with the others")
	}
}
