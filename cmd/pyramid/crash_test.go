package main

// Crash safety: the real binary, killed with SIGKILL at random moments
// while a player plays over SSH, loses no move whose redraw reached the
// player: a redraw follows the commit (SQLite in WAL mode with full sync,
// PostgreSQL's commit), so what the player saw is what is stored.

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/store/sqlstore"
)

var (
	crashKills = flag.Int("crash.kills", 40, "SIGKILLs per database in TestCrashSafety")
	crashSeed  = flag.Uint64("crash.seed", 0, "random seed of TestCrashSafety; 0 picks one (the test logs it)")
)

// buildPyramid builds the pyramid binary into a temporary directory, as
// `make build` does.
func buildPyramid(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pyramid")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// addrRE finds the address serve prints when it listens.
var addrRE = regexp.MustCompile(`Pyramid arcade on (\S+)`)

// addrWriter takes the server's stdout and sends the address it listens on.
type addrWriter struct {
	buf  syncBuffer
	addr chan string
	sent bool
}

func (w *addrWriter) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	if m := addrRE.FindStringSubmatch(w.buf.String()); m != nil && !w.sent {
		w.sent = true
		w.addr <- m[1]
	}
	return n, err
}

// child is the server binary running as a child process.
type child struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncBuffer
	done   chan struct{} // closed when the process has exited and been waited for
}

// startChild starts the binary on a data directory and database, waits
// until it listens, and makes sure it is dead when the test ends. Its
// environment has no PYRAMID_* variables, so only the flags configure it.
func startChild(t *testing.T, bin, dataDir, dbURL string) *child {
	t.Helper()
	args := []string{"serve", "--listen", "127.0.0.1:0", "--data", dataDir, "--connect", "ssh -p PORT crash.test"}
	if dbURL != "" {
		args = append(args, "--database-url", dbURL)
	}
	c := &child{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, done: make(chan struct{})}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYRAMID_") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	out := &addrWriter{addr: make(chan string, 1)}
	c.cmd.Stdout, c.cmd.Stderr = out, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() { c.kill(t) })
	select {
	case c.addr = <-out.addr:
	case <-c.done:
		t.Fatalf("the server exited before listening: %v\n%s", c.cmd.ProcessState, c.stderr)
	case <-time.After(wait):
		t.Fatalf("the server did not listen within %s\n%s", wait, c.stderr)
	}
	return c
}

// kill sends SIGKILL and waits until the process is gone.
func (c *child) kill(t *testing.T) {
	t.Helper()
	select {
	case <-c.done:
		return
	default:
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("kill: %v", err)
	}
	select {
	case <-c.done:
	case <-time.After(wait):
		t.Errorf("the server did not die within %s of SIGKILL", wait)
	}
}

// hintPlan is the moves the engine's heuristic hint plays on a Classic
// deal, to the win or to the end.
func hintPlan(t *testing.T, deal uint64) []string {
	t.Helper()
	g := newGame(t, "classic", deal)
	for g.Status() == engine.Playing {
		m, ok := g.Hint()
		if !ok {
			break
		}
		if err := g.Apply(m); err != nil {
			t.Fatalf("deal %d: the hint %s is illegal: %v", deal, m, err)
		}
	}
	return g.Record().Moves
}

// storedGame is one row of the games table, read from outside the server.
type storedGame struct {
	deal    uint64
	moves   []string
	status  string
	removed int
}

