package arcade

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/log"

	"pyramid/bus"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/tui"
)

// failReader fails every read.
type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("no randomness") }

func TestGuestName(t *testing.T) {
	for _, tc := range []struct {
		name string
		rnd  func() *bytes.Reader
		want string
	}{
		{"zero bytes", func() *bytes.Reader { return bytes.NewReader([]byte{0, 0, 0, 0}) }, "guest-3333"},
		{"wraps round the alphabet", func() *bytes.Reader { return bytes.NewReader([]byte{1, 20, 21, 255}) }, "guest-4Y3" + string(guestAlphabet[255%len(guestAlphabet)])},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := guestName(tc.rnd()); got != tc.want {
				t.Errorf("guestName = %q, want %q", got, tc.want)
			}
		})
	}
	if got := guestName(failReader{}); got != "guest" {
		t.Errorf("guestName without randomness = %q, want guest", got)
	}
}

// TestGuestsToldApart: each guest session gets a name of its own, in
// presence, rooms and watch; no player with a key may take one.
func TestGuestsToldApart(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	shape := regexp.MustCompile(`^guest-[` + guestAlphabet + `]{4}$`)
	var names []string
	var sessions []*lobby.Session
	var guests []*races
	for range 2 {
		p, _, _, err := f.app.player(ctx, session(nil, "guest"))
		if err != nil || !p.Guest || !shape.MatchString(p.Name) {
			t.Fatalf("a guest: %+v, %v; want a name like guest-7QK2", p, err)
		}
		sess := f.app.lobby.Join(lobby.Player{Name: p.Name, Guest: true})
		names, sessions = append(names, p.Name), append(sessions, sess)
		guests = append(guests, f.app.newRaces(ctx, p, sess, nil))
	}
	if names[0] == names[1] {
		t.Skipf("two guests drew the same name %s (1 in %d)", names[0], len(guestAlphabet)*len(guestAlphabet))
	}
	// who lists both names.
	_, out, _ := f.run(session(nil, "guest", "who"))
	for _, n := range names {
		if !strings.Contains(out, n) {
			t.Errorf("who does not list %s:\n%s", n, out)
		}
	}
	// A room shows the guest's name.
	seat, err := guests[0].Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: 5, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := seat.Snapshot.Member(guests[0].me.ID); !ok || m.Name != names[0] {
		t.Errorf("the room shows the guest as %+v, want %s", m, names[0])
	}
	// One guest watches the other by name.
	if _, err := f.app.lobby.Watch(sessions[1], strings.ToLower(names[0])); err != nil {
		t.Errorf("watch %s: %v", names[0], err)
	}
	// A player with a key cannot pass for a guest.
	if code, _, errOut := f.run(session(f.admin, "root", "name", names[1])); code == 0 || !strings.Contains(errOut, "reserved") {
		t.Errorf("name %s: exit %d, %q; want refused as reserved", names[1], code, errOut)
	}
}

// TestGuestNamesAcrossServers: two servers on one bus that draw the same
// names for guests arriving at once, before presence tells either of the
// other, still name them apart; a server whose bus fails falls back on
// presence.
func TestGuestNamesAcrossServers(t *testing.T) {
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	same := func() io.Reader { return bytes.NewReader(bytes.Repeat([]byte{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, 2)) }
	newApp := func(instance string, bb bus.Bus) *App {
		a := New(Config{Logger: log.New(&bytes.Buffer{}), Bus: bb, Instance: instance})
		t.Cleanup(a.Close)
		a.guestRand = same()
		return a
	}
	one, two := newApp("one", b), newApp("two", b)
	ctx := context.Background()
	tests := []struct {
		name string
		app  *App
		want string
	}{
		{"the first claims the first name", one, "guest-3333"},
		{"the other server draws again", two, "guest-4444"},
		// Its draws go on where they were: 4444 is the other's.
		{"the first again, past the other's claim", one, "guest-6666"},
	}
	for _, tt := range tests {
		p, _, _, err := tt.app.player(ctx, session(nil, "guest"))
		if err != nil || p.Name != tt.want {
			t.Fatalf("%s: %q, %v; want %s", tt.name, p.Name, err, tt.want)
		}
	}
}
