package lobby

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakePresenceNet is a PresenceNet that notes what the lobby tells it.
type fakePresenceNet struct {
	mu      sync.Mutex
	changed int
	dailies []string
}

func (n *fakePresenceNet) RosterChanged() {
	n.mu.Lock()
	n.changed++
	n.mu.Unlock()
}

func (n *fakePresenceNet) DailyFinished(rulesID, date string) {
	n.mu.Lock()
	n.dailies = append(n.dailies, rulesID+" "+date)
	n.mu.Unlock()
}

// changes is how many times the lobby said its roster may have changed.
func (n *fakePresenceNet) changes() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.changed
}

// remoteCfg is short, for the tests' fake clock.
var remoteCfg = RemoteConfig{TTL: 15 * time.Second, Heartbeat: 5 * time.Second}

// remoteLobby is a lobby with a fake PresenceNet attached.
func remoteLobby(t *testing.T) (*Lobby, *fakePresenceNet) {
	t.Helper()
	l := New(Config{})
	t.Cleanup(l.Close)
	n := &fakePresenceNet{}
	if err := l.AttachPresence(n, remoteCfg); err != nil {
		t.Fatal(err)
	}
	return l, n
}

// remoteWho lists a Who snapshot as name:doing@instance.
func remoteWho(l *Lobby) string {
	var s []string
	for _, p := range l.Who() {
		s = append(s, fmt.Sprintf("%s:%s@%s", p.Name, p.What, p.Instance))
	}
	return strings.Join(s, " ")
}

// remoteEntryOf is an entry of another server's roster, changed at.
func remoteEntryOf(p Player, session uint64, d Doing, at time.Time) RosterEntry {
	key := p.ID
	if p.Guest {
		key = fmt.Sprint("guest:", session)
	}
	return RosterEntry{Key: key, Presence: Presence{Player: p, Doing: d, Session: session, Joined: at}, Changed: at}
}

// TestRemoteRoster: what another server says of its players is listed
// with this server's, each player once (with the session that changed
// last), until that server says they left, says bye, or is not heard of
// for the TTL.
func TestRemoteRoster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, n := remoteLobby(t)
		if err := l.AttachPresence(n, remoteCfg); err == nil {
			t.Fatal("a second PresenceNet was attached")
		}
		ann := l.Join(Player{ID: "a", Name: "ann"})
		guest := l.Join(Player{Name: "guest", Guest: true})
		if n.changes() == 0 {
			t.Fatal("joins here were not told to the PresenceNet")
		}
		roster := l.Roster()
		keys := []string{roster[0].Key, roster[1].Key}
		if want := fmt.Sprint("guest:", guest.ID()); !(keys[0] == "a" && keys[1] == want || keys[1] == "a" && keys[0] == want) {
			t.Fatalf("the roster's keys: %q, want a and %s", keys, want)
		}

		now := time.Now()
		bob := remoteEntryOf(Player{ID: "b", Name: "bob"}, 4, Doing{What: Playing, Rules: "classic", Deal: 7}, now)
		l.HearRoster("two", []RosterEntry{bob, remoteEntryOf(Player{Name: "guest", Guest: true}, 5, Doing{What: AtMenu}, now)}, nil)
		if got, want := remoteWho(l), "ann:menu@ bob:playing@two guest:menu@ guest:menu@two"; got != want || l.Online() != 4 {
			t.Fatalf("Who: %q (%d online), want %q (4)", got, l.Online(), want)
		}
		if got := l.PlayingRules("classic"); got != 1 {
			t.Fatalf("PlayingRules(classic) = %d, want bob's 1", got)
		}

		// ann on two, changed later than here: listed once, as there.
		time.Sleep(time.Second)
		l.HearRoster("two", []RosterEntry{remoteEntryOf(ann.Player(), 6, Doing{What: Watching, Watched: "bob"}, time.Now())}, nil)
		if got := remoteWho(l); !strings.HasPrefix(got, "ann:watching@two") || strings.Count(got, "ann") != 1 || l.Online() != 4 {
			t.Fatalf("Who: %q (%d online), want ann once, watching on two (4 online)", got, l.Online())
		}
		l.HearRoster("two", nil, []string{"b"})
		if got := remoteWho(l); strings.Contains(got, "bob") {
			t.Fatalf("Who after two said bob left: %q", got)
		}

		// Not heard of for the TTL: no longer listed, and swept.
		time.Sleep(remoteCfg.TTL)
		if got, want := remoteWho(l), "ann:menu@ guest:menu@"; got != want || l.Online() != 2 {
			t.Fatalf("Who a TTL later: %q (%d online), want %q (2)", got, l.Online(), want)
		}
		before := n.changes()
		l.SweepRoster()
		if n.changes() == before {
			t.Fatal("the sweep of expired players was no change of presence")
		}

		// A server that says bye takes its players at once.
		l.HearRoster("three", []RosterEntry{bob}, nil)
		l.ForgetServer("three")
		if got, want := remoteWho(l), "ann:menu@ guest:menu@"; got != want {
			t.Fatalf("Who after three said bye: %q, want %q", got, want)
		}
	})
}

// TestRemoteDaily: a result of the daily board recorded here is told to
// the other servers; one recorded there is told to the viewers here.
func TestRemoteDaily(t *testing.T) {
	l, n := remoteLobby(t)
	viewer := l.Join(Player{ID: "a", Name: "ann"})
	l.WatchDaily(viewer, true)
	l.DailyFinished("daily", "2026-12-01")
	n.mu.Lock()
	told := strings.Join(n.dailies, ",")
	n.mu.Unlock()
	if told != "daily 2026-12-01" {
		t.Fatalf("the PresenceNet was told %q, want daily 2026-12-01", told)
	}
	events(t, viewer)
	l.HearDaily("daily", "2026-12-02")
	if ev, ok := lastOf[DailyChanged](events(t, viewer)); !ok || ev.Date != "2026-12-02" {
		t.Fatalf("the viewer got %+v (%v), want the other server's result", ev, ok)
	}
}
