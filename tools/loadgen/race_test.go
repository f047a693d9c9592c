package main

import (
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
)

func TestParseRacerLines(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []racerLine
	}{
		{"none", " room YGRT · Classic · starting\r\n   The race starts in 3…\r\n", nil},
		{"two columns", " room YGRT · Classic · 10:00 left\r\n" +
			" player-95…  0/28   0 mv p1 playing      >player-31…  3/28  12 mv p2 playing    \r\n" +
			" r001x2      28/28 140 mv p3 cleared      r001x3      0/28   0 mv p1 left    \r\n",
			[]racerLine{
				{name: "player-95…"}, {you: true, name: "player-31…", removed: 3, moves: 12},
				{name: "r001x2", removed: 28, moves: 140}, {name: "r001x3"},
			}},
		{"host in the waiting room, a double deal", "*ann         2/45   5 mv p1 playing", []racerLine{{name: "ann", removed: 2, moves: 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseRacerLines(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseRacerLines: got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestParseRacerLinesAsRegexp: the hand-written reader finds what the
// regular expression it replaced finds, in panels made up at random
// (names with marks and digits in them, lines cut short, noise).
func TestParseRacerLinesAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`([ >*])([^\s>*]\S*) +(\d+)/(\d+) +(\d+) mv p\d+`)
	byRegexp := func(text string) []racerLine {
		var out []racerLine
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			removed, _ := strconv.Atoi(m[3])
			moves, _ := strconv.Atoi(m[5])
			out = append(out, racerLine{you: m[1] == ">", name: m[2], removed: removed, moves: moves})
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	for i := range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(5) {
			b.WriteString(pick(" ", ">", "*", "", "\r\n ", "  ", "x"))
			b.WriteString(pick("ann", "r001x2", "player-95…", ">x", "*", "a>b", "7", "", "ab*"))
			b.WriteString(pick(" ", "   ", "", "\t"))
			b.WriteString(pick("0", "12", "", "x"))
			b.WriteString(pick("/", "", " /"))
			b.WriteString(pick("28", "45", "", "1"))
			b.WriteString(pick(" ", "  ", ""))
			b.WriteString(pick("0", "140", "", "5"))
			b.WriteString(pick(" mv p", " mv p1", " mv p3 playing", " mv", " mv px"))
			b.WriteString(pick("", " left    ", "\r\n", "  "))
		}
		text := b.String()
		if got, want := parseRacerLines(text), byRegexp(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d, %q: got %+v, the regular expression %+v", i, text, got, want)
		}
	}
}

func TestPerWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms ...int) []time.Time {
		var ts []time.Time
		for _, m := range ms {
			ts = append(ts, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return ts
	}
	tests := []struct {
		name     string
		frames   [][]time.Time
		to       time.Duration
		wantMost int
		wantMean float64
	}{
		{"no viewer", nil, time.Second, 0, 0},
		{"empty phase", [][]time.Time{at(10)}, 0, 0, 0},
		{"one a window", [][]time.Time{at(10, 600), at(499, 999)}, time.Second, 1, 1},
		{"a burst", [][]time.Time{at(10, 20, 30), nil}, time.Second, 3, 0.75},
		{"outside the phase", [][]time.Time{at(-1, 1000, 1500)}, time.Second, 0, 0},
		{"a partial last window", [][]time.Time{at(1100)}, 1200 * time.Millisecond, 1, 1.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			most, mean := perWindow(tt.frames, t0, t0.Add(tt.to))
			if most != tt.wantMost || mean != tt.wantMean {
				t.Errorf("perWindow: got %d, %.3f; want %d, %.3f", most, mean, tt.wantMost, tt.wantMean)
			}
		})
	}
}

// traceStep is one line of a -race-trace file: a key (K), a read (R) or
// the screen the reads start from (S), at µs since the race started.
type traceStep struct {
	kind byte
	at   time.Duration
	text string
}

// readTrace reads a -race-trace file.
func readTrace(t *testing.T, path string) []traceStep {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []traceStep
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		us, quoted, _ := strings.Cut(rest, " ")
		n, err := strconv.ParseInt(us, 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		text, err := strconv.Unquote(quoted)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		steps = append(steps, traceStep{kind: kind[0], at: time.Duration(n) * time.Microsecond, text: text})
	}
	return steps
}

// replay plays steps to a racer of a 100×34 screen, as its reading and
// key-pressing goroutines would, and returns it.
func replay(steps []traceStep) *raceSession {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	run := &raceRun{byName: map[string]*raceSession{}}
	run.measuring.Store(true)
	s := &raceSession{run: run, scr: newScreen(100, 34), notify: make(chan struct{}, 1), seen: map[string]int{}}
	for _, st := range steps {
		now := t0.Add(st.at)
		switch st.kind {
		case 'S':
			s.scr.write([]byte(strings.ReplaceAll(st.text, "\n", "\r\n")))
			s.scr.takeWritten(nil)
		case 'K':
			s.mu.Lock()
			s.pressed(now, st.text, strings.HasPrefix(st.text, ":"))
			s.mu.Unlock()
		case 'R':
			s.chunk(now, []byte(st.text), nil)
		}
	}
	return s
}

// TestOwnRedraw checks what the race mode takes as a key's redraw on the
// reads of a real racer (testdata/race_trace.txt, from -race-trace at 16
// racers): the first read after the key that changes the racer's own rows
// (the board, the header, the prompt and help lines), never a read of the
// panel or the clock only; a move typed at the prompt is answered by the
// prompt's echo, and shown as stored when the header counts it.
func TestOwnRedraw(t *testing.T) {
	s := replay(readTrace(t, "testdata/race_trace.txt"))
	us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
	wantOwn := []time.Duration{
		us(288101 - 287339), us(788684 - 788095), us(1288860 - 1288463), // j, k, j: the cursor's cells
		us(1788246 - 1787898), // the move's prompt echo, not the panel read before it
		us(2287888 - 2287414), us(2803033 - 2795058), us(3301863 - 3288376),
	}
	if !reflect.DeepEqual(s.ownLat, wantOwn) {
		t.Errorf("own latencies %v, want %v", s.ownLat, wantOwn)
	}
	if want := []time.Duration{us(1788246 - 1787898)}; !reflect.DeepEqual(s.moveLat, want) {
		t.Errorf("move latencies %v, want %v", s.moveLat, want)
	}
	if want := []time.Duration{us(1792996 - 1787898)}; !reflect.DeepEqual(s.storeLat, want) {
		t.Errorf("stored latencies %v, want %v (the header's \"1 move\")", s.storeLat, want)
	}
	if len(s.pend) != 1 || !s.pend[0].move {
		t.Errorf("pending %+v, want the last move (the trace ends before its echo)", s.pend)
	}
}

// TestOwnRedrawSlow: a redraw that comes after the next key was sent is
// still its key's (a slow server shows as slow), and panel and clock
// reads meanwhile answer nothing.
func TestOwnRedrawSlow(t *testing.T) {
	steps := readTrace(t, "testdata/race_trace.txt")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	clock, panel, board := steps[5], steps[8], steps[4] // 9:59 left; 2/28 of an opponent; the k's cursor
	slow := []traceStep{steps[0],
		{kind: 'K', at: 0, text: "k"},
		{kind: 'R', at: ms(200), text: clock.text},
		{kind: 'R', at: ms(400), text: panel.text},
		{kind: 'K', at: ms(500), text: "j"},
		{kind: 'R', at: ms(700), text: board.text},
	}
	s := replay(slow)
	if want := []time.Duration{ms(700), ms(200)}; !reflect.DeepEqual(s.ownLat, want) {
		t.Errorf("own latencies %v, want %v", s.ownLat, want)
	}
	if want := []time.Duration{ms(700)}; !reflect.DeepEqual(s.lateLat, want) || s.missed != 1 {
		t.Errorf("late %v (missed %d), want %v and 1", s.lateLat, s.missed, want)
	}
}

func TestRowKinds(t *testing.T) {
	tests := []struct {
		line  string
		kind  rowKind
		moves int
	}{
		{" room DPKF · Classic · deal 2        pass 1/3 · 2/28 removed · 1 move   ", rowOwn, 1},
		{" room DPKF · Classic · deal 2        pass 1/3 · 2/28 removed · 12 moves ", rowOwn, 12},
		{" room DPKF · Classic · 9:58 left     ", rowClock, -1},
		{" room DPKF · Classic · (time up)     ", rowClock, -1},
		{">dcv000x0    0/28   0 mv p1 playing       dcv000x4    0/28   0 mv p1 playing", rowPanel, -1},
		{"                      >7♥   < │9♣   │ │A♣   │", rowOwn, -1},
		{" go!", rowOwn, -1},
	}
	for _, tt := range tests {
		if k, n := kindOf(tt.line), movesShown(tt.line); k != tt.kind || n != tt.moves {
			t.Errorf("%q: kind %d, moves %d; want %d, %d", tt.line, k, n, tt.kind, tt.moves)
		}
	}
}

func TestCursorAtPiles(t *testing.T) {
	steps := readTrace(t, "testdata/race_trace.txt")
	s := replay(steps[:1])
	if s.scr.cursorAtPiles() {
		t.Error("at the start the cursor is on 7♥ of the pyramid, not at the piles")
	}
	s = replay(steps[:3]) // j: down to the stock
	if !s.scr.cursorAtPiles() {
		t.Errorf("after j the cursor is on the stock:\n%s", s.scr.text())
	}
}

func TestNextMove(t *testing.T) {
	g, err := engine.NewNumbered(engine.Classic(), 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		m, ok := nextMove(g)
		if !ok {
			break
		}
		if len(g.Legal()) > 0 && m.Kind == engine.Draw {
			for _, l := range g.Legal() {
				if l.Kind == engine.RemovePair || l.Kind == engine.RemoveKing {
					t.Fatalf("move %d: a draw while %s removes cards", i, l)
				}
			}
		}
		if err := g.Apply(m); err != nil {
			t.Fatalf("move %d %s: %v", i, m, err)
		}
	}
	if g.Status() == engine.Playing {
		t.Errorf("after 200 moves the game still plays: %d removed", g.Removed())
	}
}

// TestOpponentLatency feeds a racer's screen the panel lines of an
// opponent and checks the latency measured from the opponent's moves.
func TestOpponentLatency(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	run := &raceRun{byName: map[string]*raceSession{}}
	run.measuring.Store(true)
	me := &raceSession{run: run, seen: map[string]int{}, notify: make(chan struct{}, 1), scr: newScreen(100, 34)}
	ann := &raceSession{run: run, seen: map[string]int{}, sent: []time.Time{t0, t0.Add(time.Second), t0.Add(2 * time.Second)}}
	run.byName["ann"] = ann
	line := func(moves int) []byte {
		return []byte("\x1b[H\r\n\x1b[1m>me           0/28   0 mv p1 playing\x1b[m  ann          1/28  " +
			strconv.Itoa(moves) + " mv p1 playing\r\n")
	}
	me.chunk(t0.Add(30*time.Millisecond), line(1), nil)
	me.chunk(t0.Add(40*time.Millisecond), line(1), nil)                              // the same line again: no new sample
	me.chunk(t0.Add(2*time.Second+50*time.Millisecond), line(3), nil)                // move 2 coalesced away
	me.chunk(t0.Add(3*time.Second), []byte("\x1b[H\r\n room ABCD · 9:58 left"), nil) // no panel
	want := []time.Duration{30 * time.Millisecond, 50 * time.Millisecond}
	if !reflect.DeepEqual(me.progLat, want) || me.skipped != 1 || me.name != "me" || me.raceFrames != 4 {
		t.Errorf("got latencies %v, %d skipped, name %q, %d frames; want %v, 1 skipped, me, 4 frames",
			me.progLat, me.skipped, me.name, me.raceFrames, want)
	}
}

// BenchmarkParseRacerLines reads a panel of eight racers, two a line, as
// a racer's read brings it.
func BenchmarkParseRacerLines(b *testing.B) {
	text := " room YGRT · Classic · 9:41 left\r\n" + strings.Repeat(
		" player-95…  0/28   0 mv p1 playing      >player-31…  3/28  12 mv p2 playing    \r\n", 4)
	b.ReportAllocs()
	for b.Loop() {
		if len(parseRacerLines(text)) != 8 {
			b.Fatal("want 8 racers")
		}
	}
}

// TestStripFrame: a renderer that moves the cursor from one changed line
// to the next leaves them apart, and the panel's lines read as before.
func TestStripFrame(t *testing.T) {
	raw := "\x1b[H\x1b[K\x1b[1m room NGDW · Classic · 10:00 left\x1b[m\x1b[31H\x1b[K\x1b[1m>pxb999x0    0/28   0 mv p1 playing\x1b[m" +
		"  pxb999x1    3/28   4 mv p1 playing\r\n\x1b[K ann         1/28   2 mv p2 playing\x1b[;H"
	got := stripFrame([]byte(raw))
	want := "\n room NGDW · Classic · 10:00 left\n>pxb999x0    0/28   0 mv p1 playing  pxb999x1    3/28   4 mv p1 playing\r\n ann         1/28   2 mv p2 playing\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	lines := parseRacerLines(got)
	if len(lines) != 3 || !lines[0].you || lines[0].name != "pxb999x0" || lines[1].moves != 4 || lines[2].name != "ann" {
		t.Fatalf("racer lines: %+v", lines)
	}
}

// TestScreen: the copy of the screen follows a frame drawn whole, then a
// change of one digit written where it goes, and gives the panel rows
// written since it was last asked.
func TestScreen(t *testing.T) {
	s := newScreen(40, 4)
	s.write([]byte("\x1b[?1049h\x1b[H\x1b[2J\x1b[1m room KMTX\x1b[m\r\n\x1b[K>ann       0/28   3 mv p1 playing\r\n\x1b[K bob       2/28   5 mv p1 play"))
	s.write([]byte("ing\x1b[4;3Hx"))
	rows := s.takeDirty(nil, panelMark)
	if len(rows) != 2 || !strings.HasPrefix(rows[0], ">ann       0/28   3 mv p1 playing") || !strings.HasPrefix(rows[1], " bob       2/28   5 mv p1 playing") {
		t.Fatalf("the panel rows: %q", rows)
	}
	if rows := s.takeDirty(nil, panelMark); rows != nil {
		t.Fatalf("rows again: %q", rows)
	}
	// bob's sixth move: the renderer writes the digit alone, cut in two
	// reads mid-sequence.
	s.write([]byte("\x1b[3;1"))
	s.write([]byte("9H\x1b[1m6\x1b[m"))
	rows = s.takeDirty(nil, panelMark)
	if len(rows) != 1 {
		t.Fatalf("rows after the digit: %q", rows)
	}
	if l := parseRacerLines(rows[0]); len(l) != 1 || l[0].name != "bob" || l[0].moves != 6 || l[0].removed != 2 {
		t.Fatalf("bob's line: %+v from %q", l, rows[0])
	}
	if got := strings.Split(s.text(), "\n")[3]; got != "  x"+strings.Repeat(" ", 37) {
		t.Fatalf("the last row: %q", got)
	}
	// Erasing below the cursor and a wide line that wraps.
	s.write([]byte("\x1b[2;1H\x1b[J"))
	if got := s.text(); strings.Contains(got, "ann") || strings.Contains(got, "bob") || !strings.Contains(got, "room KMTX") {
		t.Fatalf("after erasing below row 2:\n%s", got)
	}
}
