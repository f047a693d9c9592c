package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"pyramid/bus"
	"pyramid/lobby"
)

// TakeoverTopic is the bus topic of takeovers between servers.
const TakeoverTopic = "lobby.takeover"

// Backoff of a takeover published again.
const (
	takeoverRetryFirst   = 250 * time.Millisecond
	takeoverRetryMax     = 5 * time.Second
	takeoverRetryTimeout = 5 * time.Second
)

// takeoverMsg is the body of a takeover event on the bus.
type takeoverMsg struct {
	Instance string `json:"i"` // the server whose session took the game
	Player   string `json:"p"`
	Game     string `json:"g"`
	Reason   string `json:"r,omitempty"`
}

// Takeovers carries a lobby's takeovers across the servers of a cluster:
// a takeover on one server reaches the player's sessions on every other.
// It is the lobby's lobby.TakeoverNet.
type Takeovers struct {
	b        bus.Bus
	instance string
	sub      bus.Subscription
	read     chan struct{} // closed when the reader ends

	// Takeovers published again end at Close.
	retryCtx    context.Context
	retryCancel context.CancelFunc
	mu          sync.Mutex // guards closed and the retries' Add
	closed      bool
	retries     sync.WaitGroup
}

var _ lobby.TakeoverNet = (*Takeovers)(nil)

// JoinTakeovers connects l to the other servers on b for takeovers.
// instance names this server on the bus (unique per running server). A
// lobby has one; Close ends it.
func JoinTakeovers(ctx context.Context, l *lobby.Lobby, b bus.Bus, instance string) (*Takeovers, error) {
	sub, err := b.Subscribe(ctx, TakeoverTopic, bus.Latest)
	if err != nil {
		return nil, fmt.Errorf("cluster: takeovers: %w", err)
	}
	t := &Takeovers{b: b, instance: instance, sub: sub, read: make(chan struct{})}
	t.retryCtx, t.retryCancel = context.WithCancel(context.Background())
	if err := l.AttachTakeovers(t); err != nil {
		t.retryCancel()
		sub.Close()
		return nil, fmt.Errorf("cluster: takeovers: %w", err)
	}
	go t.readTakeovers(l)
	return t, nil
}

// Close ends the takeovers across servers, those published again
// included, and waits for them. Closing twice is harmless.
func (t *Takeovers) Close() {
	t.mu.Lock()
	already := t.closed
	t.closed = true
	t.mu.Unlock()
	if !already {
		t.retryCancel()
		t.retries.Wait()
		t.sub.Close()
	}
	<-t.read
}

// TellTakeover publishes a takeover made here (lobby.TakeoverNet). One
// the bus refused (PostgreSQL down) is published again, with backoff,
// while current holds, so that the other servers hear of it once the
// bus is back.
func (t *Takeovers) TellTakeover(ctx context.Context, tk lobby.Takeover, current func() bool) error {
	body, err := json.Marshal(takeoverMsg{Instance: t.instance, Player: tk.Player, Game: tk.GameID, Reason: tk.Reason})
	if err != nil {
		return fmt.Errorf("cluster: encode a takeover: %w", err)
	}
	// An ID of its own: a retry that the bus took already the first
	// time publishes nothing twice.
	m := bus.Message{ID: bus.NewID(), Kind: "taken", Body: body}
	if _, err = t.b.Publish(ctx, TakeoverTopic, m); err != nil {
		t.retry(m, current)
		return fmt.Errorf("cluster: tell the other servers (trying again): %w", err)
	}
	return nil
}

// retry publishes m again, with backoff, until the bus takes it, current
// no longer holds, or Close.
func (t *Takeovers) retry(m bus.Message, current func() bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	stop := t.retryCtx
	t.retries.Add(1)
	go func() {
		defer t.retries.Done()
		wait := takeoverRetryFirst
		timer := time.NewTimer(wait)
		defer timer.Stop()
		for {
			select {
			case <-timer.C:
			case <-stop.Done():
				return
			}
			if !current() {
				return
			}
			ctx, cancel := context.WithTimeout(stop, takeoverRetryTimeout)
			_, err := t.b.Publish(ctx, TakeoverTopic, m)
			cancel()
			if err == nil || errors.Is(err, bus.ErrClosed) || stop.Err() != nil {
				return
			}
			wait = min(2*wait, takeoverRetryMax)
			timer.Reset(wait)
		}
	}()
}

// readTakeovers tells l of the takeovers made on other servers, until
// the subscription ends. A gap only means takeovers were missed: each
// session still learns of one at its next save.
func (t *Takeovers) readTakeovers(l *lobby.Lobby) {
	defer close(t.read)
	for {
		ev, err := t.sub.Next(context.Background())
		if errors.Is(err, bus.ErrGap) {
			continue
		}
		if err != nil {
			return
		}
		var m takeoverMsg
		if json.Unmarshal(ev.Body, &m) != nil || m.Instance == t.instance || m.Player == "" {
			continue
		}
		l.HearTakeover(lobby.Takeover{Player: m.Player, GameID: m.Game, Reason: m.Reason})
	}
}
