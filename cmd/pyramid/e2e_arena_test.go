package main

// Arenas end to end: an admin sets one up over SSH, players join it with
// ssh -t HOST arena ID and are paired into its races by the lease holder,
// play and leave them through their terminals, watch the standings move
// in `arena ID --json`, and see the podium on their screens when it ends;
// on PostgreSQL across two instances. An arena lasts 5 minutes at the
// least: TestE2EArena moves its start back in the database so that it
// ends a little over a minute after its players join (no race is paired
// in an arena's last minute, so it cannot be less).

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/server/sshtest"
	"pyramid/store/sqlstore"
	"pyramid/store/storetest"
)

// arenaTTL is the servers' lease (and presence) TTL in the arena tests:
// the lease holder pairs and ends arenas every third of it.
const arenaTTL = 3 * time.Second

// arenaName is the name the tests give their arenas: short, so that the
// race's header keeps its position on 80 columns.
const arenaName = "Test cup"

// arenaReportJSON is arena ID --json as the tests read it.
type arenaReportJSON struct {
	Arena struct {
		ID           int64  `json:"id"`
		Name         string `json:"name"`
		Phase        string `json:"phase"`
		Players      int    `json:"players"`
		Leader       string `json:"leader"`
		LeaderPoints int    `json:"leader_points"`
	} `json:"arena"`
	Standings []arenaStandingJSON `json:"standings"`
	Podium    []arenaStandingJSON `json:"podium"`
}

// arenaStandingJSON is one line of an arena's standings in arena ID --json.
type arenaStandingJSON struct {
	Rank     int    `json:"rank"`
	Name     string `json:"name"`
	Points   int    `json:"points"`
	Games    int    `json:"games"`
	Wins     int    `json:"wins"`
	Berserks int    `json:"berserks"`
}

// byName returns the report's line of the player called name.
func (r arenaReportJSON) byName(name string) (arenaStandingJSON, bool) {
	for _, l := range r.Standings {
		if l.Name == name {
			return l, true
		}
	}
	return arenaStandingJSON{}, false
}

// arenaSetUpRE finds the new arena's number in arena new's answer.
var arenaSetUpRE = regexp.MustCompile(`^arena (\d+) set up: `)

// newArena has u set up a classic arena of 5 minutes, starting now, and
// returns its number.
func newArena(t *testing.T, u user) int64 {
	t.Helper()
	out := runOK(t, u, `arena new classic --start now --duration 5m --name "`+arenaName+`"`)
	m := arenaSetUpRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("arena new: %q, want the new arena's number", out)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

// arenaReport reads arena ID --json as u.
func arenaReport(t *testing.T, u user, id int64) arenaReportJSON {
	t.Helper()
	var r arenaReportJSON
	runJSON(t, u, "arena "+strconv.FormatInt(id, 10)+" --json", &r)
	return r
}

// waitArenaReport polls arena ID --json until cond holds of it.
func waitArenaReport(t *testing.T, u user, id int64, timeout time.Duration, what string, cond func(arenaReportJSON) bool) arenaReportJSON {
	t.Helper()
	var last arenaReportJSON
	for deadline := time.Now().Add(timeout); ; {
		last = arenaReport(t, u, id)
		if cond(last) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s arena %d --json says %s; want %s", timeout, id, mustJSON(last), what)
		}
		time.Sleep(50 * time.Millisecond) // polling the store, not synchronising
	}
}

