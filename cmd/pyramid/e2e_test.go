package main

// End-to-end tests of the arcade as players meet it: serve runs in-process
// on 127.0.0.1:0 with a fresh data directory (or a fresh PostgreSQL schema),
// and real golang.org/x/crypto/ssh clients with generated keys connect,
// type keys into PTY sessions whose output goes through a terminal
// emulator, and read the screen. What the screen should show is worked out
// with the engine, never copied from the screen.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make test schemas
	gossh "golang.org/x/crypto/ssh"
	_ "modernc.org/sqlite" // the "sqlite" driver, to look into the data directory

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/store/sqlstore"
	"pyramid/store/storetest"
)

// wait bounds every wait for a screen or a stored state. Waits end as soon
// as their condition holds; this is only the point at which a test gives up
// (generous for -race on a 2-core machine).
const wait = 10 * time.Second

// backend is a database the server can run on.
type backend struct {
	name string
	// url returns a fresh database for one test: "" for SQLite in the
	// test's data directory, or a PostgreSQL URL of a new schema that is
	// dropped when the test ends. It skips the test when the backend is
	// not available.
	url func(t *testing.T) string
}

// backends are SQLite, always, and PostgreSQL when PYRAMID_TEST_DATABASE_URL
// is set.
var backends = []backend{
	{"sqlite", func(*testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return storetest.PostgresSchemaURL(t) }},
}

// syncBuffer is a bytes.Buffer that several goroutines may write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p) //nolint:wrapcheck // never fails
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is serve running in-process for one test.
type testServer struct {
	addr  string
	data  string
	dbURL string
	logs  *syncBuffer // the server's log (its stderr)
	out   *syncBuffer // what it printed (its stdout)
}

// startServer runs serve with a fresh data directory, on the database dbURL
// ("" for SQLite), with the serve flags extra, and stops it when the test
// ends. The configuration comes from the flags alone, never from PYRAMID_*
// variables of the environment.
func startServer(t *testing.T, dbURL string, extra ...string) *testServer {
	t.Helper()
	ts := &testServer{data: t.TempDir(), dbURL: dbURL, logs: &syncBuffer{}}
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg.register(fs)
	args := []string{"--listen", "127.0.0.1:0", "--data", ts.data, "--connect", "ssh -p PORT arcade.test",
		// Every test's players come from 127.0.0.1 with keys of their
		// own: the budgets of new accounts and renames per address would
		// refuse a busy test's. A test of those budgets sets its own.
		"--limit-accounts", "100000/1h", "--limit-renames", "100000/1h"}
	if dbURL != "" {
		args = append(args, "--database-url", dbURL)
	}
	if err := fs.Parse(append(args, extra...)); err != nil {
		t.Fatalf("serve flags: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	ts.out = &syncBuffer{}
	stdout := ts.out
	go func() { done <- serve(ctx, cfg, stdout, ts.logs, func(a net.Addr) { ready <- a }) }()
	select {
	case a := <-ready:
		ts.addr = a.String()
	case err := <-done:
		cancel()
		t.Fatalf("serve returned before listening: %v\n%s", err, ts.logs)
	case <-time.After(wait):
		cancel()
		t.Fatalf("serve did not listen within %s\n%s", wait, ts.logs)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: got %v, want nil after its context ended", err)
			}
		case <-time.After(2 * wait):
			t.Errorf("serve did not return within %s of its context ending", 2*wait)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", ts.logs)
		}
	})
	if !strings.Contains(stdout.String(), "Pyramid arcade on "+ts.addr) {
		t.Errorf("serve printed %q, want it to name its address %s", stdout.String(), ts.addr)
	}
	return ts
}

