package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
	"pyramid/store/sqlstore"
)

// holdGames locks the stored games from outside the server, as a backup
// or an sqlite3 shell would, and returns the function that lets go:
// SQLite's write lock (BEGIN IMMEDIATE on a connection of the test's
// own), or on PostgreSQL a lock on every game row (SELECT … FOR UPDATE in
// an open transaction).
func holdGames(t *testing.T, dataDir, dbURL string) (release func()) {
	t.Helper()
	driver, dsn, lock := "pgx", dbURL, []string{"BEGIN", "SELECT id FROM games FOR UPDATE"}
	if dsn == "" {
		driver, dsn, lock = "sqlite", "file:"+filepath.Join(dataDir, sqlstore.DBFile)+"?_pragma=busy_timeout(5000)", []string{"BEGIN IMMEDIATE"}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, err := db.Conn(ctx)
	for _, q := range lock {
		if err == nil {
			_, err = conn.ExecContext(ctx, q)
		}
	}
	if err != nil {
		db.Close()
		t.Fatalf("lock the games: %v", err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		_ = conn.Close()
		_ = db.Close()
	}
}

// What the farewell says of a player whose third move the locked store
// did not take: its save failed (and the screen went back to move 2),
// or it was stopped when the time was up, or did not answer at all: then
// the store has not confirmed it (PostgreSQL may still write a statement
// whose client gave up on it).
var (
	unsavedRE     = regexp.MustCompile(`Your game is saved \(Classic · deal \d+, 2 moves\)\. Your last move \(d\) could not be saved: `)
	unconfirmedRE = regexp.MustCompile(`Your game is saved up to move 2: move 3 \(d\) is not confirmed by the store and may be lost\.|` +
		`Your game is saved \(Classic · deal \d+, 2 moves\)\. Your last move \(d\) is not confirmed by the store and may be lost: `)
)

// TestE2EShutdownWithLockedStore sends SIGTERM to the real server while
// the store is locked from outside and every player has a move waiting
// to be saved. No move the screen showed is lost, no player is told
// their game is saved when it is not, each is told which move was not
// saved, the words stay on the terminal after the connection closes
// (playtest G1), and every session ends with an exit status.
func TestE2EShutdownWithLockedStore(t *testing.T) {
	bin := buildPyramid(t)
	forEachBackend(t, func(t *testing.T, be backend) {
		dbURL := be.url(t)
		dataDir := t.TempDir()
		srv := startChild(t, bin, dataDir, dbURL)
		const players = 4
		type player struct {
			deal   uint64
			client *gossh.Client
			term   *sshtest.Term
		}
		var ps []player
		for i := range players {
			p := player{deal: uint64(10 + i), client: sshtest.Dial(t, srv.addr, sshtest.NewKey(t))}
			defer p.client.Close()
			p.term = sshtest.OpenTerm(t, p.client, sshtest.TermOptions{Command: "classic " + strconv.FormatUint(p.deal, 10)})
			g := newGame(t, "classic", p.deal)
			waitPosition(t, p.term, g)
			for range 2 {
				typeKeys(t, p.term, "d")
				play(t, g, "d")
				waitPosition(t, p.term, g) // shown, so stored
			}
			ps = append(ps, p)
		}

		release := holdGames(t, dataDir, dbURL)
		released := false
		defer func() {
			if !released {
				release()
			}
		}()
		for _, p := range ps {
			typeKeys(t, p.term, "d") // its save waits for the lock
		}
		// The move does not show while its save waits.
		time.Sleep(300 * time.Millisecond) // a delay for a redraw that must not come, not synchronisation
		for _, p := range ps {
			if s := p.term.Screen(); strings.Contains(s, "3 moves") {
				t.Fatalf("deal %d: the third move shows before it is stored:\n%s", p.deal, s)
			}
		}

		if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		unconfirmed := map[uint64]bool{}
		for _, p := range ps {
			if status := p.term.ExitStatus(2 * wait); status != 1 {
				t.Errorf("deal %d: exit status %d, want 1 (the session ended, the server's doing)\n%s", p.deal, status, p.term.Screen())
			}
			farewell := strings.Join(strings.Fields(p.term.Screen()), " ")
			if !strings.Contains(farewell, "The server is restarting; reconnect in a moment.") {
				t.Errorf("deal %d: the shutdown notice is gone once the session closed: %q", p.deal, farewell)
			}
			unconfirmed[p.deal] = unconfirmedRE.MatchString(farewell)
			if !unsavedRE.MatchString(farewell) && !unconfirmed[p.deal] {
				t.Errorf("deal %d: the farewell does not say that move 3 was not saved: %q", p.deal, farewell)
			}
			if strings.Contains(farewell, "3 moves") {
				t.Errorf("deal %d: the farewell shows the unsaved position: %q", p.deal, farewell)
			}
		}
		select {
		case <-srv.done:
		case <-time.After(2 * wait):
			t.Fatalf("the server did not exit after SIGTERM\n%s", srv.stderr)
		}
		release()
		released = true

		// The store has what the screens showed and the farewells said:
		// two moves of each game (or three, where the farewell said the
		// third was not confirmed).
		gs := readGames(t, dataDir, dbURL)
		if len(gs) != players {
			t.Fatalf("%d stored games, want %d", len(gs), players)
		}
		for _, g := range gs {
			got := strings.Join(g.moves, " ")
			if got != "d d" && !(got == "d d d" && unconfirmed[g.deal]) {
				t.Errorf("deal %d: stored moves %q, want the two shown (d d)", g.deal, got)
			}
		}
	})
}
