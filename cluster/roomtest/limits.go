package roomtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/lobby"
)

// testWrongCodesLogNothing: a wrong room code, on any server, is no op
// of the rooms' log: guessing codes writes nothing to the bus (on a
// cluster, the database).
func testWrongCodesLogNothing(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("bob"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	sub, err := e.bus().Subscribe(context.Background(), cluster.RoomsTopic, bus.Latest)
	wantErr(t, "Subscribe", err, nil)
	defer sub.Close()
	for i := range 50 {
		rs := []*cluster.Rooms{a, b}[i%2]
		if _, err := rs.Find("XXXXXX"); !errors.Is(err, lobby.ErrNoRoom) {
			t.Fatalf("wrong code %d: got %v, want ErrNoRoom", i+1, err)
		}
	}
	// An op after them, to wait for: it is the first on the topic.
	wantErr(t, "bob marks ready", h.SetReady("id-bob", true), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := sub.Next(ctx)
	wantErr(t, "Next", err, nil)
	if ev.Kind != string(lobby.OpReady) {
		t.Errorf("first op after 50 wrong codes: %q, want the ready mark", ev.Kind)
	}
}

// testChatLimitAcrossServers: the chat limit is the fold's: a
// player who says ChatBurst lines on one server and takes the seat over
// on another within ChatWindow is refused there too; every server sees
// the lines said and no others.
func testChatLimitAcrossServers(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	ha, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(ha.Code()); return ok })
	hb, _ := b.Room(ha.Code())
	_, err = b.Join(hb, pl("bob"), newSink())
	wantErr(t, "bob joins on b", err, nil)
	for range lobby.ChatBurst {
		wantErr(t, "ann says on a", ha.Say("id-ann", "hello"), nil)
	}
	wantErr(t, "ann says one more on a", ha.Say("id-ann", "again"), lobby.ErrChatTooFast)
	// ann's second session, on b, takes her seat over.
	_, err = b.Join(hb, pl("ann"), newSink())
	wantErr(t, "ann takes her seat over on b", err, nil)
	wantErr(t, "ann says on b at once", hb.Say("id-ann", "from b"), lobby.ErrChatTooFast)
	wantErr(t, "bob says on b", hb.Say("id-bob", "hi"), nil)
	eventually(t, "a has every line", func() bool { return len(ha.Snapshot().Chat) == lobby.ChatBurst+1 })
	if got := len(hb.Snapshot().Chat); got != lobby.ChatBurst+1 {
		t.Errorf("b has %d chat lines, want %d", got, lobby.ChatBurst+1)
	}
	e.clock.Advance(lobby.ChatWindow)
	wantErr(t, "ann says on b after the window", hb.Say("id-ann", "now"), nil)
}