// db opens the server's database for a look from outside: SQLite read-only,
// or the test's PostgreSQL schema. It is closed when the test ends.
func (ts *testServer) db(t *testing.T) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", ts.dbURL
	if dsn == "" {
		driver, dsn = "sqlite", sqliteReadOnly(ts.data)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sqliteReadOnly is the DSN that opens the SQLite database of a data
// directory read-only.
func sqliteReadOnly(dataDir string) string {
	return "file:" + dataDir + "/" + sqlstore.DBFile + "?mode=ro&_pragma=busy_timeout(5000)"
}

// count runs a counting query on db.
func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var n int
	if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// dial connects as user "player" with key (nil: as a guest).
func (ts *testServer) dial(t *testing.T, key gossh.Signer) *gossh.Client {
	t.Helper()
	return sshtest.Dial(t, ts.addr, key)
}

// typeKeys types keys into term.
func typeKeys(t *testing.T, term *sshtest.Term, keys string) {
	t.Helper()
	if err := term.Type(keys); err != nil {
		t.Fatalf("type %q: %v", keys, err)
	}
}

// header is what the table's header says about the position.
type header struct {
	Pass, Removed, Total, Moves int
	Status                      string // "", "won" or "lost"
}

var headerRE = regexp.MustCompile(`pass (\d+)/\S+ · (\d+)/(\d+) removed · (\d+) moves?(?: · (won|lost))?`)

// readHeader finds the table's header on a screen.
func readHeader(screen string) (header, bool) {
	first, _, _ := strings.Cut(screen, "\n")
	m := headerRE.FindStringSubmatch(first)
	if m == nil {
		return header{}, false
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	return header{Pass: n(m[1]), Removed: n(m[2]), Total: n(m[3]), Moves: n(m[4]), Status: m[5]}, true
}

// headerOf is the header the engine's game should show.
func headerOf(g *engine.Game) header {
	h := header{Pass: g.Pass(), Removed: g.Removed(), Total: g.Rules().PyramidSize(), Moves: g.MovesMade()}
	switch g.Status() {
	case engine.Won:
		h.Status = "won"
	case engine.Lost:
		h.Status = "lost"
	}
	return h
}

func (h header) String() string {
	s := fmt.Sprintf("pass %d · %d/%d removed · %d moves", h.Pass, h.Removed, h.Total, h.Moves)
	if h.Status != "" {
		s += " · " + h.Status
	}
	return s
}

// waitPosition waits until the table's header shows g's position.
func waitPosition(t *testing.T, term *sshtest.Term, g *engine.Game) string {
	t.Helper()
	want := headerOf(g)
	return term.WaitScreen(t, wait, "header "+want.String(), func(s string) bool {
		h, ok := readHeader(s)
		// A frame may come in several writes, its header first: the
		// board is whole once the pile row under it is drawn and the
		// screen before it (a "Fetching your game…" box) is gone.
		return ok && h == want && strings.Contains(s, "stock") && !strings.Contains(s, "Fetching your game")
	})
}

// play applies notation to g, failing the test if the engine refuses it.
func play(t *testing.T, g *engine.Game, notation ...string) {
	t.Helper()
	for _, n := range notation {
		for _, m := range strings.Fields(n) {
			if err := g.ApplyNotation(m); err != nil {
				t.Fatalf("engine refuses %s: %v", m, err)
			}
		}
	}
}

// newGame is the game of a rule set and deal number.
func newGame(t *testing.T, rules string, deal uint64) *engine.Game {
	t.Helper()
	g, err := engine.NewNumbered(engine.MustRules(rules), deal)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// cardGlyph is a card as the table draws it with Unicode suits: "8♦", "10♣".
func cardGlyph(c engine.Card) string {
	s := c.String()
	rank, suit := s[:len(s)-1], s[len(s)-1:]
	if rank == "T" {
		rank = "10"
	}
	return rank + map[string]string{"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[suit]
}

// lineWith returns the first line of screen containing s.
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// cursorMarks are the characters that mark the cursor and the selection
// around a card; board drops them so that two screens of one position
// compare equal wherever the cursor is.
var cursorMarks = strings.NewReplacer(">", "│", "<", "│", "*", "│")

// board returns the table's board lines of an 80×24 screen (without the
// header, the message line and the help bar), cursor marks removed.
func board(screen string) string {
	ls := strings.Split(screen, "\n")
	for len(ls) < 24 {
		ls = append(ls, "")
	}
	return cursorMarks.Replace(strings.Join(ls[2:22], "\n"))
}

// menuFirst returns the first item of the menu on screen (the line after
// the title, the identity line, a blank line and the Play heading).
func menuFirst(screen string) string {
	ls := strings.Split(screen, "\n")
	if len(ls) < 5 {
		return ""
	}
	return ls[4] // under the Play heading
}

// isMenu reports whether screen is the main menu.
func isMenu(s string) bool {
	return strings.Contains(s, "Pyramid Solitaire") && strings.Contains(s, "enter open")
}

// user runs commands as `ssh HOST CMD` does: a connection per command,
// with a key (nil: as a guest).
type user struct {
	addr string
	key  gossh.Signer
}

// user returns the user of key on ts.
func (ts *testServer) user(key gossh.Signer) user { return user{addr: ts.addr, key: key} }

// exec runs cmd without a PTY on a connection of its own and returns what
// it wrote and its exit status (-1 if none).
func (u user) exec(t *testing.T, cmd string) (stdout, stderr string, status int) {
	t.Helper()
	c, err := gossh.Dial("tcp", u.addr, sshtest.ClientConfig("player", u.key))
	if err != nil {
		t.Fatalf("dial %s: %v", u.addr, err)
	}
	defer c.Close()
	return sshtest.Exec(t, c, cmd)
}

// runOK runs a command and fails unless it exits 0.
func runOK(t *testing.T, u user, cmd string) string {
	t.Helper()
	out, errOut, status := u.exec(t, cmd)
	if status != 0 {
		t.Fatalf("%q: exit status %d, want 0; stderr %q", cmd, status, errOut)
	}
	return out
}

// runJSON runs a --json command and decodes its output into v.
func runJSON(t *testing.T, u user, cmd string, v any) {
	t.Helper()
	out := runOK(t, u, cmd)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%q: %v; output:\n%s", cmd, err, out)
	}
}

// gameJSON is one game of games --json.
type gameJSON struct {
	ID      int64    `json:"id"`
	Rules   string   `json:"rules"`
	Deal    uint64   `json:"deal,string"`
	Status  string   `json:"status"`
	Moves   []string `json:"moves"`
	Removed int      `json:"removed"`
	Updated string   `json:"updated"`
}

// games lists the player's games with games --json.
func games(t *testing.T, u user) []gameJSON {
	t.Helper()
	var gs []gameJSON
	runJSON(t, u, "games --json", &gs)
	return gs
}

// waitStored waits until the store holds the moves for the player's game
// of rules and deal, and returns that game.
func waitStored(t *testing.T, u user, rules string, deal uint64, moves []string) gameJSON {
	t.Helper()
	var last []gameJSON
	for deadline := time.Now().Add(wait); ; {
		last = games(t, u)
		for _, g := range last {
			if g.Rules == rules && g.Deal == deal && slicesEqual(g.Moves, moves) {
				return g
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the store has %+v; want a %s deal %d game with moves %q", wait, last, rules, deal, moves)
		}
		time.Sleep(20 * time.Millisecond) // polling the store, not synchronising
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// forEachBackend runs fn as a subtest per backend.
func forEachBackend(t *testing.T, fn func(t *testing.T, be backend)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { fn(t, be) })
	}
}

// TestE2EDeepLinkPlay plays a deep-linked deal to a known position with the
// cursor keys and the ":" prompt, makes illegal moves, undoes and redoes,
// shrinks the window below the minimum and back, and quits.
func TestE2EDeepLinkPlay(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		c := ts.dial(t, key)
		term := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "classic 42"})
		g := newGame(t, "classic", 42)
		screen := waitPosition(t, term, g)
		if !strings.Contains(screen, "Classic · deal 42") {
			t.Fatalf("header does not name the deal; screen:\n%s", screen)
		}
		for p := range g.Rules().PyramidSize() {
			c, _ := g.PyramidCard(engine.Place(p))
			if !strings.Contains(screen, cardGlyph(c)) {
				t.Fatalf("the deal's %s (slot %s) is not on the screen:\n%s", cardGlyph(c), engine.Place(p), screen)
			}
		}

		// By keys: the cursor starts on 7.1; 7.2 with 7.4 do not make 13,
		// 7.2 with 7.3 do.
		c72, _ := g.PyramidCard(engine.Slot(7, 2))
		c74, _ := g.PyramidCard(engine.Slot(7, 4))
		typeKeys(t, term, sshtest.KeyRight+sshtest.KeyEnter+sshtest.KeyRight+sshtest.KeyRight+sshtest.KeyEnter)
		term.WaitFor(t, "do not sum to 13", wait)
		if err := g.Check(engine.PairMove(engine.Slot(7, 2), engine.Slot(7, 4))); err == nil {
			t.Fatalf("engine: %s + %s is legal; the test's premise is wrong", c72, c74)
		}
		// The failed pair selects 7.4, the card just chosen: enter on it
		// again unselects it, then 7.2 with 7.3.
		typeKeys(t, term, sshtest.KeyEnter+sshtest.KeyLeft+sshtest.KeyLeft+sshtest.KeyEnter+sshtest.KeyRight+sshtest.KeyEnter)
		play(t, g, "7.2+7.3")
		waitPosition(t, term, g)

		// By the prompt: two moves in one line.
		typeKeys(t, term, ":7.1+7.5 d"+sshtest.KeyEnter)
		play(t, g, "7.1+7.5 d")
		screen = waitPosition(t, term, g)
		if want := (header{Pass: 1, Removed: 4, Total: 28, Moves: 3}); headerOf(g) != want {
			t.Fatalf("engine: got %v after 7.2+7.3 7.1+7.5 d, want %v", headerOf(g), want)
		}
		if !strings.Contains(screen, "4/28 removed · 3 moves") {
			t.Fatalf("header: want %q; screen:\n%s", "4/28 removed · 3 moves", screen)
		}
		top, _ := g.WasteTop(0)
		if l := lineWith(screen, "waste"); !strings.Contains(l, cardGlyph(top)) || !strings.Contains(l, strconv.Itoa(g.StockCount())) {
			t.Fatalf("pile line %q: want the waste top %s and the stock count %d", l, cardGlyph(top), g.StockCount())
		}
		atThree := board(screen)

		// An illegal move through the prompt says why (as the engine does)
		// and changes nothing.
		err := g.Check(mustMove(t, "5.2+5.3"))
		if err == nil || !strings.Contains(err.Error(), "covered") {
			t.Fatalf("engine: 5.2+5.3 gives %v, want a covered card; the test's premise is wrong", err)
		}
		typeKeys(t, term, ":5.2+5.3"+sshtest.KeyEnter)
		screen = term.WaitFor(t, "move 1 (5.2+5.3): "+err.Error(), wait)
		if h, _ := readHeader(screen); h != headerOf(g) {
			t.Fatalf("an illegal move changed the header: got %v, want %v", h, headerOf(g))
		}

		// Undo walks back, redo forward.
		for range 2 {
			typeKeys(t, term, "u")
			if err := g.Undo(); err != nil {
				t.Fatal(err)
			}
			waitPosition(t, term, g)
		}
		for range 2 {
			typeKeys(t, term, "r")
			if err := g.Redo(); err != nil {
				t.Fatal(err)
			}
			screen = waitPosition(t, term, g)
		}
		if got := board(screen); got != atThree {
			t.Fatalf("after undo, undo, redo, redo the board differs:\n%s\nwant:\n%s", got, atThree)
		}

		// Too small, then large enough again: the game is still there.
		if err := term.Resize(40, 10); err != nil {
			t.Fatal(err)
		}
		term.WaitFor(t, "make the window larger", wait)
		if err := term.Resize(80, 24); err != nil {
			t.Fatal(err)
		}
		// The "make the window larger" text was drawn over the top left
		// corner, so a screen without it and with the whole board has been
		// drawn anew.
		term.WaitScreen(t, wait, "the table again", func(s string) bool {
			h, ok := readHeader(s)
			return ok && h == headerOf(g) && !strings.Contains(s, "make the window larger") && board(s) == atThree
		})

		// q: the menu, whose first entry continues this game; q again quits.
		typeKeys(t, term, "q")
		screen = term.WaitScreen(t, wait, "the menu", isMenu)
		if first := menuFirst(screen); !strings.Contains(first, "> Continue") || !strings.Contains(first, "Classic · deal 42 · 3 moves") {
			t.Fatalf("menu's first entry: got %q, want the cursor on Continue to Classic · deal 42 · 3 moves", first)
		}
		typeKeys(t, term, "qy")
		if st := term.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0; screen:\n%s", st, term.Screen())
		}
		waitStored(t, ts.user(key), "classic", 42, []string{"7.2+7.3", "7.1+7.5", "d"})
	})
}

