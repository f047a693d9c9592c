package main

// The arena mode (-arena N): an admin key sets up an arena (or -arena-id
// names one running), and N players open it with "arena ID" in their PTY,
// as ssh -t HOST arena ID does. The arena pairs them into races; each
// player presses a key every -every while it races (a move typed at the
// prompt every -move-every keys, read from its copy of the screen: an
// arena's deal is hidden), and on each race's results presses enter to
// go back to the arena and be paired again. It reports the wait between
// games (the player's game over, or else its race's results, shown → the
// race screen of the next room), the
// same own-key and opponent-move→panel latencies as the race mode,
// memory per session and CPU, then, given -baseline-addr, the bare
// baseline with as many sessions, right after:
//
//	pyramid serve --listen 127.0.0.1:23234 --data DIR --admins SHA256:… (limits lifted as race-load.sh's)
//	loadgen -addr 127.0.0.1:23234 -arena 1000 -arena-admin-key KEY -duration 4m -width 100 -height 34 \
//	    -pid ARCADE_PID -baseline-addr 127.0.0.1:23301 -baseline-pid BASELINE_PID
//
// arena-load.sh runs it on one arcade, cluster-arena.sh over two
// instances on PostgreSQL (-addr lists them; a player's server is its
// number modulo their count).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/arena"
)

// arenaConfig is what the arena mode adds to a load run.
type arenaConfig struct {
	players  int           // 0: arena mode off
	id       int64         // the arena to join; 0: set one up with adminKey
	adminKey string        // an admin's private key file, to set the arena up
	rules    string        // the arena's rule set
	game     time.Duration // the arena's games' time limit
	length   time.Duration // the arena's duration
	grace    time.Duration // how long the waits open at the window's end may still close
}

// arenaFlags defines the arena mode's flags on fs.
func arenaFlags(fs *flag.FlagSet) *arenaConfig {
	ac := &arenaConfig{}
	fs.IntVar(&ac.players, "arena", 0, "arena mode: this many players in one arena at -addr (0: off); -duration is the measured window once all joined")
	fs.Int64Var(&ac.id, "arena-id", 0, "arena mode: the running arena to join; 0: set one up with -arena-admin-key")
	fs.StringVar(&ac.adminKey, "arena-admin-key", "", "arena mode: the private key file of one of the server's admins (--admins), to set the arena up")
	fs.StringVar(&ac.rules, "arena-rules", "classic", "arena mode: the arena's rule set (its board is read from the screen: classic's layout)")
	fs.DurationVar(&ac.game, "arena-game", time.Minute, "arena mode: the time limit of the arena's games (1m to 15m)")
	fs.DurationVar(&ac.length, "arena-length", time.Hour, "arena mode: the arena's duration (the connects and the window must fit in it)")
	fs.DurationVar(&ac.grace, "arena-grace", arena.AloneAfter+10*time.Second, "arena mode: after the window, how long the players whose race ended in it may still be paired (a wait still open then is counted as such)")
	return ac
}

// Marks of the arena's screens, as a row of the screen holds them.
const (
	arenaResultsMark = "Next game soon"       // an arena race's results
	arenaOverMark    = "your next game comes" // the player's own game is over, the race runs on
	arenaHeaderMark  = " removed · "          // the race's header, over the board
)

// arenaJoinedRE is the arena screen once joined, or a race already.
var arenaJoinedRE = regexp.MustCompile(`you are in|free: |room [A-Z]{6} · `)

// arenaPhase is where an arena player's screen is.
type arenaPhase uint8

const (
	arenaAway    arenaPhase = iota // the arena screen (joining, free, paired soon)
	arenaWaiting                   // a new room's race screen, before its start
	arenaRacing                    // the race's board
	arenaResults                   // the race's results
)

// arenaEvent is a moment of an arena player's run: 'o' the player's own
// game ended (cleared or stuck) while their race runs on, 'r' a race's
// results showed, 'p' the race screen of a new room showed (a pairing).
type arenaEvent struct {
	kind byte
	at   time.Time
}