// writableDB opens the server's database for writing from the test: the
// SQLite file the server has open (WAL, with a busy timeout), or the
// test's PostgreSQL schema. It is closed when the test ends.
func (ts *testServer) writableDB(t *testing.T) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", ts.dbURL
	if dsn == "" {
		driver, dsn = "sqlite", "file:"+ts.data+"/"+sqlstore.DBFile+"?_pragma=busy_timeout(5000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// endArenaIn moves arena id's start back so that it ends in left from
// now, its duration unchanged (the rule's 5 minutes at the least): the
// servers read an arena from the store when a player joins it, so this
// is done before the first join.
func endArenaIn(t *testing.T, ts *testServer, id int64, left time.Duration) time.Time {
	t.Helper()
	db := ts.writableDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var durMS int64
	if err := db.QueryRowContext(ctx, `SELECT duration_ms FROM arenas WHERE id = $1`, id).Scan(&durMS); err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(left).Truncate(time.Millisecond)
	start := end.Add(-time.Duration(durMS) * time.Millisecond)
	res, err := db.ExecContext(ctx, `UPDATE arenas SET start_at = $1, end_at = $2 WHERE id = $3`, start.UnixMilli(), end.UnixMilli(), id)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("moving arena %d's start: %d rows changed, want 1", id, n)
	}
	return end
}

// racePlayingDeal is the deal of the race game the player of key plays
// now, read from the server's database: no screen shows a rated race's
// deal before it is over. The game is made in the countdown, as the
// racer's session takes their seat (or, should that fail, at their
// first move).
func racePlayingDeal(t *testing.T, ts *testServer, key gossh.Signer) uint64 {
	t.Helper()
	db := ts.db(t)
	id := gossh.FingerprintSHA256(key.PublicKey())
	var deal int64
	sshtest.Eventually(t, wait, func() bool {
		err := db.QueryRow(`SELECT deal_number FROM games WHERE player_id = $1 AND kind = 'race' AND status = 'playing'
			ORDER BY id DESC LIMIT 1`, id).Scan(&deal)
		return err == nil
	}, "a race game of %s in play", id)
	return uint64(deal) // the column holds the bits of the unsigned number
}

// drawFirst makes the racer's first move of an arena race, a draw, and
// returns their game after it, its deal read from the database.
func drawFirst(t *testing.T, term *sshtest.Term, ts *testServer, key gossh.Signer) *engine.Game {
	t.Helper()
	typeKeys(t, term, "d")
	term.WaitScreen(t, wait, "the first draw", func(s string) bool { h, ok := readArenaHeader(s); return ok && h.Moves == 1 })
	g := newGame(t, "classic", racePlayingDeal(t, ts, key))
	play(t, g, "d")
	waitArenaPosition(t, term, g)
	return g
}

// solveFrom is a line that clears g from its position, from the solver.
func solveFrom(t *testing.T, g *engine.Game) []string {
	t.Helper()
	sol := engine.Solve(t.Context(), g, 0)
	if sol.Verdict != engine.Winnable {
		t.Fatalf("deal %d after %q: the solver says %v, want it winnable still", g.Deal().Number, g.Record().Moves, sol.Verdict)
	}
	line := make([]string, len(sol.Moves))
	for i, m := range sol.Moves {
		line[i] = m.String()
	}
	return line
}

// replay is a new game of g's deal with g's moves made.
func replay(t *testing.T, g *engine.Game) *engine.Game {
	t.Helper()
	c := newGame(t, g.Rules().ID(), g.Deal().Number)
	play(t, c, g.Record().Moves...)
	return c
}

// readArenaHeader finds the table's header on the screen of an arena
// race: the arena's name and points make the title longer, and the
// position goes to the second line when the two do not fit on one.
func readArenaHeader(screen string) (header, bool) {
	first, rest, _ := strings.Cut(screen, "\n")
	second, _, _ := strings.Cut(rest, "\n")
	if h, ok := readHeader(first); ok {
		return h, true
	}
	return readHeader(second)
}

// waitArenaPosition waits until an arena race's table shows g's
// position, as waitPosition does a table's.
func waitArenaPosition(t *testing.T, term *sshtest.Term, g *engine.Game) string {
	t.Helper()
	want := headerOf(g)
	return term.WaitScreen(t, wait, "header "+want.String(), func(s string) bool {
		h, ok := readArenaHeader(s)
		return ok && h == want && strings.Contains(s, "stock") && strings.Contains(firstLine(s), arenaName)
	})
}

