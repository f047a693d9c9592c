package cluster_test

import (
	"context"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/cluster"
)

// TestAccountsReachEveryServer: an account event published by one server
// is heard by every server on the bus, the publisher included, in order.
func TestAccountsReachEveryServer(t *testing.T) {
	b := bus.NewMemory(bus.MemoryOptions{Lossless: true})
	defer b.Close()
	ctx := context.Background()
	heard := [2]chan cluster.AccountEvent{make(chan cluster.AccountEvent, 4), make(chan cluster.AccountEvent, 4)}
	var servers [2]*cluster.Accounts
	for i := range servers {
		a, err := cluster.JoinAccounts(ctx, b, func(ev cluster.AccountEvent) { heard[i] <- ev }, func() {})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		servers[i] = a
	}
	sent := []cluster.AccountEvent{
		{Kind: cluster.AccountEnd, Player: "SHA256:c", Text: "you are banned from this server"},
		{Kind: cluster.AccountRename, Player: "SHA256:c", Name: "kitty"},
		{Kind: cluster.AccountNotice, Player: "SHA256:a", Key: "SHA256:l", Except: true, Text: "unlinked"},
	}
	for _, ev := range sent {
		if err := servers[0].Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	for i := range heard {
		for _, want := range sent {
			select {
			case got := <-heard[i]:
				if got != want {
					t.Errorf("server %d heard %+v, want %+v", i, got, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("server %d did not hear %+v", i, want)
			}
		}
	}
}