// arenaTrack is an arena player's phases, with raceSession.mu.
type arenaTrack struct {
	phase   arenaPhase
	joined  time.Time // the arena screen came
	events  []arenaEvent
	geom    boardGeom
	entered bool            // enter was pressed on these results
	over    bool            // the player's own game in this race is over
	names   map[string]bool // the racers on this race's panel
	sizes   []int           // each race's racers, at its results
	dropped int             // keys unanswered when their race ended
	moves   int             // moves sent while measuring
}

// roomOf is the code of the race screen's room in line (its title or
// clock line: "room ABCDEF · "), or "": the arena screen names rooms too,
// never followed by " · ".
func roomOf(line string) string {
	i := strings.Index(line, "room ")
	if i < 0 {
		return ""
	}
	code := line[i+len("room "):]
	if len(code) < 6+len(" · ") || !strings.HasPrefix(code[6:], " · ") {
		return ""
	}
	for k := range 6 {
		if code[k] < 'A' || code[k] > 'Z' {
			return ""
		}
	}
	return code[:6]
}

// arenaRow takes a row a read wrote, with s.mu held: a new room's code
// starts a race (a pairing), the results' note ends it.
func (s *raceSession) arenaRow(now time.Time, line string) {
	a := s.arena
	if code := roomOf(line); code != "" && code != s.room {
		if a.phase == arenaRacing || a.phase == arenaWaiting {
			a.sizes = append(a.sizes, len(a.names)) // the last race's results never showed
		}
		a.phase, a.over = arenaWaiting, false
		s.arenaEvent('p', now)
		a.names = map[string]bool{}
		a.dropped += len(s.pend)
		s.room, s.pend = code, s.pend[:0]
		s.sent, s.moves, s.shown, s.storedSeen = nil, 0, 0, 0
		s.seen = map[string]int{}
		return
	}
	switch {
	case a.phase == arenaRacing && !a.over && strings.Contains(line, arenaOverMark):
		a.over = true
		s.arenaEvent('o', now)
	case (a.phase == arenaRacing || a.phase == arenaWaiting) && strings.Contains(line, arenaResultsMark):
		a.phase, a.entered = arenaResults, false
		s.arenaEvent('r', now)
		a.sizes = append(a.sizes, len(a.names))
	case (a.phase == arenaRacing || a.phase == arenaWaiting) && kindOf(line) == rowPanel:
		for _, l := range parseRacerLines(line) {
			a.names[l.name] = true
		}
	}
}

// arenaEvent notes an arena moment of kind at now, with s.mu held; with
// -lat-log, it goes to the log too, in capitals and with no latency.
func (s *raceSession) arenaEvent(kind byte, now time.Time) {
	s.arena.events = append(s.arena.events, arenaEvent{kind: kind, at: now})
	if s.run.logLat {
		s.latLog = append(s.latLog, latEvent{at: now, kind: kind - 'a' + 'A'})
	}
}

// arenaRead ends a read of an arena player's output, with s.mu held: a
// new room's race screen becomes the race once its board's header
// shows (the row may have come before the room's code did).
func (s *raceSession) arenaRead(time.Time) {
	if a := s.arena; a.phase == arenaWaiting && strings.Contains(s.scr.line(0), arenaHeaderMark) {
		a.phase = arenaRacing
	}
}

// arenaWaits are the waits between games in events: from the end of the
// player's game (their own game over, or else the race's results, the
// first time either showed) to the next pairing, for the ends in
// [from, to); open counts those ends with no pairing after them.
func arenaWaits(events []arenaEvent, from, to time.Time) (waits []time.Duration, open int) {
	var end time.Time
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	for _, e := range events {
		switch e.kind {
		case 'o', 'r':
			if end.IsZero() {
				end = e.at
			}
		case 'p':
			if !end.IsZero() && in(end) {
				waits = append(waits, e.at.Sub(end))
			}
			end = time.Time{}
		}
	}
	if !end.IsZero() && in(end) {
		open++
	}
	return waits, open
}

// shareUnder is the share of ds below limit, in percent.
func shareUnder(ds []time.Duration, limit time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	n := 0
	for _, d := range ds {
		if d < limit {
			n++
		}
	}
	return 100 * float64(n) / float64(len(ds))
}

