package main

// End-to-end tests of private race rooms over real SSH, as in
// e2e_test.go: nobody outside a private room reads its code or deal, and
// nobody finds it by trying codes.

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"pyramid/lobby"
	"pyramid/server/sshtest"
)

// TestE2EPrivateRoomHidden: `who`, `who --json`, `rooms` and the Lobby
// printed a private room's code and deal to everybody, guests too, and
// the Lobby's w on its racer watched the room. A stranger and a guest now
// read "racing in a private room" and neither its code nor its deal, and
// the Lobby says how to watch instead of watching.
func TestE2EPrivateRoomHidden(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t), "--max-conns-per-ip", "32")
		keyA, keyS := sshtest.NewKey(t), sshtest.NewKey(t)
		runOK(t, ts.user(keyA), "name alice")
		runOK(t, ts.user(keyS), "name stan")
		const deal = 602
		a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.Itoa(deal)})
		code := waitRoom(t, a)
		a.WaitFor(t, "1/8 players", wait)

		hidden := func(who, what, out string) {
			t.Helper()
			if strings.Contains(out, code) || strings.Contains(out, strconv.Itoa(deal)) {
				t.Errorf("%s's %s shows the private room's code %s or deal %d:\n%s", who, what, code, deal, out)
			}
		}
		out := runOK(t, ts.user(keyS), "who")
		hidden("a stranger", "who", out)
		if l := lineWith(out, "alice"); !strings.Contains(l, "waiting in a private room · Classic") {
			t.Errorf("a stranger's who: alice's line %q, want waiting in a private room · Classic", l)
		}
		raw := runOK(t, ts.user(nil), "who --json")
		hidden("a guest", "who --json", raw)
		var entries []struct {
			Name    string `json:"name"`
			Doing   string `json:"doing"`
			Phase   string `json:"phase"`
			Room    string `json:"room"`
			Deal    string `json:"deal"`
			Private bool   `json:"private"`
		}
		if err := json.Unmarshal([]byte(raw), &entries); err != nil {
			t.Fatalf("who --json: %v\n%s", err, raw)
		}
		found := false
		for _, e := range entries {
			if e.Name == "alice" {
				found = true
				if e.Doing != "racing" || !e.Private || e.Room != "" || e.Deal != "" || e.Phase != "waiting" {
					t.Errorf("a guest's who --json: alice is %+v, want racing, private, waiting, no room, no deal", e)
				}
			}
		}
		if !found {
			t.Errorf("a guest's who --json lists no alice:\n%s", raw)
		}
		hidden("a guest", "rooms", runOK(t, ts.user(nil), "rooms"))
		hidden("a stranger", "rooms --json", runOK(t, ts.user(keyS), "rooms --json"))

		// The Lobby of a stranger: no code, and w on alice does not watch.
		s := sshtest.OpenTerm(t, ts.dial(t, keyS), sshtest.TermOptions{})
		s.WaitScreen(t, wait, "stan's menu", isMenu)
		menuSelect(t, s, "Lobby")
		typeKeys(t, s, sshtest.KeyEnter)
		list := s.WaitScreen(t, wait, "the Lobby listing alice", func(s string) bool {
			return strings.Contains(lineWith(s, "alice"), "waiting in a private room")
		})
		hidden("a stranger", "Lobby", list)
		for range 4 {
			if strings.Contains(lineWith(s.Screen(), "> "), "alice") {
				break
			}
			cur := lineWith(s.Screen(), "> ")
			typeKeys(t, s, "j")
			s.WaitScreen(t, wait, "the cursor to move", func(s string) bool { return lineWith(s, "> ") != cur })
		}
		typeKeys(t, s, "w")
		screen := s.WaitFor(t, "alice races in a private room: to watch, ask for its code", wait)
		hidden("a stranger", "Lobby after w", screen)
		if strings.Contains(a.Screen(), "watching") {
			t.Errorf("alice's room counts a spectator after a stranger's w in the Lobby:\n%s", a.Screen())
		}

		// With the code, a spectator watches.
		w := sshtest.OpenTerm(t, ts.dial(t, nil), sshtest.TermOptions{Command: "race watch " + strings.ToLower(code[:3]+"-"+code[3:])})
		w.WaitFor(t, "You watch this room", wait)
		a.WaitFor(t, "1 watching", wait)
	})
}

// TestE2EGuestWrongCodesPerAddress: twelve guest connections got twelve
// times the wrong-code limit, each guest being a new player. The limit
// now counts the address: the guests of one address get MaxWrongCodes
// wrong codes in all, then are refused, told why; a guest of another
// address is not.
func TestE2EGuestWrongCodesPerAddress(t *testing.T) {
	ts := startServer(t, backends[0].url(t), "--max-conns-per-ip", "32")
	keyA := sshtest.NewKey(t)
	a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic"})
	code := waitRoom(t, a)
	wrong := "CDFGHJ"
	if wrong == code {
		wrong = "CDFGHK"
	}
	guest := func(from, code string) string {
		t.Helper()
		c, err := sshtest.DialFrom(t, ts.addr, from, nil)
		if err != nil {
			t.Fatalf("dial from %s: %v", from, err)
		}
		defer c.Close()
		g := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "race " + code})
		return g.WaitScreen(t, wait, "an answer to race "+code, func(s string) bool {
			return strings.Contains(s, "there is no room") || strings.Contains(s, "too many wrong room codes") || strings.Contains(s, "room "+code)
		})
	}
	for i := range lobby.MaxWrongCodes {
		if s := guest("127.0.0.7", wrong); !strings.Contains(s, "there is no room "+wrong) {
			t.Fatalf("guest %d's wrong code: want there is no room %s; screen:\n%s", i+1, wrong, s)
		}
	}
	for i := range 2 {
		s := guest("127.0.0.7", code)
		if !strings.Contains(s, "too many wrong room codes") || !strings.Contains(s, "from your address") {
			t.Fatalf("guest %d of the address, with the right code: want refused for the address's wrong codes; screen:\n%s",
				lobby.MaxWrongCodes+i+1, s)
		}
	}
	if s := guest("127.0.0.8", code); !strings.Contains(s, "room "+code) || strings.Contains(s, "too many") {
		t.Fatalf("a guest of another address: want room %s; screen:\n%s", code, s)
	}
}
