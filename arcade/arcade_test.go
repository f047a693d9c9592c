package arcade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/server"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/sqlstore"
	"pyramid/tui"
)

// fixture is an arcade over a fresh SQLite store.
type fixture struct {
	t     *testing.T
	st    store.Store
	app   *App
	admin gossh.Signer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureDB(t, "")
}

// newFixtureDB is newFixture on the database at dbURL (SQLite when empty).
func newFixtureDB(t *testing.T, dbURL string) *fixture {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), t.TempDir(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	admin := sshtest.NewKey(t)
	admins, err := keys.ParseAdmins(gossh.FingerprintSHA256(admin.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	app := New(Config{Store: st, Admins: admins, Logger: log.New(&bytes.Buffer{}), Connect: "ssh -p 23234 test"})
	return &fixture{t: t, st: st, app: app, admin: admin}
}

// session is a session of a key (nil: a guest) with a user name and args.
func session(key gossh.Signer, user string, args ...string) *server.Session {
	s := &server.Session{User: user, Args: args}
	if key != nil {
		s.PublicKey = key.PublicKey()
		s.Identity = gossh.FingerprintSHA256(key.PublicKey())
	}
	return s
}

// run runs a plain-text command and returns its exit status and output.
func (f *fixture) run(s *server.Session) (int, string, string) {
	var out, errOut bytes.Buffer
	code := f.app.Exec(context.Background(), s, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestExecBasics(t *testing.T) {
	f := newFixture(t)
	alice := sshtest.NewKey(t)
	code, out, _ := f.run(session(alice, "alice", "help"))
	if code != 0 || !strings.Contains(out, "replay ID") || !strings.Contains(out, "ssh -p 23234 test") {
		t.Fatalf("help: exit %d\n%s", code, out)
	}
	code, _, errOut := f.run(session(alice, "alice", "fly", "\x1b[2J"))
	if code != 1 || !strings.Contains(errOut, `unknown command "fly"`) {
		t.Fatalf("unknown command: exit %d, %q", code, errOut)
	}
	code, _, errOut = f.run(session(alice, "alice", "\x1b]52;c;aGk=\x07"))
	if code != 1 || strings.ContainsAny(errOut, "\x1b\x07") {
		t.Fatalf("hostile command echoed raw: %q", errOut)
	}
	code, _, errOut = f.run(session(alice, "alice", "double", "7"))
	if code != 1 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("deep link without a PTY: exit %d, %q", code, errOut)
	}
	code, _, errOut = f.run(session(alice, "alice"))
	if code != 1 || !strings.Contains(errOut, "no terminal") {
		t.Fatalf("no command, no PTY: exit %d, %q", code, errOut)
	}
	code, out, _ = f.run(session(alice, "alice", "whoami", "--json"))
	var who whoamiReport
	if err := json.Unmarshal([]byte(out), &who); code != 0 || err != nil || who.Name != "alice" || who.ID != gossh.FingerprintSHA256(alice.PublicKey()) || len(who.Keys) != 1 {
		t.Fatalf("whoami --json: exit %d, %+v (%v)", code, who, err)
	}
	code, _, errOut = f.run(session(nil, "", "stats"))
	if code != 1 || !strings.Contains(errOut, "guests have no records") {
		t.Fatalf("guest stats: exit %d, %q", code, errOut)
	}
	code, _, errOut = f.run(session(alice, "alice", "stats", "--bogus\x1b[31m"))
	if code != 2 || strings.Contains(errOut, "\x1b") {
		t.Fatalf("bad flag: exit %d, %q", code, errOut)
	}
}

// winningRecord returns the record of a classic game the heuristic wins.
func winningRecord(t *testing.T) engine.Record {
	t.Helper()
	for seed := uint64(0); seed < 2000; seed++ {
		g, _ := engine.NewNumbered(engine.Classic(), seed)
		for g.Status() == engine.Playing {
			m, ok := g.Hint()
			if !ok || g.Apply(m) != nil {
				break
			}
		}
		if g.Status() == engine.Won {
			return g.Record()
		}
	}
	t.Fatal("no deal below 2000 won by the heuristic")
	return engine.Record{}
}

func TestGamesAdapter(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	p, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	one := plainGames(f.st, "session-one")
	rec := engine.Record{Rules: "classic", Deal: 42, Moves: []string{"7.2+7.3", "d"}}
	// The screen's figures are not trusted: Removed 99 is ignored.
	id, err := one.Save(ctx, p.ID, tui.SavedGame{Record: rec, Status: tui.StatusPlaying, Removed: 99})
	if err != nil || id == "" {
		t.Fatalf("first save: %q, %v", id, err)
	}
	list, err := one.Unfinished(ctx, p.ID)
	if err != nil || len(list) != 1 || list[0].Removed != 2 || strings.Join(list[0].Record.Moves, " ") != "7.2+7.3 d" {
		t.Fatalf("unfinished: %+v, %v", list, err)
	}
	// An illegal record is refused, not stored.
	bad := rec
	bad.Moves = []string{"6.1"}
	if _, err := one.Save(ctx, p.ID, tui.SavedGame{ID: id, Record: bad, Status: tui.StatusPlaying}); err == nil {
		t.Fatal("illegal moves saved")
	}
	// A second session takes the game over; the first is told.
	two := plainGames(f.st, "session-two")
	if _, err := two.Resume(ctx, p.ID, id); err != nil {
		t.Fatal(err)
	}
	rec.Moves = append(rec.Moves, "d")
	if _, err := one.Save(ctx, p.ID, tui.SavedGame{ID: id, Record: rec, Status: tui.StatusPlaying}); !errors.Is(err, tui.ErrTakenOver) {
		t.Fatalf("save after takeover: got %v, want %v", err, tui.ErrTakenOver)
	}
	// Starting another classic game abandons the unfinished one.
	won := winningRecord(t)
	wid, err := two.Save(ctx, p.ID, tui.SavedGame{Record: won, Status: tui.StatusPlaying, Played: 3 * time.Minute})
	if err != nil {
		t.Fatalf("save won game: %v", err)
	}
	list, _ = two.Unfinished(ctx, p.ID)
	if len(list) != 0 {
		t.Fatalf("after a won save: %d unfinished games, want 0", len(list))
	}
	stats, err := f.st.Stats(ctx, p.ID, "classic")
	if err != nil || stats.Played != 2 || stats.Won != 1 || stats.BestTime != 3*time.Minute {
		t.Fatalf("stats: %+v (%v); want 2 played (one abandoned), 1 won in 3m", stats, err)
	}
	code, out, _ := f.run(session(key, "ann", "games", "--json"))
	var reps []gameReport
	if err := json.Unmarshal([]byte(out), &reps); code != 0 || err != nil || len(reps) != 2 {
		t.Fatalf("games --json: exit %d, %v\n%s", code, err, out)
	}
	if reps[0].Status != "won" || reps[1].Status != "abandoned" || reps[1].Deal != 42 || len(reps[1].Moves) != 2 {
		t.Fatalf("games: %+v", reps)
	}
	code, out, _ = f.run(session(key, "ann", "replay", wid))
	if code != 0 || !strings.Contains(out, "won") || !strings.Contains(out, "28/28 removed") {
		t.Fatalf("replay: exit %d\n%s", code, out)
	}
	code, out, _ = f.run(session(key, "ann", "stats"))
	if code != 0 || !strings.Contains(out, "classic") || !strings.Contains(out, "50.0") {
		t.Fatalf("stats: exit %d\n%s", code, out)
	}
}

func TestNamesLinksAndBans(t *testing.T) {
	f := newFixture(t)
	alice, bob, eve := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	f.run(session(alice, "alice", "whoami"))
	for _, hostile := range []string{"\x1b[2J", "a\x1b]52;c;aGk=\x07", "x\u009b31m", "evil\u202egnp", strings.Repeat("a", 10000), "e" + strings.Repeat("\u0301", 1000)} {
		code, out, errOut := f.run(session(alice, "alice", "name", hostile))
		if code != 1 || out != "" || strings.ContainsAny(errOut, "\x1b\x07\u009b\u202e") || len(errOut) > 300 {
			t.Errorf("name %q: exit %d, stdout %q, stderr %q", hostile[:min(len(hostile), 12)], code, out, errOut)
		}
	}
	if code, out, _ := f.run(session(alice, "alice", "name", "Ann.B")); code != 0 || !strings.Contains(out, "Ann.B") {
		t.Fatalf("rename: exit %d, %q", code, out)
	}
	f.run(session(bob, "bob", "whoami"))
	if code, _, errOut := f.run(session(bob, "bob", "name", "ann.b")); code != 1 || !strings.Contains(errOut, "taken") {
		t.Fatalf("taken name: exit %d, %q", code, errOut)
	}
	// Link a second key to alice's player.
	code, out, _ := f.run(session(alice, "alice", "link"))
	fields := strings.Fields(out)
	if code != 0 || len(fields) < 3 {
		t.Fatalf("link: exit %d, %q", code, out)
	}
	linkCode := strings.TrimSuffix(fields[2], ",")
	if code, out, errOut := f.run(session(eve, "eve", "link", strings.ToLower(linkCode))); code != 0 || !strings.Contains(out, "Ann.B") {
		t.Fatalf("redeem: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := f.run(session(bob, "bob", "link", linkCode)); code != 1 || !strings.Contains(errOut, "no such link code") {
		t.Fatalf("second redeem: exit %d, %q", code, errOut)
	}
	code, out, _ = f.run(session(eve, "eve", "whoami", "--json"))
	var who whoamiReport
	if err := json.Unmarshal([]byte(out), &who); code != 0 || err != nil || who.Name != "Ann.B" || len(who.Keys) != 2 {
		t.Fatalf("whoami of the linked key: %+v (%v)", who, err)
	}
	// Only admins ban; a banned player is refused.
	if code, _, errOut := f.run(session(bob, "bob", "ban", "Ann.B")); code != 1 || !strings.Contains(errOut, "admins") {
		t.Fatalf("ban by a player: exit %d, %q", code, errOut)
	}
	if code, out, _ := f.run(session(f.admin, "root", "ban", "ann.b")); code != 0 || !strings.Contains(out, "banned") {
		t.Fatalf("ban by an admin: exit %d, %q", code, out)
	}
	if code, _, errOut := f.run(session(alice, "alice", "stats")); code != 1 || !strings.Contains(errOut, "banned") {
		t.Fatalf("banned player's command: exit %d, %q", code, errOut)
	}
	if m := f.app.Model(session(eve, "eve")); !strings.Contains(m.View(), "banned") {
		t.Fatalf("banned player's session shows %q", m.View())
	}
	if code, _, _ := f.run(session(f.admin, "root", "unban", "Ann.B")); code != 0 {
		t.Fatal("unban failed")
	}
	if code, _, _ := f.run(session(alice, "alice", "stats")); code != 0 {
		t.Fatal("unbanned player still refused")
	}
	if code, out, _ := f.run(session(f.admin, "root", "rename", "bob", "Robert")); code != 0 || !strings.Contains(out, "Robert") {
		t.Fatalf("admin rename: exit %d, %q", code, out)
	}
}

func TestTopDaily(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.app.cfg.Now = func() time.Time { return day }
	want := map[string]int{}
	for i, name := range []string{"ann", "bob"} {
		key := sshtest.NewKey(t)
		p, _, _ := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), name)
		g := plainGames(f.st, name)
		dg, _ := engine.NewNumbered(engine.MustRules("daily"), engine.DailyNumber(nil, day))
		for range 5 + 15*i {
			if m, ok := dg.Hint(); ok {
				_ = dg.Apply(m)
			}
		}
		moves := engine.Notations(dg.Moves())
		want[name] = dg.Removed()
		_, err := g.Save(ctx, p.ID, tui.SavedGame{Record: engine.Record{Rules: "daily", Deal: engine.DailyNumber(nil, day), Moves: moves},
			Status: tui.StatusAbandoned, Daily: "2026-11-30", Played: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := f.run(session(sshtest.NewKey(t), "carl", "top", "daily", "--json"))
	var board []boardReport
	if err := json.Unmarshal([]byte(out), &board); code != 0 || err != nil || len(board) != 2 || board[0].Name != "bob" || board[0].Removed != want["bob"] || board[1].Removed != want["ann"] || want["bob"] <= want["ann"] {
		t.Fatalf("top daily: exit %d, %+v (%v)\n%s", code, board, err, out)
	}
	code, _, errOut := f.run(session(sshtest.NewKey(t), "dan", "top", "daily", "--date", "30/11/2026"))
	if code != 2 || !strings.Contains(errOut, "YYYY-MM-DD") {
		t.Fatalf("bad date: exit %d, %q", code, errOut)
	}
	// A hostile word is escaped once, not twice.
	_, _, errOut = f.run(session(sshtest.NewKey(t), "dan", "top", "daily", "--date", "QA\x1b[2J"))
	if want := `bad date "QA\x1b[2J"`; !strings.Contains(errOut, want) {
		t.Fatalf("bad date with an escape: got %q, want it to contain %q", errOut, want)
	}
}

func TestAccountAdapter(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key, other := sshtest.NewKey(t), sshtest.NewKey(t)
	p, _, _ := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	q, _, _ := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(other.PublicKey()), "bob")
	day := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	acc := &account{st: f.st, now: func() time.Time { return day }, player: p.ID}
	for _, pl := range []store.Player{p, q} {
		g := plainGames(f.st, pl.Name)
		rec := engine.Record{Rules: "daily", Deal: engine.DailyNumber(nil, day), Moves: []string{"d"}}
		if _, err := g.Save(ctx, pl.ID, tui.SavedGame{Record: rec, Status: tui.StatusAbandoned, Daily: "2026-11-30", Played: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	stats, err := acc.Stats(ctx, p.ID)
	if err != nil || len(stats) != 1 || stats[0].Title != "Daily" || stats[0].Played != 1 || stats[0].BestDaily != 0 || stats[0].DailyPlayed != 1 {
		t.Fatalf("stats: %+v (%v)", stats, err)
	}
	board, err := acc.Board(ctx, "daily", "2026-11-30", 20)
	if err != nil || len(board) != 2 {
		t.Fatalf("board: %+v (%v)", board, err)
	}
	for _, e := range board {
		if e.You != (e.Name == "ann") {
			t.Fatalf("board marks the wrong line: %+v", board)
		}
	}
	if _, err := acc.Rename(ctx, p.ID, "bob"); err == nil || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("rename to a taken name: %v", err)
	}
	if _, err := acc.Rename(ctx, p.ID, "x\u202ey"); err == nil || !strings.Contains(err.Error(), "bidi") {
		t.Fatalf("rename to a bidi name: %v", err)
	}
	if got, err := acc.Rename(ctx, p.ID, "Annie"); err != nil || got != "Annie" {
		t.Fatalf("rename: %q, %v", got, err)
	}
	code, expires, err := acc.LinkCode(ctx, p.ID)
	if err != nil || len(code) != 9 || !expires.Equal(day.Add(linkValidity)) {
		t.Fatalf("link code: %q %v %v", code, expires, err)
	}
}

// TestTakeoverTellsTheOtherSession: when a session resumes a game another
// session of the player is playing, that session is told at once.
func TestTakeoverTellsTheOtherSession(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	p, _, _ := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	player := lobby.Player{ID: p.ID, Name: "ann"}
	sA, sB := f.app.lobby.Join(player), f.app.lobby.Join(player)
	a := f.app.sessionGames(p.ID, f.app.newWriterAs(sA, "a"))
	b := f.app.sessionGames(p.ID, f.app.newWriterAs(sB, "b"))
	id, err := a.Save(ctx, p.ID, tui.SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Status: tui.StatusPlaying})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resume(ctx, p.ID, id); err != nil {
		t.Fatal(err)
	}
	// The lobby posts before Resume returns: A's queue holds it already.
	if n := sA.Queue().Len(); n != 1 {
		t.Fatalf("session A's queue holds %d events, want the one that says B took its game", n)
	}
	if msg, err := (inbox{q: sA.Queue()}).Next(ctx); msg != (tui.GameTakenMsg{ID: id}) || err != nil {
		t.Fatalf("session A got %v, %v", msg, err)
	}
	if n := sB.Queue().Len(); n != 0 {
		t.Fatal("the session that took the game was told too")
	}
	// Starting another game of the same rules asks first (playtest A4):
	// the game B plays is not abandoned silently.
	next := tui.SavedGame{Record: engine.Record{Rules: "classic", Deal: 7}, Status: tui.StatusPlaying}
	_, err = a.Save(ctx, p.ID, next)
	var unfinished *tui.UnfinishedError
	if !errors.As(err, &unfinished) || !errors.Is(err, tui.ErrUnfinishedExists) || unfinished.Game.ID != id {
		t.Fatalf("a new classic game beside B's: got %v, want an UnfinishedError naming game %s", err, id)
	}
	if n := sB.Queue().Len(); n != 0 {
		t.Fatalf("session B was told something: %d events", n)
	}
	// With the player's word the old one is abandoned, and whoever still
	// shows it is told so, truthfully.
	next.Replace = id
	if _, err := a.Save(ctx, p.ID, next); err != nil {
		t.Fatal(err)
	}
	if msg, err := (inbox{q: sB.Queue()}).Next(ctx); msg != (tui.GameTakenMsg{ID: id, Reason: "your game was abandoned from another session"}) || err != nil {
		t.Fatalf("session B got %v, %v", msg, err)
	}
	_, err = b.Save(ctx, p.ID, tui.SavedGame{ID: id, Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d", "d"}}, Status: tui.StatusPlaying})
	if !errors.Is(err, tui.ErrTakenOver) || !errors.Is(err, tui.ErrAbandonedElsewhere) {
		t.Fatalf("B saves the abandoned game: got %v, want ErrTakenOver and ErrAbandonedElsewhere", err)
	}
}

// TestRedeem: a code redeemed with another key moves that key to the
// code's player: whoami from that key shows the other player.
func TestRedeem(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	alice, nina := sshtest.NewKey(t), sshtest.NewKey(t)
	f.run(session(alice, "alice", "whoami"))
	f.run(session(nina, "nina", "whoami")) // nina's key has a player of its own, with nothing in it
	aliceID := gossh.FingerprintSHA256(alice.PublicKey())
	code, _, err := f.app.account(aliceID, aliceID, "").LinkCode(ctx, aliceID)
	if err != nil {
		t.Fatal(err)
	}
	// Lower case, and O for 0, I and L for 1, are read as the code.
	typed := strings.NewReplacer("0", "o", "1", "l").Replace(strings.ToLower(code))
	exit, out, errOut := f.run(session(nina, "nina", "link", typed))
	if exit != 0 || !strings.Contains(out, "this key now plays as alice") || errOut != "" {
		t.Fatalf("link %s: exit %d, %q %q", typed, exit, out, errOut)
	}
	_, out, _ = f.run(session(nina, "nina", "whoami", "--json"))
	var who whoamiReport
	if err := json.Unmarshal([]byte(out), &who); err != nil || who.Name != "alice" || who.ID != aliceID || len(who.Keys) != 2 {
		t.Fatalf("whoami from the linked key: %+v (%v)", who, err)
	}
}

// TestRedeemRefusals: every refusal says why, in the same words through
// the adapter the menu uses and through the link command.
func TestRedeemRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	fp := func(k gossh.Signer) string { return gossh.FingerprintSHA256(k.PublicKey()) }
	alice, bob, carol, dan, erin := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	for _, k := range []struct {
		key  gossh.Signer
		name string
	}{{alice, "alice"}, {bob, "bob"}, {carol, "carol"}, {erin, "erin"}} {
		f.run(session(k.key, k.name, "whoami"))
	}
	// bob has a game: his key is his.
	g := plainGames(f.st, "bob")
	if _, err := g.Save(ctx, fp(bob), tui.SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Status: tui.StatusPlaying}); err != nil {
		t.Fatal(err)
	}
	// A player has one code at a time: each case has a player of its own.
	newCode := func(player string, expires time.Time) string {
		t.Helper()
		c := keys.NewLinkCode(nil)
		if err := f.st.CreateLinkCode(ctx, player, c, expires); err != nil {
			t.Fatal(err)
		}
		return keys.FormatLinkCode(c)
	}
	live := func(player string) string { return newCode(player, time.Now().Add(time.Hour)) }
	banned := live(fp(carol))
	if err := f.st.SetBanned(ctx, fp(carol), true); err != nil {
		t.Fatal(err)
	}
	inUse := live(fp(alice))
	// Making a code sweeps the expired ones: this one is made last.
	expired := newCode(fp(erin), time.Now().Add(-time.Minute))
	tests := []struct {
		name  string
		key   gossh.Signer
		code  string
		words string
		cause error
	}{
		{"not a code", dan, "ABC-123", notACode, nil},
		{"not a code: U", dan, "UUUU-UUUU", notACode, nil},
		{"no such code", dan, "ZZZZ-ZZZZ", noSuchCode, store.ErrNotFound},
		{"expired", dan, expired, codeExpired, store.ErrExpired},
		{"key in use", bob, inUse, keyInUse, store.ErrKeyInUse},
		{"banned", dan, banned, linkBanned, store.ErrBanned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The menu's adapter, as App.Model builds it for the key.
			_, err := f.app.account(fp(tt.key), fp(tt.key), "").Redeem(ctx, tt.code)
			if err == nil || err.Error() != tt.words {
				t.Errorf("Redeem: got %v, want %q", err, tt.words)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("Redeem: %v is not %v", err, tt.cause)
			}
			// The link command says the same.
			exit, out, errOut := f.run(session(tt.key, "x", "link", tt.code))
			if want := "pyramid: " + tt.words + "\n"; exit != 1 || out != "" || errOut != want {
				t.Errorf("link: exit %d, %q %q, want 1 and %q", exit, out, errOut, want)
			}
		})
	}
	// Nothing moved: bob is bob.
	_, out, _ := f.run(session(bob, "bob", "whoami"))
	if !strings.Contains(out, "name  bob") {
		t.Errorf("whoami of bob after the refusals:\n%s", out)
	}
	// A player's own code links nothing: the menu does not end the
	// session for it.
	_, err := f.app.account(fp(alice), fp(alice), "").Redeem(ctx, live(fp(alice)))
	if err == nil || err.Error() != "that code is your own: this key plays as alice already" {
		t.Errorf("own code: %v", err)
	}
	// A store that fails tells the player to try again, and the log why.
	var logs bytes.Buffer
	acc := &account{st: f.st, now: time.Now, log: log.New(&logs), player: fp(dan), key: fp(dan)}
	code := live(fp(alice))
	f.st.Close()
	if _, err := acc.Redeem(ctx, code); err == nil || err.Error() != linkFailed {
		t.Errorf("closed store: %v, want %q", err, linkFailed)
	}
	if !strings.Contains(logs.String(), "link code failed") {
		t.Errorf("the log lacks the failure: %q", logs.String())
	}
}

// TestRedeemFromTheMenu: a new key uses a code from the menu over SSH,
// sees whose it now is, and its next session plays as that player.
func TestRedeemFromTheMenu(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	alice, nina := sshtest.NewKey(t), sshtest.NewKey(t)
	f.run(session(alice, "alice", "whoami"))
	aliceID := gossh.FingerprintSHA256(alice.PublicKey())
	code, _, err := f.app.account(aliceID, aliceID, "").LinkCode(ctx, aliceID)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{HostKeyPath: t.TempDir() + "/host_ed25519", Logger: log.New(&bytes.Buffer{})}, f.app)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-served
	})
	term := sshtest.OpenTerm(t, sshtest.Dial(t, l.Addr().String(), nina), sshtest.TermOptions{})
	term.WaitFor(t, "enter open", 5*time.Second) // the menu; the item may be below its fold
	for i := 0; !strings.Contains(term.Screen(), "> Use a link code"); i++ {
		if i == 30 {
			t.Fatalf("no Use a link code in the menu:\n%s", term.Screen())
		}
		before := term.Screen()
		if err := term.Type(sshtest.KeyDown); err != nil {
			t.Fatal(err)
		}
		term.WaitScreen(t, 5*time.Second, "the cursor move", func(s string) bool { return s != before })
	}
	if err := term.Type(sshtest.KeyEnter); err != nil {
		t.Fatal(err)
	}
	term.WaitFor(t, "code:", 5*time.Second)
	if err := term.Type(strings.ToLower(code) + sshtest.KeyEnter); err != nil {
		t.Fatal(err)
	}
	term.WaitFor(t, "This key now plays as alice", 5*time.Second)
	if err := term.Type("x"); err != nil {
		t.Fatal(err)
	}
	if got := term.ExitStatus(5 * time.Second); got != 0 {
		t.Errorf("exit status %d after the key press, want 0", got)
	}
	_, out, _ := f.run(session(nina, "player", "whoami"))
	if !strings.Contains(out, "name  alice") {
		t.Errorf("whoami from the linked key:\n%s", out)
	}
}

// TestShutdownTranslation: the server's shutdown becomes the tui's, and
// the time the model waits for its saves fits in the server's grace.
func TestShutdownTranslation(t *testing.T) {
	for _, tt := range []struct {
		grace, want time.Duration
	}{
		{0, 0},                              // unknown: the tui's default
		{10 * time.Second, 8 * time.Second}, // the default grace
		{60 * time.Second, 58 * time.Second},
		{2 * time.Second, time.Second}, // never less than a second
	} {
		got, ok := translate(server.ShutdownMsg{Grace: tt.grace}).(tui.ShutdownMsg)
		if !ok || got.Wait != tt.want || got.Text == "" {
			t.Errorf("grace %s: got %+v, want a tui.ShutdownMsg waiting %s", tt.grace, got, tt.want)
		}
	}
}

// plainGames is a session's stored games written as owner, whose takeovers
// tell nobody.
func plainGames(st store.Store, owner string) *sessionGames {
	return &sessionGames{st: st, w: games.New(games.Config{Store: st, Owner: owner})}
}
