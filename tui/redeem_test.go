package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestRedeemAccepted(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.open(itemRedeem)
	h.wantScreen("use a link code", "playing as alice", "code: ", "enter use the code", "esc back")
	// Letters show in upper case; q and the other menu keys type.
	h.typeText("qbcd-efgh")
	h.wantScreen("code: QBCD-EFGH")
	h.keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	// O, I and L are the server's to forgive: the form sends them as
	// typed, in upper case.
	h.typeText("oil0-abcd")
	h.keys("enter")
	if want := []string{"OIL0-ABCD"}; !slices.Equal(acc.redeemed, want) {
		t.Fatalf("redeemed %q, want %q", acc.redeemed, want)
	}
	h.wantScreen("This key now plays as bob: reconnect to continue as bob",
		"stats).", "ssh -p 23234 games.example.org",
		"This session still plays as alice: press any key to end it.", "any key end this session")
	if h.quit {
		t.Fatal("the session ended before the player read the result")
	}
	// Resizing and notices keep the result; the next key ends the session.
	h.resize(120, 40)
	h.send(NoticeMsg{Text: "server restarts in 10 s"})
	h.wantScreen("This key now plays as bob", "server restarts in 10 s")
	h.keys("esc")
	if !h.quit {
		t.Fatal("a key after the result did not end the session")
	}
}

func TestRedeemRefused(t *testing.T) {
	// The account's words, whatever they are, show as they come; the
	// form keeps the code to correct.
	reasons := []string{
		"no such link code (a code works once): ask for a new one",
		"that link code has expired: ask for a new one",
		"this key already belongs to a player with games of their own",
		"the player of that code, or of this key, is banned from this server",
	}
	for _, reason := range reasons {
		t.Run(reason[:12], func(t *testing.T) {
			acc := newFakeAccount()
			acc.redeemErr = errors.New(reason)
			h := newHarness(t, accountDeps(acc))
			h.open(itemRedeem)
			h.typeText("ABCD-EFGH")
			h.keys("enter")
			h.wantScreen(reason, "code: ABCD-EFGH", "enter use the code")
			h.wantNotScreen("now plays as")
			// Typing clears the reason; esc goes back to the menu, which
			// goes on as before.
			h.keys("backspace")
			h.wantNotScreen(reason)
			h.keys("esc")
			h.wantScreen("Use a link code…", "playing as alice")
			if h.quit {
				t.Error("a refused code ended the session")
			}
		})
	}
	// A reason with escape sequences and bidi controls is cleaned.
	acc := newFakeAccount()
	acc.redeemErr = errors.New("no\x1b[2J such code\u202e")
	h := newHarness(t, accountDeps(acc))
	h.open(itemRedeem)
	h.typeText("ABCDEFGH")
	h.keys("enter")
	h.wantScreen("no such code?")
	wantClean(t, h.m.View())
}

func TestRedeemChecksLength(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	h.open(itemRedeem)
	for _, code := range []string{"", "ABC-DEFG", "ABCD-EFG-"} {
		h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
		h.typeText(code)
		h.keys("enter")
		h.wantScreen("a link code has 8 letters and digits, like ABCD-EFGH")
	}
	if len(acc.redeemed) != 0 {
		t.Errorf("short codes reached the account: %q", acc.redeemed)
	}
	// At most nine characters: the code and its dash.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("ABCD-EFGHJK")
	if got := h.m.redeemForm().input.Value(); got != "ABCD-EFGH" {
		t.Errorf("the input took %q, want ABCD-EFGH", got)
	}
	// A code pasted with the blanks around it loses them.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("  wxyz-2345\n"), Paste: true})
	if got := h.m.redeemForm().input.Value(); got != "WXYZ-2345" {
		t.Errorf("the paste gave %q, want WXYZ-2345", got)
	}
	// Spaces between the groups are fine too.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText("abcd efgh")
	h.keys("enter")
	if want := []string{"ABCD EFGH"}; !slices.Equal(acc.redeemed, want) {
		t.Errorf("redeemed %q, want %q", acc.redeemed, want)
	}
}

