package main

// The race mode (-race N): N racers in rooms of -room-size (one host
// creates the room with a fixed deal, the others join by its code, the
// host starts), each pressing a key every -every, plus -lobby-viewers
// sessions on the Lobby screen. It reports the racers' own keystroke →
// first byte, opponent move → progress panel latency, memory per session,
// bytes per key, and the lobby viewers' redraws per 500 ms while racers
// join and leave; then, given -baseline-addr, the bare baseline with as
// many sessions, right after:
//
//	pyramid serve --listen 127.0.0.1:23234 --data DIR --max-conns 3000 --max-conns-per-ip 3000 \
//	    --max-unauth-per-ip 3000 --max-startups 3000:30:3000 --penalties off
//	loadgen -baseline-server -addr 127.0.0.1:23301
//	loadgen -addr 127.0.0.1:23234 -race 1000 -lobby-viewers 20 -width 100 -height 34 -duration 30s \
//	    -pid ARCADE_PID -baseline-addr 127.0.0.1:23301 -baseline-pid BASELINE_PID
//
// Over a cluster, -addr lists its servers (comma-separated): each room's
// racers are spread over them in turn, the report adds the latency from a
// move on one server to the panel on another, and -database-url (the
// cluster's PostgreSQL) counts the bus's NOTIFYs during the race.
// cluster-race.sh runs it over two instances, then the SQLite baseline:
//
//	DATABASE_URL=postgres://… tools/loadgen/cluster-race.sh 500 8 20s

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/ansi"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for -database-url
	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
)

// raceConfig is what the race mode adds to a load run.
type raceConfig struct {
	databaseURL  string // the cluster's PostgreSQL, to count NOTIFYs; empty: not counted
	racers       int    // 0: race mode off
	roomSize     int    // racers per room
	viewers      int    // sessions on the Lobby screen
	rules        string // the room's rule set
	deal         uint64 // the room's deal
	moveEvery    int    // every moveEvery-th key of a racer is a move
	movesInStep  bool   // every racer's move on the same key (all in one 500 ms window); else each from a random key
	baselineAddr string // the bare baseline server, run right after
	baselinePid  int
	warm         bool   // race a room of two first, and let the server settle
	traceFile    string // write the first racer's keys and reads during the race here; empty: none
	latLog       string // write every timed key and panel change here; empty: none
	webViewers   int    // live streams of a page of the club's site (web.go)
	webURL       string // that page's stream
}

// raceFlags defines the race mode's flags on fs.
func raceFlags(fs *flag.FlagSet) *raceConfig {
	rc := &raceConfig{}
	fs.IntVar(&rc.racers, "race", 0, "race mode: this many racers in rooms of -room-size against the arcade at -addr (0: off)")
	fs.IntVar(&rc.roomSize, "room-size", 8, "race mode: racers per room")
	fs.IntVar(&rc.viewers, "lobby-viewers", 0, "race mode: sessions on the Lobby screen, connected before the racers")
	fs.StringVar(&rc.rules, "race-rules", "classic", "race mode: the rooms' rule set")
	fs.Uint64Var(&rc.deal, "race-deal", 2, "race mode: the rooms' deal number")
	fs.IntVar(&rc.moveEvery, "move-every", 4, "race mode: every Nth key of a racer is a move typed at the : prompt (a removal if any, else a draw); the others move the cursor")
	fs.BoolVar(&rc.movesInStep, "moves-in-step", false, "race mode: every racer's move comes on the same key (the keys' phases are spread over -every, so all 1,000 moves of a round come in one window of -every and none in the -move-every minus one between): the worst case; by default each racer's first move comes at a random one of its first -move-every keys, so the moves are spread as the keys are")
	fs.StringVar(&rc.baselineAddr, "baseline-addr", "", "race mode: the bare baseline server (loadgen -baseline-server), loaded right after with as many sessions")
	fs.IntVar(&rc.baselinePid, "baseline-pid", 0, "race mode: the baseline server's pid, for its RSS")
	fs.StringVar(&rc.databaseURL, "database-url", "", "race mode: the cluster's PostgreSQL (servers given as a comma list in -addr): count the bus's NOTIFYs during the race")
	fs.StringVar(&rc.traceFile, "race-trace", "", "race mode: write the first racer's keys and reads during the race to this file (one Go-quoted line each, with µs since the race started), for the detector's tests")
	fs.StringVar(&rc.latLog, "lat-log", "", "race and arena modes: write every racer's timed keys and opponents' panel changes during the race to this file, one line each: the unix time in µs it was sent, its kind (c cursor key, m move, p panel) and its latency in µs; to see whether a tail comes in bursts")
	fs.IntVar(&rc.webViewers, "web-viewers", 0, "race or arena mode: live streams of the club's page (-web-url), read to the end (web.go, arena_web.go)")
	fs.StringVar(&rc.webURL, "web-url", "", "race or arena mode: the live stream the -web-viewers read, e.g. http://127.0.0.1:8080/events/front; in the arena mode {id} stands for the arena's number (http://127.0.0.1:8080/arena/{id}/events), and the viewers open after a first window without them (arena_web.go)")
	fs.BoolVar(&rc.warm, "warm", true, "race and arena modes: race a room of two first and wait for the server's RSS to settle (the first race of a deal works out its par: tens of MiB for a while)")
	return rc
}

// Marks on the arcade's screens, ANSI stripped.
const (
	menuMark  = "enter open"    // the menu's help bar
	lobbyMark = "lobby"         // the Lobby screen's title
	panelMark = " mv p"         // a racer's line in the race panel
	frameMark = "\x1b[H"        // the renderer starts every frame at home
	roomLimit = time.Minute     // for each step of setting a room up
	quietTime = 3 * time.Second // lobby viewers' frames are counted this long after the last leave
	window    = 500 * time.Millisecond
)

