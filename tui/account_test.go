package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// hostileName is a name that tries to clear the screen and turn the
// text around; the screen must show neither.
const hostileName = "\x1b[2Jmallory\u202e"

// fakeAccount is an Account in memory that records the calls.
type fakeAccount struct {
	mu       sync.Mutex
	stats    []RulesStats
	boards   map[string][]BoardEntry // by date
	statsErr error
	boardErr error
	taken    map[string]bool
	name     string
	dates    []string // the dates Board was asked for
	limits   []int
	codes    int
	statsN   int
	// redeemed are the codes Redeem was given; Redeem answers with
	// redeemName, or redeemErr when it is set.
	redeemed   []string
	redeemName string
	redeemErr  error
	// settings are the kept settings; setErr refuses SetSetting.
	settings map[string]string
	setErr   error
	// keys are the player's keys; unlinked the fingerprints Unlink took.
	keys     []KeyInfo
	keysErr  error
	unlinked []string
}

func (f *fakeAccount) Settings(ctx context.Context, player string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{"keys": "arrows", "cards": "symbols", "winnable-only": "off"}
	for k, v := range f.settings {
		out[k] = v
	}
	return out, nil
}

func (f *fakeAccount) SetSetting(ctx context.Context, player, name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.setErr != nil {
		return f.setErr
	}
	if f.settings == nil {
		f.settings = map[string]string{}
	}
	f.settings[name] = value
	return nil
}

func newFakeAccount() *fakeAccount {
	today := []BoardEntry{
		{Rank: 1, Name: "bob", Removed: 28, Time: 3*time.Minute + 5*time.Second, Won: true},
		{Rank: 2, Name: hostileName, Removed: 28, Time: 3*time.Minute + 40*time.Second, Won: true},
		{Rank: 3, Name: "alice", Removed: 24, Time: 4*time.Minute + 12*time.Second, You: true},
	}
	for i := 4; i <= 20; i++ {
		today = append(today, BoardEntry{Rank: i, Name: fmt.Sprintf("player%02d", i), Removed: 24 - i/2, Time: time.Duration(250+10*i) * time.Second})
	}
	return &fakeAccount{
		stats: []RulesStats{
			{RulesID: "classic", Title: "Classic", Played: 12, Won: 5, CurrentStreak: 2, BestStreak: 4,
				BestTime: 4*time.Minute + 12*time.Second, FewestMoves: 61, AvgRemoved: 17.4, BestDaily: -1,
				Race: &RaceStats{Rated: 12, Wins: 4, Podiums: 7, Unrated: 2, Rating: 1527.4,
					History: []float64{1577.7, 1540.2, 1561.9, 1498.3, 1512.4, 1530, 1519.6, 1544.1, 1551.8, 1533.3, 1512.4, 1527.4}}},
			{RulesID: "daily", Title: "Daily", Played: 3, Won: 1, CurrentStreak: 1, BestStreak: 1,
				BestTime: 5*time.Minute + 1*time.Second, FewestMoves: 70, AvgRemoved: 20, DailyPlayed: 3,
				BestDaily: 28, BestDailyTime: 5*time.Minute + 1*time.Second},
			{RulesID: "double", Title: "Double", Played: 2, AvgRemoved: 21.5, BestDaily: -1},
			{RulesID: "classic,cover=overlap", Title: "Custom\x1b[2J\u202e", Played: 1, Won: 1, CurrentStreak: 1, BestStreak: 1,
				BestTime: 9*time.Minute + 59*time.Second, FewestMoves: 80, AvgRemoved: 28, BestDaily: -1},
		},
		boards: map[string][]BoardEntry{
			"2026-03-01": today,
			"2026-02-28": {
				{Rank: 1, Name: "carol", Removed: 26, Time: 7 * time.Minute},
				{Rank: 2, Name: "alice", Removed: 20, Time: 8 * time.Minute, You: true},
			},
		},
		taken:      map[string]bool{"bob": true},
		name:       "alice",
		redeemName: "bob",
	}
}

func (f *fakeAccount) Stats(ctx context.Context, player string) ([]RulesStats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statsN++
	return f.stats, f.statsErr
}

