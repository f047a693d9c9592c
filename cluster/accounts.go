package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"pyramid/bus"
)

// AccountsTopic is the bus topic of what happens to accounts: the
// players banned or kicked, the keys unlinked, the names changed. Every
// server acts on its own sessions.
const AccountsTopic = "lobby.accounts"

// What an AccountEvent asks of the sessions it names.
const (
	// AccountEnd ends the sessions it names, telling them Text.
	AccountEnd = "end"
	// AccountRename gives the player's sessions the name Name.
	AccountRename = "rename"
	// AccountNotice tells the player's sessions Text.
	AccountNotice = "notice"
)

// AccountEvent is one thing that happened to an account, as every server
// hears it.
type AccountEvent struct {
	// Kind is AccountEnd, AccountRename or AccountNotice.
	Kind string `json:"k"`
	// Player is the player's ID.
	Player string `json:"p"`
	// Key, when set, narrows the event to the sessions of that key (a
	// key unlinked); with Except, to the sessions of every other key (the
	// account's other sessions told of it).
	Key    string `json:"f,omitempty"`
	Except bool   `json:"x,omitempty"`
	// Name is the new name of an AccountRename.
	Name string `json:"n,omitempty"`
	// Text is what the sessions are told.
	Text string `json:"t,omitempty"`
	// Instance and Session name the session the change was made in,
	// which shows it on its own screen and is not told again; empty for
	// a command.
	Instance string `json:"i,omitempty"`
	Session  uint64 `json:"s,omitempty"`
}

// Accounts carries account events between the servers on a bus, this
// one included: a server alone gives it an in-process bus, and acts on
// what it publishes as the others do, by the same path.
type Accounts struct {
	b    bus.Bus
	sub  bus.Subscription
	read chan struct{} // closed when the reader ends
}

// JoinAccounts subscribes to the account events on b from now on. hear
// is called, from one goroutine, with each event in order; resync when
// events were missed (the bus dropped some for this server), so that the
// server checks its sessions against the store instead. Close ends it.
func JoinAccounts(ctx context.Context, b bus.Bus, hear func(AccountEvent), resync func()) (*Accounts, error) {
	sub, err := b.Subscribe(ctx, AccountsTopic, bus.Latest)
	if err != nil {
		return nil, fmt.Errorf("cluster: accounts: %w", err)
	}
	a := &Accounts{b: b, sub: sub, read: make(chan struct{})}
	go a.readEvents(hear, resync)
	return a, nil
}

// Publish tells every server (this one too) of ev.
func (a *Accounts) Publish(ctx context.Context, ev AccountEvent) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("cluster: encode an account event: %w", err)
	}
	if _, err := a.b.Publish(ctx, AccountsTopic, bus.Message{ID: bus.NewID(), Kind: ev.Kind, Body: body}); err != nil {
		return fmt.Errorf("cluster: publish an account event (%s): %w", ev.Kind, err)
	}
	return nil
}

// Close ends the subscription and waits for the reader.
func (a *Accounts) Close() {
	a.sub.Close()
	<-a.read
}

// readEvents hands each event to hear until the subscription ends.
func (a *Accounts) readEvents(hear func(AccountEvent), resync func()) {
	defer close(a.read)
	for {
		ev, err := a.sub.Next(context.Background())
		if errors.Is(err, bus.ErrGap) {
			resync()
			continue
		}
		if err != nil {
			return
		}
		var m AccountEvent
		if json.Unmarshal(ev.Body, &m) != nil || m.Player == "" {
			continue
		}
		hear(m)
	}
}