// mustMove parses one move.
func mustMove(t *testing.T, s string) engine.Move {
	t.Helper()
	m, err := engine.ParseMove(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestE2EPromptErrorKeepsKeys: after the ":" prompt refuses a line, the
// table's keys work again (q goes to the menu, the help bar is back).
func TestE2EPromptErrorKeepsKeys(t *testing.T) {
	ts := startServer(t, "")
	c := ts.dial(t, sshtest.NewKey(t))
	term := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "classic 42"})
	waitPosition(t, term, newGame(t, "classic", 42))
	typeKeys(t, term, ":5.2+5.3"+sshtest.KeyEnter)
	term.WaitFor(t, "card is covered", wait)
	// q should lead to the menu, where d does nothing. If q is ignored,
	// d draws a card on the table instead.
	typeKeys(t, term, "qd")
	screen := term.WaitScreen(t, wait, "the menu, or a draw", func(s string) bool {
		h, ok := readHeader(s)
		return isMenu(s) || ok && h.Moves == 1
	})
	if !isMenu(screen) {
		t.Fatalf("after a refused prompt line the table's keys stay disabled: q was ignored; screen:\n%s", screen)
	}
}

// TestE2EReconnect drops the connection mid-game and comes back with the
// same key: the game continues where it was, with its whole undo and redo
// history. Another key sees none of it, and a guest keeps nothing.
func TestE2EReconnect(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		c := ts.dial(t, key)
		term := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "classic 42"})
		start := newGame(t, "classic", 42)
		startBoard := board(waitPosition(t, term, start))

		g := newGame(t, "classic", 42)
		moves := []string{"7.2+7.3", "7.1+7.5", "d", "d"}
		typeKeys(t, term, ":"+strings.Join(moves, " ")+sshtest.KeyEnter)
		play(t, g, moves...)
		waitPosition(t, term, g)
		typeKeys(t, term, "u") // one move on the redo stack
		if err := g.Undo(); err != nil {
			t.Fatal(err)
		}
		before := board(waitPosition(t, term, g))

		// Drop the connection without a goodbye.
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}

		c2 := ts.dial(t, key)
		term2 := sshtest.OpenTerm(t, c2, sshtest.TermOptions{})
		screen := term2.WaitScreen(t, wait, "the menu with Continue", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "Continue")
		})
		if first := menuFirst(screen); !strings.Contains(first, "> Continue") || !strings.Contains(first, "Classic · deal 42 · 3 moves") {
			t.Fatalf("menu's first entry: got %q, want the cursor on Continue to Classic · deal 42 · 3 moves", first)
		}
		typeKeys(t, term2, sshtest.KeyEnter)
		screen = waitPosition(t, term2, g)
		if got := board(screen); got != before {
			t.Fatalf("the continued game's board differs from the one left:\n%s\nwant:\n%s", got, before)
		}
		for g.CanUndo() {
			typeKeys(t, term2, "u")
			if err := g.Undo(); err != nil {
				t.Fatal(err)
			}
			screen = waitPosition(t, term2, g)
		}
		if got := board(screen); got != startBoard {
			t.Fatalf("undo all the way: the board differs from the deal:\n%s\nwant:\n%s", got, startBoard)
		}
		for g.CanRedo() {
			typeKeys(t, term2, "r")
			if err := g.Redo(); err != nil {
				t.Fatal(err)
			}
			waitPosition(t, term2, g)
		}
		if got, want := g.Record().Moves, moves; !slicesEqual(got, want) {
			t.Fatalf("redo all the way: got moves %q, want %q (the redo stack survived the drop)", got, want)
		}
		waitStored(t, ts.user(key), "classic", 42, moves)

		// Another key: no games, no Continue.
		otherKey := sshtest.NewKey(t)
		if gs := games(t, ts.user(otherKey)); len(gs) != 0 {
			t.Fatalf("another key's games --json: got %+v, want []", gs)
		}
		oterm := sshtest.OpenTerm(t, ts.dial(t, otherKey), sshtest.TermOptions{})
		screen = oterm.WaitScreen(t, wait, "the menu", isMenu)
		if strings.Contains(screen, "Continue") || strings.Contains(screen, "deal 42") {
			t.Fatalf("another key's menu shows the game:\n%s", screen)
		}
	})
}