// arenaPlay is an arena player's keys until ctx ends: every cfg.every,
// from a random phase, a key while it races (a move every rc.moveEvery,
// read from the screen, once the board shows its last move; cursor keys
// between), enter on a race's results; nothing after the window (grace
// set) but enter.
func (s *raceSession) arenaPlay(ctx context.Context, cfg loadConfig, rc *raceConfig, grace *atomic.Bool) {
	moveAt := 0
	if rc.moveEvery > 0 {
		moveAt = mrand.IntN(rc.moveEvery)
	}
	tick, ok := keyTicker(ctx, cfg.every)
	if !ok {
		return
	}
	defer tick.Stop()
	registered := s.user
	for k := 0; ; k++ {
		key := ""
		s.mu.Lock()
		a := s.arena
		switch {
		case a.phase == arenaRacing && !grace.Load():
			key = "j"
			if s.scr.cursorAtPiles() {
				key = "k"
			}
			isMove := false
			if rc.moveEvery > 0 && k%rc.moveEvery == moveAt && s.storedSeen == s.moves && s.shown == s.moves {
				b, cards := readBoard(s.scr)
				if len(a.geom.rows) == 0 {
					a.geom.learn(cards)
				}
				if m, ok := pickMove(b, &a.geom); ok {
					key, isMove = ":"+m+"\r", true
					if s.run.measuring.Load() {
						a.moves++
					}
				}
			}
			s.pressed(time.Now(), key, isMove)
		case a.phase == arenaResults && !a.entered:
			a.entered, key = true, "\r"
		}
		name := s.name
		s.mu.Unlock()
		if name != "" && name != registered {
			// The arcade named the player otherwise than its user name.
			s.run.mu.Lock()
			s.run.byName[name] = s
			s.run.mu.Unlock()
			registered = name
		}
		if key != "" && s.typeKeys(key) != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.ended:
			return
		case <-tick.C:
		}
	}
}

// createArena sets an arena up with the admin key in ac.adminKey, on the
// first server of addrs, and returns its number.
func createArena(addrs string, ac *arenaConfig, tag string) (int64, error) {
	pem, err := os.ReadFile(ac.adminKey)
	if err != nil {
		return 0, fmt.Errorf("admin key: %w", err)
	}
	signer, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		return 0, fmt.Errorf("admin key: %w", err)
	}
	addr := strings.TrimSpace(strings.Split(addrs, ",")[0])
	client, err := dialFrom(addr, "", &gossh.ClientConfig{
		User:            "admin",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), //nolint:gosec // local load test
		Timeout:         30 * time.Second,
	})
	if err != nil {
		return 0, err
	}
	defer client.Close() //nolint:errcheck // done with it
	sess, err := client.NewSession()
	if err != nil {
		return 0, fmt.Errorf("session: %w", err)
	}
	cmd := fmt.Sprintf("arena new %s --start now --duration %s --game %s --name load-%s", ac.rules, ac.length, ac.game, tag)
	out, err := sess.CombinedOutput(cmd)
	m := regexp.MustCompile(`arena (\d+) set up`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s: %v: %q", cmd, err, out)
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

// loadAvg is the machine's load average (/proc/loadavg's first three
// figures), "?" when unknown.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// arenaStats is what the players measured in the window.
type arenaStats struct {
	own, anyLat, moveLat, cursorLat, lateLat, storeLat, prog, cross []time.Duration
	keys, moves, missed, skipped, frames, dropped, ended            int
	received, ownBytes                                              int64
}

// collectArena copies what the players measured so far.
func collectArena(players []*raceSession) arenaStats {
	var st arenaStats
	for _, s := range players {
		s.mu.Lock()
		st.own = append(st.own, s.ownLat...)
		st.anyLat = append(st.anyLat, s.anyLat...)
		st.moveLat = append(st.moveLat, s.moveLat...)
		st.cursorLat = append(st.cursorLat, s.cursorLat...)
		st.lateLat = append(st.lateLat, s.lateLat...)
		st.storeLat = append(st.storeLat, s.storeLat...)
		st.prog = append(st.prog, s.progLat...)
		st.cross = append(st.cross, s.crossLat...)
		st.keys += s.keys
		st.moves += s.arena.moves
		st.missed += s.missed
		st.skipped += s.skipped
		st.frames += s.raceFrames
		st.dropped += s.arena.dropped
		st.received += s.bytes
		st.ownBytes += s.ownBytes
		s.mu.Unlock()
		select {
		case <-s.ended:
			st.ended++
		default:
		}
	}
	return st
}

// resetMeasures forgets what a player measured before the window (while
// the others connected).
func (s *raceSession) resetMeasures() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ownLat, s.anyLat, s.moveLat, s.cursorLat, s.lateLat = nil, nil, nil, nil, nil
	s.storeLat, s.firstStore, s.progLat, s.crossLat = nil, nil, nil, nil
	s.keys, s.missed, s.skipped, s.raceFrames = 0, 0, 0, 0
	s.bytes, s.ownBytes = 0, 0
	s.arena.dropped, s.arena.moves = 0, 0
}

