package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// guestShape is a guest session's name: guest-7QK2.
var guestShape = regexp.MustCompile(`^guest-[0-9A-Z]{4}$`)

// guestOf returns the one guest of a who --json listing by name (guests
// are named guest-XXXX at random), or the zero line when there is none.
func guestOf(who map[string]whoJSON) whoJSON {
	for name, e := range who {
		if strings.HasPrefix(name, "guest-") {
			return e
		}
	}
	return whoJSON{}
}

// TestE2EGuestNames: two guests get names of their own, in who --json,
// and one watches the other by that name.
func TestE2EGuestNames(t *testing.T) {
	ts := startServer(t, "")
	player := ts.openAs(t, "guest", nil, "classic 42")
	g := newGame(t, "classic", 42)
	waitPosition(t, player, g)
	who := waitWho(t, ts.user(nil), "a guest playing", func(w map[string]whoJSON) bool {
		return guestOf(w).Doing == "playing"
	})
	var name string
	for n, e := range who {
		if e.Guest {
			name = n
		}
	}
	if !guestShape.MatchString(name) {
		t.Fatalf("the guest is called %q in who --json, want a name like guest-7QK2", name)
	}
	spectator := ts.openAs(t, "guest", nil, "watch "+name)
	screen := waitPosition(t, spectator, g)
	if first := strings.SplitN(screen, "\n", 2)[0]; !strings.Contains(first, name+" · Classic · deal 42") {
		t.Fatalf("the spectator's header: %q, want %s's game", first, name)
	}
	player.WaitFor(t, "1 watching", wait)
}

// TestE2ECloseRoom: an admin closes a room over SSH; its racers are told
// why, and the room is gone from rooms --json; a player may not.
func TestE2ECloseRoom(t *testing.T) {
	admin := sshtest.NewKey(t)
	ts := startServer(t, "", "--admins", gossh.FingerprintSHA256(admin.PublicKey()))
	keyA := sshtest.NewKey(t)
	a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic 42 --public"})
	code := waitRoom(t, a)
	b := sshtest.OpenTerm(t, ts.dial(t, nil), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	if _, stderr, status := ts.user(keyA).exec(t, "close-room "+code); status == 0 || !strings.Contains(stderr, "for the server's admins") {
		t.Fatalf("close-room by a player: status %d, stderr %q", status, stderr)
	}
	out := runOK(t, ts.user(admin), "close-room "+code+" spam")
	if !strings.Contains(out, "room "+code+" closed") {
		t.Fatalf("close-room: %q", out)
	}
	a.WaitFor(t, "closed by an admin: spam", wait)
	b.WaitFor(t, "closed by an admin: spam", wait)
	var rooms []roomJSON
	runJSON(t, ts.user(keyA), "rooms --json", &rooms)
	if len(rooms) != 0 {
		t.Fatalf("rooms --json after the close: %+v", rooms)
	}
}

// TestE2EShare: share ID prints the game's line, with no card and no
// escape in it, and refuses another player's game.
func TestE2EShare(t *testing.T) {
	ts := startServer(t, "")
	key := sshtest.NewKey(t)
	term := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 42"})
	g := newGame(t, "classic", 42)
	waitPosition(t, term, g)
	typeKeys(t, term, ":7.2+7.3"+sshtest.KeyEnter)
	play(t, g, "7.2+7.3")
	waitPosition(t, term, g)
	var games []gameJSON
	for deadline := time.Now().Add(wait); len(games) == 0 || len(games[0].Moves) != 1; {
		runJSON(t, ts.user(key), "games --json", &games)
		if time.Now().After(deadline) {
			t.Fatalf("games --json: %+v", games)
		}
		time.Sleep(20 * time.Millisecond) // polling the server, not synchronising
	}
	id := strconv.FormatInt(games[0].ID, 10)
	out := runOK(t, ts.user(key), "share "+id)
	if !strings.HasPrefix(out, "Pyramid · Classic · deal 42 · 2/28 so far · ") || !strings.HasSuffix(out, " · 1 move\n") {
		t.Fatalf("share: %q", out)
	}
	if strings.ContainsAny(out, "\x1b♠♥♦♣") || strings.Contains(out, "7.2") {
		t.Fatalf("share gives away cards or moves: %q", out)
	}
	if _, stderr, status := ts.user(sshtest.NewKey(t)).exec(t, "share "+id); status != 1 || !strings.Contains(stderr, "not found among yours") {
		t.Fatalf("another player's share: status %d, stderr %q", status, stderr)
	}
}
