// Command clusterrace rehearses races across the two instances of a
// cluster on one PostgreSQL, over real SSH with a terminal each, as
// players would: deploy/cluster-test.sh (make cluster) runs it once its
// instances are up.
//
//	clusterrace -one 127.0.0.1:24251 -two 127.0.0.1:24252 -database-url postgres://… -from 127.0.0.101 -presence-ttl 3s -seat-grace 6s
//
// It reaches each instance straight, not through the balancer, from
// -from and the next thirteen addresses (one per player, and eight in
// turn for the plain commands: the script's instances let one address
// hold one connection, and a connection closed is let go a moment
// later), none of them the balancer's address: an instance refuses a
// connection from there that comes without a PROXY header.
//
// First, given -web (the balancer's HTTP front end) and -admin-key, the
// arena's page across the cluster (arena.go): an arena set up by the
// admin, erin racing on instance one and frank on two, and a live stream
// of its page on each instance, through the balancer, following both.
//
// The first race: alice makes a room on instance one, bob joins it by its
// code on instance two, both move and each sees the other's progress;
// then instance one dies (kill -9): two keeps serving and takes bob's
// moves, alice comes back on two to her race as she left it, both finish,
// and every move is stored, one game each, the race once. Meanwhile carol
// and dave race a rated room, both on instance one: after its death their
// seats wait for them for the seat's grace, and the race, which they never
// come back to, is stored void (unrated).
//
// The second race has alice go from one instance to the other and back
// while she races, and back to an instance killed under her and
// restarted; each time her board must be her stored game (not a copy an
// instance kept of an earlier visit), and in the end she has one race game
// with all her moves.
//
// It asks the script that runs it to kill or restart instance one by
// writing "@kill one" or "@restart one" on its standard output, and goes
// on once the script answers a line ("done", or what went wrong) on its
// standard input: the script owns the processes. Its other lines are
// "ok: …" for each check that held and "FAIL: …" for one that did not
// (exit status 1).
//
// Only point it at servers on this machine.
package main

import (
	"database/sql"

	"bufio"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"pyramid/engine"
)

// rehearsal is one run against a cluster.
type rehearsal struct {
	one, two string // the instances' SSH addresses
	ttl      time.Duration
	grace    time.Duration // the instances' --seat-grace
	wait     time.Duration
	cmdFrom  []string // the addresses the plain commands come from, in turn
	cmds     int      // the plain commands run
	answers  *bufio.Scanner
	rule     engine.Rules // every race's rules: Classic
	// db is the cluster's database, read for what no screen shows: a
	// rated race's deal before the race is over.
	db *sql.DB
}