// readGames reads every game from the database of a dead server: SQLite
// read-only, after PRAGMA integrity_check, or the test's PostgreSQL schema.
func readGames(t *testing.T, dataDir, dbURL string) []storedGame {
	t.Helper()
	driver, dsn := "pgx", dbURL
	if dsn == "" {
		driver, dsn = "sqlite", sqliteReadOnly(dataDir)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if dbURL == "" {
		var res []string
		rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
		if err != nil {
			t.Fatalf("integrity_check: %v", err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			res = append(res, s)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0] != "ok" {
			t.Fatalf("PRAGMA integrity_check: got %q, want ok", res)
		}
	}
	rows, err := db.QueryContext(ctx, "SELECT rules_id, deal_number, moves, status, removed FROM games ORDER BY id")
	if err != nil {
		t.Fatalf("read games: %v", err)
	}
	defer rows.Close()
	var gs []storedGame
	for rows.Next() {
		var rules, moves string
		var deal int64
		var g storedGame
		if err := rows.Scan(&rules, &deal, &moves, &g.status, &g.removed); err != nil {
			t.Fatal(err)
		}
		if rules != "classic" {
			t.Fatalf("stored game of rules %q, want only classic", rules)
		}
		g.deal, g.moves = uint64(deal), strings.Fields(moves)
		gs = append(gs, g)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return gs
}

// crashState is what the player knows: the deals played, in order, their
// planned moves and how many of each the screen acknowledged.
type crashState struct {
	deals []uint64
	plans map[uint64][]string
	acked map[uint64]int

	kills, ackedTotal, lost, unacked int
}

// check compares stored games with what was acknowledged: every game is a
// prefix of its plan that replays in the engine with the stored cards
// removed, and holds at least every acknowledged move. It returns the
// stored games by deal.
func (cs *crashState) check(t *testing.T, when string, gs []storedGame) map[uint64]storedGame {
	t.Helper()
	byDeal := map[uint64]storedGame{}
	for _, g := range gs {
		plan, ok := cs.plans[g.deal]
		if !ok {
			t.Fatalf("%s: stored game of deal %d, which was never played", when, g.deal)
		}
		if _, dup := byDeal[g.deal]; dup {
			t.Fatalf("%s: two stored games of deal %d", when, g.deal)
		}
		byDeal[g.deal] = g
		if len(g.moves) > len(plan) || !slicesEqual(g.moves, plan[:len(g.moves)]) {
			t.Fatalf("%s: deal %d: stored moves %q are not what was typed (%q)", when, g.deal, g.moves, plan)
		}
		replayed, err := engine.Replay(engine.Record{Rules: "classic", Deal: g.deal, Moves: g.moves})
		if err != nil {
			t.Fatalf("%s: deal %d: the stored moves do not replay: %v", when, g.deal, err)
		}
		if replayed.Removed() != g.removed {
			t.Fatalf("%s: deal %d: stored removed %d, the replay removes %d", when, g.deal, g.removed, replayed.Removed())
		}
		if (g.status == "won") != (replayed.Status() == engine.Won) {
			t.Fatalf("%s: deal %d: stored status %s, the replay is %v", when, g.deal, g.status, replayed.Status())
		}
	}
	for _, d := range cs.deals {
		if n := len(byDeal[d].moves); n < cs.acked[d] {
			t.Errorf("%s: deal %d: %d moves acknowledged on screen, %d stored: lost %q",
				when, d, cs.acked[d], n, cs.plans[d][n:cs.acked[d]])
			cs.lost += cs.acked[d] - n
			cs.acked[d] = n // count each loss once
		}
	}
	return byDeal
}

// TestCrashSafety plays over SSH against the real binary and kills it with
// SIGKILL at random moments — at a random time, right after a redraw, right
// after a move was typed — restarting it on the same data each time. Every
// move whose redraw reached the player must be stored, the stored moves
// must replay, and SQLite must pass PRAGMA integrity_check. The same
// against PostgreSQL when PYRAMID_TEST_DATABASE_URL is set.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it many times: skipped under -short (make crash runs it)")
	}
	bin := buildPyramid(t)
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed %d)", seed, seed)
	for i, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			crashRun(t, bin, be.url(t), rand.New(rand.NewPCG(seed, uint64(i))))
		})
	}
}