// roomCodeRE is a room's code on a screen.
var roomCodeRE = regexp.MustCompile(`room ([A-Z]{6})`)

// racerLine is one racer's line as a screen shows it.
type racerLine struct {
	you     bool // marked as the screen's own player
	name    string
	removed int
	moves   int
}

// stripFrame is output as text: a cursor move to a line (CSI row H, by
// which a renderer that writes only the lines that changed goes from one
// to the next) becomes a line break, and the other escape sequences go.
func stripFrame(b []byte) string {
	var out []byte
	for {
		i := bytes.Index(b, []byte("\x1b["))
		if i < 0 {
			break
		}
		j := i + 2
		for j < len(b) && (isDigit(b[j]) || b[j] == ';') {
			j++
		}
		if j < len(b) && b[j] == 'H' {
			if out == nil {
				out = make([]byte, 0, len(b))
			}
			out = append(out, b[:i]...)
			out = append(out, '\n')
			b = b[j+1:]
			continue
		}
		if out != nil {
			out = append(out, b[:j]...)
		} else {
			out = append(make([]byte, 0, len(b)), b[:j]...)
		}
		b = b[j:]
	}
	if out == nil {
		return ansi.Strip(string(b))
	}
	return ansi.Strip(string(append(out, b...)))
}

// parseRacerLines returns the racer lines in text (stripFrame's): a
// racer's line in the race panel is a mark, the name, cards removed,
// moves (race_view.go's racerLine), as the regular expression
// `([ >*])([^\s>*]\S*) +(\d+)/(\d+) +(\d+) mv p\d+` reads it. It is read
// by hand, back from each " mv p": a regular expression over every read
// was a tenth of the load generator's CPU, which the server under test
// shares the machine with.
func parseRacerLines(text string) []racerLine {
	var out []racerLine
	floor := 0 // the end of the last line read: the next starts after it
	for from := 0; ; {
		i := strings.Index(text[from:], panelMark)
		if i < 0 {
			return out
		}
		at := from + i
		end := at + len(panelMark)
		from = end
		if end == len(text) || !isDigit(text[end]) {
			continue
		}
		if l, ok := racerLineBefore(text, at, floor); ok {
			out = append(out, l)
			for end < len(text) && isDigit(text[end]) {
				end++
			}
			floor, from = end, end
		}
	}
}

// racerLineBefore reads the racer line that ends at text[at:], " mv p",
// and starts at floor or after.
func racerLineBefore(text string, at, floor int) (racerLine, bool) {
	j := at
	digits := func() (int, bool) {
		end := j
		for j > floor && isDigit(text[j-1]) {
			j--
		}
		n, err := strconv.Atoi(text[j:end])
		return n, err == nil
	}
	spaces := func() bool {
		end := j
		for j > floor && text[j-1] == ' ' {
			j--
		}
		return j < end
	}
	var l racerLine
	var ok bool
	if l.moves, ok = digits(); !ok || !spaces() {
		return racerLine{}, false
	}
	if _, ok = digits(); !ok || j == floor || text[j-1] != '/' {
		return racerLine{}, false
	}
	j--
	if l.removed, ok = digits(); !ok || !spaces() {
		return racerLine{}, false
	}
	end := j
	for j > floor && !isSpace(text[j-1]) {
		j--
	}
	// The name is the first place in the run of non-blanks that is not a
	// mark and follows one (a blank before the run is the mark " ").
	isMark := func(b byte) bool { return b == '>' || b == '*' }
	for k := j; k < end; k++ {
		if isMark(text[k]) {
			continue
		}
		switch {
		case k > j && isMark(text[k-1]):
			l.you = text[k-1] == '>'
		case k == j && k > floor && text[k-1] == ' ':
		default:
			continue
		}
		l.name = text[k:end]
		return l, true
	}
	return racerLine{}, false
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// isSpace is \s of a regular expression (RE2's [\t\n\f\r ]).
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

// raceSession is one racer or lobby viewer.
type raceSession struct {
	user   string
	addr   string // the server it is connected to (one of -addr's list)
	client *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser
	ended  chan struct{} // closed when the server closes the session
	notify chan struct{} // a token after each chunk received
	run    *raceRun

	mu          sync.Mutex
	text        strings.Builder // stripped output, for the set-up steps (reset by mark)
	scr         *screen         // the terminal's screen, from the output
	rows        []string        // scratch: the screen's panel rows written by a read
	written     []int           // scratch: the screen's rows written by a read
	name        string          // the display name, from the panel's own line
	frames      []time.Time     // when each frame started (lobby viewers)
	frameStart  time.Time       // when the current frame's first chunk came
	pend        []pendingKey    // the keys sent and not answered yet, oldest first
	ownLat      []time.Duration // key → first byte of the frame that changes the racer's own rows
	anyLat      []time.Duration // the same keys → the first byte of anything after them
	moveLat     []time.Duration // the same as ownLat, for the keys that were moves (the prompt's echo)
	cursorLat   []time.Duration // and for the cursor keys
	lateLat     []time.Duration // ownLat of the keys answered only after the next key was sent
	storeLat    []time.Duration // move sent → the header shows it (after the store took it)
	firstStore  []time.Duration // storeLat of the racer's first move (the first save of its stored game, made at the countdown)
	raceFrames  int             // frames received while measuring
	countFrames bool            // keep each frame's time in frames (lobby viewers)
	storedSeen  int             // the header's moves count, last seen
	keys        int
	moves       int
	missed      int // keys sent while an earlier one was unanswered
	bytes       int64
	ownBytes    int64          // of the reads that brought a key's redraw
	sent        []time.Time    // when each own move was sent: sent[k] for the move that made the count k+1
	seen        map[string]int // the moves count last seen of each opponent
	progLat     []time.Duration
	crossLat    []time.Duration // progLat of opponents on another server of -addr's list
	latLog      []latEvent      // every timed key and panel change (-lat-log)
	skipped     int             // opponents' move counts never shown (coalesced)
	shown       int             // the moves count of the own line, last seen
	game        *engine.Game
	trace       *raceTrace  // the racer's keys and reads, or nil (-race-trace)
	room        string      // the room of the race being played (the arena mode; "" in the race mode)
	arena       *arenaTrack // the arena mode's phases and waits, or nil (arena.go)
	quiet       bool        // set up: the output is no longer kept as text
}

// raceTrace is one racer's keys and reads during the race, as
// -race-trace writes them.
type raceTrace struct {
	start time.Time
	lines []string
}

// add notes a key (kind K) or a read (kind R) at now.
func (t *raceTrace) add(kind byte, now time.Time, b []byte) {
	t.lines = append(t.lines, fmt.Sprintf("%c %d %q", kind, now.Sub(t.start).Microseconds(), b))
}

// latEvent is a timed key or panel change, as -lat-log writes it.
type latEvent struct {
	at   time.Time // the key or move sent
	kind byte      // 'c' cursor key, 'm' move, 'p' an opponent's move on the panel; the arena's moments in capitals (arenaEvent)
	lat  time.Duration
}

// writeLatLog writes every racer's timed keys and panel changes to
// path (-lat-log).
func writeLatLog(path string, racers []*raceSession) error {
	var b strings.Builder
	for _, s := range racers {
		s.mu.Lock()
		for _, e := range s.latLog {
			fmt.Fprintf(&b, "%d %c %d\n", e.at.UnixMicro(), e.kind, e.lat.Microseconds())
		}
		s.mu.Unlock()
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("latency log: %w", err)
	}
	return nil
}

// raceRun is the state shared by the sessions of one run.
type raceRun struct {
	// tag starts the SSH user names of the run, so that the names the
	// arcade gives them (its players' names are unique) are new to it,
	// and each racer's is its user name, short enough to show whole.
	tag       string
	measuring atomic.Bool
	logLat    bool // keep every timed key and panel change (-lat-log)
	mu        sync.Mutex
	byName    map[string]*raceSession
}

// racer returns the racer named name.
func (r *raceRun) racer(name string) *raceSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byName[name]
}

