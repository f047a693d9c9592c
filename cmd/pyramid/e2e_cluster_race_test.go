package main

// A race across two instances on one PostgreSQL, end to end: a room made
// on one is listed and joined on the other, a spectator on one watches a
// racer on the other, the instance that made the room (and holds the
// races' lease) dies by SIGKILL mid-race, its racer is away (her seat
// waits for her) and comes back on the survivor to her stored game, the
// race ends and is stored once.

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to count the races stored

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/store/storetest"
)

// TestE2EClusterRace: racers on both instances race to a result across a
// SIGKILL of the room's instance.
func TestE2EClusterRace(t *testing.T) {
	dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
	bin := buildPyramid(t)
	ttl := []string{"--presence-ttl", clusterTTL.String()}
	c1 := startClusterChild(t, bin, dbURL, ttl...)
	one := &testServer{addr: c1.addr, dbURL: dbURL, logs: c1.stderr}
	two := startServer(t, dbURL, ttl...)

	deal, line := hintGame(t, "classic", engine.Won)
	keyA, keyB := sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, one.user(keyA), "name alice")
	runOK(t, two.user(keyB), "name bob")

	a := sshtest.OpenTerm(t, one.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10) + " --public --time 5m"})
	code := waitRoom(t, a)
	a.WaitFor(t, "1/8 players", wait)
	sshtest.Eventually(t, wait, func() bool {
		var rooms []roomJSON
		runJSON(t, two.user(keyB), "rooms --json", &rooms)
		return len(rooms) == 1 && rooms[0].Code == code && rooms[0].Host == "alice" && rooms[0].Players == 1
	}, "instance two lists alice's room")

	b := sshtest.OpenTerm(t, two.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	b.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "2/8 players", wait)
	d := sshtest.OpenTerm(t, one.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race watch " + code})
	d.WaitFor(t, "You watch this room", wait)
	b.WaitFor(t, "1 watching", wait)
	typeKeys(t, b, "thi alice\r")
	a.WaitFor(t, "<bob> hi alice", wait)

	readyStart(t, a, b)
	ga, gb := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, b, gb)

	// bob's moves on two show on alice's panel on one.
	half := len(line) / 2
	playLine(t, b, gb, line[:half], false)
	start := time.Now()
	a.WaitScreen(t, wait, "bob's progress on alice's panel", func(s string) bool {
		return strings.Contains(lineWith(s, " bob"), strconv.Itoa(gb.Removed())+"/28")
	})
	t.Logf("bob's progress reached alice's panel on the other instance %s after his board showed it", time.Since(start).Round(time.Millisecond))
	// The spectator on one switches to bob's board, on two.
	for i := 0; i < 3 && !strings.Contains(d.Screen(), "watching bob"); i++ {
		typeKeys(t, d, "\t")
		sshtest.Poll(wait/10, func() bool { return strings.Contains(d.Screen(), "watching bob") })
	}
	d.WaitFor(t, "watching bob", wait)
	waitPosition(t, d, gb)

	// alice plays a few moves, stored, then her instance dies.
	playLine(t, a, ga, line[:4], false)
	waitStored(t, two.user(keyA), "classic", deal, ga.Record().Moves)
	c1.kill(t)
	killed := time.Now()
	b.WaitScreen(t, wait, "alice away", func(s string) bool { return strings.Contains(lineWith(s, " alice"), "away") })
	t.Logf("alice counted as away on two %s after her instance died (lease TTL %s)", time.Since(killed).Round(time.Millisecond), clusterTTL)

	// alice comes back, on two, to her game.
	a = sshtest.OpenTerm(t, two.dial(t, keyA), sshtest.TermOptions{Command: "race " + code})
	waitPosition(t, a, ga)
	b.WaitScreen(t, wait, "alice back", func(s string) bool { return !strings.Contains(lineWith(s, " alice"), "away") })
	playLine(t, a, ga, line[4:], false)
	a.WaitFor(t, "You cleared the pyramid!", wait)
	playLine(t, b, gb, line[half:], true)
	for _, term := range []*sshtest.Term{a, b} {
		s := term.WaitFor(t, "room "+code+" · results", wait)
		if !strings.Contains(lineWith(s, "1. alice"), "cleared in") || !strings.Contains(lineWith(s, "2. bob"), "cleared in") {
			t.Errorf("results: want alice 1st, bob 2nd; got\n%s", s)
		}
	}
	// The host's part passed to bob when alice's instance died: alice's
	// results say who hosts now, and her r says whom to ask.
	a.WaitFor(t, "bob, the host, may start a rematch", wait)
	typeKeys(t, a, "r")
	a.WaitFor(t, "ask bob, the host, for a rematch", wait)
	b.WaitFor(t, "r: a rematch in this room", wait)

	// Stored once.
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	sshtest.Eventually(t, wait, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM races WHERE code = $1`, code).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n >= 1
	}, "the race stored")
	if n != 1 {
		t.Fatalf("%d races of room %s stored, want 1", n, code)
	}
	// The room's deal was chosen: the race is stored unrated, whichever
	// instance stored it.
	var rated bool
	if err := db.QueryRowContext(context.Background(), `SELECT rated FROM races WHERE code = $1`, code).Scan(&rated); err != nil || rated {
		t.Errorf("the stored race: rated %v (%v), want unrated", rated, err)
	}
	var top []ratingJSON
	runJSON(t, two.user(keyB), "top race --json", &top)
	if len(top) != 0 {
		t.Errorf("top race --json after a chosen deal's race: got %+v, want nobody rated", top)
	}
}