// crashRun is TestCrashSafety on one database.
func crashRun(t *testing.T, bin, dbURL string, rng *rand.Rand) {
	dataDir := t.TempDir()
	key := sshtest.NewKey(t)
	cs := &crashState{plans: map[uint64][]string{}, acked: map[uint64]int{}}
	nextDeal := uint64(0)
	addDeal := func() uint64 {
		for {
			nextDeal++
			if plan := hintPlan(t, nextDeal); len(plan) >= 40 {
				cs.deals = append(cs.deals, nextDeal)
				cs.plans[nextDeal] = plan
				return nextDeal
			}
		}
	}
	addDeal()
	start := time.Now()
	for kill := 0; kill < *crashKills; kill++ {
		srv := startChild(t, bin, dataDir, dbURL)
		stored := map[uint64]gameJSON{}
		for _, g := range games(t, user{srv.addr, key}) {
			stored[g.Deal] = g
		}
		deal := cs.deals[len(cs.deals)-1]
		done := len(stored[deal].Moves)
		if done == len(cs.plans[deal]) || stored[deal].Status != "" && stored[deal].Status != "playing" {
			deal, done = addDeal(), 0
		}

		mode := kill % killModes
		cs.kills++
		pl := &crashPlayer{t: t, cs: cs, addr: srv.addr, key: key, srv: srv, dataDir: dataDir, dbURL: dbURL,
			rng: rng, mode: mode, addDeal: addDeal}
		pl.play(deal, done)
		srv.kill(t)
		cs.check(t, fmt.Sprintf("after kill %d (%s)", kill+1, modeNames[mode]), readGames(t, dataDir, dbURL))
	}
	// One last start: the server opens what the kills left and agrees.
	srv := startChild(t, bin, dataDir, dbURL)
	var fromServer []storedGame
	for _, g := range games(t, user{srv.addr, key}) {
		fromServer = append(fromServer, storedGame{deal: g.Deal, moves: g.Moves, status: g.Status, removed: g.Removed})
	}
	srv.kill(t)
	byDeal := cs.check(t, "after the last restart", fromServer)
	stored := 0
	for _, g := range byDeal {
		stored += len(g.moves)
	}
	cs.ackedTotal = cs.lost
	for _, d := range cs.deals {
		cs.ackedTotal += cs.acked[d]
	}
	t.Logf("%d kills in %s, %d deals, %d moves acknowledged on screen, %d stored, %d lost, %d typed but not acknowledged when killed",
		cs.kills, time.Since(start).Round(time.Millisecond), len(cs.deals), cs.ackedTotal, stored, cs.lost, cs.unacked)
	if cs.lost > 0 {
		t.Errorf("%d acknowledged moves lost over %d kills", cs.lost, cs.kills)
	}
}

// Kill modes.
const (
	killAtRandom  = iota // at a random time after the session starts
	killAfterAck         // right after a redraw acknowledged a move
	killAfterType        // right after a move was typed, before its redraw
	// killWhileBlocked types a move while the test holds the database's
	// write lock from outside (a slow disk, a backup), so the save is
	// surely in flight, waits a while for a redraw that must not come
	// before the save does, and kills the server.
	killWhileBlocked
	killModes
)

var modeNames = []string{"at random", "after a redraw", "after typing", "while the store is blocked"}

// crashPlayer plays one server's life: it opens the current deal, types
// the planned moves one by one, records each move whose redraw arrived,
// and kills the server as its mode says.
type crashPlayer struct {
	t       *testing.T
	cs      *crashState
	addr    string
	key     gossh.Signer
	srv     *child
	dataDir string
	dbURL   string
	rng     *rand.Rand
	mode    int
	addDeal func() uint64
}

