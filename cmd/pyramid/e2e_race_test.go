package main

// End-to-end tests of race rooms over real SSH, as in e2e_test.go: rooms
// made and joined by deep link, a whole race from the waiting room to the
// results, a racer who drops and comes back, quick match, chat.

import (
	"bytes"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// roomRE finds a room's code on a screen.
var roomRE = regexp.MustCompile(`room ([A-Z]{6})`)

// waitRoom waits until a screen shows a room and returns its code.
func waitRoom(t *testing.T, term *sshtest.Term) string {
	t.Helper()
	s := term.WaitScreen(t, wait, "a room code", func(s string) bool { return roomRE.MatchString(s) })
	return roomRE.FindStringSubmatch(s)[1]
}

// readyStart has every racer but the host mark ready, then the host
// start the race once the host's screen says everybody is ready: a start
// waits for them.
func readyStart(t *testing.T, host *sshtest.Term, racers ...*sshtest.Term) {
	t.Helper()
	for _, r := range racers {
		typeKeys(t, r, "r")
	}
	host.WaitFor(t, "everybody is ready: s starts the race", wait)
	typeKeys(t, host, "s")
}

// roomJSON is a line of rooms --json.
type roomJSON struct {
	Code       string `json:"code"`
	Rules      string `json:"rules"`
	Phase      string `json:"phase"`
	Players    int    `json:"players"`
	MaxPlayers int    `json:"max_players"`
	Host       string `json:"host"`
	TimeLimitS int    `json:"time_limit_s"`
	Rated      *bool  `json:"rated"`
}

// statsRaceJSON is the race part of a stats --json line.
type statsRaceJSON struct {
	Rules string `json:"rules"`
	Race  *struct {
		Races       int     `json:"races"`
		Wins        int     `json:"wins"`
		Podiums     int     `json:"podiums"`
		Unrated     int     `json:"unrated"`
		Rating      float64 `json:"rating"`
		Provisional bool    `json:"provisional"`
		History     []struct {
			Rating float64 `json:"rating"`
		} `json:"history"`
	} `json:"race"`
}

// ratingJSON is a line of top race --json.
type ratingJSON struct {
	Rank  int    `json:"rank"`
	Name  string `json:"name"`
	Races int    `json:"races"`
	Wins  int    `json:"wins"`
}

// playLine types moves at the ":" prompt, a few at a time, each batch
// once the last one shows; the last batch is not waited for when it ends
// the race (the results replace the board).
func playLine(t *testing.T, term *sshtest.Term, g *engine.Game, moves []string, endsRace bool) {
	t.Helper()
	for len(moves) > 0 {
		n := min(8, len(moves))
		typeKeys(t, term, ":"+strings.Join(moves[:n], " ")+"\r")
		play(t, g, moves[:n]...)
		moves = moves[n:]
		if len(moves) > 0 || !endsRace {
			waitPosition(t, term, g)
		}
	}
}

// TestE2ERace: three racers from `race new` to the results. One drops in
// the middle and comes back to the same game; chat reaches everybody
// cleaned, a spectator's too; the race is stored with its placings,
// unrated (its deal was chosen: TestE2ERaceRated rates a random deal's).
func TestE2ERace(t *testing.T) {
	forEachBackend(t, testE2ERace)
}

func testE2ERace(t *testing.T, be backend) {
	ts := startServer(t, be.url(t), "--max-conns-per-ip", "32")
	deal, line := hintGame(t, "classic", engine.Won)
	keyA, keyB, keyC := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	runOK(t, ts.user(keyA), "name alice")
	runOK(t, ts.user(keyB), "name bob")
	runOK(t, ts.user(keyC), "name carol")

	a := sshtest.OpenTerm(t, ts.dial(t, keyA), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10) + " --public --time 5m"})
	code := waitRoom(t, a)
	a.WaitFor(t, "1/8 players", wait)
	a.WaitFor(t, "unrated: chosen deal", wait)

	var rooms []roomJSON
	runJSON(t, ts.user(keyC), "rooms --json", &rooms)
	if len(rooms) != 1 || rooms[0].Code != code || rooms[0].Players != 1 || rooms[0].Phase != "waiting" ||
		rooms[0].Host != "alice" || rooms[0].TimeLimitS != 300 || rooms[0].Rated == nil || *rooms[0].Rated {
		t.Fatalf("rooms --json: got %+v, want room %s of alice waiting with 1 player, 300 s, unrated", rooms, code)
	}
	if _, stderr, status := ts.user(keyC).exec(t, "race "+code); status == 0 || !strings.Contains(stderr, "needs a terminal") {
		t.Errorf("race without a terminal: status %d, stderr %q; want a refusal that says it needs -t", status, stderr)
	}

	b := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + strings.ToLower(code)})
	b.WaitFor(t, "room "+code, wait)
	c := sshtest.OpenTerm(t, ts.dial(t, keyC), sshtest.TermOptions{Command: "race " + code})
	c.WaitFor(t, "room "+code, wait)
	a.WaitFor(t, "3/8 players", wait)
	d := sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race watch " + code})
	d.WaitFor(t, "You watch this room", wait)
	a.WaitFor(t, "1 watching", wait)
	wrong := "CDFGHJ"
	if wrong == code {
		wrong = "CDFGHK"
	}
	sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race " + wrong}).WaitFor(t, "there is no room "+wrong, wait)
	sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race QQQQQQ"}).WaitFor(t, "a room code is 6 letters", wait)

	// Chat: a bidi override never reaches the others raw.
	typeKeys(t, b, "tgl\u202ehf\r")
	a.WaitFor(t, "<bob> gl", wait)
	if s := c.WaitFor(t, "<bob> gl", wait); strings.ContainsRune(s, '\u202e') || !strings.Contains(s, "hf") {
		t.Errorf("chat: want bob's line without the bidi override; got\n%s", s)
	}
	// A spectator chats too, marked so; /help is answered, not said.
	typeKeys(t, d, "t/help\r")
	d.WaitFor(t, "/mute NAME: the host mutes", wait)
	typeKeys(t, d, "go go go\r")
	a.WaitFor(t, "(watching)> go go go", wait)
	if s := b.WaitFor(t, "(watching)> go go go", wait); strings.Contains(s, "/help") {
		t.Errorf("chat: /help reached bob:\n%s", s)
	}

	typeKeys(t, b, "r")
	a.WaitScreen(t, wait, "bob ready", func(s string) bool {
		return strings.Contains(lineWith(s, "bob"), "ready") && !strings.Contains(lineWith(s, "bob"), "not ready")
	})
	readyStart(t, a, c)
	ga, gb := newGame(t, "classic", deal), newGame(t, "classic", deal)
	waitPosition(t, a, ga)
	waitPosition(t, b, gb)
	waitPosition(t, c, newGame(t, "classic", deal))

	// No hints in a race.
	typeKeys(t, a, "H")
	a.WaitFor(t, "no hints in a race", wait)

	// bob plays half the line, drops, and comes back to the same game.
	half := len(line) / 2
	playLine(t, b, gb, line[:half], false)
	// The spectator switches to bob's board.
	for i := 0; i < 3 && !strings.Contains(d.Screen(), "watching bob"); i++ {
		typeKeys(t, d, "\t")
		sshtest.Poll(wait/10, func() bool { return strings.Contains(d.Screen(), "watching bob") })
	}
	waitPosition(t, d, gb)
	a.WaitScreen(t, wait, "bob's progress", func(s string) bool {
		return strings.Contains(lineWith(s, ">alice"), "0/28") && strings.Contains(lineWith(s, " bob"), strconv.Itoa(gb.Removed())+"/28")
	})
	b.Session().Close()
	a.WaitScreen(t, wait, "bob left", func(s string) bool { return strings.Contains(lineWith(s, " bob"), "left") })
	b = sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	waitPosition(t, b, gb)
	b.WaitFor(t, "welcome back", wait)
	// A second session of bob's key takes the seat over.
	b2 := sshtest.OpenTerm(t, ts.dial(t, keyB), sshtest.TermOptions{Command: "race " + code})
	waitPosition(t, b2, gb)
	b.WaitFor(t, "your race continues in another session", wait)
	b = b2

	// carol leaves; alice and bob clear the deal.
	typeKeys(t, c, "qq")
	c.WaitScreen(t, wait, "the menu", isMenu)
	playLine(t, a, ga, line, false)
	a.WaitFor(t, "You cleared the pyramid!", wait)
	playLine(t, b, gb, line[half:], true)

	for _, term := range []*sshtest.Term{a, b, d} {
		term.WaitFor(t, "room "+code+" · results", wait)
		s := term.WaitFor(t, "The deal was winnable", wait)
		if !strings.Contains(s, "unrated: chosen deal") {
			t.Errorf("results of a chosen deal's race do not say it is unrated:\n%s", s)
		}
		if !strings.Contains(lineWith(s, "1. alice"), "cleared in") || !strings.Contains(lineWith(s, "2. bob"), "cleared in") ||
			!strings.Contains(lineWith(s, "3. carol"), "left") {
			t.Errorf("results: want alice 1st, bob 2nd, carol 3rd (left); got\n%s", s)
		}
	}

	sshtest.Eventually(t, wait, func() bool {
		var stats []statsRaceJSON
		runJSON(t, ts.user(keyA), "stats --json", &stats)
		for _, s := range stats {
			if s.Rules == "classic" && s.Race != nil && s.Race.Unrated == 1 && s.Race.Races == 0 && s.Race.Wins == 0 {
				return true
			}
		}
		return false
	}, "alice's stats show one unrated race")
	var top []ratingJSON
	runJSON(t, ts.user(keyB), "top race --json", &top)
	if len(top) != 0 {
		t.Errorf("top race --json after a chosen deal's race: got %+v, want nobody rated", top)
	}
	if out := runOK(t, ts.user(keyA), "rooms"); !strings.Contains(out, "no public rooms") && !strings.Contains(out, code) {
		t.Errorf("rooms: got %q", out)
	}
}

