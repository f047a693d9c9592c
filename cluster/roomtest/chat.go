package roomtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pyramid/lobby"
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

// saidBy reports whether s was posted a chat line of the spectator
// named name with text, marked a spectator's.
func saidBy(s *fakeSink, id, name, text string) bool {
	return s.has(func(ev lobby.Event) bool {
		cl, ok := ev.(lobby.ChatLine)
		return ok && cl.FromID == id && cl.From == name && cl.Text == text && cl.Watching
	})
}

// testSpectatorChat: a spectator's line reaches the racers and the other
// spectators, marked a spectator's, under the racers' limits (length,
// ChatBurst per ChatWindow) and the host's mute, which holds after they
// stop watching until the host lifts it.
func testSpectatorChat(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	b := e.join(r, "bob")
	zed, viewer := newSink(), newSink()
	for id, s := range map[string]*fakeSink{"id-zed": zed, "id-viewer": viewer} {
		if _, err := r.Watch(id, s); err != nil {
			t.Fatal(err)
		}
	}
	wantErr(t, "zed says", r.SayWatching(pl("zed"), "go alice \x1b[2J"), nil)
	for name, s := range map[string]*fakeSink{"alice": a, "bob": b, "zed": zed, "viewer": viewer} {
		if !saidBy(s, "id-zed", "zed", `go alice \x1b[2J`) {
			t.Errorf("%s did not get zed's line: %v", name, s.events())
		}
	}
	if c := r.Snapshot().Chat; len(c) != 1 || !c[0].Watching || c[0].From != "zed" {
		t.Errorf("the room keeps %+v, want zed's line as a spectator's", c)
	}
	wantErr(t, "a stranger says", r.SayWatching(pl("nobody"), "hi"), lobby.ErrNotMember)
	wantErr(t, "a racer says as a spectator", r.SayWatching(pl("bob"), "hi"), lobby.ErrNotMember)
	wantErr(t, "a spectator says as a racer", r.Say("id-zed", "hi"), lobby.ErrNotMember)
	wantErr(t, "too long", r.SayWatching(pl("zed"), strings.Repeat("x", lobby.MaxChatLen+1)), lobby.ErrChatTooLong)
	wantErr(t, "empty", r.SayWatching(pl("zed"), "  "), lobby.ErrChatEmpty)

	e.clock.Advance(lobby.ChatWindow)
	for range lobby.ChatBurst {
		wantErr(t, "burst", r.SayWatching(pl("zed"), "line"), nil)
	}
	wantErr(t, "one line too many", r.SayWatching(pl("zed"), "line"), lobby.ErrChatTooFast)
	wantErr(t, "the other spectator unaffected", r.SayWatching(pl("viewer"), "line"), nil)

	wantErr(t, "bob mutes zed (not the host)", r.Mute("id-bob", "id-zed", true), lobby.ErrNotHost)
	wantErr(t, "alice mutes zed", r.Mute("id-alice", "id-zed", true), nil)
	e.clock.Advance(lobby.ChatWindow)
	wantErr(t, "zed muted", r.SayWatching(pl("zed"), "let me"), lobby.ErrMuted)
	wantErr(t, "alice mutes nobody", r.Mute("id-alice", "id-nobody", true), lobby.ErrNotMember)
	wantErr(t, "zed stops watching", r.Unwatch("id-zed", zed), nil)
	if _, err := r.Watch("id-zed", zed); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "zed muted after watching again", r.SayWatching(pl("zed"), "let me"), lobby.ErrMuted)
	wantErr(t, "zed stops watching again", r.Unwatch("id-zed", zed), nil)
	wantErr(t, "alice unmutes zed, gone", r.Mute("id-alice", "id-zed", false), nil)
	if _, err := r.Watch("id-zed", zed); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "zed unmuted", r.SayWatching(pl("zed"), "thanks"), nil)
}

// testSpectatorChatAcrossServers: a spectator's line said on one server
// reaches the racers and spectators of the others, marked a
// spectator's; the host's mute on one server holds on the spectator's.
func testSpectatorChatAcrossServers(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	ann := newSink()
	ha, _, err := a.Create(pl("ann"), ann, classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(ha.Code()); return ok })
	hb, _ := b.Room(ha.Code())
	bob, carol, dan := newSink(), newSink(), newSink()
	_, err = b.Join(hb, pl("bob"), bob)
	wantErr(t, "bob joins on b", err, nil)
	_, err = hb.Watch("id-carol", carol)
	wantErr(t, "carol watches on b", err, nil)
	_, err = ha.Watch("id-dan", dan)
	wantErr(t, "dan watches on a", err, nil)
	eventually(t, "b counts both spectators", func() bool { return hb.Snapshot().Spectators == 2 })

	wantErr(t, "carol says on a (not hers)", ha.SayWatching(pl("carol"), "hi"), lobby.ErrNotMember)
	wantErr(t, "carol says on b", hb.SayWatching(pl("carol"), "go bob"), nil)
	for name, s := range map[string]*fakeSink{"ann": ann, "bob": bob, "carol": carol, "dan": dan} {
		eventually(t, name+" hears carol", func() bool { return saidBy(s, "id-carol", "carol", "go bob") })
	}
	wantErr(t, "dan says on a", ha.SayWatching(pl("dan"), "go ann"), nil)
	eventually(t, "bob hears dan", func() bool { return saidBy(bob, "id-dan", "dan", "go ann") })

	wantErr(t, "ann mutes carol on a", ha.Mute("id-ann", "id-carol", true), nil)
	e.clock.Advance(lobby.ChatWindow)
	eventually(t, "b refuses carol", func() bool { return errors.Is(hb.SayWatching(pl("carol"), "hey"), lobby.ErrMuted) })
}