func main() {
	var (
		one   = flag.String("one", "", "instance one's SSH address, reached straight (host:port)")
		two   = flag.String("two", "", "instance two's SSH address, reached straight (host:port)")
		from  = flag.String("from", "127.0.0.101", "the first of fourteen local addresses to connect from (none may be the balancer's)")
		ttl   = flag.Duration("presence-ttl", 15*time.Second, "the instances' --presence-ttl")
		seat  = flag.Duration("seat-grace", time.Minute, "the instances' --seat-grace")
		wait  = flag.Duration("wait", 10*time.Second, "how long each step may take")
		dbURL = flag.String("database-url", "", "the instances' PostgreSQL URL, read for a rated race's hidden deal")
		web   = flag.String("web", "", "the balancer's HTTP front end of the club's page (http://host:port); empty: no arena page part")
		wFrom = flag.String("web-from", "127.0.0.79", "the local address the arena page's streams come from")
		admin = flag.String("admin-key", "", "the private key file of an admin of the instances (--admins), to set the arena up")
	)
	flag.Parse()
	if *one == "" || *two == "" || *dbURL == "" {
		fmt.Fprintln(os.Stderr, "usage: clusterrace -one HOST:PORT -two HOST:PORT -database-url URL [-from ADDRESS] [-presence-ttl D] [-wait D]")
		os.Exit(2)
	}
	db, err := sql.Open("pgx", *dbURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterrace:", err)
		os.Exit(2)
	}
	defer db.Close()
	first, err := netip.ParseAddr(*from)
	if err != nil || !first.Is4() || first.As4()[3] > 240 {
		fmt.Fprintf(os.Stderr, "clusterrace: -from %q: want an IPv4 address whose last byte is at most 240\n", *from)
		os.Exit(2)
	}
	addrs := make([]string, 14)
	for i, a := 0, first; i < len(addrs); i, a = i+1, a.Next() {
		addrs[i] = a.String()
	}
	r := &rehearsal{one: *one, two: *two, ttl: *ttl, grace: *seat, wait: *wait, cmdFrom: addrs[4:12],
		answers: bufio.NewScanner(os.Stdin), rule: engine.Classic(), db: db}
	newPlayer := func(name, from string) *player {
		return &player{name: name, key: newKey(), from: from, wait: *wait}
	}
	alice, bob, carol, dave := newPlayer("alice", addrs[0]), newPlayer("bob", addrs[1]), newPlayer("carol", addrs[2]), newPlayer("dave", addrs[3])
	defer func() {
		for _, p := range []*player{alice, bob, carol, dave} {
			p.close()
		}
	}()

	report := func(race string, err error) {
		if err != nil {
			fmt.Printf("FAIL: %s: %v\n", race, err)
			for _, p := range []*player{alice, bob, carol, dave} {
				p.close()
			}
			os.Exit(1)
		}
	}
	start := time.Now()
	if *web != "" {
		key, err := readKey(*admin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "clusterrace: -admin-key:", err)
			os.Exit(2)
		}
		adm := &player{name: "admin", key: key, wait: *wait}
		erin, frank := newPlayer("erin", addrs[12]), newPlayer("frank", addrs[13])
		defer erin.close()
		defer frank.close()
		report("the arena's page", r.arenaPage(*web, *wFrom, adm, erin, frank))
	}
	deal1, line1 := winningDeal(r.rule, 1)
	deal2, line2 := winningDeal(r.rule, deal1+1)
	report("the first race", r.firstRace(alice, bob, carol, dave, deal1, line1))
	report("the second race", r.secondRace(alice, bob, deal2, line2))
	fmt.Printf("clusterrace: done in %s\n", time.Since(start).Round(100*time.Millisecond))
}

// ok says that a check held.
func ok(format string, args ...any) { fmt.Printf("ok: "+format+"\n", args...) }

// ask has the script that runs the rehearsal do what (kill or restart an
// instance), and waits for its answer.
func (r *rehearsal) ask(what string) error {
	fmt.Printf("@%s\n", what)
	if !r.answers.Scan() {
		return fmt.Errorf("%s: no answer from the script (%v)", what, r.answers.Err())
	}
	if a := strings.TrimSpace(r.answers.Text()); a != "done" {
		return fmt.Errorf("%s: %s", what, a)
	}
	return nil
}

// from returns the address the next plain command comes from.
func (r *rehearsal) from() string {
	r.cmds++
	return r.cmdFrom[r.cmds%len(r.cmdFrom)]
}

// addr is the SSH address of the instance called name.
func (r *rehearsal) addr(name string) string {
	if name == "one" {
		return r.one
	}
	return r.two
}

// poll calls cond every 100 ms (each call runs plain commands: a new
// connection each) until it holds (nil) or r.wait has passed, and then
// returns its last error.
func (r *rehearsal) poll(cond func() error) error {
	deadline := time.Now().Add(r.wait)
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond) // polling the servers, not synchronising
	}
}

// raceGames returns p's race games of deal, read on instance inst.
func (r *rehearsal) raceGames(inst string, p *player, deal uint64) ([]gameJSON, error) {
	var gs []gameJSON
	if err := commandJSON(r.addr(inst), r.from(), p, "games --json", &gs); err != nil {
		return nil, err
	}
	var out []gameJSON
	for _, g := range gs {
		if g.Kind == "race" && g.Deal == deal {
			out = append(out, g)
		}
	}
	return out, nil
}

// waitStored waits until p's race game of deal, read on instance inst,
// holds the moves p's board shows.
func (r *rehearsal) waitStored(inst string, p *player, deal uint64) error {
	want := p.game.Record().Moves
	return r.poll(func() error {
		gs, err := r.raceGames(inst, p, deal)
		if err != nil {
			return err
		}
		for _, g := range gs {
			if slices.Equal(g.Moves, want) {
				return nil
			}
		}
		return fmt.Errorf("%s's race games of deal %d as instance %s reads them: %+v; want one with the moves %q", p.name, deal, inst, gs, want)
	})
}

// roomRE finds a room's code on a screen.
var roomRE = regexp.MustCompile(`room ([A-Z]{6})`)