// firstLine is a screen's first line.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// waitArenaRace waits until term shows the table of an arena race that
// has not begun (no move made), its header naming the arena.
func waitArenaRace(t *testing.T, term *sshtest.Term, who string) string {
	t.Helper()
	return term.WaitScreen(t, wait, who+"'s arena race", func(s string) bool {
		h, ok := readArenaHeader(s)
		return ok && h.Moves == 0 && strings.Contains(firstLine(s), arenaName) && strings.Contains(s, "stock")
	})
}

// waitArenaScreen waits until term shows the arena screen with cond of
// it.
func waitArenaScreen(t *testing.T, term *sshtest.Term, timeout time.Duration, what string, cond func(string) bool) string {
	t.Helper()
	return term.WaitScreen(t, timeout, what, func(s string) bool {
		return strings.Contains(firstLine(s), arenaName+" · arena") && cond(s)
	})
}

// racerLine returns the line of the race panel on screen that shows the
// racer called name ("  bob   0/28   0 mv p1 playing", ">ann ..." for
// the player's own), or "".
func racerLine(screen, name string) string {
	re := regexp.MustCompile(`^ ?>?` + regexp.QuoteMeta(name) + `!? +\d+/\d+ `)
	for _, l := range strings.Split(screen, "\n") {
		if re.MatchString(l) {
			return l
		}
	}
	return ""
}

// isRemoval reports whether a move in notation removes cards.
func isRemoval(t *testing.T, s string) bool {
	m := mustMove(t, s)
	return m.Kind == engine.RemoveKing || m.Kind == engine.RemovePair
}

// playHuman types moves at the ":" prompt at a person's pace: a line
// for each removal and the draws before it, personsPace between two
// removals (games.Assisted voids a game of removals faster than that),
// each line once the one before shows. The last line is not waited for
// when it ends the player's race.
func playHuman(t *testing.T, term *sshtest.Term, g *engine.Game, moves []string, endsRace bool) {
	t.Helper()
	for len(moves) > 0 {
		n := 0
		for n < len(moves) {
			n++
			if isRemoval(t, moves[n-1]) {
				break
			}
		}
		typeKeys(t, term, ":"+strings.Join(moves[:n], " ")+"\r")
		play(t, g, moves[:n]...)
		removal := isRemoval(t, moves[n-1])
		moves = moves[n:]
		if len(moves) > 0 || !endsRace {
			waitArenaPosition(t, term, g)
		}
		if removal && len(moves) > 0 {
			time.Sleep(personsPace) // a person's pace, not a wait for anything
		}
	}
}

// stuckLine is a line of play that loses g's deal from g's position
// after removing a card or more: draws towards the first removal, that
// removal, then draws and redeals before anything else, and the removals
// left when there are none (the game is lost only when no move is
// left). It fails the test for a deal that line clears or removes
// nothing in.
func stuckLine(t *testing.T, from *engine.Game) []string {
	t.Helper()
	g := replay(t, from)
	isDraw := func(m engine.Move) bool { return m.Kind == engine.Draw || m.Kind == engine.Redeal }
	removesPyramid := func(m engine.Move) bool {
		c := replay(t, g)
		return !isDraw(m) && c.Apply(m) == nil && c.Removed() > g.Removed()
	}
	for g.Status() == engine.Playing {
		legal := g.Legal()
		pick := legal[0]
		if i := slices.IndexFunc(legal, isDraw); i >= 0 {
			pick = legal[i]
		}
		if i := slices.IndexFunc(legal, removesPyramid); g.Removed() == 0 && i >= 0 {
			pick = legal[i]
		}
		if err := g.Apply(pick); err != nil {
			t.Fatal(err)
		}
	}
	if g.Status() != engine.Lost || g.Removed() == 0 {
		t.Fatalf("deal %d: the stuck line ends %v with %d removed; want lost after a removal", g.Deal().Number, g.Status(), g.Removed())
	}
	return g.Record().Moves[len(from.Record().Moves):]
}

