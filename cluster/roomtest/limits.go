package roomtest

import (
	"errors"
	"pyramid/cluster"
	"pyramid/lobby"
	"strconv"
	"strings"
	"testing"
)

// testWrongCodesAcrossServers: the wrong-code limit counts a
// player's wrong codes on every server together: ten in a minute, half on
// each server, block the player on both, for WrongCodePause.
func testWrongCodesAcrossServers(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("bob"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	for i := range lobby.MaxWrongCodes - 1 {
		rs := []*cluster.Rooms{a, b}[i%2]
		if _, err := rs.Find(lobby.Seeker{Player: "id-ann"}, "NOPE"); errors.Is(err, lobby.ErrThrottled) {
			t.Fatalf("wrong code %d refused as throttled, want counted", i+1)
		}
	}
	if _, err := a.Find(lobby.Seeker{Player: "id-ann"}, h.Code()); err != nil {
		t.Fatalf("a right code after %d wrong ones: %v, want found", lobby.MaxWrongCodes-1, err)
	}
	if _, err := b.Find(lobby.Seeker{Player: "id-ann"}, "XXXXXX"); !errors.Is(err, lobby.ErrNoRoom) {
		t.Fatalf("the %dth wrong code: %v, want ErrNoRoom", lobby.MaxWrongCodes, err)
	}
	for name, rs := range map[string]*cluster.Rooms{"a": a, "b": b} {
		eventually(t, name+" blocks ann", func() bool {
			_, err := rs.Find(lobby.Seeker{Player: "id-ann"}, h.Code())
			return errors.Is(err, lobby.ErrThrottled)
		})
	}
	if _, err := b.Find(lobby.Seeker{Player: "id-carol"}, h.Code()); err != nil {
		t.Fatalf("another player on b: %v, want found", err)
	}
	e.clock.Advance(lobby.WrongCodePause)
	if _, err := a.Find(lobby.Seeker{Player: "id-ann"}, h.Code()); err != nil {
		t.Fatalf("after the pause: %v, want found", err)
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

// testWrongCodesPerAddress: the wrong-code limit counts an address's
// wrong codes too, whoever types them: guests, each a new player at every
// connection, from one address get MaxWrongCodes tries in all, on every
// server, not MaxWrongCodes each; another address is not blocked.
func testWrongCodesPerAddress(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("bob"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	guest := func(i int) lobby.Seeker {
		return lobby.Seeker{Player: "guest-" + strconv.Itoa(i), Addr: "203.0.113.7"}
	}
	for i := range lobby.MaxWrongCodes {
		rs := []*cluster.Rooms{a, b}[i%2]
		if _, err := rs.Find(guest(i), "NOPE"); errors.Is(err, lobby.ErrThrottled) {
			t.Fatalf("guest %d's wrong code refused as throttled, want counted", i+1)
		}
	}
	for name, rs := range map[string]*cluster.Rooms{"a": a, "b": b} {
		eventually(t, name+" blocks the address", func() bool {
			_, err := rs.Find(guest(lobby.MaxWrongCodes+1), h.Code())
			return errors.Is(err, lobby.ErrThrottled) && strings.Contains(err.Error(), "from your address")
		})
	}
	if _, err := b.Find(lobby.Seeker{Player: "guest-99", Addr: "198.51.100.2"}, h.Code()); err != nil {
		t.Fatalf("a guest from another address: %v, want found", err)
	}
	e.clock.Advance(lobby.WrongCodePause)
	if _, err := a.Find(guest(lobby.MaxWrongCodes+2), h.Code()); err != nil {
		t.Fatalf("after the pause: %v, want found", err)
	}
}