// raceDeal is the deal of p's race game that runs, read from the
// database: a rated race's deal is on no screen until the race is over.
func (r *rehearsal) raceDeal(p *player) (uint64, error) {
	var deal uint64
	err := r.poll(func() error {
		var n int64
		err := r.db.QueryRow(`SELECT g.deal_number FROM games g JOIN players u ON u.id = g.player_id
			WHERE u.name = $1 AND g.kind = 'race' AND g.status = 'playing' ORDER BY g.id DESC LIMIT 1`, p.name).Scan(&n)
		if err != nil {
			return fmt.Errorf("%s's race game: %w", p.name, err)
		}
		deal = uint64(n)
		return nil
	})
	return deal, err
}

// openRoom has p open a room with the words of race new, and returns its
// code once p's screen shows it with p alone in it.
func openRoom(p *player, inst, addr, words string) (string, error) {
	if err := p.open(inst, addr, "race new "+words); err != nil {
		return "", err
	}
	s, err := p.waitScreen("a room's code", func(s string) bool { return roomRE.MatchString(s) })
	if err != nil {
		return "", err
	}
	if _, err := p.waitFor("1/8 players"); err != nil {
		return "", err
	}
	return roomRE.FindStringSubmatch(s)[1], nil
}

// join has p join the room code on instance inst.
func join(p *player, inst, addr, code string) error {
	if err := p.open(inst, addr, "race "+code); err != nil {
		return err
	}
	_, err := p.waitFor("room " + code)
	return err
}

