package arcade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/arena"
	"pyramid/budget"
	"pyramid/engine"
	"pyramid/keys"
	"pyramid/server"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/sqlstore"
	"pyramid/store/storetest"
)

// arenaNow is where the arena tests' clock starts.
var arenaNow = time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC)

// arenaFixture is an arcade over a fresh SQLite store, both on one test
// clock, with admins or without.
type arenaFixture struct {
	*fixture
	clock *storetest.Clock
}

// newArenaFixture makes an arenaFixture; wrap, when set, wraps the store
// the arcade reads (the test's own store stays the real one).
func newArenaFixture(t *testing.T, withAdmins bool, wrap func(store.Store) store.Store) *arenaFixture {
	t.Helper()
	clock := storetest.NewClock(arenaNow)
	st, err := sqlstore.OpenConfig(context.Background(), sqlstore.Config{DataDir: t.TempDir(), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	admin := sshtest.NewKey(t)
	var admins *keys.Admins
	if withAdmins {
		if admins, err = keys.ParseAdmins(gossh.FingerprintSHA256(admin.PublicKey())); err != nil {
			t.Fatal(err)
		}
	}
	var app store.Store = st
	if wrap != nil {
		app = wrap(st)
	}
	a := New(Config{Store: app, Admins: admins, Logger: log.New(&bytes.Buffer{}), Connect: "ssh -p 23234 test", Now: clock.Now})
	return &arenaFixture{fixture: &fixture{t: t, st: st, app: a, admin: admin}, clock: clock}
}

// player is a key and the player it makes, named name.
func (f *arenaFixture) player(name string) (gossh.Signer, store.Player) {
	f.t.Helper()
	key := sshtest.NewKey(f.t)
	p, _, err := f.st.GetOrCreatePlayer(context.Background(), gossh.FingerprintSHA256(key.PublicKey()), name)
	if err != nil {
		f.t.Fatal(err)
	}
	return key, p
}

// storedArenas is every arena the store has, upcoming to finished since
// long ago.
func (f *arenaFixture) storedArenas() []arena.Event {
	f.t.Helper()
	list, err := f.st.Arenas(context.Background(), time.Time{}, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return list
}

// race records a race of the players in that order (the first cleared,
// the others stuck) and scores it in the arena.
func (f *arenaFixture) race(arenaID int64, key string, players ...store.Player) {
	f.t.Helper()
	ctx := context.Background()
	nr := store.NewRace{Key: key, Code: "ARNA", RulesID: "classic", DealNumber: 7, Started: f.clock.Now(),
		Ended: f.clock.Now().Add(3 * time.Minute), Racers: len(players), Rated: true, Verdict: engine.Winnable}
	for i, p := range players {
		pl := store.RacePlacing{PlayerID: p.ID, Place: i + 1, Removed: 20 - i, Moves: 30, Time: time.Minute, Outcome: store.OutcomeStuck}
		if i == 0 {
			pl.Cleared, pl.Outcome, pl.Removed = true, store.OutcomeCleared, 28
		}
		nr.Placings = append(nr.Placings, pl)
	}
	id, err := f.st.RecordRace(ctx, nr)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.st.RecordArenaRace(ctx, arenaID, id, nil); err != nil {
		f.t.Fatal(err)
	}
}

// create stores an arena directly, as an admin's arena new would.
func (f *arenaFixture) create(name string, start time.Time, d time.Duration, by string) arena.Event {
	f.t.Helper()
	e, err := f.st.CreateArena(context.Background(), arena.Event{Name: name, RulesID: "classic", Start: start, Duration: d, CreatedBy: by})
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

// TestArenaNewByAdmin: an admin sets up an arena; what is stored is what
// the flags said, in every form of --start, and the audit log has it.
func TestArenaNewByAdmin(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	tests := []struct {
		args  []string
		start time.Time
		want  arena.Event // Name, RulesID, Duration, GameTime, Every
	}{
		{[]string{"classic", "--start", "2026-12-12T19:00Z", "--duration", "90m", "--name", "Friday night", "--every", "week", "--game", "5m"},
			time.Date(2026, 12, 12, 19, 0, 0, 0, time.UTC),
			arena.Event{Name: "Friday night", RulesID: engine.MustRules("classic").ID(), Duration: 90 * time.Minute, GameTime: 5 * time.Minute, Every: arena.Weekly}},
		{[]string{"double", "--start=2026-12-12T20:30:15+01:00", "--duration=1h", "--name=Doubles"},
			time.Date(2026, 12, 12, 19, 30, 15, 0, time.UTC),
			arena.Event{Name: "Doubles", RulesID: engine.MustRules("double").ID(), Duration: time.Hour}},
		{[]string{"classic,passes=1", "--start", "now", "--duration", "5m", "--name", "  quick  "},
			arenaNow,
			arena.Event{Name: "quick", RulesID: engine.MustRules("classic,passes=1").ID(), Duration: 5 * time.Minute}},
		{[]string{"easy", "--start", "+2h", "--duration", "3h", "--name", "Évening ♠", "--every", "daily"},
			arenaNow.Add(2 * time.Hour),
			arena.Event{Name: "Évening ♠", RulesID: engine.MustRules("easy").ID(), Duration: 3 * time.Hour, Every: arena.Daily}},
	}
	for i, tt := range tests {
		code, out, errOut := f.run(session(f.admin, "root", append([]string{"arena", "new"}, tt.args...)...))
		list := f.storedArenas()
		if code != 0 || len(list) != i+1 {
			t.Fatalf("arena new %v: exit %d, %q %q; %d arenas stored", tt.args, code, out, errOut, len(list))
		}
		got := list[0]
		for _, e := range list {
			if e.ID > got.ID {
				got = e
			}
		}
		want := tt.want
		want.ID, want.Start, want.Series, want.CreatedBy = got.ID, tt.start, got.Series, got.CreatedBy
		if !got.Start.Equal(want.Start) || !sameSettings(got, want) {
			t.Errorf("arena new %v stored %+v, want %+v", tt.args, got, want)
		}
		if !strings.Contains(out, fmt.Sprintf("arena %d set up: ", got.ID)) || !strings.Contains(out, stamp(tt.start)) {
			t.Errorf("arena new %v printed %q", tt.args, out)
		}
		if (want.Every != arena.Once) != (got.Series == got.ID) {
			t.Errorf("arena new %v: series %d of arena %d", tt.args, got.Series, got.ID)
		}
	}
	log, err := f.st.AuditLog(context.Background(), "", 10)
	if err != nil || len(log) != len(tests) || log[0].Action != store.AuditArenaNew || !strings.HasPrefix(log[0].Subject, "arena ") {
		t.Errorf("audit log %+v, %v", log, err)
	}
}

// sameSettings compares two events' settings but for Start.
func sameSettings(a, b arena.Event) bool {
	a.Start, b.Start = time.Time{}, time.Time{}
	return a == b
}

// TestArenaNewRefused: bad dates, durations, names and rules are refused
// in one clear line each, nothing is stored, and nothing hostile echoes.
func TestArenaNewRefused(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	// base is arena new with good settings but for one flag: set to
	// value, or left out for "-".
	base := func(flag, value string) []string {
		set := map[string]string{"--start": "+1h", "--duration": "1h", "--name": "ok"}
		out := []string{"arena", "new", "classic"}
		if _, ok := set[flag]; !ok {
			out = append(out, flag, value)
		}
		set[flag] = value
		for _, k := range []string{"--start", "--duration", "--name"} {
			if set[k] != "-" {
				out = append(out, k, set[k])
			}
		}
		return out
	}
	long := strings.Repeat("n", arena.MaxNameLen+1)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad date", base("--start", "2026-13-45T99:00Z"), 2, "--start 2026-13-45T99:00Z: want a time like"},
		{"a word for a date", base("--start", "tomorrow"), 2, "--start tomorrow: want a time"},
		{"a date alone", base("--start", "2026-12-12"), 2, "want a time like"},
		{"+ nothing", base("--start", "+"), 2, "after + comes how long"},
		{"+ negative", base("--start", "+-1h"), 2, "after + comes how long"},
		{"in the past", base("--start", "2026-12-01T10:00Z"), 1, "the start must not be in the past"},
		{"0 duration", base("--duration", "0"), 1, "the duration must be 5m0s to 3h0m0s"},
		{"negative duration", base("--duration", "-1h"), 1, "the duration must be"},
		{"too long", base("--duration", "4h"), 1, "the duration must be"},
		{"a word for a duration", base("--duration", "long"), 2, "--duration long: want a length"},
		{"a huge duration", base("--duration", "99999999h"), 2, "--duration"},
		{"a name too long", base("--name", long), 1, fmt.Sprintf("a name is 1 to %d characters", arena.MaxNameLen)},
		{"a huge name", base("--name", strings.Repeat("é", 100000)), 1, "a name is 1 to"},
		{"an empty name", base("--name", "   "), 1, "a name is 1 to"},
		{"an escape in the name", base("--name", "x\x1b[2Jy"), 2, "no control or format characters"},
		{"a bidi override in the name", base("--name", "abc\u202edef"), 2, "no control or format characters"},
		{"no name", base("--name", "-"), 2, "arena new needs --start, --duration and --name"},
		{"game too short", base("--game", "10s"), 1, "a game's time must be"},
		{"game 0", base("--game", "0"), 2, "--game 0: a game needs"},
		{"every month", base("--every", "month"), 2, "--every month: say day or week"},
		{"unknown rules", []string{"arena", "new", "bogus", "--start", "now", "--duration", "1h", "--name", "x"}, 2, "unknown rule set \"bogus\""},
		{"hostile rules", []string{"arena", "new", "\x1b]52;c;aGk=\x07", "--start", "now", "--duration", "1h", "--name", "x"}, 2, "pyramid: rules: "},
		{"the daily", []string{"arena", "new", "daily", "--start", "now", "--duration", "1h", "--name", "x"}, 2, "not the daily"},
		{"no rules", []string{"arena", "new", "--start", "now", "--duration", "1h", "--name", "x"}, 2, "arena new needs a rule set"},
		{"an unknown flag", base("--colour", "red"), 2, "unknown flag --colour"},
		{"a name with spaces unquoted over ssh", []string{"arena", "new", "classic", "--start", "now", "--duration", "1h", "--name", "Friday", "arena"}, 2,
			`takes one rule set, not also "arena": over ssh a name with spaces needs quotes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := f.run(session(f.admin, "root", tt.args...))
			if code != tt.code || !strings.Contains(errOut, tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q", code, out, errOut, tt.code, tt.want)
			}
			if strings.ContainsAny(errOut, "\x1b\x07\u202e") || strings.Count(errOut, "\n") > 2 || len(errOut) > 600 {
				t.Errorf("stderr not one clean line: %q", errOut)
			}
		})
	}
	if list := f.storedArenas(); len(list) != 0 {
		t.Errorf("refused arenas were stored: %+v", list)
	}
}

// TestArenaNewWhoMay: admins may always; on a server with admins nobody
// else may; on one without, a player with a key may set up 3 one-off
// arenas a day; guests never.
func TestArenaNewWhoMay(t *testing.T) {
	args := func(name string, more ...string) []string {
		return append([]string{"arena", "new", "classic", "--start", "+1h", "--duration", "30m", "--name", name}, more...)
	}
	t.Run("with admins", func(t *testing.T) {
		f := newArenaFixture(t, true, nil)
		alice, _ := f.player("alice")
		code, _, errOut := f.run(session(alice, "alice", args("mine")...))
		if code != 1 || !strings.Contains(errOut, "arena new is for the server's admins") {
			t.Errorf("a player's arena new: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(nil, "guest", args("guest's")...))
		if code != 1 || !strings.Contains(errOut, "guests cannot set up arenas") {
			t.Errorf("a guest's arena new: exit %d, %q", code, errOut)
		}
		if code, _, errOut := f.run(session(f.admin, "root", args("admin's", "--every", "day")...)); code != 0 {
			t.Errorf("an admin's arena new: exit %d, %q", code, errOut)
		}
		if n := len(f.storedArenas()); n != 1 {
			t.Errorf("%d arenas stored, want 1", n)
		}
	})
	t.Run("without admins", func(t *testing.T) {
		f := newArenaFixture(t, false, nil)
		alice, _ := f.player("alice")
		bob, _ := f.player("bob")
		for i := range arenasPerDay {
			if code, _, errOut := f.run(session(alice, "alice", args(fmt.Sprintf("alice %d", i+1))...)); code != 0 {
				t.Fatalf("alice's arena %d: exit %d, %q", i+1, code, errOut)
			}
			f.clock.Advance(time.Hour)
		}
		code, _, errOut := f.run(session(alice, "alice", args("one too many")...))
		if code != 1 || !strings.Contains(errOut, fmt.Sprintf("you set up %d arenas in the last 24 hours", arenasPerDay)) {
			t.Errorf("alice's arena %d: exit %d, %q", arenasPerDay+1, code, errOut)
		}
		code, _, errOut = f.run(session(bob, "bob", args("repeating", "--every", "week")...))
		if code != 1 || !strings.Contains(errOut, "only admins set up arenas that repeat") {
			t.Errorf("bob's repeating arena: exit %d, %q", code, errOut)
		}
		if code, _, errOut := f.run(session(bob, "bob", args("bob's")...)); code != 0 {
			t.Errorf("bob's arena: exit %d, %q (alice's limit is hers)", code, errOut)
		}
		code, _, errOut = f.run(session(nil, "guest", args("guest's")...))
		if code != 1 || !strings.Contains(errOut, "guests cannot") {
			t.Errorf("a guest's arena new: exit %d, %q", code, errOut)
		}
		// A day after her first, alice may again.
		f.clock.Advance(24*time.Hour - time.Duration(arenasPerDay-1)*time.Hour)
		if code, _, errOut := f.run(session(alice, "alice", args("next day")...)); code != 0 {
			t.Errorf("alice's arena a day later: exit %d, %q", code, errOut)
		}
		if n := len(f.storedArenas()); n != arenasPerDay+2 {
			t.Errorf("%d arenas stored, want %d", n, arenasPerDay+2)
		}
	})
}

// TestArenaEditCancel: an upcoming arena is changed, a started one is
// not; a cancelled one cannot be cancelled again, a finished one not at
// all; on a server without admins, only by its creator; every change is
// in the audit log.
func TestArenaEditCancel(t *testing.T) {
	t.Run("admin", func(t *testing.T) {
		f := newArenaFixture(t, true, nil)
		alice, ap := f.player("alice")
		up := f.create("Friday", arenaNow.Add(2*time.Hour), time.Hour, ap.ID)
		id := strconv.FormatInt(up.ID, 10)
		code, out, errOut := f.run(session(f.admin, "root", "arena", "edit", id, "double", "--name", "Saturday", "--duration", "2h", "--game", "6m"))
		got, _ := f.st.Arena(context.Background(), up.ID)
		if code != 0 || got.Name != "Saturday" || got.Duration != 2*time.Hour || got.GameTime != 6*time.Minute ||
			got.RulesID != engine.MustRules("double").ID() || !got.Start.Equal(up.Start) || got.CreatedBy != ap.ID ||
			!strings.Contains(out, "arena "+id+" changed") {
			t.Fatalf("arena edit: exit %d, %q %q; stored %+v", code, out, errOut, got)
		}
		code, _, errOut = f.run(session(f.admin, "root", "arena", "edit", id))
		if code != 2 || !strings.Contains(errOut, "needs something to change") {
			t.Errorf("arena edit with nothing: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(f.admin, "root", "arena", "edit", id, "--duration", "0"))
		if code != 1 || !strings.Contains(errOut, "the duration must be") {
			t.Errorf("arena edit to no duration: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(alice, "alice", "arena", "edit", id, "--name", "mine"))
		if code != 1 || !strings.Contains(errOut, "arena edit is for the server's admins") {
			t.Errorf("the creator's edit on a server with admins: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(f.admin, "root", "arena", "edit", "999", "--name", "x"))
		if code != 1 || !strings.Contains(errOut, "no arena 999") {
			t.Errorf("arena edit 999: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(f.admin, "root", "arena", "cancel", "x1"))
		if code != 2 || !strings.Contains(errOut, `"x1" is no arena number`) {
			t.Errorf("arena cancel x1: exit %d, %q", code, errOut)
		}

		f.clock.Advance(2 * time.Hour) // it started
		code, _, errOut = f.run(session(f.admin, "root", "arena", "edit", id, "--name", "late"))
		if code != 1 || !strings.Contains(errOut, "has started") {
			t.Errorf("arena edit of a running arena: exit %d, %q", code, errOut)
		}
		code, out, errOut = f.run(session(f.admin, "root", "arena", "cancel", id))
		if got, _ := f.st.Arena(context.Background(), up.ID); code != 0 || !got.Cancelled || !strings.Contains(out, "cancelled") {
			t.Errorf("arena cancel: exit %d, %q %q; stored %+v", code, out, errOut, got)
		}
		code, _, errOut = f.run(session(f.admin, "root", "arena", "cancel", id))
		if code != 1 || !strings.Contains(errOut, "cancelled already") {
			t.Errorf("a second arena cancel: exit %d, %q", code, errOut)
		}
		done := f.create("done", f.clock.Now(), 30*time.Minute, ap.ID)
		f.clock.Advance(time.Hour)
		code, _, errOut = f.run(session(f.admin, "root", "arena", "cancel", strconv.FormatInt(done.ID, 10)))
		if code != 1 || !strings.Contains(errOut, "has finished") {
			t.Errorf("arena cancel of a finished arena: exit %d, %q", code, errOut)
		}
		log, _ := f.st.AuditLog(context.Background(), "", 10)
		var actions []string
		for _, e := range log {
			actions = append(actions, e.Action+" "+e.Subject)
		}
		if want := []string{store.AuditArenaCancel + " arena " + id, store.AuditArenaEdit + " arena " + id}; strings.Join(actions, ",") != strings.Join(want, ",") {
			t.Errorf("audit log %q, want %q", actions, want)
		}
	})
	t.Run("creator without admins", func(t *testing.T) {
		f := newArenaFixture(t, false, nil)
		alice, _ := f.player("alice")
		bob, _ := f.player("bob")
		code, _, errOut := f.run(session(alice, "alice", "arena", "new", "classic", "--start", "+1h", "--duration", "1h", "--name", "alice's"))
		list := f.storedArenas()
		if code != 0 || len(list) != 1 {
			t.Fatalf("alice's arena new: exit %d, %q", code, errOut)
		}
		id := strconv.FormatInt(list[0].ID, 10)
		code, _, errOut = f.run(session(bob, "bob", "arena", "edit", id, "--name", "bob's now"))
		if code != 1 || !strings.Contains(errOut, "not yours to edit") {
			t.Errorf("bob's edit of alice's arena: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(bob, "bob", "arena", "cancel", id))
		if code != 1 || !strings.Contains(errOut, "not yours to cancel") {
			t.Errorf("bob's cancel of alice's arena: exit %d, %q", code, errOut)
		}
		code, _, errOut = f.run(session(alice, "alice", "arena", "edit", id, "--every", "day"))
		if code != 1 || !strings.Contains(errOut, "only admins") {
			t.Errorf("alice making hers repeat: exit %d, %q", code, errOut)
		}
		if code, _, errOut := f.run(session(alice, "alice", "arena", "edit", id, "--start", "+3h")); code != 0 {
			t.Errorf("alice's edit: exit %d, %q", code, errOut)
		}
		if got, _ := f.st.Arena(context.Background(), list[0].ID); !got.Start.Equal(arenaNow.Add(3 * time.Hour)) {
			t.Errorf("alice's edit stored start %v", got.Start)
		}
		if code, _, errOut := f.run(session(alice, "alice", "arena", "cancel", id)); code != 0 {
			t.Errorf("alice's cancel: exit %d, %q", code, errOut)
		}
	})
}

// TestArenasList: arenas lists the upcoming, the running (with players
// and leader) and those finished in the last 7 days, none cancelled.
func TestArenasList(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	alice, ap := f.player("alice")
	_, bp := f.player("bob")
	old := f.create("old", arenaNow, time.Hour, ap.ID)
	f.clock.Advance(3 * 24 * time.Hour)
	recent := f.create("recent", f.clock.Now(), time.Hour, ap.ID)
	f.race(recent.ID, "recent-1", bp, ap)
	f.clock.Advance(5 * 24 * time.Hour) // old ended 8 days ago, recent 5
	running := f.create("running", f.clock.Now(), time.Hour, ap.ID)
	f.race(running.ID, "running-1", ap, bp)
	upcoming := f.create("upcoming", f.clock.Now().Add(time.Hour), time.Hour, ap.ID)
	gone := f.create("gone", f.clock.Now().Add(time.Hour), time.Hour, ap.ID)
	if _, err := f.st.CancelArena(context.Background(), gone.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(10 * time.Minute)

	code, out, errOut := f.run(session(alice, "alice", "arenas", "--json"))
	var list []arenaJSON
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("arenas --json: exit %d, %v, %q", code, err, errOut)
	}
	type row struct {
		id      int64
		phase   arena.Phase
		players int
		leader  string
	}
	want := []row{{recent.ID, arena.Finished, 2, "bob"}, {running.ID, arena.Running, 2, "alice"}, {upcoming.ID, arena.Upcoming, 0, ""}}
	var got []row
	for _, j := range list {
		got = append(got, row{j.ID, arena.Phase(j.Phase), j.Players, j.Leader})
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("arenas --json: %+v, want %+v", got, want)
	}
	code, out, _ = f.run(session(alice, "alice", "arenas"))
	for _, w := range []string{"recent", "running", "upcoming", "alice (" + strconv.Itoa(arena.WinPoints+arena.ClearBonus) + ")", "finished", "Classic"} {
		if !strings.Contains(out, w) {
			t.Errorf("arenas lacks %q:\n%s", w, out)
		}
	}
	if code != 0 || strings.Contains(out, old.Name) || strings.Contains(out, gone.Name) {
		t.Errorf("arenas: exit %d, lists an old or cancelled arena:\n%s", code, out)
	}
	// A guest may read them.
	if code, out, errOut := f.run(session(nil, "guest", "arenas")); code != 0 || !strings.Contains(out, "running") {
		t.Errorf("a guest's arenas: exit %d, %q %q", code, out, errOut)
	}
}

// TestArenaShow: arena ID prints the arena and its standings with ranks,
// streak marks and the player's own line; a finished one its podium; the
// same in --json. With a terminal, arena ID opens a screen and the other
// words stay text.
func TestArenaShow(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	alice, ap := f.player("alice")
	bob, bp := f.player("bob")
	_, cp := f.player("carol")
	_, dp := f.player("dave")
	ev := f.create("Friday night", arenaNow, time.Hour, ap.ID)
	id := strconv.FormatInt(ev.ID, 10)

	code, out, _ := f.run(session(alice, "alice", "arena", id))
	if code != 0 || !strings.Contains(out, "nobody has played a game in it yet") || !strings.Contains(out, "running: 1h0m left") {
		t.Errorf("arena %s before a game: exit %d\n%s", id, code, out)
	}
	// alice wins twice (a streak), bob and carol share nothing, dave last.
	f.race(ev.ID, "r1", ap, bp, cp)
	f.race(ev.ID, "r2", ap, cp, dp)
	lines, _ := f.st.ArenaStandings(context.Background(), ev.ID, 0)
	code, out, _ = f.run(session(bob, "bob", "arena", id))
	if code != 0 {
		t.Fatalf("arena %s: exit %d", id, code)
	}
	for _, l := range lines {
		want := fmt.Sprintf("%d  %s", l.Rank, l.PlayerName)
		if !strings.Contains(out, want) {
			t.Errorf("arena %s lacks %q:\n%s", id, want, out)
		}
	}
	if !strings.Contains(out, "×2") || !strings.Contains(out, "← you") || strings.Contains(out, "podium") {
		t.Errorf("arena %s: want a streak mark, bob's line, no podium yet:\n%s", id, out)
	}
	var rep arenaReport
	code, out, _ = f.run(session(bob, "bob", "arena", id, "--json"))
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Standings) != len(lines) {
		t.Fatalf("arena %s --json: exit %d, %v\n%s", id, code, err, out)
	}
	for i, l := range lines {
		s := rep.Standings[i]
		if s.Rank != l.Rank || s.Points != l.Points || s.Games != l.Games || s.OnStreak != l.OnStreak() || s.You != (l.PlayerID == bp.ID) {
			t.Errorf("arena --json line %d: %+v, stored %+v", i+1, s, l)
		}
	}
	if !rep.Standings[0].OnStreak || rep.Standings[0].Name != "alice" || rep.Arena.Phase != string(arena.Running) || rep.Podium != nil {
		t.Errorf("arena --json: %+v", rep)
	}

	f.clock.Advance(time.Hour)
	code, out, _ = f.run(session(nil, "guest", "arena", id, "--json"))
	rep = arenaReport{}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Arena.Phase != string(arena.Finished) {
		t.Fatalf("arena %s --json once finished: exit %d, %v\n%s", id, code, err, out)
	}
	var podium []string
	for _, l := range lines {
		if l.Rank <= 3 && l.Points > 0 {
			podium = append(podium, fmt.Sprintf("%d. %s (%d)", l.Rank, l.PlayerName, l.Points))
		}
	}
	if len(rep.Podium) != len(podium) {
		t.Errorf("podium %+v, want %q", rep.Podium, podium)
	}
	_, out, _ = f.run(session(nil, "guest", "arena", id))
	if want := "podium: " + strings.Join(podium, " · "); !strings.Contains(out, want) {
		t.Errorf("arena %s once finished lacks %q:\n%s", id, want, out)
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"arena", "999"}, 1, "no arena 999"},
		{[]string{"arena", "abc"}, 2, `"abc" is no arena number`},
		{[]string{"arena", "-5"}, 2, ""},
		{[]string{"arena"}, 2, "arena needs an arena's number"},
		{[]string{"arena", "1", "2"}, 2, "unexpected argument"},
		{[]string{"arena", id, "--start", "now"}, 2, "are for arena new and arena edit"},
		{[]string{"arena", "cancel", id, "--name", "x"}, 2, "arena cancel takes the arena's number alone"},
		{[]string{"arena", "new", "classic", "--json"}, 2, "--json is for arena ID"},
	} {
		code, _, errOut := f.run(session(alice, "alice", tt.args...))
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, %q; want %d, %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
	// --help lists every flag, the settings' too.
	if code, out, _ := f.run(session(alice, "alice", "arena", "--help")); code != 0 || !strings.Contains(out, "--start") ||
		!strings.Contains(out, "--every") || !strings.Contains(out, "--json") {
		t.Errorf("arena --help: exit %d\n%s", code, out)
	}
	// With a terminal: arena ID is the arena's screen and arena alone the
	// list (handed to the TUI); the rest runs as text.
	for _, tt := range []struct {
		args []string
		text bool
	}{
		{[]string{"arena", id}, false},
		{[]string{"arena"}, false}, // the list of arenas to join
		{[]string{"arena", id, "--json"}, true},
		{[]string{"arena", "new", "classic"}, true},
		{[]string{"arena", "cancel", id}, true},
		{[]string{"arenas"}, true},
		{[]string{"arena", id, "--help"}, true},
	} {
		if got := f.app.IsCommand(tt.args); got != tt.text {
			t.Errorf("IsCommand(%q) = %v, want %v", tt.args, got, tt.text)
		}
	}
}

// TestClockWords: a time to go reads as the arena screen's clock shows
// it, in whole minutes (never a minute more than the clock), and in
// seconds under a minute.
func TestClockWords(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{7*time.Minute + 6*time.Second, "7m"},
		{7*time.Minute + 59*time.Second, "7m"},
		{time.Minute, "1m"},
		{40 * time.Second, "40s"},
		{0, "0s"},
		{-time.Second, "0s"},
		{time.Hour + 5*time.Minute + 30*time.Second, "1h5m"},
		{3 * time.Hour, "3h0m"},
	} {
		if got := clockWords(tt.d); got != tt.want {
			t.Errorf("clockWords(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestStatsTrophies: stats lists the player's arena trophies, on the
// arena's rule set, as text and --json; an arena still running gives none.
func TestStatsTrophies(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	alice, ap := f.player("alice")
	bob, bp := f.player("bob")
	ev := f.create("Cup", arenaNow, time.Hour, ap.ID)
	f.race(ev.ID, "r1", bp, ap)
	f.race(ev.ID, "r2", bp, ap)

	_, out, _ := f.run(session(bob, "bob", "stats"))
	if strings.Contains(out, "arena trophies") {
		t.Errorf("a trophy before the arena finished:\n%s", out)
	}
	f.clock.Advance(time.Hour)
	code, out, _ := f.run(session(bob, "bob", "stats"))
	if code != 0 || !strings.Contains(out, "arena trophies") || !strings.Contains(out, fmt.Sprintf("%d Cup", ev.ID)) || !strings.Contains(out, "1st of 2") {
		t.Errorf("bob's stats once the arena finished:\n%s", out)
	}
	line, _ := f.st.ArenaPlayer(context.Background(), ev.ID, bp.ID)
	code, out, _ = f.run(session(bob, "bob", "stats", "--json"))
	var reps []statsReport
	if err := json.Unmarshal([]byte(out), &reps); code != 0 || err != nil {
		t.Fatalf("stats --json: exit %d, %v", code, err)
	}
	var trophies []trophyJSON
	for _, r := range reps {
		if r.Rules == ev.RulesID {
			trophies = r.Arenas
		}
	}
	if len(trophies) != 1 || trophies[0].ArenaID != ev.ID || trophies[0].Rank != 1 || trophies[0].Points != line.Points ||
		trophies[0].Players != 2 || !trophies[0].Ended.Equal(ev.End()) {
		t.Errorf("bob's trophies in stats --json: %+v (line %+v)", trophies, line)
	}
	// alice was last with no point: no trophy.
	if _, out, _ := f.run(session(alice, "alice", "stats")); strings.Contains(out, "arena trophies") {
		t.Errorf("alice, last with no point, has a trophy:\n%s", out)
	}
	// Another rule set's stats leave it out.
	if _, out, _ := f.run(session(bob, "bob", "stats", "double")); strings.Contains(out, "Cup") {
		t.Errorf("stats double lists a classic arena's trophy:\n%s", out)
	}
}

// winnersCounted is a store whose boards are given, counting the calls
// of ArenaWinners.
type winnersCounted struct {
	store.Store
	calls   atomic.Int32
	winners map[string]store.Trophy
	top     []store.TopEntry
	ratings []store.RatingEntry
	daily   []store.DailyEntry
}

func (s *winnersCounted) ArenaWinners(context.Context, time.Time, time.Time) (map[string]store.Trophy, error) {
	s.calls.Add(1)
	return s.winners, nil
}

func (s *winnersCounted) Top(context.Context, string, store.TopOrder, int) ([]store.TopEntry, error) {
	return s.top, nil
}

func (s *winnersCounted) TopRatings(context.Context, string, int) ([]store.RatingEntry, error) {
	return s.ratings, nil
}

func (s *winnersCounted) Leaderboard(context.Context, string, string, int) ([]store.DailyEntry, error) {
	return s.daily, nil
}

// TestBoardsMarkArenaWinners: every board marks the names of recent arena
// winners, and only theirs, with one ArenaWinners call a board.
func TestBoardsMarkArenaWinners(t *testing.T) {
	var ws *winnersCounted
	f := newArenaFixture(t, true, func(st store.Store) store.Store {
		ws = &winnersCounted{Store: st, winners: map[string]store.Trophy{"id-ann": {ArenaID: 3, Rank: 1}}}
		for i, n := range []string{"ann", "bob", "cid"} {
			id := "id-" + n
			ws.top = append(ws.top, store.TopEntry{Rank: i + 1, PlayerID: id, PlayerName: n, Won: 9 - i, Played: 10})
			ws.ratings = append(ws.ratings, store.RatingEntry{Rank: i + 1, PlayerID: id, PlayerName: n,
				Rating: store.Rating{Display: 1600 - 10*float64(i), Races: 20}})
			ws.daily = append(ws.daily, store.DailyEntry{Rank: i + 1, PlayerID: id, PlayerName: n, Removed: 28 - i})
		}
		return ws
	})
	alice, _ := f.player("alice")
	for _, board := range [][]string{{"top", "classic"}, {"top", "race", "classic"}, {"top", "daily"}} {
		before := ws.calls.Load()
		code, out, errOut := f.run(session(alice, "alice", board...))
		if code != 0 || ws.calls.Load() != before+1 {
			t.Fatalf("%q: exit %d, %q; %d ArenaWinners calls, want 1", board, code, errOut, ws.calls.Load()-before)
		}
		if !strings.Contains(out, "ann "+winnerMark) || strings.Contains(out, "bob "+winnerMark) || strings.Count(out, winnerMark) != 2 {
			t.Errorf("%q: want ann marked, and the legend:\n%s", board, out)
		}
		_, out, _ = f.run(session(alice, "alice", append(board, "--json")...))
		var rows []struct {
			Name   string `json:"name"`
			Winner bool   `json:"arena_winner"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
			t.Fatalf("%q --json: %v\n%s", board, err, out)
		}
		for _, r := range rows {
			if r.Winner != (r.Name == "ann") {
				t.Errorf("%q --json: %s arena_winner %v", board, r.Name, r.Winner)
			}
		}
	}
	// No winner: no mark, no legend.
	ws.winners = nil
	if _, out, _ := f.run(session(alice, "alice", "top", "classic")); strings.Contains(out, winnerMark) {
		t.Errorf("top classic without winners shows the mark:\n%s", out)
	}
}

// TestArenaWinnersFromStore: the marks come from the arenas that finished
// in the last 7 days: a winner's older win marks nothing.
func TestArenaWinnersFromStore(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	_, ap := f.player("alice")
	_, bp := f.player("bob")
	ev := f.create("Cup", arenaNow, time.Hour, ap.ID)
	f.race(ev.ID, "r1", bp, ap)
	f.clock.Advance(time.Hour)
	ctx := context.Background()
	c := &call{a: f.app, ctx: ctx, s: &server.Session{Args: []string{"top"}}, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	if w := c.arenaWinners(ctx); len(w) != 1 || w[bp.ID].ArenaID != ev.ID {
		t.Errorf("winners just after the arena: %+v", w)
	}
	f.clock.Advance(arenaWinMarked + time.Minute)
	if w := c.arenaWinners(ctx); len(w) != 0 {
		t.Errorf("winners a week after the arena: %+v", w)
	}
}

// TestArenasRecur: once a weekly arena started, `arenas` lists its next
// occurrence a week later, set up once however often it is listed.
func TestArenasRecur(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	alice, ap := f.player("alice")
	e, err := f.st.CreateArena(context.Background(), arena.Event{Name: "Friday night", RulesID: "classic", Start: f.clock.Now().Add(time.Hour),
		Duration: time.Hour, Every: arena.Weekly, CreatedBy: ap.ID})
	if err != nil {
		t.Fatal(err)
	}
	list := func() []arenaJSON {
		t.Helper()
		code, out, errOut := f.run(session(alice, "alice", "arenas", "--json"))
		var l []arenaJSON
		if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil {
			t.Fatalf("arenas --json: exit %d, %v, %q", code, err, errOut)
		}
		return l
	}
	if l := list(); len(l) != 1 {
		t.Fatalf("before the start: %d arenas, want 1 (the next is set up once this one starts)", len(l))
	}
	f.clock.Advance(90 * time.Minute)
	list()
	l := list()
	if len(l) != 2 || l[0].ID != e.ID || l[1].Phase != string(arena.Upcoming) {
		t.Fatalf("after the start: %+v", l)
	}
	next, err := f.st.Arena(context.Background(), l[1].ID)
	if err != nil || !next.Start.Equal(e.Start.AddDate(0, 0, 7)) || next.Series != e.ID || next.Name != e.Name {
		t.Errorf("the next occurrence: %+v, %v", next, err)
	}
}

// TestArenaNewAddressBudget: on a server without admins, the arenas set
// up from one address spend its budget, whichever keys they come from.
func TestArenaNewAddressBudget(t *testing.T) {
	f := newArenaFixture(t, false, nil)
	b, err := budget.New(budget.Config{Now: f.clock.Now, Limits: map[budget.Kind]budget.Limit{budget.ArenaMade: {N: 2, Per: 24 * time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	f.app.budgets = b
	from := func(name, ip string) *server.Session {
		key, _ := f.player(name)
		s := session(key, name, "arena", "new", "classic", "--start", "+1h", "--duration", "1h", "--name", name+"'s")
		s.RemoteAddr = &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}
		return s
	}
	for _, tt := range []struct {
		name, ip string
		ok       bool
	}{
		{"alice", "192.0.2.7", true},
		{"bob", "192.0.2.7", true},
		{"carol", "192.0.2.7", false},
		{"dave", "198.51.100.1", true},
	} {
		code, _, errOut := f.run(from(tt.name, tt.ip))
		if (code == 0) != tt.ok || !tt.ok && !strings.Contains(errOut, "too many arenas set up from your address") {
			t.Errorf("%s from %s: exit %d, %q; want ok %v", tt.name, tt.ip, code, errOut, tt.ok)
		}
	}
	if n := len(f.storedArenas()); n != 3 {
		t.Errorf("%d arenas stored, want 3", n)
	}
}

// TestArenaShowLongStandings: arena ID prints the first lines of a long
// standings and the player's own after them; its players are all of them.
func TestArenaShowLongStandings(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	ctx := context.Background()
	me, mp := f.player("me")
	ev := f.create("Crowd", arenaNow, time.Hour, mp.ID)
	const players = maxArenaLines + 5
	for i := range players {
		p := mp
		if i > 0 {
			var err error
			if p, _, err = f.st.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:crowd-%d", i), fmt.Sprintf("crowd%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		// A solo deal each: cleared by all but me.
		nr := store.NewRace{Key: fmt.Sprintf("solo-%d", i), RulesID: "classic", DealNumber: 7, Started: arenaNow,
			Ended: arenaNow.Add(time.Minute), Racers: 1, Rated: true, Verdict: engine.Winnable,
			Placings: []store.RacePlacing{{PlayerID: p.ID, Place: 1, Removed: 28, Outcome: store.OutcomeCleared, Cleared: true}}}
		if i == 0 {
			nr.Placings[0].Removed, nr.Placings[0].Outcome, nr.Placings[0].Cleared = 3, store.OutcomeStuck, false
		}
		id, err := f.st.RecordRace(ctx, nr)
		if err == nil {
			_, err = f.st.RecordArenaRace(ctx, ev.ID, id, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := f.run(session(me, "me", "arena", strconv.FormatInt(ev.ID, 10), "--json"))
	var rep arenaReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("arena --json: exit %d, %v", code, err)
	}
	last := rep.Standings[len(rep.Standings)-1]
	if rep.Arena.Players != players || len(rep.Standings) != maxArenaLines+1 || !last.You || last.Rank != players || last.Points != 0 {
		t.Errorf("arena --json of %d players: players %d, %d lines, the last %+v", players, rep.Arena.Players, len(rep.Standings), last)
	}
}

// TestDailyBoardChampion: the menu's daily board marks the players who
// won an arena in the last week.
func TestDailyBoardChampion(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	_, ap := f.player("alice")
	_, bp := f.player("bob")
	ev := f.create("Cup", arenaNow, time.Hour, ap.ID)
	f.race(ev.ID, "r1", bp, ap)
	f.clock.Advance(time.Hour)
	ctx := context.Background()
	day := f.clock.Now().UTC().Format(store.DateFormat)
	for _, p := range []store.Player{ap, bp} {
		g, err := f.st.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "daily", Daily: day, Owner: "s"})
		if err != nil {
			t.Fatal(err)
		}
		st := store.State{Status: store.StatusWon, Removed: 28, Elapsed: time.Minute}
		if err := f.st.FinishGame(ctx, g.ID, "s", g.Version, st, &store.Result{GameID: g.ID, Won: true, Removed: 28, Moves: 30, Elapsed: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	board, err := f.app.account(ap.ID, "", "").Board(ctx, "daily", day, 10)
	if err != nil || len(board) != 2 {
		t.Fatalf("board %+v, %v", board, err)
	}
	for _, e := range board {
		if e.Champion != (e.Name == "bob") {
			t.Errorf("%s: champion %v", e.Name, e.Champion)
		}
	}
}

// TestPlayerArenas: a player's finishes on the podium of arenas that are
// over, for their page, with their lines; nothing before the end.
func TestPlayerArenas(t *testing.T) {
	f := newArenaFixture(t, true, nil)
	_, ap := f.player("alice")
	_, bp := f.player("bob")
	ev := f.create("Cup", arenaNow, time.Hour, ap.ID)
	f.race(ev.ID, "r1", bp, ap)
	ctx := context.Background()
	if fs, err := f.app.PlayerArenas(ctx, bp.ID, 10); err != nil || len(fs) != 0 {
		t.Fatalf("while it runs: %+v, %v", fs, err)
	}
	f.clock.Advance(time.Hour)
	fs, err := f.app.PlayerArenas(ctx, bp.ID, 10)
	if err != nil || len(fs) != 1 {
		t.Fatalf("after the end: %+v, %v", fs, err)
	}
	if got := fs[0]; got.Arena.ID != ev.ID || got.Rank != 1 || got.Players != 2 || got.Games != 1 || got.Wins != 1 || got.Points == 0 {
		t.Errorf("bob's finish: %+v", got)
	}
}
