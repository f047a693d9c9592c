package main

// End-to-end tests of private race rooms over real SSH, as in
// e2e_test.go: nobody outside a private room reads its code or deal, and
// nobody finds it by trying codes.

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/budget"
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

// TestE2EGuestWrongCodesPerAddress: guests guessing room codes in
// sessions one after another on one TCP connection, from one address or
// from twelve at once, got as many wrong codes answered as they could
// type, and on PostgreSQL each wrong code was a write to the database. The wrong codes now spend the
// address's budget (budget.WrongCode), counted on this server before
// anything is written: an address gets its burst, each address its own
// (the refill, about one every twelve seconds, is the budget package's
// to test); a refused guest learns
// nothing, even with the right code; the refusals are logged per address;
// and no wrong code is an event of the rooms' log.
func TestE2EGuestWrongCodesPerAddress(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		// The default burst, refilled once in 12 minutes rather than 12
		// seconds: no refill comes while the guests guess, however slow
		// the machine (the refill itself is the budget package's test).
		burst := budget.WrongCode.Default().N
		ts := startServer(t, be.url(t), "--max-conns-per-ip", "32", "--limit-wrong-codes", strconv.Itoa(burst)+"/2h")
		keyA := sshtest.NewKey(t)
		a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic"})
		code := waitRoom(t, a)
		wrong := "CDFGHJ"
		if wrong == code {
			wrong = "CDFGHK"
		}
		roomEvents := func() int {
			if ts.dbURL == "" {
				return 0 // the rooms' log is in memory: nothing to write
			}
			return count(t, ts.db(t), "SELECT count(*) FROM bus_events WHERE topic = 'lobby.rooms'")
		}
		before := roomEvents()
		// try has a guest on client c type a code, and says how it was
		// answered.
		try := func(c *gossh.Client, code string) string {
			t.Helper()
			g := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "race " + code})
			defer g.Close()
			return g.WaitScreen(t, wait, "an answer to race "+code, func(s string) bool {
				return strings.Contains(s, "there is no room") || strings.Contains(s, "too many wrong room codes") || strings.Contains(s, "room "+code)
			})
		}
		// guess has guests on one connection from addr try wrong codes
		// one session after another until n are refused, and returns how
		// many were answered.
		guess := func(addr string, n int) (answered int) {
			c, err := sshtest.DialFrom(t, ts.addr, addr, nil)
			if err != nil {
				t.Errorf("dial from %s: %v", addr, err)
				return 0
			}
			defer c.Close()
			for refused := 0; refused < n; {
				switch s := try(c, wrong); {
				case strings.Contains(s, "there is no room "+wrong):
					answered++
				case strings.Contains(s, "too many wrong room codes from your address: try again in"):
					refused++
				default:
					t.Errorf("a guest of %s: want no room or refused; screen:\n%s", addr, s)
					return answered
				}
				if answered > 2*burst {
					t.Errorf("%s: %d wrong codes answered, want the budget's %d", addr, answered, burst)
					return answered
				}
			}
			// Refused, the right code tells nothing either.
			if s := try(c, code); !strings.Contains(s, "too many wrong room codes") {
				t.Errorf("a guest of %s with the right code: want refused; screen:\n%s", addr, s)
			}
			return answered
		}
		if got := guess("127.0.0.7", 5); got != burst {
			t.Errorf("one address: %d wrong codes answered, want the burst of %d", got, burst)
		}
		// Twelve addresses at once: each its own budget, no more.
		var wg sync.WaitGroup
		for i := range 12 {
			addr := "127.0.1." + strconv.Itoa(i+1)
			wg.Go(func() {
				if got := guess(addr, 1); got != burst {
					t.Errorf("%s: %d wrong codes answered, want %d", addr, got, burst)
				}
			})
		}
		wg.Wait()
		if after := roomEvents(); after != before {
			t.Errorf("the rooms' log: %d events while guests guessed, want none", after-before)
		}
		c, err := sshtest.DialFrom(t, ts.addr, "127.0.0.11", nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := try(c, code); !strings.Contains(s, "room "+code) || strings.Contains(s, "too many") {
			t.Fatalf("a guest of another address: want room %s; screen:\n%s", code, s)
		}
		if logs := ts.logs.String(); !strings.Contains(logs, "budget refused") || !strings.Contains(logs, "127.0.0.7") || !strings.Contains(logs, "wrong_code") {
			t.Errorf("the log does not name the address refused:\n%s", logs)
		}
	})
}