// TestE2EGuest: a client without a key plays, and nothing of it is kept.
func TestE2EGuest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		c := ts.dial(t, nil)
		term := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "classic 42"})
		g := newGame(t, "classic", 42)
		waitPosition(t, term, g)
		typeKeys(t, term, ":7.2+7.3 d"+sshtest.KeyEnter)
		play(t, g, "7.2+7.3 d")
		waitPosition(t, term, g)
		gu := ts.user(nil)
		out := runOK(t, gu, "whoami")
		if !strings.HasPrefix(out, "guest-") || !strings.Contains(out, "a guest") {
			t.Fatalf("guest whoami: got %q, want its guest name and that it is a guest", out)
		}
		// The public boards are for everybody.
		for _, cmd := range []string{"top daily", "top classic", "top race --json"} {
			runOK(t, gu, cmd)
		}
		_, errOut, status := gu.exec(t, "games --json")
		if status != 1 || !strings.Contains(errOut, "guests have no records") {
			t.Fatalf("guest games --json: exit %d, stderr %q; want 1 and that guests have no records", status, errOut)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}

		c2 := ts.dial(t, nil)
		term2 := sshtest.OpenTerm(t, c2, sshtest.TermOptions{})
		screen := term2.WaitScreen(t, wait, "the menu", isMenu)
		if strings.Contains(screen, "Continue") || !strings.Contains(screen, "guest") {
			t.Fatalf("a guest's menu after a game: want no Continue and the guest line; screen:\n%s", screen)
		}
		db := ts.db(t)
		for _, table := range []string{"players", "player_keys", "games", "results"} {
			if n := count(t, db, "SELECT count(*) FROM "+table); n != 0 {
				t.Errorf("after a guest's game the store has %d rows in %s, want 0", n, table)
			}
		}
	})
}

// TestE2ETakeOver: a second session of the player opens the same game; it
// takes over, the first session is told and returns to the menu, and the
// stored move log is the second session's.
func TestE2ETakeOver(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		a := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 42"})
		g := newGame(t, "classic", 42)
		waitPosition(t, a, g)
		typeKeys(t, a, ":7.2+7.3 d"+sshtest.KeyEnter)
		play(t, g, "7.2+7.3 d")
		waitPosition(t, a, g)
		cmds := ts.user(key)
		waitStored(t, cmds, "classic", 42, g.Record().Moves)

		b := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 42"})
		waitPosition(t, b, g)
		b.WaitFor(t, "welcome back", wait)
		typeKeys(t, b, "d")
		play(t, g, "d")
		waitPosition(t, b, g)

		// The first session is told at once, without a key pressed.
		screen := a.WaitScreen(t, wait, "the menu saying the game went on elsewhere", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "your game continues in another session")
		})
		if strings.Contains(menuFirst(screen), "Continue") {
			t.Fatalf("the first session still offers to continue the game it lost:\n%s", screen)
		}
		typeKeys(t, b, ":7.1+7.5"+sshtest.KeyEnter)
		play(t, g, "7.1+7.5")
		waitPosition(t, b, g)
		got := waitStored(t, cmds, "classic", 42, g.Record().Moves)
		if got.Status != "playing" || got.Removed != g.Removed() {
			t.Fatalf("stored game: got %+v, want playing with %d removed", got, g.Removed())
		}
		if gs := games(t, cmds); len(gs) != 1 {
			t.Fatalf("games --json: got %+v, want the one game", gs)
		}
	})
}

