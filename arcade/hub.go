package arcade

import (
	"context"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
)

// inboxSize is how many messages wait for a session before more are
// dropped: a session that does not read its inbox is never waited on.
const inboxSize = 8

// inbox is one session's queue of messages from other sessions.
type inbox struct {
	player string
	ch     chan tea.Msg
}

// Next waits for the session's next message (tui.Inbox).
func (in *inbox) Next(ctx context.Context) (tea.Msg, error) {
	select {
	case msg := <-in.ch:
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hub knows the running sessions of each player on this server, so that a
// session that takes a game over can tell the session it took it from at
// once. (Across servers sharing a database the store refuses the old
// session's next save instead, which tells it then.)
type hub struct {
	mu       sync.Mutex
	byPlayer map[string]map[*inbox]struct{}
}

func newHub() *hub { return &hub{byPlayer: map[string]map[*inbox]struct{}{}} }

// join registers a session of a player and returns its inbox.
func (h *hub) join(player string) *inbox {
	in := &inbox{player: player, ch: make(chan tea.Msg, inboxSize)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byPlayer[player] == nil {
		h.byPlayer[player] = map[*inbox]struct{}{}
	}
	h.byPlayer[player][in] = struct{}{}
	return in
}

// leave forgets a session.
func (h *hub) leave(in *inbox) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.byPlayer[in.player], in)
	if len(h.byPlayer[in.player]) == 0 {
		delete(h.byPlayer, in.player)
	}
}

// tell sends msg to every other session of from's player, dropping it for
// a session whose inbox is full rather than waiting.
func (h *hub) tell(from *inbox, msg tea.Msg) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for in := range h.byPlayer[from.player] {
		if in == from {
			continue
		}
		select {
		case in.ch <- msg:
		default:
		}
	}
}