// dialRace connects a session as user with a fresh key, a PTY of cfg's
// size and command cmd ("" for the menu).
//
// -addr may list several servers of a cluster, comma-separated: slot
// picks one, so that a room's racers (slots i+seat) spread over them.
func dialRace(cfg loadConfig, run *raceRun, slot int, user, cmd string) (*raceSession, error) {
	addrs := strings.Split(cfg.addr, ",")
	addr := strings.TrimSpace(addrs[slot%len(addrs)])
	client, err := dialFresh(addr, "", user, 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", user, err)
	}
	s := &raceSession{user: user, addr: addr, client: client, ended: make(chan struct{}), notify: make(chan struct{}, 1),
		run: run, seen: map[string]int{}}
	fail := func(err error) (*raceSession, error) {
		_ = client.Close()
		return nil, fmt.Errorf("%s: %w", user, err)
	}
	var stdout io.Reader
	if s.sess, s.stdin, stdout, err = startPty(client, cfg, cmd); err != nil {
		return fail(err)
	}
	s.scr = newScreen(cfg.width, cfg.height)
	go s.read(stdout)
	return s, nil
}

// The rows of a racer's screen, as the race screen lays them out
// (tui/race_view.go): the panel's racer lines, the clock line, and the
// racer's own area (the header, the board, the status and help lines),
// which only the racer's own keys and moves change.
type rowKind uint8

const (
	rowOwn   rowKind = iota // the header, the board, the status line, the help bar
	rowPanel                // a racer's line of the panel (opponents move it)
	rowClock                // the room's title with the time left (the clock ticks it)
)

// kindOf tells what a row of the race screen shows from its text.
func kindOf(line string) rowKind {
	switch {
	case strings.Contains(line, panelMark):
		return rowPanel
	case strings.Contains(line, " left") && !strings.Contains(line, " removed"),
		strings.Contains(line, "(time up)"):
		return rowClock
	}
	return rowOwn
}