// hintGame plays rules' deals from deal 1 on with the engine's heuristic
// hint until one ends with status want, and returns its deal number and
// moves.
func hintGame(t *testing.T, rules string, want engine.Status) (uint64, []string) {
	t.Helper()
	for n := uint64(1); n <= 1000; n++ {
		g := newGame(t, rules, n)
		for g.Status() == engine.Playing {
			m, ok := g.Hint()
			if !ok {
				break
			}
			if err := g.Apply(m); err != nil {
				t.Fatalf("deal %d: the hint %s is illegal: %v", n, m, err)
			}
		}
		if g.Status() == want {
			return n, g.Record().Moves
		}
	}
	t.Fatalf("no %s deal in 1..1000 ends %v under the hint", rules, want)
	return 0, nil
}

// TestE2ECommands checks the plain-text commands of sessions without a
// terminal, with records made by playing a won and a lost game.
func TestE2ECommands(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		c := ts.user(key)

		out := runOK(t, c, "help")
		for _, cmd := range []string{"whoami", "stats", "games", "top", "replay", "name", "classic 42"} {
			if !strings.Contains(out, cmd) {
				t.Errorf("help does not mention %q:\n%s", cmd, out)
			}
		}
		for _, tt := range []struct{ cmd, want string }{
			{"fly", `unknown command "fly"`},
			{"classic 42", "-t"},
			{"replay 999", "not found"},
		} {
			out, errOut, status := c.exec(t, tt.cmd)
			if status != 1 || !strings.Contains(errOut, tt.want) || out != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1, nothing on stdout and an error saying %q", tt.cmd, status, out, errOut, tt.want)
			}
		}
		// A usage error (a rule set that is none) exits 2.
		if out, errOut, status := c.exec(t, "top nope"); status != 2 || !strings.Contains(errOut, "nope") || out != "" {
			t.Errorf("top nope: exit %d, stdout %q, stderr %q; want 2 and an error saying nope", status, out, errOut)
		}

		var who struct {
			ID, Name, Key string
			Guest         bool
		}
		runJSON(t, c, "whoami --json", &who)
		fp := gossh.FingerprintSHA256(key.PublicKey())
		if who.ID != fp || who.Key != fp || who.Guest || who.Name != "player" {
			t.Fatalf("whoami --json: got %+v, want id and key %s, name player (the SSH user), not a guest", who, fp)
		}
		if gs := games(t, c); len(gs) != 0 {
			t.Fatalf("games --json of a new player: got %+v, want []", gs)
		}

		// Win a game and lose one, typed through the prompt.
		winDeal, winMoves := hintGame(t, "classic", engine.Won)
		loseDeal, loseMoves := hintGame(t, "classic", engine.Lost)
		wg := newGame(t, "classic", winDeal)
		term := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic " + strconv.FormatUint(winDeal, 10)})
		waitPosition(t, term, wg)
		typeKeys(t, term, ":"+strings.Join(winMoves, " ")+sshtest.KeyEnter)
		play(t, wg, winMoves...)
		waitPosition(t, term, wg)
		typeKeys(t, term, "q")
		term.WaitScreen(t, wait, "the menu", isMenu)
		typeKeys(t, term, "qy")
		if st := term.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0", st)
		}

		lg := newGame(t, "classic", loseDeal)
		term = sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic " + strconv.FormatUint(loseDeal, 10)})
		waitPosition(t, term, lg)
		typeKeys(t, term, ":"+strings.Join(loseMoves, " ")+sshtest.KeyEnter)
		play(t, lg, loseMoves...)
		screen := waitPosition(t, term, lg)
		if !strings.Contains(screen, "no moves left") {
			t.Fatalf("a lost position should say so; screen:\n%s", screen)
		}
		typeKeys(t, term, "n") // deal anew: the lost game counts as lost
		term.WaitScreen(t, wait, "a new deal", func(s string) bool {
			h, ok := readHeader(s)
			// The server's new deal is hidden until its game is over.
			return ok && h.Moves == 0 && strings.Contains(s, "Classic · hidden deal")
		})
		typeKeys(t, term, "q")
		term.WaitScreen(t, wait, "the menu", isMenu)
		typeKeys(t, term, "qy")
		if st := term.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0", st)
		}

		// games --json: every field, for both games.
		var raw []map[string]json.RawMessage
		runJSON(t, c, "games --json", &raw)
		for _, g := range raw {
			for _, f := range []string{"id", "rules", "deal", "status", "moves", "removed", "updated"} {
				if _, ok := g[f]; !ok {
					t.Errorf("games --json: a game has no %q field: %s", f, mustJSON(g))
				}
			}
		}
		byDeal := map[uint64]gameJSON{}
		for _, g := range games(t, c) {
			if _, err := time.Parse(time.RFC3339, g.Updated); err != nil {
				t.Errorf("games --json: updated %q is not RFC 3339: %v", g.Updated, err)
			}
			byDeal[g.Deal] = g
		}
		won, lost := byDeal[winDeal], byDeal[loseDeal]
		if won.Rules != "classic" || won.Status != "won" || won.Removed != 28 || !slicesEqual(won.Moves, winMoves) {
			t.Errorf("won game: got %+v, want classic, won, 28 removed, moves %q", won, winMoves)
		}
		if lost.Rules != "classic" || lost.Status != "lost" || lost.Removed != lg.Removed() || !slicesEqual(lost.Moves, loseMoves) {
			t.Errorf("lost game: got %+v, want classic, lost, %d removed, moves %q", lost, lg.Removed(), loseMoves)
		}

		var stats []struct {
			Rules         string  `json:"rules"`
			Played        int     `json:"played"`
			Won           int     `json:"won"`
			WinRate       float64 `json:"win_rate"`
			CurrentStreak int     `json:"current_streak"`
			BestStreak    int     `json:"best_streak"`
			BestTimeMS    int64   `json:"best_time_ms"`
			FewestMoves   int     `json:"fewest_moves"`
			AvgRemoved    float64 `json:"avg_removed"`
		}
		runJSON(t, c, "stats --json", &stats)
		if len(stats) != 1 {
			t.Fatalf("stats --json: got %+v, want classic only", stats)
		}
		// Both deals were chosen (typed numbers): they count as played
		// and won, but are practice for records, streaks and top lists.
		s := stats[0]
		wantAvg := float64(28+lg.Removed()) / 2
		if s.Rules != "classic" || s.Played != 2 || s.Won != 1 || s.WinRate != 0.5 || s.CurrentStreak != 0 || s.BestStreak != 0 ||
			s.FewestMoves != 0 || s.AvgRemoved != wantAvg || s.BestTimeMS != 0 {
			t.Errorf("stats --json: got %+v; want classic, played 2, won 1, win rate 0.5, no streak, no fewest moves, avg removed %.1f, no best time",
				s, wantAvg)
		}

		var top []struct {
			Rank   int    `json:"rank"`
			Name   string `json:"name"`
			Won    int    `json:"won"`
			Played int    `json:"played"`
			You    bool   `json:"you"`
		}
		runJSON(t, c, "top classic --json", &top)
		if len(top) != 0 {
			t.Errorf("top classic --json: got %+v, want nobody (a chosen deal's win is on no top list)", top)
		}
		today := time.Now().UTC().Format("2006-01-02")
		if out := runOK(t, c, "top daily"); !strings.Contains(out, today) || !strings.Contains(out, "nobody has finished it yet") {
			t.Errorf("top daily: got %q, want today's (%s) empty board", out, today)
		}
		var board []any
		runJSON(t, c, "top daily --json", &board)
		if len(board) != 0 {
			t.Errorf("top daily --json: got %v, want []", board)
		}

		out = runOK(t, c, fmt.Sprintf("replay %d", won.ID))
		// The board, whose header line ends in the stored status rather
		// than the position's.
		wantBoard := strings.Replace(wg.String(), " · won\n", "\n", 1)
		if !strings.Contains(out, "moves: "+strings.Join(winMoves, " ")) || !strings.Contains(out, wantBoard) ||
			!strings.Contains(out, fmt.Sprintf("game %d · classic · deal %d · won", won.ID, winDeal)) {
			t.Errorf("replay %d: got\n%s\nwant the moves %q and the final board\n%s", won.ID, out, winMoves, wg.String())
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// hostile are names and user names meant to reach other players' screens
// or the logs raw.
var hostile = []struct{ name, s string }{
	{"clear screen", "\x1b[2Jbob"},
	{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4K\x07"},
	{"C1 CSI", "\u009b31mred"},
	{"bidi override", "\u202ebob"},
	{"1000 characters", strings.Repeat("a", 1000)},
	{"combining marks", "a" + strings.Repeat("\u0301", 20)},
}

// rawControls reports the first control, C1 or bidi character in s, or "".
func rawControls(s string) string {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

// TestE2EHostileNames: name NEW refuses hostile names with a clear message
// that does not echo them raw; hostile SSH user names are cleaned; neither
// reaches the server's log raw.
func TestE2EHostileNames(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		c := ts.user(sshtest.NewKey(t))
		for _, h := range hostile {
			t.Run(h.name, func(t *testing.T) {
				out, errOut, status := c.exec(t, "name '"+h.s+"'")
				if status != 1 || out != "" || !strings.Contains(errOut, "invalid name") {
					t.Errorf("name %.40q: exit %d, stdout %.80q, stderr %.200q; want 1 and an invalid-name message", h.s, status, out, errOut)
				}
				if bad := rawControls(errOut); bad != "" || len(errOut) > 300 {
					t.Errorf("name %.40q: the message holds %s or is %d bytes long: %.300q", h.s, bad, len(errOut), errOut)
				}
			})
		}
		// A command of 10,000 characters is refused before it runs, with
		// the reason: the server takes exec commands of at most 1 KiB.
		long := "name " + strings.Repeat("a", 10000)
		if out, errOut, status := c.exec(t, long); status != 1 || out != "" || !strings.Contains(errOut, "command too long") {
			t.Errorf("name of 10,000 characters: exit %d, stdout %.80q, stderr %.80q; want 1 and why", status, out, errOut)
		}
		var who struct{ Name string }
		runJSON(t, c, "whoami --json", &who)
		if who.Name != "player" {
			t.Errorf("after the refused names: name %q, want player", who.Name)
		}

		// Hostile SSH user names, up to 10,000 characters: the default name
		// is cleaned or none.
		users := append(hostile, struct{ name, s string }{"10000 characters", strings.Repeat("a", 10000)})
		for _, h := range users {
			hc, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig(h.s, sshtest.NewKey(t)))
			if err != nil {
				t.Fatalf("dial as user %.40q: %v", h.s, err)
			}
			out, _, _ := sshtest.Exec(t, hc, "whoami --json")
			if bad := rawControls(out); bad != "" {
				t.Errorf("user %.40q: whoami holds %s: %.200q", h.s, bad, out)
			}
			var w struct{ Name string }
			if err := json.Unmarshal([]byte(out), &w); err != nil {
				t.Errorf("user %.40q: whoami --json: %v", h.s, err)
			} else if len([]rune(w.Name)) > 16*3 || strings.Contains(w.Name, h.s) && len(h.s) > 16 {
				t.Errorf("user %.40q: default name %q", h.s, w.Name)
			}
			// The menu draws the name: it must not hold what was sent.
			term := sshtest.OpenTerm(t, hc, sshtest.TermOptions{})
			screen := term.WaitScreen(t, wait, "the menu", isMenu)
			if !strings.Contains(screen, "playing as") {
				t.Errorf("user %.40q: menu without the player line:\n%s", h.s, screen)
			}
			_ = term.Close()
			_ = hc.Close()
		}
		// The log quotes what clients sent; nothing raw gets through.
		sshtest.Eventually(t, wait, func() bool { return strings.Contains(ts.logs.String(), "session start") }, "the log has no session lines")
		if bad := rawControls(ts.logs.String()); bad != "" {
			t.Errorf("the server log holds %s raw:\n%.2000q", bad, ts.logs.String())
		}
	})
}