// firstRace races alice (on one) and bob (on two) across a kill -9 of
// one, with carol and dave racing a rated room on one meanwhile.
func (r *rehearsal) firstRace(alice, bob, carol, dave *player, deal uint64, line []string) error {
	alice.game, bob.game = newGame(r.rule, deal), newGame(r.rule, deal)
	code, err := openRoom(alice, "one", r.one, fmt.Sprintf("classic %d --public --time 5m", deal))
	if err != nil {
		return err
	}
	if err := r.poll(func() error {
		var rooms []roomJSON
		if err := commandJSON(r.two, r.from(), bob, "rooms --json", &rooms); err != nil {
			return err
		}
		for _, rm := range rooms {
			if rm.Code == code && rm.Host == alice.name && rm.Players == 1 {
				return nil
			}
		}
		return fmt.Errorf("rooms --json on instance two: %+v; want room %s of alice with 1 player", rooms, code)
	}); err != nil {
		return err
	}
	ok("alice's room %s, made on instance one, is listed by rooms --json on instance two", code)
	if err := join(bob, "two", r.two, code); err != nil {
		return err
	}
	if _, err := alice.waitFor("2/8 players"); err != nil {
		return err
	}
	ok("bob, on instance two, joined it by its code; alice, on one, sees him come in")

	// carol and dave: a rated room (a deal nobody chose), both on one.
	rated, err := openRoom(carol, "one", r.one, "--public --time 5m")
	if err != nil {
		return err
	}
	if err := join(dave, "one", r.one, rated); err != nil {
		return err
	}
	if _, err := carol.waitFor("2/8 players"); err != nil {
		return err
	}
	if err := r.poll(func() error {
		var rooms []roomJSON
		if err := commandJSON(r.two, r.from(), carol, "rooms --json", &rooms); err != nil {
			return err
		}
		for _, rm := range rooms {
			if rm.Code == rated && rm.Rated && rm.Players == 2 {
				return nil
			}
		}
		return fmt.Errorf("rooms --json on instance two: %+v; want room %s rated with 2 players", rooms, rated)
	}); err != nil {
		return err
	}
	// The rated room's deal is hidden from every screen until the race
	// is over.
	if _, err := carol.waitFor("hidden deal · the same deal for everybody"); err != nil {
		return err
	}
	// Both races start at once: their countdowns run together. A start
	// waits for every racer to be ready.
	for _, p := range []*player{dave, bob} {
		if err := p.typeKeys("r"); err != nil {
			return err
		}
	}
	for _, p := range []*player{carol, alice} {
		if _, err := p.waitFor("everybody is ready: s starts the race"); err != nil {
			return err
		}
	}
	if err := carol.typeKeys("s"); err != nil {
		return err
	}
	if err := alice.typeKeys("s"); err != nil {
		return err
	}
	// carol and dave each play until they removed a card, so that the
	// race has a result to store (a race where nobody removed one stores
	// none); its deal comes from the database.
	deal3, err := r.raceDeal(carol)
	if err != nil {
		return err
	}
	first := firstRemoval(r.rule, deal3)
	for _, p := range []*player{carol, dave} {
		p.game = newGame(r.rule, deal3)
		if err := p.waitPosition(); err != nil {
			return err
		}
		if err := p.play(first, false); err != nil {
			return err
		}
	}
	ok("carol and dave race the rated room %s (deal %d), both on instance one, and both removed cards (%s)", rated, deal3, strings.Join(first, " "))

	for _, p := range []*player{alice, bob} {
		if err := p.waitPosition(); err != nil {
			return err
		}
	}
	ok("alice started her race: it runs on both instances, deal %d", deal)
	if err := alice.play(line[:6], false); err != nil {
		return err
	}
	if err := bob.play(line[:4], false); err != nil {
		return err
	}
	seenA, err := alice.waitProgress(bob)
	if err != nil {
		return err
	}
	seenB, err := bob.waitProgress(alice)
	if err != nil {
		return err
	}
	ok("each sees the other's progress across instances: alice's panel (one) %q, bob's panel (two) %q", seenA, seenB)
	for _, inst := range []string{"one", "two"} {
		if err := r.poll(func() error { return r.whoRacing(inst, code, alice, bob) }); err != nil {
			return err
		}
	}
	ok("who --json on each instance lists alice and bob racing in room %s, with their cards removed", code)
	if err := r.waitStored("two", alice, deal); err != nil {
		return err
	}
	ok("alice's %d moves, made on instance one, are stored (games --json on two)", alice.game.MovesMade())

	killed := time.Now()
	if err := r.ask("kill one"); err != nil {
		return err
	}
	alice.close()
	carol.close()
	dave.close()
	if _, err := command(r.two, r.from(), bob, "help"); err != nil {
		return fmt.Errorf("instance two after one died: %w", err)
	}
	if err := bob.play(line[4:10], false); err != nil {
		return fmt.Errorf("bob's moves on instance two after one died: %w", err)
	}
	if err := r.waitStored("two", bob, deal); err != nil {
		return err
	}
	ok("instance two keeps serving: bob's moves after the kill show on his board and are stored (%d moves)", bob.game.MovesMade())

	if err := join(alice, "two", r.two, code); err != nil {
		return err
	}
	if err := alice.waitPosition(); err != nil {
		return fmt.Errorf("alice back on instance two: %w", err)
	}
	if _, err := alice.waitProgress(alice); err != nil {
		return fmt.Errorf("alice back on instance two, her own line: %w", err)
	}
	ok("alice, whose instance died, is back in the race on instance two with her %d moves", alice.game.MovesMade())
	if _, err := alice.waitProgress(bob); err != nil {
		return err
	}
	if _, err := bob.waitProgress(alice); err != nil {
		return err
	}
	ok("alice and bob see each other's progress again, both on instance two")
	if err := alice.play(line[6:], false); err != nil {
		return err
	}
	if _, err := alice.waitFor("You cleared the pyramid!"); err != nil {
		return err
	}
	if err := bob.play(line[10:], true); err != nil {
		return err
	}
	for _, p := range []*player{alice, bob} {
		s, err := p.waitFor("room " + code + " · results")
		if err != nil {
			return err
		}
		if !strings.Contains(lineWith(s, "1. alice"), "cleared in") || !strings.Contains(lineWith(s, "2. bob"), "cleared in") {
			return fmt.Errorf("%s's results: want alice 1st and bob 2nd, both cleared; got\n%s", p.name, s)
		}
	}
	ok("both cleared the pyramid: alice 1st, bob 2nd, on both screens")
	for _, p := range []*player{alice, bob} {
		if err := r.poll(func() error { return r.storedOnce(p, deal) }); err != nil {
			return err
		}
	}
	ok("nothing lost: alice and bob each have one race game of deal %d, won, with all %d moves, and one unrated race (a chosen deal) in stats", deal, len(line))
	// bob, who hosts the room since alice's instance died, leaves it:
	// the host's part goes back to alice, and bob may open a room of his
	// own (a player hosts one room at a time).
	bob.close()
	if err := r.poll(func() error {
		var rooms []roomJSON
		if err := commandJSON(r.two, r.from(), bob, "rooms --json", &rooms); err != nil {
			return err
		}
		for _, rm := range rooms {
			if rm.Code == code && rm.Host != alice.name {
				return fmt.Errorf("rooms --json on instance two: %+v; want room %s hosted by alice once bob left", rooms, code)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	ok("bob left the room: alice hosts it again")

	// carol's and dave's race: their instance died, they never came back.
	// Their seats waited for them for the seat's grace; then the race
	// ended, void: stored, but unrated.
	until := killed.Add(3*r.ttl + r.grace + 10*time.Second)
	for {
		void := 0
		for _, p := range []*player{carol, dave} {
			var stats []statsJSON
			if err := commandJSON(r.two, r.from(), p, "stats --json", &stats); err != nil {
				return err
			}
			for _, s := range stats {
				if s.Race != nil && s.Race.Races > 0 {
					return fmt.Errorf("%s's stats --json after instance one died with all of room %s's racers: %d rated race(s) stored for %s (want the race void)",
						p.name, rated, s.Race.Races, s.Rules)
				}
				if s.Race != nil && s.Race.Unrated > 0 {
					void++
				}
			}
		}
		if void == 2 {
			break
		}
		if time.Now().After(until) {
			return fmt.Errorf("carol's and dave's race, whose instance died %s ago, is not stored void (seat grace %s)",
				time.Since(killed).Round(time.Second), r.grace)
		}
		time.Sleep(250 * time.Millisecond) // polling the store, not synchronising
	}
	ok("carol's and dave's race stored void (unrated) %s after their instance died (seat grace %s)", time.Since(killed).Round(time.Second), r.grace)
	return nil
}

// secondRace has alice go from one instance to the other and back while
// she races bob (on two), and back to instance one killed under her and
// restarted: each time her board must be her stored game.
func (r *rehearsal) secondRace(alice, bob *player, deal uint64, line []string) error {
	if err := r.ask("restart one"); err != nil {
		return err
	}
	alice.game, bob.game = newGame(r.rule, deal), newGame(r.rule, deal)
	code, err := openRoom(bob, "two", r.two, fmt.Sprintf("classic %d --time 5m", deal))
	if err != nil {
		return err
	}
	if err := join(alice, "one", r.one, code); err != nil {
		return err
	}
	if _, err := bob.waitFor("2/8 players"); err != nil {
		return err
	}
	if err := alice.typeKeys("r"); err != nil {
		return err
	}
	if _, err := bob.waitFor("everybody is ready: s starts the race"); err != nil {
		return err
	}
	if err := bob.typeKeys("s"); err != nil {
		return err
	}
	for _, p := range []*player{alice, bob} {
		if err := p.waitPosition(); err != nil {
			return err
		}
	}
	ok("second race: bob's room %s on instance two, alice on the restarted instance one, deal %d", code, deal)
	if err := bob.play(line[:2], false); err != nil {
		return err
	}
	played := 0
	// move plays alice's next n moves where she is, and waits until
	// they are stored.
	move := func(n int) error {
		if err := alice.play(line[played:played+n], false); err != nil {
			return err
		}
		played += n
		return r.waitStored(alice.on, alice, deal)
	}
	// back takes alice to instance inst and checks that her board and
	// her line in the panel are her stored game.
	back := func(inst, why string) error {
		if err := join(alice, inst, r.addr(inst), code); err != nil {
			return err
		}
		if err := alice.waitPosition(); err != nil {
			return fmt.Errorf("alice back on instance %s (%s), her board: %w", inst, why, err)
		}
		if _, err := alice.waitProgress(alice); err != nil {
			return fmt.Errorf("alice back on instance %s (%s), her line in the panel: %w", inst, why, err)
		}
		ok("alice back on instance %s (%s): her board and panel show her %d stored moves", inst, why, alice.game.MovesMade())
		return nil
	}
	// The steps: where alice goes, why it matters, and whether instance
	// one dies under her (kill -9) and restarts before she goes.
	steps := []struct {
		inst, why string
		kill      bool
	}{
		{"two", "which has not had her game", false},
		{"one", "which had her game before her moves on two", false},
		{"one", "killed with kill -9 while she played there, and restarted", true},
		{"two", "which had her game before her moves on one", false},
	}
	if err := move(3); err != nil {
		return err
	}
	for i, step := range steps {
		if step.kill {
			if err := r.ask("kill one"); err != nil {
				return err
			}
			// She comes back once the others counted her gone (who on
			// two no longer lists her), as after any real outage.
			if err := r.poll(func() error { return r.whoGone("two", bob, alice) }); err != nil {
				return err
			}
			ok("who --json on instance two no longer lists alice, whose instance died")
			if err := r.ask("restart one"); err != nil {
				return err
			}
		}
		if err := back(step.inst, step.why); err != nil {
			return err
		}
		if i < len(steps)-1 {
			if err := move(3); err != nil {
				return err
			}
		}
	}
	if err := alice.play(line[played:], false); err != nil {
		return err
	}
	if _, err := alice.waitFor("You cleared the pyramid!"); err != nil {
		return err
	}
	if err := bob.play(line[2:], true); err != nil {
		return err
	}
	for _, p := range []*player{alice, bob} {
		if _, err := p.waitFor("room " + code + " · results"); err != nil {
			return err
		}
	}
	for _, p := range []*player{alice, bob} {
		if err := r.poll(func() error { return r.storedOnce(p, deal) }); err != nil {
			return err
		}
	}
	ok("nothing lost: after four changes of instance and a kill -9, alice has one race game of deal %d, won, with all %d moves; so has bob", deal, len(line))
	return nil
}

// whoRacing checks that who --json on instance inst lists the players as
// racing in room code with the cards their boards show removed.
func (r *rehearsal) whoRacing(inst, code string, players ...*player) error {
	var who []whoJSON
	if err := commandJSON(r.addr(inst), r.from(), players[0], "who --json", &who); err != nil {
		return err
	}
	for _, p := range players {
		i := slices.IndexFunc(who, func(w whoJSON) bool { return w.Name == p.name })
		if i < 0 || who[i].Doing != "racing" || who[i].Room != code || who[i].Removed == nil || *who[i].Removed != p.game.Removed() {
			return fmt.Errorf("who --json on instance %s: %+v; want %s racing in room %s with %d removed", inst, who, p.name, code, p.game.Removed())
		}
	}
	return nil
}

// whoGone checks that who --json on instance inst, asked by asker, does
// not list p.
func (r *rehearsal) whoGone(inst string, asker, p *player) error {
	var who []whoJSON
	if err := commandJSON(r.addr(inst), r.from(), asker, "who --json", &who); err != nil {
		return err
	}
	if slices.ContainsFunc(who, func(w whoJSON) bool { return w.Name == p.name }) {
		return fmt.Errorf("who --json on instance %s: %+v; want no %s", inst, who, p.name)
	}
	return nil
}

// storedOnce checks that p has one race game of deal, won, with the
// moves of p's board, and that the race counts once in p's stats,
// unrated (the rehearsal's named deals are chosen).
func (r *rehearsal) storedOnce(p *player, deal uint64) error {
	gs, err := r.raceGames("two", p, deal)
	if err != nil {
		return err
	}
	want := p.game.Record().Moves
	if len(gs) != 1 || !slices.Equal(gs[0].Moves, want) || gs[0].Status != "won" {
		return fmt.Errorf("%s's race games of deal %d: %+v; want one, won, with the moves %q", p.name, deal, gs, want)
	}
	var stats []statsJSON
	if err := commandJSON(r.two, r.from(), p, "stats --json", &stats); err != nil {
		return err
	}
	for _, s := range stats {
		if s.Rules == r.rule.ID() && s.Race != nil && s.Race.Races == 0 && s.Race.Unrated >= 1 {
			return nil
		}
	}
	return fmt.Errorf("%s's stats --json: %+v; want unrated races of %s and no rated one", p.name, stats, r.rule.ID())
}

// lineWith returns the first line of screen that contains s.
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// newGame is the game of rules and deal.
func newGame(rules engine.Rules, deal uint64) *engine.Game {
	g, err := engine.NewNumbered(rules, deal)
	if err != nil {
		panic(err) // a deal number always makes a deal
	}
	return g
}

// firstRemoval returns the engine's hinted moves of deal up to its first
// removal of a card of the pyramid.
func firstRemoval(rules engine.Rules, deal uint64) []string {
	g := newGame(rules, deal)
	for g.Removed() == 0 && g.Status() == engine.Playing {
		m, ok := g.Hint()
		if !ok || g.Apply(m) != nil {
			break
		}
	}
	return g.Record().Moves
}

// winningDeal returns the first deal from from on that the engine's
// heuristic hint, played move after move, wins, and those moves.
func winningDeal(rules engine.Rules, from uint64) (uint64, []string) {
	for n := from; ; n++ {
		g := newGame(rules, n)
		for g.Status() == engine.Playing {
			m, ok := g.Hint()
			if !ok || g.Apply(m) != nil {
				break
			}
		}
		if g.Status() == engine.Won {
			return n, g.Record().Moves
		}
	}
}