func TestRedeemRefusesHostileInput(t *testing.T) {
	h := newHarness(t, accountDeps(newFakeAccount()))
	h.open(itemRedeem)
	h.typeText("AB")
	for _, in := range []tea.KeyMsg{
		{Type: tea.KeyRunes, Runes: []rune("c\x1b[2J"), Paste: true},
		{Type: tea.KeyRunes, Runes: []rune("cd\u202eef"), Paste: true},
		{Type: tea.KeyRunes, Runes: []rune("\x1b]52;c;aGk=\x07"), Paste: true},
		{Type: tea.KeyRunes, Runes: []rune("\u009b31m"), Paste: true},
		{Type: tea.KeyRunes, Runes: []rune("ＣＤ")},
		{Type: tea.KeyRunes, Runes: []rune("é")},
		{Type: tea.KeyRunes, Runes: []rune("!")},
		{Type: tea.KeyRunes, Runes: []rune("\u200b")},
	} {
		h.send(in)
		if got := h.m.redeemForm().input.Value(); got != "AB" {
			t.Errorf("%q: the input holds %q, want AB", string(in.Runes), got)
		}
	}
	wantClean(t, h.m.View())
	// ctrl+v would read the server's clipboard: it does nothing.
	_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	if cmd != nil {
		if msg := cmd(); msg != nil {
			t.Errorf("ctrl+v ran a command: %T", msg)
		}
	}
	// A name from the account is cleaned as any name is.
	acc := newFakeAccount()
	acc.redeemName = hostileName
	h = newHarness(t, accountDeps(acc))
	h.open(itemRedeem)
	h.typeText("ABCD-EFGH")
	h.keys("enter")
	h.wantScreen("now plays as mallory?")
	wantClean(t, h.m.View())
}

func TestRedeemWaitsForTheAnswer(t *testing.T) {
	acc := newFakeAccount()
	h := newHarness(t, accountDeps(acc))
	var held []tea.Msg
	h.skip = func(msg tea.Msg) bool {
		if _, ok := msg.(redeemedMsg); ok {
			held = append(held, msg)
			return true
		}
		return false
	}
	h.open(itemRedeem)
	h.typeText("ABCD-EFGH")
	h.keys("enter")
	h.wantScreen("linking this key…")
	h.wantNotScreen("enter use the code", "esc back")
	// The answer decides whether the session goes on: until it comes,
	// the form neither leaves nor changes, nor sends again.
	h.keys("esc", "x", "enter")
	h.wantScreen("use a link code", "code: ABCD-EFGH")
	if len(held) != 1 || len(acc.redeemed) != 1 {
		t.Fatalf("%d answers for %d calls, want 1 and 1", len(held), len(acc.redeemed))
	}
	// The key now plays as bob even if something sent the session
	// elsewhere meanwhile: the result shows, and stays.
	h.m.cur = screenMenu
	h.skip = nil
	h.send(held[0])
	h.wantScreen("This key now plays as bob")
	h.send(backMsg{})
	h.wantScreen("This key now plays as bob")
	// ctrl+c ends the session as any key does.
	h.keys("ctrl+c")
	if !h.quit {
		t.Error("ctrl+c did not end the session")
	}
}

// TestRedeemQuitWaitsForSaves: the key press that ends the session after
// a code is accepted waits, as every quit does, for the game's last save.
func TestRedeemQuitWaitsForSaves(t *testing.T) {
	store := newBlockingGames()
	d := newAsyncDriver(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer,
		Games: store, Account: newFakeAccount()})
	d.until("the deal", func() bool { return d.m.playing })
	d.keys("d")
	d.nextSave(store) // stays in flight
	d.keys("q")
	if d.m.cur != screenMenu {
		t.Fatalf("q at the table went to screen %d", d.m.cur)
	}
	for d.m.menu().items[d.m.menu().cur].kind != itemRedeem {
		d.keys("down")
	}
	d.keys("enter")
	for _, r := range "ABCD-EFGH" {
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	d.keys("enter")
	d.until("the result", func() bool { return d.m.redeemForm() != nil && d.m.redeemForm().done == "bob" })
	d.keys("x")
	if d.quit {
		t.Fatal("the session ended with a move not stored")
	}
	if !strings.Contains(d.m.redeemForm().msg, "saving your game") {
		t.Errorf("the form says %q while the save runs", d.m.redeemForm().msg)
	}
	store.answers <- nil
	d.until("the end of the session", func() bool { return d.quit })
}

func TestRedeemHiddenFromGuests(t *testing.T) {
	h := newHarness(t, Deps{Player: Player{Name: "guest", Guest: true}, Unicode: true, Width: 120, Height: 40, Account: newFakeAccount()})
	h.wantNotScreen("Use a link code")
	for _, it := range h.m.menu().items {
		if it.kind == itemRedeem {
			t.Fatal("a guest's menu has Use a link code")
		}
	}
	// Nor can a guest open the form some other way.
	h.send(menuAccountMsg{kind: itemRedeem})
	if h.m.cur != screenMenu || h.m.redeemForm() != nil {
		t.Errorf("a guest opened the form: screen %d", h.m.cur)
	}
}

// TestRedeemFormIsDropped: a session that looked at the form and left
// keeps no text input.
func TestRedeemFormIsDropped(t *testing.T) {
	h := newHarness(t, accountDeps(newFakeAccount()))
	h.open(itemRedeem)
	h.typeText("AB")
	h.keys("esc")
	if h.m.redeemForm() != nil {
		t.Error("the form outlives its screen")
	}
	h.open(itemRedeem)
	if got := h.m.redeemForm().input.Value(); got != "" {
		t.Errorf("the form opens with %q", got)
	}
}