// TestE2EGoroutines: after 100 sessions connect and leave — played and
// quit, dropped mid-game, resized, or a plain command — the process's
// goroutines return to where they were.
func TestE2EGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("100 sessions: skipped under -short")
	}
	ts := startServer(t, "", "--max-conns-per-ip", "1000")
	const total, workers = 100, 3
	keys := make([]gossh.Signer, total+4)
	for i := range keys {
		if i%7 != 0 { // a guest now and then
			keys[i] = sshtest.NewKey(t)
		}
	}
	// session runs in worker goroutines, so it reports errors rather than
	// failing the test itself.
	session := func(i int) error {
		client, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig("player", keys[i]))
		if err != nil {
			return err
		}
		defer client.Close()
		if i%4 == 3 {
			sess, err := client.NewSession()
			if err != nil {
				return err
			}
			defer sess.Close()
			out, err := sess.Output("help")
			if err != nil || !strings.Contains(string(out), "Commands") {
				return fmt.Errorf("session %d: help: %v, %q", i, err, out)
			}
			return nil
		}
		term, err := sshtest.StartTerm(client, sshtest.TermOptions{Command: "classic " + strconv.Itoa(i)})
		if err != nil {
			return err
		}
		defer term.Close()
		if !sshtest.Poll(wait, func() bool { _, ok := readHeader(term.Screen()); return ok }) {
			return fmt.Errorf("session %d: no table; screen:\n%s", i, term.Screen())
		}
		switch i % 4 {
		case 0: // play, back to the menu, quit
			_ = term.Type("d")
			if !sshtest.Poll(wait, func() bool { h, _ := readHeader(term.Screen()); return h.Moves == 1 }) {
				return fmt.Errorf("session %d: the draw did not show", i)
			}
			_ = term.Type("q")
			if !sshtest.Poll(wait, func() bool { return isMenu(term.Screen()) }) {
				return fmt.Errorf("session %d: no menu", i)
			}
			_ = term.Type("qy")
			if st := term.ExitStatus(wait); st != 0 {
				return fmt.Errorf("session %d: quit with status %d", i, st)
			}
		case 1: // resize storm, then drop
			for j := range 20 {
				_ = term.Resize(60+j, 20+j%5)
			}
		case 2: // type and drop at once
			_ = term.Type("dd")
		}
		return nil
	}
	// Warm up (pools, lazily started goroutines), then take the baseline.
	before := runtime.NumGoroutine()
	for i := range 4 {
		if err := session(total + i); err != nil {
			t.Fatal(err)
		}
	}
	sshtest.Poll(wait, func() bool { return runtime.NumGoroutine() <= before+2 })
	base := runtime.NumGoroutine()

	next := make(chan int)
	errs := make(chan error, total)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := session(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range total {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	const slack = 3
	if !sshtest.Poll(wait, func() bool { return runtime.NumGoroutine() <= base+slack }) {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		t.Fatalf("goroutines: got %d %s after %d sessions ended, want at most %d (baseline %d + %d); stacks:\n%s",
			runtime.NumGoroutine(), wait, total, base+slack, base, slack, buf.String())
	}
}

// statsJSON is one rule set of stats --json, the figures the records
// tests read.
type statsJSON struct {
	Rules       string `json:"rules"`
	Played      int    `json:"played"`
	Won         int    `json:"won"`
	BestTimeMS  int64  `json:"best_time_ms"`
	FewestMoves int    `json:"fewest_moves"`
}

// waitStatus waits until the player's game of rules and deal has status
// in the store, and returns it.
func waitStatus(t *testing.T, u user, rules string, deal uint64, status string) gameJSON {
	t.Helper()
	var last []gameJSON
	for deadline := time.Now().Add(wait); ; {
		last = games(t, u)
		for _, g := range last {
			if g.Rules == rules && g.Deal == deal && g.Status == status {
				return g
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the store has %+v; want the %s deal %d game %s", wait, last, rules, deal, status)
		}
		time.Sleep(20 * time.Millisecond) // polling the store, not synchronising
	}
}

// classicStats returns stats --json's classic line (zero if none).
func classicStats(t *testing.T, u user) statsJSON {
	t.Helper()
	var all []statsJSON
	runJSON(t, u, "stats --json", &all)
	for _, s := range all {
		if s.Rules == "classic" {
			return s
		}
	}
	return statsJSON{}
}

// TestE2ELossThenDisconnect (playtest A1): lose, close the terminal at
// once: the game is lost in `games`, stats count it, and the menu of the
// next session offers nothing to continue.
func TestE2ELossThenDisconnect(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		deal, moves := hintGame(t, "classic", engine.Lost)
		g := newGame(t, "classic", deal)
		c := ts.dial(t, key)
		term := sshtest.OpenTerm(t, c, sshtest.TermOptions{Command: "classic " + strconv.FormatUint(deal, 10)})
		waitPosition(t, term, g)
		typeKeys(t, term, ":"+strings.Join(moves, " ")+sshtest.KeyEnter)
		play(t, g, moves...)
		if screen := waitPosition(t, term, g); !strings.Contains(screen, "no moves left") {
			t.Fatalf("a lost position should say so; screen:\n%s", screen)
		}
		u := ts.user(key)
		waitStored(t, u, "classic", deal, moves)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		got := waitStatus(t, u, "classic", deal, "lost")
		if !slicesEqual(got.Moves, moves) {
			t.Fatalf("the lost game's moves: got %q, want %q", got.Moves, moves)
		}
		if s := classicStats(t, u); s.Played != 1 || s.Won != 0 {
			t.Fatalf("stats after the loss: got %+v, want 1 played, 0 won", s)
		}
		term2 := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{})
		screen := term2.WaitScreen(t, wait, "the menu", isMenu)
		if strings.Contains(screen, "Continue") {
			t.Fatalf("the next session offers to continue the lost game:\n%s", screen)
		}
	})
}