func (f *fakeAccount) Board(ctx context.Context, rulesID, date string, limit int) ([]BoardEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dates = append(f.dates, date)
	f.limits = append(f.limits, limit)
	if rulesID != "daily" {
		return nil, fmt.Errorf("no board for %q", rulesID)
	}
	b := f.boards[date]
	return b[:min(len(b), limit)], f.boardErr
}

func (f *fakeAccount) Rename(ctx context.Context, player, name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken[strings.ToLower(name)] {
		return "", errors.New("that name is taken: pick another")
	}
	for _, r := range name {
		if !(r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", fmt.Errorf("%q cannot be in a name: use letters, digits, _ . or -", r)
		}
	}
	f.name = name
	return name, nil
}

func (f *fakeAccount) NameRefusal(name string) string {
	if n := ansi.StringWidth(name); n > 16 {
		return fmt.Sprintf("A name is at most 16 characters wide; this one is %d.", n)
	}
	for i, r := range []rune(name) {
		if !(r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || unicode.IsLetter(r)) {
			return fmt.Sprintf("Character %d (U+%04X) cannot be in a name: use letters, digits, _ . or -.", i+1, r)
		}
	}
	return ""
}

func (f *fakeAccount) Keys(ctx context.Context, player string) ([]KeyInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.keysErr != nil {
		return nil, f.keysErr
	}
	return append([]KeyInfo(nil), f.keys...), nil
}

func (f *fakeAccount) Unlink(ctx context.Context, player, fp string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, k := range f.keys {
		if k.Fingerprint == fp {
			if k.This {
				return "", errors.New("that is the key of this session: connect with another of your keys to unlink it")
			}
			f.keys = append(f.keys[:i], f.keys[i+1:]...)
			f.unlinked = append(f.unlinked, fp)
			return fp, nil
		}
	}
	return "", errors.New("that is not one of your keys (whoami lists them)")
}

func (f *fakeAccount) LinkCode(ctx context.Context, player string) (string, time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.codes++
	return fmt.Sprintf("ABCDEFG%d", f.codes), epoch.Add(15 * time.Minute), nil
}

func (f *fakeAccount) Redeem(ctx context.Context, code string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.redeemed = append(f.redeemed, code)
	if f.redeemErr != nil {
		return "", f.redeemErr
	}
	return f.redeemName, nil
}

// accountDeps are the deps of a player with an account.
func accountDeps(acc Account) Deps {
	return Deps{Player: testPlayer, Unicode: true, Account: acc, Connect: "ssh -p 23234 games.example.org"}
}

// menuTo moves the menu's cursor to the first item of a kind.
func (h *harness) menuTo(kind itemKind) {
	h.t.Helper()
	for range len(h.m.menu().items) {
		if h.m.menu().items[h.m.menu().cur].kind == kind {
			return
		}
		h.keys("down")
	}
	h.t.Fatalf("no menu item of kind %d:\n%s", kind, h.screen())
}

// open opens the menu item of a kind.
func (h *harness) open(kind itemKind) {
	h.t.Helper()
	h.menuTo(kind)
	h.keys("enter")
}

// wantClean fails when a raw escape sequence or bidi control from the
// hostile strings reaches the view.
func wantClean(t *testing.T, view string) {
	t.Helper()
	for _, bad := range []string{"\x1b[2J", "\u202e"} {
		if strings.Contains(view, bad) {
			t.Errorf("the view holds %q", bad)
		}
	}
}