// movesShown is the moves count of the header (" removed · N moves"),
// or -1 when line is not the header.
func movesShown(line string) int {
	const mark = " removed · "
	i := strings.Index(line, mark)
	if i < 0 {
		return -1
	}
	rest := line[i+len(mark):]
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	if j == 0 || !strings.HasPrefix(rest[j:], " move") {
		return -1
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil {
		return -1
	}
	return n
}

// cursorAtPiles reports whether the board's cursor (a card between > and
// <) is on the stock or waste row (the one that says "stock"), or below.
// Without a cursor on the screen it reports false.
func (sc *screen) cursorAtPiles() bool {
	cursor, stock := -1, -1
	for r := range sc.cells {
		line := sc.line(r)
		if kindOf(line) != rowOwn {
			continue
		}
		if stock < 0 && strings.Contains(line, "stock") {
			stock = r
		}
		if i := strings.IndexByte(line, '>'); i >= 0 && strings.IndexByte(line[i:], '<') > 0 {
			cursor = r
		}
	}
	return cursor >= 0 && stock >= 0 && cursor >= stock-1
}

// pendingKey is a key sent and not answered yet.
type pendingKey struct {
	at       time.Time // sent
	firstAny time.Time // the first byte of anything after it; zero: none yet
	move     bool      // a move typed at the prompt
	late     bool      // another key was sent before it was answered
}

// read consumes the server's output: it answers terminal queries, times
// the answers to keys, counts frames and reads the opponents' progress.
func (s *raceSession) read(stdout io.Reader) {
	defer close(s.ended)
	buf := make([]byte, 32<<10)
	queries := queryAnswers()
	for {
		n, err := stdout.Read(buf)
		if n > 0 {
			s.chunk(time.Now(), buf[:n], queries)
		}
		if err != nil {
			return
		}
	}
}

// chunk takes one read of output that arrived at now.
func (s *raceSession) chunk(now time.Time, chunk []byte, queries []struct{ query, answer []byte }) {
	for _, qa := range queries {
		if bytes.Contains(chunk, qa.query) {
			_, _ = s.stdin.Write(qa.answer)
		}
	}
	measuring := s.run.measuring.Load()
	var lines []racerLine
	s.mu.Lock()
	if s.trace != nil && measuring {
		s.trace.add('R', now, chunk)
	}
	// The panel's lines are read from the copy of the screen, once a
	// read has written them: the arcade's renderer writes the cells
	// that changed, as little as a digit.
	s.scr.write(chunk)
	own := s.sortRows(now, measuring)
	newFrames := bytes.Count(chunk, []byte(frameMark))
	if newFrames > 0 || s.frameStart.IsZero() {
		s.frameStart = now
	}
	if s.countFrames {
		for range newFrames {
			s.frames = append(s.frames, now)
		}
	}
	if measuring {
		s.raceFrames += newFrames
	}
	if !measuring && !s.quiet && s.text.Len() < 64<<10 { // only the set-up reads it
		s.text.WriteString(stripFrame(chunk))
	}
	for i := range s.pend {
		if s.pend[i].firstAny.IsZero() {
			s.pend[i].firstAny = now
		}
	}
	if own && len(s.pend) > 0 {
		s.answer(now, len(chunk))
	}
	if measuring {
		s.bytes += int64(len(chunk))
	}
	for _, row := range s.rows {
		lines = append(lines, parseRacerLines(row)...)
	}
	for _, l := range lines {
		if l.you {
			s.name, s.shown = l.name, l.moves
		}
	}
	me := s.name
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	if !measuring {
		return
	}
	for _, l := range lines {
		if l.you || l.name == me {
			continue
		}
		s.opponentMoved(now, l)
	}
}

// pressed notes a key sent at now, with s.mu held.
func (s *raceSession) pressed(now time.Time, key string, isMove bool) {
	if len(s.pend) > 0 {
		s.missed++
		for i := range s.pend {
			s.pend[i].late = true
		}
	}
	s.pend = append(s.pend, pendingKey{at: now, move: isMove})
	s.keys++
	if isMove {
		s.moves++
		s.sent = append(s.sent, now)
	}
	if s.trace != nil {
		s.trace.add('K', now, []byte(key))
	}
}

// sortRows sorts the rows a read wrote: the panel's go to s.rows, the
// header's moves count times the moves stored, and it reports whether
// the read changed any of the racer's own rows.
func (s *raceSession) sortRows(now time.Time, measuring bool) (own bool) {
	s.written = s.scr.takeWritten(s.written[:0])
	s.rows = s.rows[:0]
	for _, r := range s.written {
		line := s.scr.line(r)
		if s.arena != nil {
			s.arenaRow(now, line)
		}
		switch kindOf(line) {
		case rowPanel:
			s.rows = append(s.rows, line)
		case rowOwn:
			own = true
			if n := movesShown(line); n >= 0 {
				for k := s.storedSeen; measuring && k < n && k < len(s.sent); k++ {
					s.storeLat = append(s.storeLat, now.Sub(s.sent[k]))
					if k == 0 {
						s.firstStore = append(s.firstStore, now.Sub(s.sent[k]))
					}
				}
				s.storedSeen = max(s.storedSeen, n)
			}
		}
	}
	if s.arena != nil {
		s.arenaRead(now)
	}
	return own
}

// answer takes a read that changed the racer's own rows as the answer to
// every key waiting for one: the server handles a session's keys in
// order, and a frame may answer several. Each key's latency runs to the
// start of the frame (the read's, when the frame began before the key).
func (s *raceSession) answer(now time.Time, n int) {
	for _, k := range s.pend {
		lat := s.frameStart.Sub(k.at)
		if lat < 0 {
			lat = now.Sub(k.at)
		}
		s.ownLat = append(s.ownLat, lat)
		s.anyLat = append(s.anyLat, k.firstAny.Sub(k.at))
		if s.run.logLat {
			kind := byte('c')
			if k.move {
				kind = 'm'
			}
			s.latLog = append(s.latLog, latEvent{at: k.at, kind: kind, lat: lat})
		}
		if k.move {
			s.moveLat = append(s.moveLat, lat)
		} else {
			s.cursorLat = append(s.cursorLat, lat)
		}
		if k.late {
			s.lateLat = append(s.lateLat, lat)
		}
	}
	s.ownBytes += int64(n)
	s.pend = s.pend[:0]
}

// opponentMoved notes that this screen shows racer l.name at l.moves
// moves.
func (s *raceSession) opponentMoved(now time.Time, l racerLine) {
	s.mu.Lock()
	last := s.seen[l.name]
	s.seen[l.name] = max(last, l.moves)
	room := s.room
	s.mu.Unlock()
	if l.moves <= last {
		return
	}
	o := s.run.racer(l.name)
	if o == nil {
		return
	}
	o.mu.Lock()
	var at time.Time
	// An arena player's moves are counted per race: one who went on to
	// their next race has no sent times for this one.
	if o.room == room && l.moves-1 < len(o.sent) {
		at = o.sent[l.moves-1]
	}
	o.mu.Unlock()
	if at.IsZero() {
		return // a move made before the run measured
	}
	s.mu.Lock()
	s.progLat = append(s.progLat, now.Sub(at))
	if s.run.logLat {
		s.latLog = append(s.latLog, latEvent{at: at, kind: 'p', lat: now.Sub(at)})
	}
	if o.addr != s.addr {
		s.crossLat = append(s.crossLat, now.Sub(at))
	}
	s.skipped += l.moves - last - 1
	s.mu.Unlock()
}

// waitText waits until the output since the last mark holds want (or
// match when want is a regexp's text and re is set) and returns the
// submatches of re, or want.
func (s *raceSession) waitText(want string, re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		t := s.output()
		if re != nil {
			if m := re.FindStringSubmatch(t); m != nil {
				return m, nil
			}
		} else if strings.Contains(t, want) {
			return []string{want}, nil
		}
		select {
		case <-s.notify:
		case <-s.ended:
			return nil, fmt.Errorf("%s: the session ended waiting for %q", s.user, want)
		case <-deadline.C:
			return nil, fmt.Errorf("%s: no %q within %s; the screen's last output: %q", s.user, want, timeout, t[max(0, len(t)-300):])
		}
	}
}