// loseThenWin finds a classic deal that drawing first loses and the
// engine's heuristic wins, and returns it with both lines.
func loseThenWin(t *testing.T) (deal uint64, lose, win []string) {
	t.Helper()
	for n := uint64(1); n <= 2000; n++ {
		w := newGame(t, "classic", n)
		for w.Status() == engine.Playing {
			m, ok := w.Hint()
			if !ok || w.Apply(m) != nil {
				break
			}
		}
		if w.Status() != engine.Won {
			continue
		}
		l := newGame(t, "classic", n)
		for l.Status() == engine.Playing {
			legal := l.Legal()
			pick := legal[0]
			for _, m := range legal {
				if m.Kind == engine.Draw || m.Kind == engine.Redeal {
					pick = m
					break
				}
			}
			if err := l.Apply(pick); err != nil {
				t.Fatal(err)
			}
		}
		if l.Status() == engine.Lost {
			return n, l.Record().Moves, w.Record().Moves
		}
	}
	t.Fatal("no classic deal in 1..2000 lost by drawing first and won by the heuristic")
	return 0, nil, nil
}

// TestE2ESolutionAfterLoss (playtest A2): lose, undo to the start, type a
// winning line: the table shows the win, the record keeps the loss.
func TestE2ESolutionAfterLoss(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		deal, lose, win := loseThenWin(t)
		g := newGame(t, "classic", deal)
		term := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic " + strconv.FormatUint(deal, 10)})
		waitPosition(t, term, g)
		typeKeys(t, term, ":"+strings.Join(lose, " ")+sshtest.KeyEnter)
		play(t, g, lose...)
		waitPosition(t, term, g)
		u := ts.user(key)
		waitStatus(t, u, "classic", deal, "lost")

		typeKeys(t, term, strings.Repeat("u", len(lose)))
		start := newGame(t, "classic", deal)
		waitPosition(t, term, start)
		typeKeys(t, term, ":"+strings.Join(win, " ")+sshtest.KeyEnter)
		play(t, start, win...)
		waitPosition(t, term, start) // the table shows the win
		typeKeys(t, term, "q")
		term.WaitScreen(t, wait, "the menu", isMenu)
		typeKeys(t, term, "qy")
		if st := term.ExitStatus(wait); st != 0 {
			t.Fatalf("quit: exit status %d, want 0", st)
		}
		gs := games(t, u)
		if len(gs) != 1 || gs[0].Status != "lost" || !slicesEqual(gs[0].Moves, lose) {
			t.Fatalf("games: got %+v, want the one game, lost, with the losing line", gs)
		}
		if s := classicStats(t, u); s.Played != 1 || s.Won != 0 || s.FewestMoves != 0 {
			t.Fatalf("stats: got %+v, want 1 played, 0 won, no fewest moves", s)
		}
	})
}