func TestAccountGolden(t *testing.T) {
	sizes := []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x40", 120, 40}, {"small", 40, 12}}
	cases := []struct {
		name  string
		acc   func() *fakeAccount
		setup func(h *harness)
	}{
		{"menu_account", newFakeAccount, func(h *harness) {}},
		{"menu_settings", newFakeAccount, func(h *harness) { h.menuTo(itemKeys) }},
		{"stats", newFakeAccount, func(h *harness) { h.open(itemStats); h.keys("down") }},
		{"stats_races", newFakeAccount, func(h *harness) { h.open(itemStats) }},
		{"stats_empty", func() *fakeAccount { a := newFakeAccount(); a.stats = nil; return a }, func(h *harness) { h.open(itemStats) }},
		{"board", newFakeAccount, func(h *harness) { h.open(itemLeaders) }},
		{"board_yesterday", newFakeAccount, func(h *harness) { h.open(itemLeaders); h.keys("left") }},
		{"name", newFakeAccount, func(h *harness) {
			h.open(itemName)
			h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
			h.typeText("bob")
			h.keys("enter")
		}},
		{"link", newFakeAccount, func(h *harness) { h.open(itemLink) }},
		{"redeem", newFakeAccount, func(h *harness) { h.open(itemRedeem); h.typeText("abcd-efgh") }},
		{"redeem_done", newFakeAccount, func(h *harness) { h.open(itemRedeem); h.typeText("abcd-efgh"); h.keys("enter") }},
		{"redeem_refused", func() *fakeAccount {
			a := newFakeAccount()
			a.redeemErr = errors.New("that link code has expired: ask for a new one")
			return a
		}, func(h *harness) { h.open(itemRedeem); h.typeText("abcd-efgh"); h.keys("enter") }},
	}
	for _, c := range cases {
		for _, sz := range sizes {
			t.Run(c.name+"_"+sz.name, func(t *testing.T) {
				d := accountDeps(c.acc())
				d.Width, d.Height = sz.w, sz.h
				h := newHarness(t, d)
				h.resize(80, 24)
				c.setup(h)
				h.resize(sz.w, sz.h)
				view := h.m.View()
				checkShape(t, view, sz.w, sz.h)
				wantClean(t, view)
				golden(t, c.name+"_"+sz.name, ansi.Strip(view))
			})
		}
	}
}

func TestAccountHidden(t *testing.T) {
	items := []string{"Stats", "Daily board", "Change name", "Link another key", "Use a link code"}
	// A guest sees none of the account's items, only how to get a key.
	h := newHarness(t, Deps{Player: Player{Guest: true}, Unicode: true, Account: newFakeAccount()})
	h.wantNotScreen("Records", "Account")
	wantItems(t, h, items, false)
	h.wantScreen("add an SSH key to keep your stats (ssh-keygen -t ed25519)")
	// Without an account, a player sees none either.
	h = newHarness(t, Deps{Player: testPlayer, Unicode: true, Width: 120, Height: 40})
	h.wantNotScreen("Records", "Account")
	wantItems(t, h, items, false)
	// With one, all five, in the Records and Account groups.
	h = newHarness(t, Deps{Player: testPlayer, Unicode: true, Width: 120, Height: 40, Account: newFakeAccount()})
	h.wantScreen("Records", "Account")
	wantItems(t, h, items, true)
}

// wantItems fails unless the menu lists every label (want) or none.
func wantItems(t *testing.T, h *harness, labels []string, want bool) {
	t.Helper()
	h.m.menu().show(true)
	for _, l := range labels {
		has := slices.ContainsFunc(h.m.menu().items, func(it menuItem) bool { return strings.HasPrefix(it.label, l) })
		if has != want {
			t.Errorf("the menu lists %q: %v, want %v", l, has, want)
		}
	}
}

func TestStatsScreen(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.open(itemStats)
	h.wantScreen("your stats", "Classic", "12", "42%", "2/4", "4:12", "Classic: 12 played, 5 won (42%)")
	h.keys("down")
	h.wantScreen("Daily: 3 played", "daily deals: 3 played, 0 won, best 28 removed in 5:01", "daily streak 0 days in a row")
	// The columns that do not fit at 80 cells show at 120.
	h.wantNotScreen("best daily")
	h.resize(120, 40)
	h.wantScreen("best daily", "28 in 5:01")
	// Up from the first wraps to the last.
	h.keys("up", "up")
	h.wantScreen("Classic, cover=overlap: 1 played") // by its rules, not a stored title
	// r reloads; q goes back to the menu.
	before := acc.statsN
	h.keys("r")
	if acc.statsN != before+1 {
		t.Errorf("%d loads after r, want %d", acc.statsN, before+1)
	}
	h.keys("q")
	h.wantScreen("Pyramid Solitaire", "Stats")
	// An error shows as a message and the screen stays usable.
	acc.statsErr = errors.New("database is locked\x1b[2J")
	h.open(itemStats)
	h.wantScreen("could not load your stats: database is locked")
	wantClean(t, h.m.View())
	h.keys("esc")
	h.wantScreen("Records", "Stats", "Daily board")
}