// toPyramidRemoval is the start of line, from g's position, up to the
// first move that removes a pyramid card.
func toPyramidRemoval(t *testing.T, g *engine.Game, line []string) []string {
	t.Helper()
	c := replay(t, g)
	for i, m := range line {
		play(t, c, m)
		if c.Removed() > g.Removed() {
			return line[:i+1]
		}
	}
	t.Fatalf("deal %d: the line removes no pyramid card", g.Deal().Number)
	return nil
}

// toMoreRemovals is the start of line that removes n pyramid cards or
// more from g's position.
func toMoreRemovals(t *testing.T, g *engine.Game, line []string, n int) []string {
	t.Helper()
	c := replay(t, g)
	for i, m := range line {
		play(t, c, m)
		if c.Removed() >= g.Removed()+n {
			return line[:i+1]
		}
	}
	t.Fatalf("deal %d: the line removes fewer than %d pyramid cards", g.Deal().Number, n)
	return nil
}

// arenaServers runs fn on one SQLite server (one and two are the same),
// then on two instances on one PostgreSQL, when there is one. Both have
// admin's key for their admin, the arena tests' lease TTL, and room for
// the test's connections from one address.
func arenaServers(t *testing.T, admin gossh.Signer, fn func(t *testing.T, one, two *testServer)) {
	args := []string{"--presence-ttl", arenaTTL.String(), "--max-conns-per-ip", "64",
		"--admins", gossh.FingerprintSHA256(admin.PublicKey())}
	// The two run at once: most of their time is the arena's last
	// minute, in which they wait.
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		ts := startServer(t, "", args...)
		fn(t, ts, ts)
	})
	t.Run("postgres-cluster", func(t *testing.T) {
		t.Parallel()
		dbURL := storetest.PostgresSchemaURL(t) // skips without PostgreSQL
		fn(t, startServer(t, dbURL, args...), startServer(t, dbURL, args...))
	})
}

