package main

// End-to-end tests of the budgets per address (package budget) over real
// SSH, as in e2e_test.go: one address cannot take what every player
// shares.

import (
	"regexp"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/budget"
	"pyramid/server/sshtest"
)

// TestE2ERoomFloodLeavesRooms: a guest making `race new` in a loop, in
// sessions one after another on one connection, took every room
// (--max-rooms) in seconds, and a newcomer's `race new` was refused for
// the whole attack. The rooms made spend the address's budget
// (budget.RoomMade): the flood is refused well before the server is
// full, saying which limit and when, and a newcomer from another
// address gets a room. (The rooms one address holds at once are bounded
// too: cluster/roomtest's RegistryLimits.)
func TestE2ERoomFloodLeavesRooms(t *testing.T) {
	burst := budget.RoomMade.Default().N
	// A quarter of the rooms (lobby.AddressRoomsShare) is above the
	// budget here: the budget stops the flood.
	ts := startServer(t, "", "--max-rooms", "100")
	c, err := sshtest.DialFrom(t, ts.addr, "127.0.0.20", nil)
	if err != nil {
		t.Fatal(err)
	}
	made, refused := 0, 0
	for refused < 3 && made <= burst+5 {
		g := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "race new classic"})
		s := g.WaitScreen(t, wait, "a room or a refusal", func(s string) bool {
			return roomRE.MatchString(s) || strings.Contains(s, "too many") || strings.Contains(s, "no room")
		})
		switch {
		case strings.Contains(s, "too many new rooms from your address: try again in"):
			refused++
		case roomRE.MatchString(s):
			made++
		default:
			t.Fatalf("flood room %d: want a room or the budget's refusal; screen:\n%s", made+refused+1, s)
		}
		_ = g.Close()
	}
	if made != burst {
		t.Errorf("the flooder made %d rooms, want the budget's %d", made, burst)
	}
	c2, err := sshtest.DialFrom(t, ts.addr, "127.0.0.21", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := sshtest.OpenTerm(t, c2, sshtest.TermOptions{Command: "race new classic"})
	if s := n.WaitScreen(t, wait, "a room or a refusal", func(s string) bool {
		return roomRE.MatchString(s) || strings.Contains(s, "too many")
	}); !roomRE.MatchString(s) {
		t.Fatalf("a newcomer's race new during the flood: want a room; screen:\n%s", s)
	}
}

// TestE2EAccountsPerAddress: one address made players in bulk. The
// accounts made for new keys spend the address's budget
// (budget.AccountMade): a new key past it is refused, told which limit
// and when; a key seen before plays on, and another address makes its
// own.
func TestE2EAccountsPerAddress(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t), "--limit-accounts", "3/1h")
		stats := func(from string, key gossh.Signer) (string, int) {
			t.Helper()
			c, err := sshtest.DialFrom(t, ts.addr, from, key)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			out, errOut, status := sshtest.Exec(t, c, "stats")
			return out + errOut, status
		}
		first := sshtest.NewKey(t)
		for i := range 3 {
			key := first
			if i > 0 {
				key = sshtest.NewKey(t)
			}
			if out, status := stats("127.0.0.30", key); status != 0 {
				t.Fatalf("new key %d: status %d, %s", i+1, status, out)
			}
		}
		out, status := stats("127.0.0.30", sshtest.NewKey(t))
		if status == 0 || !strings.Contains(out, "too many new accounts from your address: try again in") {
			t.Errorf("a fourth new key: status %d, %q; want refused by the address's budget", status, out)
		}
		if out, status := stats("127.0.0.30", first); status != 0 {
			t.Errorf("the first key again: status %d, %s", status, out)
		}
		if out, status := stats("127.0.0.31", sshtest.NewKey(t)); status != 0 {
			t.Errorf("a new key from another address: status %d, %s", status, out)
		}
		if n := count(t, ts.db(t), "SELECT count(*) FROM players"); n != 4 {
			t.Errorf("%d players stored, want 4", n)
		}
	})
}

// guestNameRE finds a guest's name on a screen.
var guestNameRE = regexp.MustCompile(`guest-[0-9A-Z]{4}`)

// TestE2EMutedGuestReconnects: a guest the host muted reconnected as a new
// guest and chatted on. The mute holds for the guest's address: the new
// guest of it is muted in the room and told so; the host then removes
// them with /remove, and a guest of that address is kept out.
func TestE2EMutedGuestReconnects(t *testing.T) {
	ts := startServer(t, "")
	a := sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race new classic"})
	code := waitRoom(t, a)
	guest := func() (*sshtest.Term, string) {
		t.Helper()
		c, err := sshtest.DialFrom(t, ts.addr, "127.0.0.50", nil)
		if err != nil {
			t.Fatal(err)
		}
		g := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "race " + code})
		s := g.WaitFor(t, "room "+code, wait)
		name := guestNameRE.FindString(s)
		if name == "" {
			t.Fatalf("no guest name on the guest's screen:\n%s", s)
		}
		a.WaitFor(t, name, wait)
		return g, name
	}
	g1, name1 := guest()
	typeKeys(t, g1, "thello\r")
	a.WaitFor(t, "<"+name1+"> hello", wait)
	typeKeys(t, a, "t/mute "+name1+"\r")
	a.WaitFor(t, name1+" is muted in this room", wait)
	_ = g1.Close()
	a.WaitFor(t, "1/8 players", wait) // the guest left

	g2, name2 := guest()
	typeKeys(t, g2, "tspam\r")
	g2.WaitFor(t, "the host muted you in this room", wait)
	if s := a.Screen(); strings.Contains(s, "> spam") {
		t.Fatalf("the muted guest's line reached the host:\n%s", s)
	}
	typeKeys(t, a, "t/remove "+name2+"\r")
	a.WaitFor(t, name2+" is out of this room", wait)
	g2.WaitFor(t, "the host removed you from room "+code, wait)
	c, err := sshtest.DialFrom(t, ts.addr, "127.0.0.50", nil)
	if err != nil {
		t.Fatal(err)
	}
	g3 := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "race " + code})
	g3.WaitFor(t, "the host removed you from this room", wait)
}
