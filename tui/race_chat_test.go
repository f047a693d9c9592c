package tui

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/lobby"
)

// The race room's chat (race_chat.go): wrapped lines, scroll-back, the
// count and the limit of the line typed, errors that go, the commands
// answered on the spot, and spectators who chat.

// longChat is a line of the room's limit: words, then one word longer
// than any row.
func longChat() string {
	s := strings.Repeat("gl hf ", 20) + strings.Repeat("x", 80)
	return s[:lobby.MaxChatLen]
}

// TestChatWrapsALongLine: a line of 200 characters showed as one row cut
// at the window's width, the rest unread; it wraps, whole words and the
// long word cut, every row within the width.
func TestChatWrapsALongLine(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	text := longChat()
	h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: text}})
	s := screenOf(h)
	golden(t, "race_chat_wrap_80x24", s)
	var shown strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if cells(l) > 80 {
			t.Errorf("row %d is %d cells wide: %q", i+1, cells(l), l)
		}
		if _, rest, ok := strings.Cut(l, "<racer1> "); ok {
			shown.WriteString(rest)
		} else if shown.Len() > 0 && strings.HasPrefix(l, "   ") && !strings.Contains(l, "·") {
			shown.WriteString(" " + strings.TrimSpace(l))
		}
	}
	if got := strings.ReplaceAll(shown.String(), " ", ""); got != strings.ReplaceAll(text, " ", "") {
		t.Errorf("the line as shown:\n%q\nwant all of\n%q", shown.String(), text)
	}
	if strings.Contains(s, "…") {
		t.Errorf("a chat row is cut:\n%s", s)
	}
}

// TestChatCountsAsYouType: the line being typed shows how many
// characters it has of the room's limit, and takes none past it; the
// limit's error goes with the next key, and enter says the line.
func TestChatCountsAsYouType(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	h.keys("t")
	h.wantScreen("0/" + strconv.Itoa(lobby.MaxChatLen))
	h.typeText("good luck")
	h.wantScreen("say: good luck", "9/200")
	h.typeText(strings.Repeat("x", lobby.MaxChatLen))
	rs := h.m.race()
	if n := rs.input.Len(); n != lobby.MaxChatLen || !rs.inputOpen {
		t.Fatalf("the line took %d characters (open %v), want %d", n, rs.inputOpen, lobby.MaxChatLen)
	}
	h.wantScreen("200/200", "at most 200 characters")
	h.keys("left")
	h.wantNotScreen("at most 200 characters")
	h.keys("enter")
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.said) != 1 || len([]rune(f.said[0])) != lobby.MaxChatLen {
		t.Errorf("said %q, want one line of %d characters", f.said, lobby.MaxChatLen)
	}
}

// TestChatErrorGoes: a line the room refused left its error on the
// message line for good; the next line of the chat, or the next key,
// takes it off.
func TestChatErrorGoes(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	f.sayErr = lobby.ErrChatTooFast
	say := func(text string) {
		h.keys("t")
		h.typeText(text)
		h.keys("enter")
	}
	say("one more")
	h.wantScreen("chat: " + lobby.ErrChatTooFast.Error())
	h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: "slow down"}})
	h.wantNotScreen(lobby.ErrChatTooFast.Error())
	h.wantScreen("slow down")

	f.sayErr = lobby.ErrMuted
	say("let me")
	h.wantScreen(lobby.ErrMuted.Error())
	h.keys("r") // the ready mark: a key of the room's, not the chat's
	h.wantNotScreen(lobby.ErrMuted.Error())
}

// TestChatScrollsBack: the chat kept only the last lines that fit, with
// no way back; the lines above are marked, pgup and pgdn page through
// them, with the chat line open or not, and a line that comes while the
// player reads back does not move what they read.
func TestChatScrollsBack(t *testing.T) {
	h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	for i := range 12 {
		h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: "line " + strconv.Itoa(i)}})
	}
	h.wantScreen("line 11", "↑ ", "more · pgup")
	h.wantNotScreen("line 0\n", "pgdn")
	pgUp, pgDown := tea.KeyMsg{Type: tea.KeyPgUp}, tea.KeyMsg{Type: tea.KeyPgDown}
	for range 10 {
		h.send(pgUp)
	}
	h.wantScreen("line 0", "more · pgdn")
	h.wantNotScreen("line 11", "pgup")
	if len(f.plays) != 0 {
		t.Errorf("pgup played %d moves", len(f.plays))
	}
	h.send(pgDown)
	before := screenOf(h)
	h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "p2", From: "racer2", Text: "line 12"}})
	if got := chatRows(screenOf(h)); got[1] != chatRows(before)[1] {
		t.Errorf("a new line moved the rows read back: %q, were %q", got, chatRows(before))
	}
	for range 10 {
		h.send(pgDown)
	}
	h.wantScreen("line 12")
	h.wantNotScreen("pgdn")

	// With the chat line open. A page is the rows the last frame gave
	// the chat: drawn, as the session's renderer draws after a key.
	h.keys("t")
	_ = h.screen()
	h.send(pgUp)
	h.wantScreen("more · pgdn", "say: ")
	h.send(pgDown)
	h.wantScreen("line 12", "say: ")
	h.wantNotScreen("pgdn")
	if rs := h.m.race(); rs.input.Value() != "" {
		t.Errorf("pgup and pgdn typed %q", rs.input.Value())
	}
}