func (p *crashPlayer) play(deal uint64, done int) {
	t := p.t
	client := sshtest.Dial(t, p.addr, p.key)
	defer client.Close()
	killAfter := 1 + p.rng.IntN(8) // the move to kill at, for the modes but killAtRandom
	if p.mode == killAtRandom {
		delay := time.Duration(p.rng.IntN(400)) * time.Millisecond
		timer := time.AfterFunc(delay, func() { _ = p.srv.cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	played := 0
	for {
		term, err := sshtest.StartTerm(client, sshtest.TermOptions{Command: "classic " + strconv.FormatUint(deal, 10)})
		if err != nil {
			return // killed
		}
		defer term.Close()
		plan := p.cs.plans[deal]
		g := newGame(t, "classic", deal)
		play(t, g, plan[:done]...)
		if shown, _ := p.waitHeader(term, headerOf(g), wait); !shown {
			return
		}
		for ; done < len(plan); done++ {
			last := played+1 == killAfter
			if last && p.mode == killWhileBlocked {
				release := p.block()
				defer release() // after the kill
			}
			keys := "d"
			if n := plan[done]; n != "d" && n != "r" {
				keys = ":" + n + sshtest.KeyEnter
			}
			if err := term.Type(keys); err != nil {
				return
			}
			play(t, g, plan[done])
			timeout := wait
			switch {
			case last && p.mode == killAfterType:
				spin(time.Duration(p.rng.IntN(3000)) * time.Microsecond)
				p.srv.kill(t)
			case last && p.mode == killWhileBlocked:
				timeout = time.Duration(20+p.rng.IntN(300)) * time.Millisecond
			}
			shown, ended := p.waitHeader(term, headerOf(g), timeout)
			if shown {
				p.cs.acked[deal] = done + 1
				played++
			} else {
				p.cs.unacked++
			}
			if last && p.mode != killAtRandom || ended {
				p.srv.kill(t)
				return
			}
			if !shown {
				t.Fatalf("the header did not show %v within %s; screen:\n%s", headerOf(g), timeout, term.Screen())
			}
		}
		// The deal is played out: on to the next, in the same server life.
		_ = term.Close()
		deal, done = p.addDeal(), 0
	}
}

// block takes the database's write lock from outside the server and
// returns the function that releases it: SQLite's write lock through a
// connection of the test's own (BEGIN IMMEDIATE, as a backup or the sqlite3
// shell would), or on PostgreSQL a lock on the games table that lets
// readers through.
func (p *crashPlayer) block() (release func()) {
	t := p.t
	driver, dsn, lock := "pgx", p.dbURL, "BEGIN; LOCK TABLE games IN EXCLUSIVE MODE"
	if dsn == "" {
		driver, dsn, lock = "sqlite", "file:"+filepath.Join(p.dataDir, sqlstore.DBFile)+"?_pragma=busy_timeout(5000)", "BEGIN IMMEDIATE"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, lock)
	}
	if err != nil {
		db.Close()
		t.Fatalf("lock the database: %v", err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		_ = conn.Close()
		_ = db.Close()
	}
}

// waitHeader waits up to timeout until the header shows want, polling
// tightly so that a kill after a redraw follows it closely. It reports
// whether the header showed want, and whether the session ended (the
// server died).
func (p *crashPlayer) waitHeader(term *sshtest.Term, want header, timeout time.Duration) (shown, ended bool) {
	deadline := time.Now().Add(timeout)
	// The screen is read when bytes arrived, and every few milliseconds
	// anyway: the byte count moves before the emulator has drawn them.
	var seen int64 = -1
	var read time.Time
	for {
		select {
		case <-term.Done():
			// The redraw may have come with the last bytes before the
			// end; then it reached the player all the same.
			h, ok := readHeader(term.Screen())
			return ok && h == want, true
		default:
		}
		if n := term.BytesReceived(); n != seen || time.Since(read) > 2*time.Millisecond {
			seen, read = n, time.Now()
			if h, ok := readHeader(term.Screen()); ok && h == want {
				return true, false
			}
		}
		if time.Now().After(deadline) {
			h, ok := readHeader(term.Screen())
			return ok && h == want, false
		}
		time.Sleep(200 * time.Microsecond) // a poll interval, not synchronisation
	}
}

// spin waits d without sleeping, for delays shorter than the scheduler's
// timer resolution.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
