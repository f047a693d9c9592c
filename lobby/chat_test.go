package lobby

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCleanChat(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"plain", "  good luck!  ", "good luck!", nil},
		{"escape", "hi \x1b[31mred", `hi \x1b[31mred`, nil},
		{"bidi", "abc\u202edef", `abc\u202edef`, nil},
		{"newline", "a\nb", `a\x0ab`, nil},
		{"C1", "a\u009bb", `a\u009bb`, nil},
		{"empty", "   ", "", ErrChatEmpty},
		{"200 runes", strings.Repeat("é", MaxChatLen), strings.Repeat("é", MaxChatLen), nil},
		{"201 runes", strings.Repeat("a", MaxChatLen+1), "", ErrChatTooLong},
		{"200 escapes", strings.Repeat("\x07", MaxChatLen), strings.Repeat(`\x07`, MaxChatLen), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanChat(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("CleanChat(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}

func testChat(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	b := e.join(r, "bob")
	spec := newSink()
	if _, err := r.Watch("viewer", spec); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Say", r.Say("id-bob", "hi \x1b]0;pwned\x07"), nil)
	for name, s := range map[string]*fakeSink{"alice": a, "bob": b, "spectator": spec} {
		cl, ok := hasPost[ChatLine](s)
		if !ok || cl.From != "bob" || cl.FromID != "id-bob" || cl.Text != `hi \x1b]0;pwned\x07` || !cl.At.Equal(t0) {
			t.Errorf("%s got %+v, %v", name, cl, ok)
		}
	}
	wantErr(t, "stranger", r.Say("id-zed", "hello"), ErrNotMember)
	wantErr(t, "too long", r.Say("id-bob", strings.Repeat("x", MaxChatLen+1)), ErrChatTooLong)

	// Three lines per three seconds.
	e.clock.Advance(ChatWindow)
	for i := range ChatBurst {
		wantErr(t, "burst", r.Say("id-alice", "line"), nil)
		if i < ChatBurst-1 {
			e.clock.Advance(time.Second / 2)
		}
	}
	wantErr(t, "fourth line", r.Say("id-alice", "line"), ErrChatTooFast)
	wantErr(t, "bob unaffected", r.Say("id-bob", "line"), nil)
	e.clock.Advance(ChatWindow - time.Second)
	wantErr(t, "after the window", r.Say("id-alice", "line"), nil)

	// The host mutes bob; leaving and coming back does not lift it.
	wantErr(t, "bob mutes alice", r.Mute("id-bob", "id-alice", true), ErrNotHost)
	wantErr(t, "alice mutes herself", r.Mute("id-alice", "id-alice", true), ErrNotMember)
	wantErr(t, "Mute", r.Mute("id-alice", "id-bob", true), nil)
	if s, _ := a.room(r.Code()); !s.Members[1].Muted {
		t.Error("bob not shown muted")
	}
	e.clock.Advance(ChatWindow)
	wantErr(t, "muted", r.Say("id-bob", "let me speak"), ErrMuted)
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	if _, err := e.one().Join(r, pl("bob"), b); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "muted after rejoining", r.Say("id-bob", "let me speak"), ErrMuted)
	wantErr(t, "Unmute", r.Mute("id-alice", "id-bob", false), nil)
	wantErr(t, "unmuted", r.Say("id-bob", "thanks"), nil)

	// The room keeps the last ChatHistory lines.
	for range 3 * ChatHistory {
		e.clock.Advance(ChatWindow)
		wantErr(t, "Say", r.Say("id-alice", "again"), nil)
	}
	s := r.Snapshot()
	if len(s.Chat) != ChatHistory || s.Chat[len(s.Chat)-1].Text != "again" {
		t.Errorf("%d lines kept", len(s.Chat))
	}
	r.Close("bye")
	eventually(t, "the room closed", func() bool { return r.Snapshot().Phase == PhaseClosed })
	wantErr(t, "closed", r.Say("id-alice", "anyone?"), ErrRoomClosed)
}

func testNamesCleaned(t *testing.T, e *roomsEnv) {
	r, _ := e.create("alice", classic())
	s := newSink()
	if _, err := e.one().Join(r, Entrant{ID: "id-evil", Name: "ev\x1b[2Jil\u202e"}, s); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Snapshot().Member("id-evil")
	if strings.ContainsAny(m.Name, "\x1b\u202e") {
		t.Errorf("raw name %q", m.Name)
	}
	wantErr(t, "Say", r.Say("id-evil", "hi"), nil)
	if cl, _ := hasPost[ChatLine](s); cl.From != m.Name {
		t.Errorf("chat from %q, want %q", cl.From, m.Name)
	}
}
