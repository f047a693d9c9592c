package arcade

import (
	"context"
	"errors"
	"testing"
	"time"

	"pyramid/lobby"
	"pyramid/tui"
)

// TestInboxTranslates: the tui reads the lobby's events as its messages,
// skipping those it has none for, and stops when the queue closes.
func TestInboxTranslates(t *testing.T) {
	l := lobby.New(lobby.Config{})
	defer l.Close()
	s := l.Join(lobby.Player{ID: "SHA256:a", Name: "ann"})
	in := inbox{q: s.Queue()}
	s.Queue().Post(lobby.PresenceChanged{Online: 1}) // nothing the tui shows yet
	s.Queue().Post(lobby.TakenOver{GameID: "7"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if msg, err := in.Next(ctx); msg != (tui.GameTakenMsg{ID: "7"}) || err != nil {
		t.Fatalf("Next: got %v, %v; want GameTakenMsg 7", msg, err)
	}
	l.Leave(s)
	if _, err := in.Next(ctx); !errors.Is(err, lobby.ErrClosed) {
		t.Fatalf("Next after the session left: %v, want lobby.ErrClosed", err)
	}
}
