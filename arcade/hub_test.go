package arcade

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"pyramid/lobby"
	"pyramid/tui"
)

// TestInboxTranslates: the tui reads the lobby's events as its messages,
// skipping those it has none for, those waiting together in one batch,
// and stops when the queue closes.
func TestInboxTranslates(t *testing.T) {
	l := lobby.New(lobby.Config{})
	defer l.Close()
	s := l.Join(lobby.Player{ID: "SHA256:a", Name: "ann"})
	in := inbox{q: s.Queue()}
	s.Queue().Post(struct{ unknown int }{1}) // nothing the tui shows
	s.Queue().Post(lobby.PresenceChanged{Online: 1})
	s.Queue().Post(lobby.TakenOver{GameID: "7"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	want := tui.InboxBatch{lobby.PresenceChanged{Online: 1}, tui.GameTakenMsg{ID: "7"}}
	if msg, err := in.Next(ctx); !reflect.DeepEqual(msg, want) || err != nil {
		t.Fatalf("Next: got %v, %v; want %v: the lobby's PresenceChanged as it is, then GameTakenMsg 7", msg, err, want)
	}
	s.Queue().Post(struct{ unknown int }{2})
	s.Queue().Post(lobby.TakenOver{GameID: "8"})
	if msg, err := in.Next(ctx); msg != (tui.GameTakenMsg{ID: "8"}) || err != nil {
		t.Fatalf("Next: got %v, %v; want GameTakenMsg 8 alone", msg, err)
	}
	l.Leave(s)
	if _, err := in.Next(ctx); !errors.Is(err, lobby.ErrClosed) {
		t.Fatalf("Next after the session left: %v, want lobby.ErrClosed", err)
	}
}

// TestWho: who lists the lobby's snapshot, as text and JSON, with deal
// numbers as strings and names cleaned; it takes --json and nothing else.
func TestWho(t *testing.T) {
	f := newFixture(t)
	l := f.app.lobby
	ann := l.Join(lobby.Player{ID: "SHA256:a", Name: "ann"})
	l.SetDoing(ann, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 1 << 60, Removed: 5})
	bob := l.Join(lobby.Player{ID: "SHA256:b", Name: "bob\x1b[2J"})
	l.SetDoing(bob, lobby.Doing{What: lobby.Watching, Watched: "ann"})
	cat := l.Join(lobby.Player{ID: "SHA256:c", Name: "cat"})
	l.SetDoing(cat, lobby.Doing{What: lobby.Racing, Rules: "double", Deal: 9, Room: "ABCD", Removed: 0})
	l.Join(lobby.Player{Name: "guest", Guest: true})
	dan := l.Join(lobby.Player{ID: "SHA256:d", Name: "dan"})
	l.SetDoing(dan, lobby.Doing{What: lobby.Playing, Rules: "daily", Deal: 7, Removed: 28, Finished: true})
	code, out, errOut := f.run(session(nil, "guest", "who", "--json"))
	if code != 0 || errOut != "" {
		t.Fatalf("who --json: exit %d, %q", code, errOut)
	}
	want := `[
  {
    "name": "ann",
    "doing": "playing",
    "rules": "classic",
    "deal": "1152921504606846976",
    "removed": 5
  },
  {
    "name": "bob\\x1b[2J",
    "doing": "watching",
    "watching": "ann"
  },
  {
    "name": "cat",
    "doing": "racing",
    "phase": "racing",
    "rules": "double",
    "deal": "9",
    "room": "ABCD",
    "removed": 0
  },
  {
    "name": "dan",
    "doing": "playing",
    "rules": "daily",
    "deal": "7",
    "removed": 28,
    "finished": true
  },
  {
    "name": "guest",
    "guest": true,
    "doing": "menu"
  }
]
`
	if out != want {
		t.Fatalf("who --json:\n%s\nwant:\n%s", out, want)
	}
	code, out, _ = f.run(session(nil, "guest", "who"))
	for _, line := range []string{"5 online", "ann", "finished Daily · deal 7 · 28/28 removed", "playing Classic · deal 1152921504606846976 · 5/28 removed",
		"watching ann", "racing in room ABCD · Double · deal 9 · 0/45 removed", "guest (guest)", "in the menu"} {
		if code != 0 || !strings.Contains(out, line) {
			t.Fatalf("who: exit %d, want %q in:\n%s", code, line, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Fatalf("who prints a raw escape:\n%q", out)
	}
	if code, _, errOut := f.run(session(nil, "guest", "who", "everyone")); code != 2 || !strings.Contains(errOut, "usage: who [--json]") {
		t.Fatalf("who everyone: exit %d, %q", code, errOut)
	}
}
