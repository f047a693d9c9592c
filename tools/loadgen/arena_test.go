package main

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// screenOf is a 100×34 screen showing the text of a testdata file (an
// arena race's screen, as tmux captured it).
func screenOf(t *testing.T, path string) *screen {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := newScreen(100, 34)
	sc.write([]byte(strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", "\r\n")))
	return sc
}

// TestReadBoard reads an arena race's board at its start (the cursor on
// 7.1) and after 7.1+7.2 and a draw: the free cards, the waste, the
// stock, the pass, and the move a player makes.
func TestReadBoard(t *testing.T) {
	start := screenOf(t, "testdata/arena_board_start.txt")
	b, cards := readBoard(start)
	var g boardGeom
	if !g.learn(cards) {
		t.Fatalf("no geometry from %d cards", len(cards))
	}
	if want := (boardGeom{rows: []int{6, 8, 10, 12, 14, 16, 18}, apex: 46}); !reflect.DeepEqual(g, want) {
		t.Errorf("geometry %+v, want %+v", g, want)
	}
	var free []string
	for _, c := range b.free {
		free = append(free, g.slot(c)+"="+strconv.Itoa(c.rank))
	}
	if want := "7.1=6 7.2=7 7.3=8 7.4=8 7.5=9 7.6=8 7.7=10"; strings.Join(free, " ") != want {
		t.Errorf("free cards %q, want %q", strings.Join(free, " "), want)
	}
	if b.all != 28 || b.waste != 0 || b.stock != 24 || b.pass != 1 || b.max != 3 {
		t.Errorf("board %+v: want 28 cards, no waste, 24 in the stock, pass 1/3", b)
	}
	if m, ok := pickMove(b, &g); !ok || m != "7.1+7.2" {
		t.Errorf("move %q, %v; want 7.1+7.2", m, ok)
	}

	played := screenOf(t, "testdata/arena_board_played.txt")
	b, _ = readBoard(played)
	free = free[:0]
	for _, c := range b.free {
		free = append(free, g.slot(c)+"="+strconv.Itoa(c.rank))
	}
	if want := "6.1=10 7.3=8 7.4=8 7.5=9 7.6=8 7.7=10"; strings.Join(free, " ") != want {
		t.Errorf("free cards %q, want %q", strings.Join(free, " "), want)
	}
	if b.all != 26 || b.waste != 5 || b.stock != 23 {
		t.Errorf("board %+v: want 26 cards, the waste's 5, 23 in the stock", b)
	}
	if m, ok := pickMove(b, &g); !ok || m != "7.3+w" {
		t.Errorf("move %q, %v; want 7.3+w", m, ok)
	}
}

func TestPickMove(t *testing.T) {
	g := boardGeom{rows: []int{6, 8, 10, 12, 14, 16, 18}, apex: 46}
	card := func(r, c, rank int) boardCard {
		return boardCard{row: g.rows[r-1], col: g.apex - (r-1)*4 + (c-1)*8, rank: rank}
	}
	tests := []struct {
		name string
		b    boardState
		want string
	}{
		{"a king first", boardState{free: []boardCard{card(7, 1, 6), card(7, 2, 7), card(7, 3, 13)}, stock: 5}, "7.3"},
		{"the waste's king", boardState{free: []boardCard{card(7, 1, 6)}, waste: 13, stock: 5}, "w"},
		{"a pair", boardState{free: []boardCard{card(6, 1, 4), card(7, 5, 9)}, waste: 9, stock: 5}, "6.1+7.5"},
		{"with the waste", boardState{free: []boardCard{card(6, 1, 4)}, waste: 9, stock: 5}, "6.1+w"},
		{"a draw", boardState{free: []boardCard{card(6, 1, 4)}, waste: 8, stock: 5}, "d"},
		{"a redeal", boardState{free: []boardCard{card(6, 1, 4)}, pass: 1, max: 3}, "r"},
		{"nothing", boardState{free: []boardCard{card(6, 1, 4)}, pass: 3, max: 3}, ""},
		{"off the geometry: a draw", boardState{free: []boardCard{{row: 7, col: 3, rank: 13}}, stock: 1}, "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := pickMove(tt.b, &g); got != tt.want || ok != (tt.want != "") {
				t.Errorf("got %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestRoomOf(t *testing.T) {
	tests := []struct{ line, want string }{
		{" Load · 0 points · room XWRVCM · Classic · starting", "XWRVCM"},
		{" room XNKCHG · Classic · 0:55 left", "XNKCHG"},
		{" room XNKCHG · Classic · deal 12 · results", "XNKCHG"},
		{"  Top game: ann, bob (room XNKCHG): w watches it", ""},
		{"  playing in room XNKCHG (enter: back to your race)", ""},
		{" room abcdef · Classic", ""},
		{" room ABC", ""},
	}
	for _, tt := range tests {
		if got := roomOf(tt.line); got != tt.want {
			t.Errorf("roomOf(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestArenaWaits(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	s := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Second))) }
	ev := func(kind byte, at float64) arenaEvent { return arenaEvent{kind: kind, at: s(at)} }
	tests := []struct {
		name     string
		events   []arenaEvent
		from, to float64
		want     []time.Duration
		open     int
	}{
		{"none", nil, 0, 100, nil, 0},
		{"the first pairing is no wait", []arenaEvent{ev('p', 5)}, 0, 100, nil, 0},
		{"two games", []arenaEvent{ev('p', 5), ev('r', 70), ev('p', 73.5), ev('r', 140), ev('p', 142)}, 0, 200,
			[]time.Duration{3500 * time.Millisecond, 2 * time.Second}, 0},
		{"results seen twice count from the first", []arenaEvent{ev('p', 5), ev('r', 70), ev('r', 71), ev('p', 74)}, 0, 100,
			[]time.Duration{4 * time.Second}, 0},
		{"results before the window", []arenaEvent{ev('r', 9), ev('p', 12), ev('r', 50), ev('p', 52)}, 10, 100,
			[]time.Duration{2 * time.Second}, 0},
		{"a pairing after the window still closes a wait", []arenaEvent{ev('r', 99), ev('p', 103)}, 0, 100,
			[]time.Duration{4 * time.Second}, 0},
		{"a wait still open", []arenaEvent{ev('p', 5), ev('r', 70)}, 0, 100, nil, 1},
		{"from the player's own game over, not the race's results", []arenaEvent{ev('p', 5), ev('o', 40), ev('r', 70), ev('p', 72)}, 0, 100,
			[]time.Duration{32 * time.Second}, 0},
		{"paired before the race's results", []arenaEvent{ev('p', 5), ev('o', 40), ev('p', 43)}, 0, 100,
			[]time.Duration{3 * time.Second}, 0},
		{"an open wait after the window", []arenaEvent{ev('p', 5), ev('r', 170)}, 0, 100, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, open := arenaWaits(tt.events, s(tt.from), s(tt.to))
			if !reflect.DeepEqual(got, tt.want) || open != tt.open {
				t.Errorf("got %v, %d open; want %v, %d open", got, open, tt.want, tt.open)
			}
		})
	}
}

func TestShareUnder(t *testing.T) {
	ds := []time.Duration{time.Second, 4 * time.Second, 5 * time.Second, 9 * time.Second}
	if got := shareUnder(ds, 5*time.Second); got != 50 {
		t.Errorf("got %.1f%%, want 50%%", got)
	}
	if got := shareUnder(nil, time.Second); got != 0 {
		t.Errorf("none: got %.1f%%, want 0", got)
	}
}

// TestArenaPhases plays an arena player's reads: a new room's waiting
// page (a pairing), its board (the race), the results, a new room: the
// phases and the events, and a race's state reset at the new room.
func TestArenaPhases(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	run := &raceRun{byName: map[string]*raceSession{}}
	s := &raceSession{run: run, scr: newScreen(100, 34), notify: make(chan struct{}, 1), seen: map[string]int{},
		arena: &arenaTrack{names: map[string]bool{}}}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	frame := func(lines ...string) []byte {
		return []byte("\x1b[H\x1b[2J" + strings.Join(lines, "\r\n"))
	}
	s.chunk(at(0), frame(" Load · arena", "  free: pairing…"), nil)
	if s.arena.phase != arenaAway || len(s.arena.events) != 0 {
		t.Fatalf("the arena screen: phase %d, events %v", s.arena.phase, s.arena.events)
	}
	s.chunk(at(100), frame(" Load · 0 points · room ABCDEF · Classic · starting", "", "   The race starts in 5…"), nil)
	if s.arena.phase != arenaWaiting || s.room != "ABCDEF" {
		t.Fatalf("the waiting page: phase %d, room %q", s.arena.phase, s.room)
	}
	board := testBoard(t, "ABCDEF")
	s.chunk(at(5100), board, nil)
	if s.arena.phase != arenaRacing {
		t.Fatalf("the board: phase %d", s.arena.phase)
	}
	s.mu.Lock()
	s.pressed(at(5200), ":7.1+7.2\r", true)
	s.mu.Unlock()
	// The results answer the move's key (their rows are the racer's own).
	s.chunk(at(65000), frame(" Load · 2 points · room ABCDEF · Classic · deal 7 · results", "  Next game soon: back to the arena in a few seconds (enter: now)."), nil)
	if s.arena.phase != arenaResults || !reflect.DeepEqual(s.arena.sizes, []int{2}) {
		t.Fatalf("the results: phase %d, sizes %v", s.arena.phase, s.arena.sizes)
	}
	s.chunk(at(66000), frame(" Load · arena", "  Top game: ann, bob (room GHIJKL): w watches it"), nil)
	s.chunk(at(68500), frame(" Load · 2 points · room MNOPQR · Classic · starting"), nil)
	if s.room != "MNOPQR" || s.moves != 0 || len(s.sent) != 0 || len(s.pend) != 0 || s.arena.dropped != 0 {
		t.Fatalf("the next room: room %q, moves %d, sent %v, pending %v, dropped %d", s.room, s.moves, s.sent, s.pend, s.arena.dropped)
	}
	want := []arenaEvent{{'p', at(100)}, {'r', at(65000)}, {'p', at(68500)}}
	if !reflect.DeepEqual(s.arena.events, want) {
		t.Fatalf("events %v, want %v", s.arena.events, want)
	}
	waits, open := arenaWaits(s.arena.events, t0, at(70000))
	if !reflect.DeepEqual(waits, []time.Duration{3500 * time.Millisecond}) || open != 0 {
		t.Errorf("waits %v, %d open", waits, open)
	}
}

// testBoard is the start board of testdata/arena_board_start.txt in room
// code, drawn whole.
func testBoard(t *testing.T, code string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/arena_board_start.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "XWRVCM", code)
	return []byte("\x1b[H\x1b[2J" + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\r\n"))
}