// TestE2EArena: an admin sets up an arena; ann and bob join it and are
// paired into a race, ann going berserk; cat and dan join while it runs
// and are paired into another (on the cluster, ann and cat are on one
// instance, bob and dan on the other). ann clears her deal at a person's
// pace and bob leaves: the standings show ann's 4 points (a win, the
// clear, the berserk bonus) and bob's void game. ann and bob are not
// paired again in the arena's last minute. cat removes a card and dan
// none; their race is cut at the arena's end: cat wins it. Every screen
// then shows the results with the podium, which arena ID --json has too.
func TestE2EArena(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	arenaServers(t, adminKey, func(t *testing.T, one, two *testServer) {
		keys := map[string]gossh.Signer{}
		on := map[string]*testServer{"ann": one, "bob": two, "cat": one, "dan": two}
		for _, name := range []string{"ann", "bob", "cat", "dan"} {
			keys[name] = sshtest.NewKey(t)
			runOK(t, on[name].user(keys[name]), "name "+name)
		}
		admin := one.user(adminKey)
		id := newArena(t, admin)
		idS := strconv.FormatInt(id, 10)
		rep := arenaReport(t, two.user(keys["bob"]), id)
		if rep.Arena.Name != arenaName || rep.Arena.Phase != "running" || len(rep.Standings) != 0 {
			t.Fatalf("the new arena: %s; want %q running with no standings", mustJSON(rep), arenaName)
		}
		var list []struct {
			ID    int64  `json:"id"`
			Phase string `json:"phase"`
		}
		runJSON(t, two.user(keys["dan"]), "arenas --json", &list)
		if len(list) != 1 || list[0].ID != id || list[0].Phase != "running" {
			t.Fatalf("arenas --json: %+v, want arena %d running", list, id)
		}
		// The second pairing must come with a minute and the countdown
		// left before the end: no race is paired in the last minute.
		end := endArenaIn(t, one, id, 80*time.Second)
		start := time.Now()

		open := func(name string) *sshtest.Term {
			return on[name].openAs(t, name, keys[name], "arena "+idS)
		}
		a, b := open("ann"), open("bob")
		a.WaitScreen(t, wait, "ann's arena race about to start", func(s string) bool {
			return strings.Contains(s, "The race starts in") && strings.Contains(s, "b: berserk")
		})
		typeKeys(t, a, "b")
		a.WaitFor(t, "You went berserk", wait)
		c, d := open("cat"), open("dan")

		for who, term := range map[string]*sshtest.Term{"ann": a, "bob": b, "cat": c, "dan": d} {
			waitArenaRace(t, term, who)
		}
		t.Logf("both races started %s after the first join", time.Since(start).Round(time.Millisecond))

		// ann and bob draw first (their race games are stored from
		// their first move); their deal is one.
		ga := drawFirst(t, a, one, keys["ann"])
		gb := drawFirst(t, b, two, keys["bob"])
		if ga.Deal().Number != gb.Deal().Number {
			t.Fatalf("ann's deal %d, bob's %d: want one deal for their race", ga.Deal().Number, gb.Deal().Number)
		}
		// cat and dan draw (within the race's first-move time, or they
		// would forfeit it); then cat removes PlayedCards+2 pyramid cards
		// or more, dan PlayedCards or one more: both played, cat more.
		gc := drawFirst(t, c, one, keys["cat"])
		gd := drawFirst(t, d, two, keys["dan"])
		playHuman(t, c, gc, toMoreRemovals(t, gc, solveFrom(t, gc), arena.PlayedCards+2), false)
		playHuman(t, d, gd, toMoreRemovals(t, gd, solveFrom(t, gd), arena.PlayedCards), false)

		// ann clears her deal; bob leaves once she has, and once the
		// arena is in its last minute, so that the two, free, are not
		// paired again (ann's clear at a person's pace is slower than
		// that, as a rule).
		playHuman(t, a, ga, solveFrom(t, ga), true)
		a.WaitFor(t, "You cleared the pyramid!", wait)
		sshtest.Eventually(t, wait, func() bool { return time.Until(end) < lobby.MinTimeLimit+lobby.CountdownTime }, "the arena's last minute")
		typeKeys(t, b, "qq")
		waitArenaScreen(t, b, wait, "bob back on the arena screen", func(string) bool { return true })
		a.WaitScreen(t, wait, "ann's race results", func(s string) bool { return strings.Contains(s, "1. ann") })
		rep = waitArenaReport(t, admin, id, wait, "ann's 4 points and bob's void game", func(r arenaReportJSON) bool {
			ann, okA := r.byName("ann")
			bob, okB := r.byName("bob")
			return okA && okB && ann.Points == 4 && ann.Games == 1 && ann.Wins == 1 && ann.Berserks == 1 && ann.Rank == 1 &&
				bob.Points == 0 && bob.Games == 1 && bob.Wins == 0
		})
		if rep.Arena.Phase != "running" || rep.Arena.Leader != "ann" || rep.Arena.LeaderPoints != 4 || len(rep.Standings) != 2 {
			t.Fatalf("arena %d after the first race: %s; want it running, ann leading with 4, two lines", id, mustJSON(rep))
		}
		// Back on the arena screen (enter leaves the results; q there
		// would leave the arena), ann sees her line.
		typeKeys(t, a, "\r")
		waitArenaScreen(t, a, wait, "ann's line on the arena screen", func(s string) bool {
			return strings.Contains(s, "You: 1st · 4 points · 1 game · 1 win")
		})
		for who, term := range map[string]*sshtest.Term{"ann": a, "bob": b} {
			waitArenaScreen(t, term, wait, who+" told no race comes", func(s string) bool {
				return strings.Contains(s, "free: no new race in the arena's last minute")
			})
		}
		// Those without a game yet (cat and dan, in their first race)
		// come after bob, who ranks second as in arena ID --json.
		s := waitArenaScreen(t, a, wait, "bob second", func(s string) bool { return strings.Contains(lineWith(s, " bob "), "2. bob") })
		if !strings.Contains(lineWith(s, " cat "), "- cat") || !strings.Contains(lineWith(s, " dan "), "- dan") {
			t.Errorf("ann's arena screen: want cat and dan without a rank:\n%s", s)
		}
		// cat's header follows the standings: still no point for him.
		if !strings.Contains(firstLine(c.Screen()), arenaName+" · 0 points") {
			t.Errorf("cat's race header: %q, want the arena's name and his 0 points", firstLine(c.Screen()))
		}

		// The end: cat and dan's race is cut at it, then the arena ends
		// and every screen shows the results.
		t.Logf("waiting %s for the arena's end", time.Until(end).Round(time.Second))
		for who, term := range map[string]*sshtest.Term{"ann": a, "bob": b, "cat": c, "dan": d} {
			s := term.WaitScreen(t, time.Until(end)+3*wait, who+"'s arena results", func(s string) bool {
				return strings.Contains(firstLine(s), arenaName+" · results") && strings.Contains(s, "2nd  cat")
			})
			if !strings.Contains(lineWith(s, "1st"), "ann") || !strings.Contains(lineWith(s, "1st"), "4 points") ||
				!strings.Contains(lineWith(s, "2nd"), "2 points") {
				t.Errorf("%s's results: want ann 1st with 4 points, cat 2nd with 2:\n%s", who, s)
			}
			if strings.Contains(s, "3rd  ") { // a podium line, not "You: 3rd of 4"
				t.Errorf("%s's results: a podium place for a player without a point:\n%s", who, s)
			}
			// No point each, one game each: bob reached his first.
			if !strings.Contains(s, "3. bob") || !strings.Contains(s, "4. dan") {
				t.Errorf("%s's results: want bob 3rd and dan 4th in the standings:\n%s", who, s)
			}
		}
		t.Logf("the results showed %s after the arena's end", time.Since(end).Round(time.Millisecond))
		rep = waitArenaReport(t, admin, id, wait, "the arena finished with its podium", func(r arenaReportJSON) bool {
			return r.Arena.Phase == "finished" && len(r.Podium) == 2
		})
		want := map[string]arenaStandingJSON{
			"ann": {Rank: 1, Name: "ann", Points: 4, Games: 1, Wins: 1, Berserks: 1},
			"cat": {Rank: 2, Name: "cat", Points: 2, Games: 1, Wins: 1},
			// No point each, one game each: bob reached his first. (ann
			// and bob, free from their race's end, were not paired
			// again: that was the arena's last minute.)
			"bob": {Rank: 3, Name: "bob", Games: 1},
			"dan": {Rank: 4, Name: "dan", Games: 1},
		}
		for name, w := range want {
			if got, _ := rep.byName(name); got != w {
				t.Errorf("arena %d's standings: %s's line %+v, want %+v", id, name, got, w)
			}
		}
		if len(rep.Standings) != 4 || rep.Arena.Players != 4 || rep.Podium[0] != want["ann"] || rep.Podium[1] != want["cat"] {
			t.Errorf("arena %d at its end: %s; want four players, ann and cat on the podium", id, mustJSON(rep))
		}
		if out := runOK(t, two.user(keys["dan"]), "arena "+idS); !strings.Contains(out, "finished\npodium: 1. ann (4) · 2. cat (2)\n") {
			t.Errorf("arena %d at its end, as text: want it finished with ann and cat on the podium:\n%s", id, out)
		}
		// dan's race game, cut at the arena's end, was ended with the
		// race, with his moves.
		var status, moves string
		if err := two.db(t).QueryRow(`SELECT status, moves FROM games WHERE player_id = $1 AND kind = 'race'`,
			gossh.FingerprintSHA256(keys["dan"].PublicKey())).Scan(&status, &moves); err != nil || status != "abandoned" ||
			moves != strings.Join(gd.Record().Moves, " ") {
			t.Errorf("dan's race game: %q with moves %q (%v), want one, abandoned, with %q", status, moves, err, gd.Record().Moves)
		}
		// ssh -t HOST arena ID after the end shows the results.
		late := on["dan"].openAs(t, "dan", keys["dan"], "arena "+idS)
		late.WaitScreen(t, wait, "dan's results of the arena over", func(s string) bool {
			return strings.Contains(firstLine(s), arenaName+" · results") && strings.Contains(s, "1st  ann") &&
				strings.Contains(s, "You: 4th of 4")
		})
		// The podium's trophies, in stats.
		for name, rank := range map[string]int{"ann": 1, "cat": 2, "bob": 0} {
			var stats []struct {
				Rules  string `json:"rules"`
				Arenas []struct {
					ArenaID int64 `json:"arena_id"`
					Rank    int   `json:"rank"`
					Points  int   `json:"points"`
					Players int   `json:"players"`
				} `json:"arenas"`
			}
			runJSON(t, on[name].user(keys[name]), "stats --json", &stats)
			var got []string
			for _, st := range stats {
				for _, tr := range st.Arenas {
					got = append(got, fmt.Sprintf("%s arena %d: rank %d, %d points of %d players", st.Rules, tr.ArenaID, tr.Rank, tr.Points, tr.Players))
				}
			}
			var wantTrophies []string // none off the podium
			if rank > 0 {
				wantTrophies = []string{fmt.Sprintf("classic arena %d: rank %d, %d points of 4 players", id, rank, want[name].Points)}
			}
			if !slices.Equal(got, wantTrophies) {
				t.Errorf("%s's arena trophies in stats --json: %q, want %q", name, got, wantTrophies)
			}
		}
	})
}