func TestBoardScreen(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.open(itemLeaders) // the harness's clock fails the test if Update reads it
	h.wantScreen("daily board · Sun 2026-03-01 (today)", "bob", "28/28", "3:05", "won", "> ", "alice")
	if got := acc.dates; len(got) != 1 || got[0] != "2026-03-01" || acc.limits[0] != 20 {
		t.Fatalf("asked for %v (limit %v), want today's top 20", got, acc.limits)
	}
	wantClean(t, h.m.View())
	h.wantScreen("mallory?")
	// The day after today is not there to see.
	h.wantNotScreen("day after")
	h.keys("right")
	if len(acc.dates) != 1 {
		t.Errorf("right on today's board asked for %v", acc.dates[1:])
	}
	// Left goes to the day before, right back, t to today.
	h.keys("left")
	h.wantScreen("Sat 2026-02-28 (yesterday)", "carol", "26/28")
	h.keys("left")
	h.wantScreen("Fri 2026-02-27", "nobody finished the daily deal of that day")
	h.keys("right")
	h.wantScreen("carol", "→ day after", "t today")
	h.keys("t")
	h.wantScreen("(today)", "bob")
	// A short window scrolls to the player's line.
	h.resize(70, 16)
	h.keys("q")
	h.open(itemLeaders)
	h.wantScreen("alice", "↑/↓ select")
	for range 30 {
		h.keys("down")
	}
	h.wantScreen("player20")
	// An error shows as a message.
	acc.boardErr = errors.New("timeout")
	h.keys("r")
	h.wantScreen("could not load the board: timeout")
}

// TestBoardChampion: a player who won an arena in the last week carries
// a crown after their name on the daily board, W without Unicode.
func TestBoardChampion(t *testing.T) {
	for _, unicode := range []bool{true, false} {
		acc := newFakeAccount()
		for i := range acc.boards["2026-03-01"] {
			acc.boards["2026-03-01"][i].Champion = acc.boards["2026-03-01"][i].Name == "bob"
		}
		d := accountDeps(acc)
		d.Unicode = unicode
		h := newHarness(t, d)
		h.open(itemLeaders)
		mark := "bob ♛"
		if !unicode {
			mark = "bob W"
		}
		h.wantScreen(mark)
		h.wantNotScreen("alice ♛", "alice W")
	}
}