// output is the text read since the last mark.
func (s *raceSession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String()
}

// ownName waits until the panel has shown the racer's own line, and
// returns the name on it ("" after timeout): a frame may come in several
// reads (the arcade writes a large one in pieces), so an opponent's line
// can be read before the own one.
func (s *raceSession) ownName(timeout time.Duration) string {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		name := s.name
		s.mu.Unlock()
		if name != "" {
			return name
		}
		select {
		case <-s.notify:
		case <-s.ended:
			return ""
		case <-deadline.C:
			return ""
		}
	}
}

// mark forgets the output so far: the next waitText looks at what comes
// after.
func (s *raceSession) mark() {
	s.mu.Lock()
	s.text.Reset()
	s.mu.Unlock()
}

// typeKeys sends keys to the session.
func (s *raceSession) typeKeys(k string) error {
	if _, err := io.WriteString(s.stdin, k); err != nil {
		return fmt.Errorf("%s: type: %w", s.user, err)
	}
	return nil
}

// toLobby walks a viewer from the menu to the Lobby screen.
func (s *raceSession) toLobby() error {
	if _, err := s.waitText(menuMark, nil, roomLimit); err != nil {
		return err
	}
	for range 40 {
		t := s.output()
		if strings.Contains(t, "> Lobby") {
			s.mark()
			if err := s.typeKeys("\r"); err != nil {
				return err
			}
			_, err := s.waitText(lobbyMark, nil, roomLimit)
			return err
		}
		s.mark()
		if err := s.typeKeys("j"); err != nil {
			return err
		}
		if _, err := s.waitText(">", nil, roomLimit); err != nil {
			return err
		}
	}
	return fmt.Errorf("%s: no Lobby item in the menu", s.user)
}

// room is one race room's racers, the host first.
type room struct {
	code   string
	racers []*raceSession
	err    error
}

// setUp connects room i's racers: the host creates the room, the others
// join by its code and mark ready, the host starts, and each waits for
// its board. sem bounds the sessions connecting at once.
func setUp(cfg loadConfig, rc *raceConfig, run *raceRun, i, size int, sem chan struct{}) *room {
	rm := &room{}
	connect := func(seat int, cmd string) (*raceSession, error) {
		sem <- struct{}{}
		defer func() { <-sem }()
		s, err := dialRace(cfg, run, i+seat, fmt.Sprintf("%s%03dx%d", run.tag, i, seat), cmd)
		if err != nil {
			return nil, err
		}
		if _, err := s.waitText("", roomCodeRE, roomLimit); err != nil {
			_ = s.client.Close()
			return nil, err
		}
		return s, nil
	}
	host, err := connect(0, fmt.Sprintf("race new %s %d --public --max %d", rc.rules, rc.deal, size))
	if err != nil {
		rm.err = err
		return rm
	}
	m, _ := host.waitText("", roomCodeRE, roomLimit)
	rm.code = m[1]
	rm.racers = append(rm.racers, host)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for seat := 1; seat < size; seat++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := connect(seat, "race "+rm.code)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				rm.err = err
				return
			}
			rm.racers = append(rm.racers, s)
		}()
	}
	wg.Wait()
	if len(rm.racers) < 2 {
		if rm.err == nil {
			rm.err = errors.New("fewer than two racers")
		}
		return rm
	}
	want := fmt.Sprintf("%d/%d players", len(rm.racers), size)
	if _, err := host.waitText(want, nil, roomLimit); err != nil {
		rm.err = err
		return rm
	}
	for _, s := range rm.racers {
		s.mark()
	}
	// A start waits for every racer to be ready.
	for _, s := range rm.racers {
		if s == host {
			continue
		}
		if err := s.typeKeys("r"); err != nil {
			rm.err = err
			return rm
		}
	}
	if _, err := host.waitText("everybody is ready: s starts the race", nil, roomLimit); err != nil {
		rm.err = err
		return rm
	}
	if err := host.typeKeys("s"); err != nil {
		rm.err = err
		return rm
	}
	for _, s := range rm.racers {
		if _, err := s.waitText(panelMark, nil, roomLimit); err != nil {
			rm.err = err
			return rm
		}
		name := s.ownName(roomLimit) // the panel's first line may come before the own one
		if name == "" {
			rm.err = fmt.Errorf("%s: no own line in the race panel: %q", s.user, s.text.String())
			return rm
		}
		run.mu.Lock()
		_, dup := run.byName[name]
		run.byName[name] = s
		run.mu.Unlock()
		if dup {
			rm.err = fmt.Errorf("%s: two racers show as %q", s.user, name)
			return rm
		}
	}
	rules, err := engine.ParseRules(rc.rules)
	if err != nil {
		rm.err = fmt.Errorf("rules %q: %w", rc.rules, err)
		return rm
	}
	for _, s := range rm.racers {
		if s.game, err = engine.NewNumbered(rules, rc.deal); err != nil {
			rm.err = fmt.Errorf("deal: %w", err)
			return rm
		}
	}
	return rm
}

// nextMove is the move a racer makes in g: the first removal, else the
// first legal move (a draw or a redeal); false when there is none.
func nextMove(g *engine.Game) (engine.Move, bool) {
	legal := g.Legal()
	for _, m := range legal {
		if m.Kind == engine.RemovePair || m.Kind == engine.RemoveKing {
			return m, true
		}
	}
	if len(legal) == 0 || g.Status() != engine.Playing {
		return engine.Move{}, false
	}
	return legal[0], true
}