// dialAs connects to ts as the SSH user name with key; the test may
// close the connection (a drop), or it is closed when the test ends.
func (ts *testServer) dialAs(t *testing.T, name string, key gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig(name, key))
	if err != nil {
		t.Fatalf("dial %s: %v", ts.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestE2EArenaDropAndReturn: ann and bob race in an arena; ann gets
// stuck after removing a card and bob leaves: ann's win is 2 points.
// Paired again, ann makes two moves and drops (her SSH connection
// closes) mid-race; she comes back with ssh -t HOST arena ID (on the
// cluster, on the other instance): she is back in her race at her
// position, her 2 points kept in its header and in arena ID --json; she
// plays on, gets stuck again, bob leaves: the race she came back to
// counts, a second win. In the third race bob drops and the race ends
// without him (ann on a streak: her win counts double); back (on the
// cluster, on the other instance), he is free in the arena, his games
// kept.
func TestE2EArenaDropAndReturn(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	arenaServers(t, adminKey, func(t *testing.T, one, two *testServer) {
		annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
		runOK(t, one.user(annKey), "name ann")
		runOK(t, two.user(bobKey), "name bob")
		admin := one.user(adminKey)
		id := newArena(t, admin)
		link := "arena " + strconv.FormatInt(id, 10)
		standings := func(what string, annPoints, annGames, annWins, bobGames int) {
			t.Helper()
			waitArenaReport(t, admin, id, wait, what, func(r arenaReportJSON) bool {
				ann, _ := r.byName("ann")
				bob, _ := r.byName("bob")
				return ann.Points == annPoints && ann.Games == annGames && ann.Wins == annWins && ann.Rank == 1 &&
					bob.Points == 0 && bob.Games == bobGames && bob.Rank == 2
			})
		}

		// bobPlays has bob, in his race, remove arena.PlayedCards pyramid
		// cards or more at the start of it: he played it, and ann's win
		// over him, who leaves it then, counts.
		bobPlays := func(b *sshtest.Term, on *testServer) {
			t.Helper()
			gb := drawFirst(t, b, on, bobKey)
			playHuman(t, b, gb, toMoreRemovals(t, gb, solveFrom(t, gb), arena.PlayedCards), false)
		}

		// The first race: ann wins it. The pairing takes each of them
		// from the results to the next race.
		annConn := one.dialAs(t, "ann", annKey)
		a := sshtest.OpenTerm(t, annConn, sshtest.TermOptions{Command: link})
		bobConn := two.dialAs(t, "bob", bobKey)
		b := sshtest.OpenTerm(t, bobConn, sshtest.TermOptions{Command: link})
		waitArenaRace(t, a, "ann")
		waitArenaRace(t, b, "bob")
		ga := drawFirst(t, a, one, annKey)
		bobPlays(b, two)
		playHuman(t, a, ga, stuckLine(t, ga), true)
		a.WaitFor(t, "no moves left", wait)
		typeKeys(t, b, "qq")
		standings("ann's win", 2, 1, 1, 1)

		// The second race: ann makes two moves and drops.
		s := waitArenaRace(t, a, "ann")
		if !strings.Contains(firstLine(s), arenaName+" · 2 points") {
			t.Fatalf("ann's second race: header %q, want the arena's name and her 2 points", firstLine(s))
		}
		waitArenaRace(t, b, "bob")
		ga = drawFirst(t, a, one, annKey)
		bobPlays(b, two)
		playHuman(t, a, ga, toPyramidRemoval(t, ga, solveFrom(t, ga)), false)
		if err := annConn.Close(); err != nil {
			t.Fatal(err)
		}
		s = b.WaitScreen(t, wait, "ann gone from bob's panel", func(s string) bool {
			return strings.HasSuffix(racerLine(s, "ann"), " left")
		})
		// The room's host was ann (the first of the pairing, by rank):
		// it passes to bob, which is no news in an arena's room.
		if strings.Contains(s, "host") {
			t.Errorf("bob's screen once ann dropped speaks of a host:\n%s", s)
		}

		// ann comes back (on the cluster, on the other instance): her
		// race, her position, her points.
		a = two.openAs(t, "ann", annKey, link)
		s = waitArenaPosition(t, a, ga)
		if !strings.Contains(firstLine(s), arenaName+" · 2 points") {
			t.Errorf("ann back in her race: header %q, want the arena's name and her 2 points", firstLine(s))
		}
		if !strings.HasSuffix(racerLine(s, "bob"), " playing") || !strings.HasSuffix(racerLine(s, "ann"), " playing") {
			t.Errorf("ann back in her race: want both racers playing on her panel:\n%s", s)
		}
		r := arenaReport(t, two.user(bobKey), id)
		if ann, _ := r.byName("ann"); ann.Points != 2 || ann.Games != 1 {
			t.Errorf("arena %d after ann's return: her line %+v, want her 2 points of 1 game", id, ann)
		}
		playHuman(t, a, ga, stuckLine(t, ga), true)
		a.WaitFor(t, "no moves left", wait)
		typeKeys(t, b, "qq")
		standings("ann's second win, in the race she came back to", 4, 2, 2, 2)

		// The third race: bob drops and does not come back before its
		// end. ann is on a streak: her win counts double.
		s = waitArenaRace(t, a, "ann")
		if !strings.Contains(firstLine(s), arenaName+" · 4 points") {
			t.Fatalf("ann's third race: header %q, want the arena's name and her 4 points", firstLine(s))
		}
		waitArenaRace(t, b, "bob")
		bobPlays(b, two)
		if err := bobConn.Close(); err != nil {
			t.Fatal(err)
		}
		ga = drawFirst(t, a, two, annKey)
		playHuman(t, a, ga, stuckLine(t, ga), true) // ends the race: bob left it
		standings("ann's third win, doubled, and bob's void game", 8, 3, 3, 3)

		// bob comes back (on the cluster, on the other instance) after
		// the race's end: free in the arena, his games kept.
		b = one.openAs(t, "bob", bobKey, link)
		waitArenaScreen(t, b, wait, "bob free in the arena", func(s string) bool {
			return strings.Contains(s, "You: 2nd · 0 points · 3 games · 0 wins") && strings.Contains(s, "free")
		})
	})
}