// TestE2ETwoSessionsDoNotAbandon (playtest A4): a second session of the
// player starting the same rule set does not abandon the first session's
// game behind its back: the first plays on and keeps saving.
func TestE2ETwoSessionsDoNotAbandon(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		u := ts.user(key)
		a := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 3"})
		ga := newGame(t, "classic", 3)
		waitPosition(t, a, ga)
		typeKeys(t, a, "dd")
		play(t, ga, "d d")
		waitPosition(t, a, ga)
		waitStored(t, u, "classic", 3, ga.Record().Moves)

		// The second session asks before abandoning the first one's
		// game; no keeps it, and Continue reaches it.
		b := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 42"})
		b.WaitScreen(t, wait, "the abandon question", func(s string) bool {
			return strings.Contains(s, "You have Classic deal 3 in progress (2 moves): abandon it?")
		})
		typeKeys(t, b, "n")
		b.WaitScreen(t, wait, "the menu with the game in progress", func(s string) bool {
			return isMenu(s) && strings.Contains(s, "Classic · deal 3 · 2 moves")
		})

		typeKeys(t, a, "d")
		play(t, ga, "d")
		screen := waitPosition(t, a, ga)
		if strings.Contains(screen, "another session") {
			t.Fatalf("the first session was told its game went elsewhere:\n%s", screen)
		}
		got := waitStored(t, u, "classic", 3, ga.Record().Moves)
		if got.Status != "playing" {
			t.Fatalf("the first session's game: got %+v, want still playing", got)
		}
		for _, g := range games(t, u) {
			if g.Status == "abandoned" {
				t.Fatalf("games: %+v; nothing was abandoned", games(t, u))
			}
		}
	})
}

// TestE2ESecondSessionAbandonsAfterAsking: a second session that starts
// the rule set of the first one's game asks; on yes the first game is
// abandoned, and the first session is told so (not that it goes on).
func TestE2ESecondSessionAbandonsAfterAsking(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		key := sshtest.NewKey(t)
		u := ts.user(key)
		a := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 3"})
		ga := newGame(t, "classic", 3)
		waitPosition(t, a, ga)
		typeKeys(t, a, "d")
		play(t, ga, "d")
		waitPosition(t, a, ga)
		waitStored(t, u, "classic", 3, ga.Record().Moves)

		b := sshtest.OpenTerm(t, ts.dial(t, key), sshtest.TermOptions{Command: "classic 42"})
		b.WaitScreen(t, wait, "the abandon question", func(s string) bool {
			return strings.Contains(s, "You have Classic deal 3 in progress (1 move): abandon it?")
		})
		typeKeys(t, b, "y")
		gb := newGame(t, "classic", 42)
		waitPosition(t, b, gb)
		typeKeys(t, b, "d")
		play(t, gb, "d")
		waitPosition(t, b, gb)
		waitStored(t, u, "classic", 42, gb.Record().Moves)
		a.WaitScreen(t, wait, "the first session told what happened", func(s string) bool {
			return strings.Contains(s, "abandoned from another session")
		})
		if strings.Contains(a.Screen(), "continues in another session") {
			t.Fatalf("the first session was told its game goes on:\n%s", a.Screen())
		}
		for _, g := range games(t, u) {
			if g.Rules == "classic" && g.Deal == 3 && g.Status != "abandoned" {
				t.Fatalf("games: %+v; want classic 3 abandoned", games(t, u))
			}
		}
	})
}