// chatRows is the rows of s under the race's panel, but the help bar.
func chatRows(s string) []string {
	ls := strings.Split(s, "\n")
	var out []string
	for i := len(ls) - 2; i >= 0 && !strings.Contains(ls[i], "playing"); i-- {
		out = append([]string{ls[i]}, out...)
	}
	return out
}

// TestChatHelp: /help was said in the room as a line; it is answered on
// the spot with the chat's commands, said to nobody, and a command the
// chat has not is refused, not said.
func TestChatHelp(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	h.keys("t")
	h.typeText("/help")
	h.keys("enter")
	for _, c := range chatCommands() {
		h.wantScreen(strings.TrimSpace(c.name+" "+c.args) + ": " + c.help)
	}
	if rs := h.m.race(); !rs.inputOpen || rs.input.Value() != "" {
		t.Errorf("after /help: chat line open %v with %q, want open and empty", rs.inputOpen, rs.input.Value())
	}
	h.typeText("/shrug oh well")
	h.keys("enter")
	h.wantScreen("no chat command /shrug")
	if rs := h.m.race(); !rs.inputOpen || rs.input.Value() != "/shrug oh well" {
		t.Errorf("an unknown command: chat line open %v with %q, want it kept", h.m.race().inputOpen, h.m.race().input.Value())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.said) != 0 {
		t.Errorf("said %q in the room, want nothing", f.said)
	}
}

// TestChatSpectator: a spectator opens the chat and says a line; a
// spectator's line is marked so; the host mutes a spectator by the name
// their line showed.
func TestChatSpectator(t *testing.T) {
	f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(3, lobby.PhaseRacing)}}
	hs := newHarness(t, Deps{Races: f, Args: []string{"race", "watch", "KMTX"}, Width: 80, Height: 24, Unicode: true})
	hs.wantScreen("t chat")
	hs.keys("t")
	hs.typeText("go racer1!")
	hs.keys("enter")
	f.mu.Lock()
	said := f.said
	f.mu.Unlock()
	if len(said) != 1 || said[0] != "go racer1!" {
		t.Fatalf("the spectator said %q", said)
	}

	h, fh := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	h.send(RaceEventMsg{Event: lobby.ChatLine{Code: "KMTX", FromID: "id-zed", From: "zed", Text: "boo", Watching: true}})
	h.wantScreen("<zed (watching)> boo")
	h.keys("t")
	h.typeText("/mute zed")
	h.keys("enter")
	h.wantScreen("zed is muted in this room")
	fh.mu.Lock()
	defer fh.mu.Unlock()
	if len(fh.mutes) != 1 || fh.mutes[0] != "+id-zed" {
		t.Errorf("mutes %q, want +id-zed", fh.mutes)
	}
}

// TestChatMuteUnknown: /mute of nobody in the room says so and keeps the
// line to mend; a refused mute's error goes with the next key.
func TestChatMuteUnknown(t *testing.T) {
	h, f := raceHarness(t, raceRoom(2, lobby.PhaseWaiting), 80, 24)
	h.keys("t")
	h.typeText("/mute nobody")
	h.keys("enter")
	h.wantScreen("nobody called nobody in this room")
	if !h.m.race().inputOpen {
		t.Error("the chat line closed")
	}
	if len(f.mutes) != 0 {
		t.Errorf("mutes %q, want none", f.mutes)
	}
	h.keys("esc")
	h.wantNotScreen("nobody called")
	h.send(raceDoneMsg{what: "mute", chat: true, err: errors.New("only the host mutes")})
	h.wantScreen("mute: only the host mutes")
	h.keys("t")
	h.wantNotScreen("only the host mutes")
}

// TestMergeChat: the room's lines after missed events replaced the whole
// chat, scroll-back and all; the lines before the room's first stay.
func TestMergeChat(t *testing.T) {
	line := func(s string) lobby.ChatLine {
		return lobby.ChatLine{Code: "KMTX", FromID: "p1", From: "racer1", Text: s}
	}
	mine := []lobby.ChatLine{line("a"), line("b"), line("c")}
	tests := []struct {
		name   string
		theirs []lobby.ChatLine
		want   string
	}{
		{"the room's go on from mine", []lobby.ChatLine{line("b"), line("c"), line("d")}, "abcd"},
		{"nothing in common", []lobby.ChatLine{line("x"), line("y")}, "xy"},
		{"the room has none", nil, "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			for _, c := range mergeChat(mine, tt.theirs) {
				got.WriteString(c.Text)
			}
			if got.String() != tt.want {
				t.Errorf("got %q, want %q", got.String(), tt.want)
			}
		})
	}
}