func TestChangeName(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.open(itemName)
	h.wantScreen("change name", "name: alice")
	// q types, it does not leave the form.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("quentin")
	h.wantScreen("name: quentin")
	// The server's reason for a refusal shows; the form stays.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("bob")
	h.keys("enter")
	h.wantScreen("that name is taken: pick another", "name: bob")
	// The account's reason shows as the player types, and enter sends
	// nothing while there is one.
	h.typeText("!")
	h.wantScreen("Character 4 (U+0021) cannot be in a name")
	renames := acc.name
	h.keys("enter")
	h.wantScreen("Character 4 (U+0021) cannot be in a name")
	if acc.name != renames {
		t.Error("a refused name was sent")
	}
	// Past 16 cells the name is not cut: the form says it is too wide
	// (a wide character takes two cells).
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText(strings.Repeat("x", 20))
	if got := h.m.nameForm().input.Value(); got != strings.Repeat("x", 20) {
		t.Errorf("the input took %q, want the 20 x typed", got)
	}
	h.wantScreen("A name is at most 16 characters wide; this one is 20.")
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText(strings.Repeat("名", 9))
	h.wantScreen("this one is 18.")
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText(strings.Repeat("y", 40))
	if got := h.m.nameForm().input.Value(); len(got) != maxNameInput {
		t.Errorf("the input took %d characters, want the field's %d", len(got), maxNameInput)
	}
	// A paste with a bidi control is refused whole; escape sequences
	// never reach the input.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ev\u202eil"), Paste: true})
	h.wantScreen("U+202E cannot be in a name: it does not show on a screen")
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\x1b[2J"), Paste: true})
	if v := h.m.nameForm().input.Value(); strings.ContainsAny(v, "\u202e\x1b") {
		t.Errorf("the input holds %q", v)
	}
	wantClean(t, h.m.View())
	// ctrl+v would read the server's clipboard: it does nothing.
	_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	if cmd != nil {
		if msg := cmd(); msg != nil {
			t.Errorf("ctrl+v ran a command: %T", msg)
		}
	}
	// Esc leaves without a change.
	h.keys("esc")
	h.wantScreen("playing as alice")
	// A good name: back to the menu, which shows it.
	h.open(itemName)
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("alice_2")
	h.keys("enter")
	h.wantScreen("you are alice_2 now", "playing as alice_2")
	if acc.name != "alice_2" {
		t.Errorf("the account has %q", acc.name)
	}
	h.menuTo(itemName)
	h.wantScreen("Change name…          alice_2")
}

func TestLinkScreen(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.open(itemLink)
	h.wantScreen("Your link code:  ABCD-EFG1", "until 12:15 UTC (15 minutes from now)",
		"ssh -p 23234 games.example.org link ABCD-EFG1", "plays as alice")
	h.keys("n")
	h.wantScreen("ABCD-EFG2")
	// A narrow window wraps the command rather than cutting it.
	h.resize(60, 20)
	h.wantScreen("ssh -p 23234 games.example.org link", "ABCD-EFG2")
	checkShape(t, h.m.View(), 60, 20)
	// Without Connect, a placeholder says where the host goes.
	d := accountDeps(acc)
	d.Connect = ""
	h = newHarness(t, d)
	h.open(itemLink)
	h.wantScreen("ssh HOST link ABCD-EFG3")
	// The other key may use the code from its own menu.
	h.wantScreen("Or connect with that key and choose Use a link code in its menu.")
}

func TestAccountScreensASCII(t *testing.T) {
	for _, chosen := range []bool{false, true} {
		for _, kind := range []itemKind{itemStats, itemLeaders, itemName, itemLink, itemRedeem} {
			for _, size := range [][2]int{{80, 24}, {120, 40}} {
				d := accountDeps(newFakeAccount())
				d.Unicode = chosen // letters chosen in the menu, or a client that is not UTF-8
				d.Width, d.Height = size[0], size[1]
				h := newHarness(t, d)
				if chosen {
					h.open(itemCards)
				}
				h.open(kind)
				wantASCII(t, fmt.Sprintf("item %d at %dx%d (letters chosen: %v)", kind, size[0], size[1], chosen), h.screen())
			}
		}
	}
}

func TestAccountNoticesAndQuit(t *testing.T) {
	h := newHarness(t, accountDeps(newFakeAccount()))
	for _, kind := range []itemKind{itemStats, itemLeaders, itemName, itemLink, itemRedeem} {
		h.open(kind)
		h.send(NoticeMsg{Text: "server restarts\x1b[2J in 10 s"})
		h.wantScreen("server restarts in 10 s")
		wantClean(t, h.m.View())
		h.keys("esc")
	}
	h.open(itemLeaders)
	h.keys("ctrl+c")
	if !h.quit {
		t.Error("ctrl+c on the board did not quit")
	}
}

func TestKeysListAndUnlink(t *testing.T) {
	acc := newFakeAccount()
	acc.keys = []KeyInfo{
		{Fingerprint: testPlayer.ID, Added: epoch.Add(-48 * time.Hour), This: true, Type: "ssh-ed25519", LastUsed: epoch, Label: "desk"},
		{Fingerprint: "SHA256:LostLaptopKey0123456789abcdefghijklmnopqrs", Added: epoch.Add(-24 * time.Hour)},
	}
	h := newHarness(t, accountDeps(acc))
	h.open(itemKeyList)
	h.wantScreen("your keys", "The SSH keys that play as alice:", "SHA256:Xy3k9Qa1b2c3d4e5…  desk · this key",
		"ed25519 · added 2026-02-27 · last used "+epoch.UTC().Format("2006-01-02 15:04")+" UTC", "SHA256:LostLaptopKey012…", "added 2026-02-28")
	// The session's own key is refused at once.
	h.keys("u")
	h.wantScreen("that is the key of this session")
	// Another key: asked first; n keeps it, y unlinks it.
	h.keys("down", "u")
	h.wantScreen("unlink SHA256:LostLaptopKey012…? it then plays as a new player")
	h.keys("n")
	if len(acc.unlinked) != 0 {
		t.Fatal("n unlinked the key")
	}
	h.keys("u", "y")
	if len(acc.unlinked) != 1 || len(acc.keys) != 1 {
		t.Errorf("unlinked %q, keys left %+v", acc.unlinked, acc.keys)
	}
	h.wantScreen("unlinked SHA256:LostLaptopKey012…: that key no longer plays as you")
	if ks := h.m.screens[screenKeys].(*keysScreen).keys; len(ks) != 1 || !ks[0].This {
		t.Errorf("the list after the unlink: %+v, want this key alone", ks)
	}
	h.keys("q")
	h.wantScreen("Pyramid Solitaire", "Your keys…")
}

func TestLinkScreenSeesItsCodeUsed(t *testing.T) {
	acc := newFakeAccount()
	acc.keys = []KeyInfo{{Fingerprint: testPlayer.ID, This: true}}
	h := newHarness(t, accountDeps(acc))
	h.open(itemLink)
	h.wantScreen("Your link code:", "ABCD-EFG1", "15 minutes from now")
	l := h.m.screens[screenLink].(*linkScreen)
	// Time passes: the minutes count down at the next look.
	h.clock.advance(5 * time.Minute)
	h.send(linkPollMsg{req: l.req})
	h.wantScreen("10 minutes from now")
	// A new code says it replaces the old one.
	h.keys("n")
	h.wantScreen("the old code ABCD-EFG1 no longer works: the new one replaces it", "ABCD-EFG2")
	// Another key uses the code.
	acc.mu.Lock()
	acc.keys = append(acc.keys, KeyInfo{Fingerprint: "SHA256:EveLaptop0123456789abcdefghijkl"})
	acc.mu.Unlock()
	h.send(linkPollMsg{req: l.req})
	h.wantScreen("✓ Linked SHA256:EveLaptop0123456…", "The code ABCD-EFG2 was used: that key plays as alice now.")
	h.wantNotScreen("minutes from now")
}

// TestStatsRatingHistory: the Stats screen shows the highlighted rule
// set's race figures and its rating history as a sparkline, lowest to
// highest, "?" while provisional; a rule set never raced shows none.
func TestStatsRatingHistory(t *testing.T) {
	acc := newFakeAccount()
	acc.stats[0].Race.Provisional = true
	h := newHarness(t, accountDeps(acc))
	h.open(itemStats)
	h.wantScreen("races: 12 rated, 4 won, 7 on the podium, 2 unrated", "race rating 1527?",
		"rating 1578 █▅▇▁▂▄▃▅▆▄▂▄ 1527? (12 rated races)")
	h.keys("down")
	h.wantNotScreen("rated races)", "race rating")
	for _, tt := range []struct {
		values  []float64
		unicode bool
		want    string
	}{
		{[]float64{1500, 1500}, true, "▅▅"},
		{[]float64{1400, 1450, 1500}, false, "_=#"},
		{[]float64{1500}, true, "▅"},
	} {
		if got := sparkline(tt.values, tt.unicode); got != tt.want {
			t.Errorf("sparkline(%v) = %q, want %q", tt.values, got, tt.want)
		}
	}
	long := &RaceStats{Rated: 200, Rating: 1600, History: make([]float64, 200)}
	for i := range long.History {
		long.History[i] = 1500 + float64(i)/2
	}
	if line := ratingLine(long, true, 78); cells(line) > 78 || !strings.Contains(line, "(last ") {
		t.Errorf("a long history at 78 cells: %q (%d cells)", line, cells(line))
	}
}