// TestE2ERaceQuickMatch: `race` alone puts the first player in a new public
// room and the second in the same one.
func TestE2ERaceQuickMatch(t *testing.T) {
	ts := startServer(t, "")
	a := sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race"})
	code := waitRoom(t, a)
	b := sshtest.OpenTerm(t, ts.dial(t, nil), sshtest.TermOptions{Command: "race"})
	if got := waitRoom(t, b); got != code {
		t.Fatalf("quick match put the second player in room %s, want %s", got, code)
	}
	a.WaitFor(t, "2/8 players", wait)
	a.WaitFor(t, "s starts the race", wait)
}

// openStuckRacer joins a room from a PTY session whose client never reads
// its output; ready marks it ready (its keys still go in), and flood then
// makes its program draw big frames until one of its writes blocks on
// the full SSH window.
func openStuckRacer(t *testing.T, ts *testServer, code string) (ready, flood func()) {
	t.Helper()
	sess, err := ts.dial(t, sshtest.NewKey(t)).NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	if err := sess.RequestPty("xterm", 200, 500, nil); err != nil {
		t.Fatalf("pty: %v", err)
	}
	if _, err := sess.StdoutPipe(); err != nil { // never read
		t.Fatalf("stdout: %v", err)
	}
	if _, err := sess.StderrPipe(); err != nil { // never read
		t.Fatalf("stderr: %v", err)
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		t.Fatalf("stdin: %v", err)
	}
	if err := sess.Start("race " + code); err != nil {
		t.Fatalf("start: %v", err)
	}
	ready = func() {
		if _, err := stdin.Write([]byte("r")); err != nil {
			t.Fatalf("the stuck racer's ready: %v", err)
		}
	}
	return ready, func() { floodUntilBlocked(t, sess) }
}

