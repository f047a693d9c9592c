package roomtest

import (
	"pyramid/lobby"
	"strings"
	"testing"
	"time"
)

func testChat(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	b := e.join(r, "bob")
	spec := newSink()
	if _, err := r.Watch("viewer", spec); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Say", r.Say("id-bob", "hi \x1b]0;pwned\x07"), nil)
	for name, s := range map[string]*fakeSink{"alice": a, "bob": b, "spectator": spec} {
		cl, ok := hasPost[lobby.ChatLine](s)
		if !ok || cl.From != "bob" || cl.FromID != "id-bob" || cl.Text != `hi \x1b]0;pwned\x07` || !cl.At.Equal(t0) {
			t.Errorf("%s got %+v, %v", name, cl, ok)
		}
	}
	wantErr(t, "stranger", r.Say("id-zed", "hello"), lobby.ErrNotMember)
	wantErr(t, "too long", r.Say("id-bob", strings.Repeat("x", lobby.MaxChatLen+1)), lobby.ErrChatTooLong)

	// Three lines per three seconds.
	e.clock.Advance(lobby.ChatWindow)
	for i := range lobby.ChatBurst {
		wantErr(t, "burst", r.Say("id-alice", "line"), nil)
		if i < lobby.ChatBurst-1 {
			e.clock.Advance(time.Second / 2)
		}
	}
	wantErr(t, "fourth line", r.Say("id-alice", "line"), lobby.ErrChatTooFast)
	wantErr(t, "bob unaffected", r.Say("id-bob", "line"), nil)
	e.clock.Advance(lobby.ChatWindow - time.Second)
	wantErr(t, "after the window", r.Say("id-alice", "line"), nil)

	// The host mutes bob; leaving and coming back does not lift it.
	wantErr(t, "bob mutes alice", r.Mute("id-bob", "id-alice", true), lobby.ErrNotHost)
	wantErr(t, "alice mutes herself", r.Mute("id-alice", "id-alice", true), lobby.ErrNotMember)
	wantErr(t, "Mute", r.Mute("id-alice", "id-bob", true), nil)
	if s, _ := a.room(r.Code()); !s.Members[1].Muted {
		t.Error("bob not shown muted")
	}
	e.clock.Advance(lobby.ChatWindow)
	wantErr(t, "muted", r.Say("id-bob", "let me speak"), lobby.ErrMuted)
	wantErr(t, "Leave", r.Leave("id-bob", held(r, "id-bob")), nil)
	if _, err := e.one().Join(r, pl("bob"), b); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "muted after rejoining", r.Say("id-bob", "let me speak"), lobby.ErrMuted)
	wantErr(t, "Unmute", r.Mute("id-alice", "id-bob", false), nil)
	wantErr(t, "unmuted", r.Say("id-bob", "thanks"), nil)

	// The room keeps the last ChatHistory lines.
	for range 3 * lobby.ChatHistory {
		e.clock.Advance(lobby.ChatWindow)
		wantErr(t, "Say", r.Say("id-alice", "again"), nil)
	}
	s := r.Snapshot()
	if len(s.Chat) != lobby.ChatHistory || s.Chat[len(s.Chat)-1].Text != "again" {
		t.Errorf("%d lines kept", len(s.Chat))
	}
	r.Close("bye")
	eventually(t, "the room closed", func() bool { return r.Snapshot().Phase == lobby.PhaseClosed })
	wantErr(t, "closed", r.Say("id-alice", "anyone?"), lobby.ErrRoomClosed)
}

func testNamesCleaned(t *testing.T, e *roomsEnv) {
	r, _ := e.create("alice", classic())
	s := newSink()
	if _, err := e.one().Join(r, lobby.Entrant{ID: "id-evil", Name: "ev\x1b[2Jil\u202e"}, s); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Snapshot().Member("id-evil")
	if strings.ContainsAny(m.Name, "\x1b\u202e") {
		t.Errorf("raw name %q", m.Name)
	}
	wantErr(t, "Say", r.Say("id-evil", "hi"), nil)
	if cl, _ := hasPost[lobby.ChatLine](s); cl.From != m.Name {
		t.Errorf("chat from %q, want %q", cl.From, m.Name)
	}
}