// race presses a key every cfg.every from a random phase: a move typed at
// the prompt every rc.moveEvery keys, cursor moves between, the first move
// at a random one of the first rc.moveEvery keys (unless rc.movesInStep:
// every racer's at the same one).
func (s *raceSession) race(ctx context.Context, cfg loadConfig, rc *raceConfig) {
	moveAt := rc.moveEvery - 1
	if rc.moveEvery > 0 && !rc.movesInStep {
		moveAt = mrand.IntN(rc.moveEvery)
	}
	tick, ok := keyTicker(ctx, cfg.every)
	if !ok {
		return
	}
	defer tick.Stop()
	for k := 0; ; k++ {
		s.mu.Lock()
		// A cursor key goes down from the pyramid (to a lower card or the
		// piles) and up from the piles, as the screen shows the cursor: a
		// key that always moves it, so that every key has a redraw to
		// wait for (left or right at an edge draws nothing).
		key, isMove := "j", false
		if s.scr.cursorAtPiles() {
			key = "k"
		}
		if rc.moveEvery > 0 && k%rc.moveEvery == moveAt {
			if m, ok := nextMove(s.game); ok && s.game.Apply(m) == nil {
				key, isMove = ":"+m.String()+"\r", true
			}
		}
		s.pressed(time.Now(), key, isMove)
		s.mu.Unlock()
		if s.typeKeys(key) != nil {
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

// movesPhase says how the racers' moves fall, for the report.
func movesPhase(rc *raceConfig) string {
	if rc.movesInStep {
		return "every racer's on the same key (in step)"
	}
	return "each racer's from a random key (spread)"
}

// perWindow is how many frames each viewer got in each 500 ms window of
// [from, to): the largest count of any viewer's window and the mean over
// all windows of all viewers.
func perWindow(frames [][]time.Time, from, to time.Time) (most int, mean float64) {
	if !to.After(from) || len(frames) == 0 {
		return 0, 0
	}
	n := int((to.Sub(from) + window - 1) / window)
	total := 0
	for _, fs := range frames {
		counts := make([]int, n)
		for _, t := range fs {
			if t.Before(from) || !t.Before(to) {
				continue
			}
			counts[int(t.Sub(from)/window)]++
		}
		for _, c := range counts {
			most = max(most, c)
			total += c
		}
	}
	return most, float64(total) / float64(n*len(frames))
}

// warmUp races one room of two and waits for the server's RSS to settle
// after they left: the first race of a deal makes the arcade work out
// its par (one shortest-line search, tens of MiB for a few seconds),
// which is not a cost of the sessions measured after it.
func warmUp(cfg loadConfig, rc *raceConfig, run *raceRun) {
	rss0 := readRSS(cfg.pid)
	rm := setUp(cfg, rc, run, 999, 2, make(chan struct{}, 2))
	for _, s := range rm.racers {
		_ = s.client.Close()
	}
	if rm.err != nil {
		fmt.Printf("warm-up room: %v\n", rm.err)
		return
	}
	peak, last, still := readRSS(cfg.pid), int64(-1), 0
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for range 40 { // 20 s at most
		<-tick.C
		rss := readRSS(cfg.pid)
		peak = max(peak, rss)
		if last >= 0 && rss <= last && last-rss < 256<<10 {
			if still++; still == 4 {
				break
			}
		} else {
			still = 0
		}
		last = rss
	}
	fmt.Printf("warm-up room of 2 on %s deal %d (its par worked out): server RSS %s before, %s at most, %s settled\n",
		rc.rules, rc.deal, mib(rss0), mib(peak), mib(last))
}

// runTag is three random letters without look-alikes (no i, l, o).
func runTag() string {
	const letters = "abcdefghjkmnpqrstuvwxyz"
	b := make([]byte, 3)
	for i := range b {
		b[i] = letters[mrand.IntN(len(letters))]
	}
	return string(b)
}

// runRace runs the race mode.
func runRace(ctx context.Context, cfg loadConfig, rc *raceConfig) error {
	size := max(2, rc.roomSize)
	if _, err := engine.ParseRules(rc.rules); err != nil {
		return fmt.Errorf("rules %q: %w", rc.rules, err)
	}
	run := &raceRun{byName: map[string]*raceSession{}, tag: runTag(), logLat: rc.latLog != ""}
	if rc.warm {
		warmUp(cfg, rc, run)
	}
	rssStart := readRSS(cfg.pid)
	cpuStart := readCPU(cfg.pid)
	var all []*raceSession
	defer func() {
		for _, s := range all {
			_ = s.client.Close()
		}
	}()

	// The lobby viewers first, on the Lobby screen.
	var viewers []*raceSession
	{
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failed []error
		sem := make(chan struct{}, cfg.dialers)
		for i := range rc.viewers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				s, err := dialRace(cfg, run, i, fmt.Sprintf("%sv%03d", run.tag, i), "")
				if err == nil {
					s.mu.Lock()
					s.countFrames = true
					s.mu.Unlock()
					if err = s.toLobby(); err != nil {
						_ = s.client.Close()
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed = append(failed, err)
					return
				}
				viewers = append(viewers, s)
			}()
		}
		wg.Wait()
		fmt.Printf("lobby viewers on the Lobby screen: %d/%d\n", len(viewers), rc.viewers)
		for i, err := range failed {
			if i == 3 {
				fmt.Println("  ...")
				break
			}
			fmt.Printf("  failure: %v\n", err)
		}
		all = append(all, viewers...)
	}

	// The web page's viewers, before the racers: they see them come.
	var web *webViewers
	if rc.webViewers > 0 {
		start := time.Now()
		web = startWebViewers(ctx, rc.webURL, rc.webViewers, cfg.dialers, nil)
		defer web.close()
		fmt.Printf("web page viewers reading %s: %d/%d in %s\n", rc.webURL, web.open.Load(), rc.webViewers, time.Since(start).Round(time.Millisecond))
	}

	// The rooms, rc.dialers sessions connecting at once.
	joinStart := time.Now()
	nRooms := (rc.racers + size - 1) / size
	rooms := make([]*room, nRooms)
	{
		sem := make(chan struct{}, cfg.dialers)
		var wg sync.WaitGroup
		for i := range rooms {
			n := min(size, rc.racers-i*size)
			wg.Add(1)
			go func() {
				defer wg.Done()
				rooms[i] = setUp(cfg, rc, run, i, n, sem)
			}()
		}
		wg.Wait()
	}
	joinEnd := time.Now()
	var racers []*raceSession
	var failedRooms []error
	for _, rm := range rooms {
		all = append(all, rm.racers...)
		if rm.err != nil {
			failedRooms = append(failedRooms, rm.err)
			continue
		}
		racers = append(racers, rm.racers...)
	}
	fmt.Printf("rooms racing: %d/%d, racers %d/%d, set up in %s\n", nRooms-len(failedRooms), nRooms, len(racers), rc.racers,
		joinEnd.Sub(joinStart).Round(time.Millisecond))
	for i, err := range failedRooms {
		if i == 3 {
			fmt.Println("  ...")
			break
		}
		fmt.Printf("  failed room: %v\n", err)
	}
	if len(racers) == 0 {
		return errors.New("no room raced")
	}
	rssConnected := readRSS(cfg.pid)

	// The race.
	selfRace := readCPU(os.Getpid())
	cpuRace := readCPU(cfg.pid)
	raceStart := time.Now()
	notifyStart := busEvents(ctx, rc.databaseURL)
	if rc.traceFile != "" {
		racers[0].mu.Lock()
		racers[0].trace = &raceTrace{start: raceStart}
		racers[0].trace.add('S', raceStart, []byte(racers[0].scr.text())) // the screen the reads start from
		racers[0].mu.Unlock()
	}
	run.measuring.Store(true)
	mctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.race(mctx, cfg, rc)
		}()
	}
	wg.Wait()
	settle := time.NewTimer(200 * time.Millisecond)
	<-settle.C
	run.measuring.Store(false)
	raceEnd := time.Now()
	if rc.traceFile != "" {
		racers[0].mu.Lock()
		lines := racers[0].trace.lines
		racers[0].mu.Unlock()
		if err := os.WriteFile(rc.traceFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "loadgen: %v\n", err)
		}
	}
	notifyEnd := busEvents(ctx, rc.databaseURL)
	cpuRaceEnd := readCPU(cfg.pid)
	selfRaceEnd := readCPU(os.Getpid())
	rssEnd := readRSS(cfg.pid)
	// Moves sent in the last few hundred milliseconds may still be on
	// their way to the store: give every racer's own panel line up to 3 s
	// to show them before counting the racers it does not.
	caughtUp(racers, 3*time.Second)
	if rc.latLog != "" {
		if err := writeLatLog(rc.latLog, racers); err != nil {
			fmt.Fprintf(os.Stderr, "loadgen: %v\n", err)
		}
	}

	var own, anyLat, moveLat, cursorLat, lateLat, storeLat, firstStore, prog, cross []time.Duration
	var keys, moves, missed, skipped, ended, behind, unanswered, frames int
	var received, ownBytes int64
	for _, s := range racers {
		s.mu.Lock()
		own = append(own, s.ownLat...)
		anyLat = append(anyLat, s.anyLat...)
		moveLat = append(moveLat, s.moveLat...)
		cursorLat = append(cursorLat, s.cursorLat...)
		lateLat = append(lateLat, s.lateLat...)
		storeLat = append(storeLat, s.storeLat...)
		firstStore = append(firstStore, s.firstStore...)
		frames += s.raceFrames
		unanswered += len(s.pend)
		prog = append(prog, s.progLat...)
		cross = append(cross, s.crossLat...)
		keys += s.keys
		moves += s.moves
		missed += s.missed
		skipped += s.skipped
		received += s.bytes
		ownBytes += s.ownBytes
		if s.shown != s.moves {
			behind++ // a move the server did not take, or its last redraw is missing
		}
		s.mu.Unlock()
		select {
		case <-s.ended:
			ended++
		default:
		}
	}

	// The leaves: every racer's connection closes at once.
	leaveStart := time.Now()
	for _, s := range racers {
		_ = s.client.Close()
	}
	quiet := time.NewTimer(quietTime)
	<-quiet.C
	leaveEnd := time.Now()

	fmt.Printf("race: %d racers in %d rooms of %d, %d lobby viewers, %dx%d, a key every %s for %s, a move every %d keys, %s (%s deal %d)\n",
		len(racers), nRooms-len(failedRooms), size, len(viewers), cfg.width, cfg.height, cfg.every, cfg.duration, rc.moveEvery, movesPhase(rc), rc.rules, rc.deal)
	fmt.Printf("keys pressed: %d (%d moves), answered %d, still unanswered at the end %d, sessions ended by the server %d\n",
		keys, moves, len(own), unanswered, ended)
	fmt.Printf("racers whose own panel line does not show the moves they sent: %d\n", behind)
	// The "own keystroke → first byte": a key's redraw is the
	// first read after it that changes the racer's own rows (the header,
	// the board, the status or help line), not the panel or the clock,
	// however late (a key waits for it even after the next is sent).
	p50, p99, worst := percentiles(own)
	fmt.Printf("own keystroke→first byte of its redraw (a read that changes the header, board, status or help rows): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(cursorLat)
	fmt.Printf("  cursor keys (down from the pyramid, up from the piles): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(moveLat)
	fmt.Printf("  moves typed at the prompt (the prompt's echo): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(lateLat)
	fmt.Printf("  keys sent before the previous one was answered: %d; those answered after the next was sent: %d, p50 %s  p99 %s  max %s\n",
		missed, len(lateLat), p50, p99, worst)
	p50, p99, worst = percentiles(anyLat)
	fmt.Printf("  the same keys→first byte of anything (a panel or clock line may come first): p50 %s  p99 %s  max %s\n", p50, p99, worst)
	p50, p99, worst = percentiles(storeLat)
	fmt.Printf("move sent→shown on the racer's own board, once stored (the header's move count): p50 %s  p99 %s  max %s (%d)\n",
		p50, p99, worst, len(storeLat))
	p50, p99, worst = percentiles(firstStore)
	fmt.Printf("  each racer's first move (the first save of its race game): p50 %s  p99 %s  max %s (%d)\n",
		p50, p99, worst, len(firstStore))
	if secs := raceEnd.Sub(raceStart).Seconds(); secs > 0 && len(racers) > 0 {
		fmt.Printf("frames per racer per second: %.2f (%d frames; the bare program draws one per key, 2 a second)\n",
			float64(frames)/float64(len(racers))/secs, frames)
	}
	p50, p99, worst = percentiles(prog)
	fmt.Printf("opponent move→its line changes on another racer's panel: p50 %s  p99 %s  max %s (%d seen, %d move counts coalesced away)\n",
		p50, p99, worst, len(prog), skipped)
	if strings.Contains(cfg.addr, ",") {
		p50, p99, worst = percentiles(cross)
		fmt.Printf("  opponent on another server of the cluster: p50 %s  p99 %s  max %s (%d seen)\n", p50, p99, worst, len(cross))
	}
	if notifyStart >= 0 && notifyEnd >= 0 {
		secs := raceEnd.Sub(raceStart).Seconds()
		fmt.Printf("bus events (one NOTIFY each) during the race: %d, %.1f/s\n", notifyEnd-notifyStart, float64(notifyEnd-notifyStart)/secs)
	}
	if keys > 0 {
		fmt.Printf("bytes per keystroke (everything a racer receives / its keys): %.0f; the read that brought a key's redraw: %.0f on average\n",
			float64(received)/float64(keys), float64(ownBytes)/float64(max(len(own), 1)))
	}
	if cfg.pid > 0 {
		sessions := int64(len(all))
		fmt.Printf("server RSS: %s before, %s with %d sessions in their rooms (%s per session), %s at the end of the race (%s per session)\n",
			mib(rssStart), mib(rssConnected), sessions, kib((rssConnected-rssStart)/max(sessions, 1)),
			mib(rssEnd), kib((rssEnd-rssStart)/max(sessions, 1)))
		if cpuStart >= 0 && cpuRaceEnd >= 0 {
			fmt.Printf("server CPU: %.1f%% of one core during the race, %.1f s for the whole run (connects included)\n",
				100*float64(cpuRaceEnd-cpuRace)/raceEnd.Sub(raceStart).Seconds()/clockTicks, float64(cpuRaceEnd-cpuStart)/clockTicks)
		}
	}
	if selfRace >= 0 && selfRaceEnd >= 0 {
		fmt.Printf("loadgen's own CPU during the race: %.1f%% of one core\n", 100*float64(selfRaceEnd-selfRace)/raceEnd.Sub(raceStart).Seconds()/clockTicks)
	}
	if len(viewers) > 0 {
		frames := make([][]time.Time, len(viewers))
		for i, v := range viewers {
			v.mu.Lock()
			frames[i] = append([]time.Time(nil), v.frames...)
			v.mu.Unlock()
		}
		for _, ph := range []struct {
			what     string
			from, to time.Time
		}{
			{fmt.Sprintf("%d racers join (%s)", len(racers), joinEnd.Sub(joinStart).Round(time.Millisecond)), joinStart, joinEnd},
			{"the race", raceStart, raceEnd},
			{fmt.Sprintf("%d racers leave (and %s)", len(racers), quietTime), leaveStart, leaveEnd},
		} {
			most, mean := perWindow(frames, ph.from, ph.to)
			fmt.Printf("lobby viewers' redraws per 500 ms while %s: at most %d, mean %.2f\n", ph.what, most, mean)
		}
	}
	for _, s := range viewers {
		_ = s.client.Close()
	}
	if web != nil {
		web.report()
	}

	if rc.baselineAddr != "" {
		waitQuiet(cfg.pid, time.Minute)
		fmt.Printf("\nbare baseline at %s, %d sessions, right after:\n", rc.baselineAddr, len(all))
		return runLoad(ctx, loadConfig{
			addr: rc.baselineAddr, sessions: len(all), every: cfg.every, duration: cfg.duration, dialers: cfg.dialers,
			pid: rc.baselinePid, width: cfg.width, height: cfg.height, key: "l", ready: "load test",
		})
	}
	return nil
}

// busEvents is the number of events the cluster's bus has published (the
// sum of its topics' counters: one NOTIFY each), or -1 without a database.
func busEvents(ctx context.Context, databaseURL string) int64 {
	if databaseURL == "" {
		return -1
	}
	db, err := sql.Open("pgx", databaseURL)
	if err != nil {
		return -1
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(seq), 0) FROM bus_topics`).Scan(&n); err != nil {
		fmt.Fprintf(os.Stderr, "loadgen: count bus events: %v\n", err)
		return -1
	}
	return n
}

// caughtUp waits until every racer's own panel line shows the moves it
// sent, or until timeout.
func caughtUp(racers []*raceSession, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for ; time.Now().Before(deadline); <-tick.C {
		behind := false
		for _, s := range racers {
			s.mu.Lock()
			behind = behind || s.shown != s.moves
			s.mu.Unlock()
		}
		if !behind {
			return
		}
	}
}