// floodUntilBlocked changes a session's window size (each change redraws
// the whole screen) until a write of the server blocks on its SSH window.
func floodUntilBlocked(t *testing.T, sess *gossh.Session) {
	t.Helper()
	buf := make([]byte, 1<<22)
	blocked := 0
	sshtest.Eventually(t, 60*time.Second, func() bool {
		// Every size change redraws the whole (large) screen; the sizes
		// are paced past the server's resize debounce (pacing, not
		// synchronisation).
		_ = sess.WindowChange(200, 499)
		time.Sleep(60 * time.Millisecond)
		_ = sess.WindowChange(200, 500)
		time.Sleep(60 * time.Millisecond)
		n := runtime.Stack(buf, true)
		if bytes.Contains(buf[:n], []byte("x/crypto/ssh.(*window).reserve")) {
			blocked++
		} else {
			blocked = 0
		}
		return blocked >= 10
	}, "the stuck racer's output never blocked")
}

// TestE2ERaceStuckRacer: in a race of eight, a client that never reads
// slows nobody: the others see each other's moves as fast as ever, and
// the stuck one is dropped from the room.
func TestE2ERaceStuckRacer(t *testing.T) {
	ts := startServer(t, "", "--max-conns-per-ip", "32")
	deal, line := hintGame(t, "classic", engine.Won)
	a := sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race new classic " + strconv.FormatUint(deal, 10)})
	code := waitRoom(t, a)
	others := make([]*sshtest.Term, 6)
	for i := range others {
		others[i] = sshtest.OpenTerm(t, ts.dial(t, sshtest.NewKey(t)), sshtest.TermOptions{Command: "race " + code})
		others[i].WaitFor(t, "room "+code, wait)
	}
	b := others[0]
	a.WaitFor(t, "7/8 players", wait)
	ready, flood := openStuckRacer(t, ts, code)
	a.WaitFor(t, "8/8 players", wait)
	ready()
	readyStart(t, a, others...)
	g := newGame(t, "classic", deal)
	waitPosition(t, a, g)
	for _, o := range others {
		waitPosition(t, o, newGame(t, "classic", deal))
	}
	flood()

	var worst time.Duration
	for _, mv := range line[:20] {
		start := time.Now()
		typeKeys(t, a, ":"+mv+"\r")
		play(t, g, mv)
		want := strconv.Itoa(g.Removed()) + "/28 " + padMoves(g.MovesMade())
		b.WaitScreen(t, wait, "alice's progress "+want, func(s string) bool {
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(strings.TrimLeft(l, " "), "player") && strings.Contains(l, want) {
					return true
				}
			}
			return false
		})
		worst = max(worst, time.Since(start))
	}
	t.Logf("worst move → other racer's panel beside a stuck racer: %s", worst)
	if worst > 2*time.Second {
		t.Errorf("worst latency %s, want < 2s", worst)
	}
	// Chat lines are events the stuck racer's queue holds until it is
	// full; it is then dropped from the room RoomDropAfter later.
	for i, o := range others {
		for j := range 3 {
			typeKeys(t, o, "tline "+strconv.Itoa(i)+"."+strconv.Itoa(j)+"\r")
		}
		// One racer at a time: lines of different racers may arrive in
		// any order, and the screen shows the last few only.
		a.WaitFor(t, "line "+strconv.Itoa(i)+".2", wait)
	}
	a.WaitScreen(t, 3*wait, "the stuck racer left", func(s string) bool { return leftRE.MatchString(s) })
}

// leftRE finds a racer who left in the racer panel.
var leftRE = regexp.MustCompile(`\d+ mv p\d+ left`)

// padMoves is a move count as the racer panel aligns it.
func padMoves(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 3 {
		s = " " + s
	}
	return s + " mv"
}