// runArena runs the arena mode.
func runArena(ctx context.Context, cfg loadConfig, rc *raceConfig, ac *arenaConfig) error {
	run := &raceRun{byName: map[string]*raceSession{}, tag: runTag(), logLat: rc.latLog != ""}
	id := ac.id
	if id == 0 {
		if ac.adminKey == "" {
			return errors.New("arena mode: -arena-id or -arena-admin-key")
		}
		var err error
		if id, err = createArena(cfg.addr, ac, run.tag); err != nil {
			return fmt.Errorf("set the arena up: %w", err)
		}
		fmt.Printf("arena %d set up: %s, games of %s, for %s\n", id, ac.rules, ac.game, ac.length)
	}
	if rc.warm {
		warmUp(cfg, rc, run) // as the race mode does: the memory per session is measured from the same point
	}
	rssStart := readRSS(cfg.pid)
	cpuStart := readCPU(cfg.pid)
	fmt.Printf("machine load average before the players connect: %s\n", loadAvg())

	// The players, cfg.dialers connecting at once; each plays as soon as
	// it is in.
	pctx, stopPlay := context.WithCancel(ctx)
	defer stopPlay()
	var grace atomic.Bool
	var (
		players []*raceSession
		failed  []error
		mu      sync.Mutex
		wg      sync.WaitGroup
		plays   sync.WaitGroup
	)
	defer func() {
		for _, s := range players {
			_ = s.client.Close()
		}
	}()
	joinStart := time.Now()
	sem := make(chan struct{}, cfg.dialers)
	for i := range ac.players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			user := fmt.Sprintf("%sa%04d", run.tag, i)
			s, err := dialRace(cfg, run, i, user, fmt.Sprintf("arena %d", id))
			if err == nil {
				s.mu.Lock()
				s.arena = &arenaTrack{names: map[string]bool{}}
				s.mu.Unlock()
				if _, err = s.waitText("", arenaJoinedRE, roomLimit); err != nil {
					_ = s.client.Close()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, err)
				return
			}
			s.mu.Lock()
			s.arena.joined, s.quiet = time.Now(), true
			s.text.Reset()
			s.mu.Unlock()
			run.mu.Lock()
			run.byName[user] = s
			run.mu.Unlock()
			players = append(players, s)
			plays.Add(1)
			go func() {
				defer plays.Done()
				s.arenaPlay(pctx, cfg, rc, &grace)
			}()
		}()
	}
	wg.Wait()
	joinEnd := time.Now()
	fmt.Printf("players in the arena: %d/%d, joined in %s\n", len(players), ac.players, joinEnd.Sub(joinStart).Round(time.Millisecond))
	for i, err := range failed {
		if i == 3 {
			fmt.Println("  ...")
			break
		}
		fmt.Printf("  failure: %v\n", err)
	}
	if len(players) == 0 {
		return errors.New("no player joined")
	}
	rssJoined := readRSS(cfg.pid)

	// With web page viewers, a first window without them, then they
	// open, and the window below is the second (arena_web.go).
	var one, two arenaWindow
	if rc.webViewers > 0 {
		one, two = arenaWebPhases(ctx, cfg, rc, id, players, run)
	}

	// The window.
	for _, s := range players {
		s.resetMeasures()
	}
	rssFrom := readRSS(cfg.pid)
	loadFrom := loadAvg()
	selfFrom := readCPU(os.Getpid())
	cpuFrom := readCPU(cfg.pid)
	notifyFrom := busEvents(ctx, rc.databaseURL)
	from := time.Now()
	run.measuring.Store(true)
	window := time.NewTimer(cfg.duration)
	select {
	case <-ctx.Done():
		window.Stop()
	case <-window.C:
	}
	run.measuring.Store(false)
	to := time.Now()
	grace.Store(true)
	st := collectArena(players)
	cpuTo := readCPU(cfg.pid)
	selfTo := readCPU(os.Getpid())
	notifyTo := busEvents(ctx, rc.databaseURL)
	rssEnd := readRSS(cfg.pid)
	loadTo := loadAvg()

	// The grace: the waits of the races that ended in the window close.
	graceEnd := time.Now().Add(ac.grace)
	tick := time.NewTicker(250 * time.Millisecond)
	for time.Now().Before(graceEnd) && ctx.Err() == nil {
		open := 0
		for _, s := range players {
			s.mu.Lock()
			_, o := arenaWaits(s.arena.events, from, to)
			s.mu.Unlock()
			open += o
		}
		if open == 0 {
			break
		}
		<-tick.C
	}
	tick.Stop()
	stopPlay()
	plays.Wait()
	if rc.latLog != "" {
		if err := writeLatLog(rc.latLog, players); err != nil {
			fmt.Fprintf(os.Stderr, "loadgen: %v\n", err)
		}
	}

	var waits, first []time.Duration
	var open, races int
	sizes := map[int]int{}
	for _, s := range players {
		s.mu.Lock()
		w, o := arenaWaits(s.arena.events, from, to)
		waits, open = append(waits, w...), open+o
		for _, e := range s.arena.events {
			if e.kind == 'p' {
				first = append(first, e.at.Sub(s.arena.joined))
				break
			}
		}
		for _, e := range s.arena.events {
			if e.kind == 'p' && !e.at.Before(from) && e.at.Before(to) {
				races++
			}
		}
		for _, n := range s.arena.sizes {
			sizes[n]++
		}
		s.mu.Unlock()
	}

	secs := to.Sub(from).Seconds()
	fmt.Printf("arena %d: %d players, %s, games of %s, %dx%d, a key every %s while racing, a move every %d keys (read from the screen), enter on the results; window %s\n",
		id, len(players), ac.rules, ac.game, cfg.width, cfg.height, cfg.every, rc.moveEvery, to.Sub(from).Round(time.Second))
	fmt.Printf("machine load average: %s at the window's start, %s at its end\n", loadFrom, loadTo)
	p50, p99, worst := percentiles(first)
	fmt.Printf("joined→first pairing (while the others connected): p50 %s  p99 %s  max %s (%d)\n", p50, p99, worst, len(first))
	var bySize []string
	for n := 0; n <= arena.MaxRacers+1; n++ {
		if sizes[n] > 0 {
			bySize = append(bySize, fmt.Sprintf("%d: %d", n, sizes[n]))
		}
	}
	fmt.Printf("pairings seen in the window (a player's race screen of a new room): %d; racers on the panels of the races that ended, by count: %s\n",
		races, strings.Join(bySize, ", "))
	p50, p99, worst = percentiles(waits)
	fmt.Printf("wait between games (own game over or results shown→the race screen of the next room): p50 %s  p99 %s  max %s (%d waits, %.1f%% under 5 s; %d still waiting %s after the window)\n",
		p50, p99, worst, len(waits), shareUnder(waits, 5*time.Second), open, ac.grace)
	fmt.Printf("keys pressed: %d (%d moves), answered %d; unanswered when their race ended %d; sessions ended by the server %d\n",
		st.keys, st.moves, len(st.own), st.dropped, st.ended)
	p50, p99, worst = percentiles(st.own)
	fmt.Printf("own keystroke→first byte of its redraw (a read that changes the header, board, status or help rows): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(st.cursorLat)
	fmt.Printf("  cursor keys (down from the pyramid, up from the piles): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(st.moveLat)
	fmt.Printf("  moves typed at the prompt (the prompt's echo): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(st.lateLat)
	fmt.Printf("  keys sent before the previous one was answered: %d; those answered after the next was sent: %d, p50 %s  p99 %s  max %s\n",
		st.missed, len(st.lateLat), p50, p99, worst)
	p50, p99, worst = percentiles(st.anyLat)
	fmt.Printf("  the same keys→first byte of anything (a panel or clock line may come first): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(st.storeLat)
	fmt.Printf("move sent→shown on the racer's own board, once stored (the header's move count): p50 %s  p99 %s  max %s (%d)\n",
		p50, p99, worst, len(st.storeLat))
	if secs > 0 {
		fmt.Printf("frames per player per second: %.2f (%d frames: races, results and the arena screen)\n",
			float64(st.frames)/float64(len(players))/secs, st.frames)
	}
	p50, p99, worst = percentiles(st.prog)
	fmt.Printf("opponent move→its line changes on another racer's panel: p50 %s  p99 %s  max %s (%d seen, %d move counts coalesced away)\n",
		p50, p99, worst, len(st.prog), st.skipped)
	if strings.Contains(cfg.addr, ",") {
		p50, p99, worst = percentiles(st.cross)
		fmt.Printf("  opponent on another server of the cluster: p50 %s  p99 %s  max %s (%d seen)\n", p50, p99, worst, len(st.cross))
	}
	if notifyFrom >= 0 && notifyTo >= 0 {
		fmt.Printf("bus events (one NOTIFY each) in the window: %d, %.1f/s\n", notifyTo-notifyFrom, float64(notifyTo-notifyFrom)/secs)
	}
	if st.keys > 0 {
		fmt.Printf("bytes per keystroke (everything a player receives / its keys): %.0f; the read that brought a key's redraw: %.0f on average\n",
			float64(st.received)/float64(st.keys), float64(st.ownBytes)/float64(max(len(st.own), 1)))
	}
	if cfg.pid > 0 {
		// Over a cluster -pid is the first server's, which serves the
		// players of its turn in -addr's list only.
		n := int64(len(players))
		first := strings.TrimSpace(strings.Split(cfg.addr, ",")[0])
		if strings.Contains(cfg.addr, ",") {
			n = 0
			for _, s := range players {
				if s.addr == first {
					n++
				}
			}
		}
		n = max(n, 1)
		fmt.Printf("server RSS (%s): %s before, %s with %d players in the arena on it (%s per session), %s at the window's end (%s per session)\n",
			first, mib(rssStart), mib(rssJoined), n, kib((rssJoined-rssStart)/n), mib(rssEnd), kib((rssEnd-rssStart)/n))
		if cpuFrom >= 0 && cpuTo >= 0 {
			fmt.Printf("server CPU: %.1f%% of one core in the window, %.1f s for the whole run (connects included)\n",
				100*float64(cpuTo-cpuFrom)/secs/clockTicks, float64(cpuTo-cpuStart)/clockTicks)
		}
	}
	if selfFrom >= 0 && selfTo >= 0 {
		fmt.Printf("loadgen's own CPU in the window: %.1f%% of one core\n", 100*float64(selfTo-selfFrom)/secs/clockTicks)
	}
	if rc.webViewers > 0 {
		three := arenaWindow{st: st, secs: secs, cpu: -1, loadFrom: loadFrom, loadTo: loadTo, rssFrom: rssFrom, rssTo: rssEnd}
		if cpuFrom >= 0 && cpuTo >= 0 {
			three.cpu = cpuTo - cpuFrom
		}
		reportArenaWeb(rc.webViewers, one, two, three)
	}
	for _, s := range players {
		_ = s.client.Close()
	}
	if rc.baselineAddr != "" {
		waitQuiet(cfg.pid, time.Minute)
		fmt.Printf("\nbare baseline at %s, %d sessions, right after (machine load average %s):\n", rc.baselineAddr, len(players), loadAvg())
		return runLoad(ctx, loadConfig{
			addr: rc.baselineAddr, sessions: len(players), every: cfg.every, duration: min(cfg.duration, time.Minute), dialers: cfg.dialers,
			pid: rc.baselinePid, width: cfg.width, height: cfg.height, key: "l", ready: "load test",
		})
	}
	return nil
}
