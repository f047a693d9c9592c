package lobby

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
)

// syncLog is a RoomLog of one process that applies each op at once, in
// the caller's goroutine, makes the progress offered at once, and
// records it and what the rooms followed: the rooms without a bus, for tests of what is the rooms' own
// (their locks, their offers). The rooms over a bus are package
// cluster's, tested there on every bus (cluster/roomtest).
type syncLog struct {
	rs    *Rooms
	inst  string
	clock Clock

	apply   sync.Mutex // one op applied at a time, as a log's reader does
	mu      sync.Mutex
	seq     uint64
	once    map[string]bool
	offers  []offered
	follows []string // "code inst"
}

// offered is one call of Offer, and the progress it made.
type offered struct {
	news     bool
	progress ServerProgress
}

// syncRooms makes rooms of instance "a" over a syncLog, on clock.
func syncRooms(t testing.TB, clock Clock) (*Rooms, *syncLog) {
	t.Helper()
	l := &syncLog{inst: "a", clock: clock, once: map[string]bool{}}
	rs, err := NewRooms(RoomsConfig{Instance: "a", Clock: clock, Logf: t.Logf}, l)
	if err != nil {
		t.Fatal(err)
	}
	l.rs = rs
	rs.SetHolder(true)
	return rs, l
}

// log applies op as another server's (op.Inst) or this one's.
func (l *syncLog) log(op RoomOp) error {
	l.apply.Lock()
	defer l.apply.Unlock()
	l.mu.Lock()
	l.seq++
	op.Seq, op.Logged = l.seq, l.clock.Now()
	l.mu.Unlock()
	if op.Inst == "" {
		op.Inst = l.inst
	}
	return l.rs.Apply(op)
}

func (l *syncLog) Do(op RoomOp) error {
	op.Inst = l.inst
	return l.log(op)
}

func (l *syncLog) Post(once string, op RoomOp) {
	l.mu.Lock()
	dup := once != "" && l.once[once]
	if once != "" {
		l.once[once] = true
	}
	l.mu.Unlock()
	if !dup {
		op.Inst = l.inst
		_ = l.log(op)
	}
}

func (l *syncLog) Offer(code string, news bool) {
	p, ok := l.rs.Progress(code)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.offers = append(l.offers, offered{news: news, progress: p})
}

// lastOffer is the progress of ann (the room's first racer of server a)
// last offered.
func (l *syncLog) lastOffer(t *testing.T) (RacerReport, bool) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.offers) == 0 || len(l.offers[len(l.offers)-1].progress.Racers) == 0 {
		t.Fatal("nothing offered")
	}
	o := l.offers[len(l.offers)-1]
	return o.progress.Racers[0], o.news
}

func (l *syncLog) Follow(code, roomID, inst string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.follows = append(l.follows, code+" "+inst)
}

func (l *syncLog) Unfollow(code string) {}

func (l *syncLog) Now() (time.Time, error) { return l.clock.Now(), nil }

// syncRace makes a race of ann, on this server (a), and bob, on server
// b, past the countdown.
func syncRace(t *testing.T, clock *FakeClock, rs *Rooms, l *syncLog) (*Room, *fakeSink) {
	t.Helper()
	ann := newSink()
	h, _, err := rs.Create(Entrant{ID: "id-ann", Name: "ann"}, ann, RoomConfig{Rules: engine.Classic(), Deal: 42})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.log(RoomOp{Kind: OpJoin, Inst: "b", Sid: "b/1", Code: h.Code(), Who: &Entrant{ID: "id-bob", Name: "bob"}}); err != nil {
		t.Fatalf("bob joins from b: %v", err)
	}
	if err := h.SetReady("id-bob", true); err != nil {
		t.Fatal(err)
	}
	if err := h.Start("id-ann"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(CountdownTime)
	if p := h.Snapshot().Phase; p != PhaseRacing {
		t.Fatalf("phase %v after the countdown", p)
	}
	return h, ann
}

// TestProgressBesideTheRoomsLock: a racer's move and the other servers'
// progress concern one room: they wait for its lock only, never for the
// rooms' lock that every op, join and listing takes. With the rooms' lock
// held, as by a long fold, ann's move here and bob's progress from b
// still reach ann's panel and the room's snapshot.
func TestProgressBesideTheRoomsLock(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	h, ann := syncRace(t, clock, rs, l)
	rs.mu.Lock()
	locked := true
	defer func() {
		if locked {
			rs.mu.Unlock()
		}
	}()
	done := make(chan error, 1)
	go func() {
		done <- h.Report("id-ann", ann, Progress{Removed: 2, Moves: 1, Pass: 1, State: RacerPlaying}, nil)
		rs.ApplyProgress(h.Code(), h.Snapshot().RoomID, ServerProgress{Inst: "b", Round: 1,
			Racers: []RacerReport{{ID: "id-bob", Progress: Progress{Removed: 4, Moves: 3, Pass: 1, State: RacerPlaying}}}})
		close(done)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ann reports: %v", err)
		}
		<-done
	case <-time.After(5 * time.Second):
		t.Fatal("a report or another server's progress waits for the rooms' lock")
	}
	ma, _ := ann.racer(h.Code(), "id-ann")
	mb, _ := ann.racer(h.Code(), "id-bob")
	if ma.Removed != 2 || mb.Removed != 4 {
		t.Fatalf("ann's panel: ann %d, bob %d removed, want 2 and 4", ma.Removed, mb.Removed)
	}
	if _, ok := rs.Room(h.Code()); !ok {
		t.Fatal("Room: the room is not found with the rooms' lock held")
	}
	if m, _ := h.Snapshot().Member("id-bob"); m.Removed != 4 {
		t.Fatalf("the snapshot of bob: %+v, want 4 removed", m)
	}
	locked = false
	rs.mu.Unlock()
}

// TestProgressTails: the progress a server offers carries each racer's
// moves since its progress before (at most LineTail): a server that heard
// each one follows the line, through undos too; one that missed more
// than LineTail moves knows it does not know the line.
func TestProgressTails(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	h, ann := syncRace(t, clock, rs, l)
	var heard []string // the line as a server that heard every progress makes it
	known := true
	steps := []struct {
		name      string
		line      []string
		wantTail  int
		wantKnown bool
		news      bool
	}{
		{"a draw", []string{"d"}, 1, true, true}, // the first: news (her stored game)
		{"a pair", []string{"d", "7.1+7.2"}, 1, true, false},
		{"an undo", []string{"d"}, 0, true, false},
		{"another pair", []string{"d", "7.3+7.4"}, 1, true, false},
		{"a pasted line", append([]string{"d", "7.3+7.4"}, repeat("d", 20)...), LineTail, false, false},
	}
	for i, st := range steps {
		p := Progress{Removed: 2 * i, Moves: len(st.line), Pass: 1, State: RacerPlaying, GameID: 7}
		if err := h.Report("id-ann", ann, p, st.line); err != nil {
			t.Fatalf("%s: Report: %v", st.name, err)
		}
		rr, news := l.lastOffer(t)
		if rr.Line == nil || rr.Line.N != len(st.line) || len(rr.Line.Tail) != st.wantTail || news != st.news {
			t.Fatalf("%s: offered %+v (news %v), want %d moves, a tail of %d, news %v", st.name, rr.Line, news, len(st.line), st.wantTail, st.news)
		}
		heard, known = rr.Line.follow(heard)
		if known != st.wantKnown || known && fmt.Sprint(heard) != fmt.Sprint(st.line) {
			t.Fatalf("%s: followed %v (known %v), want %v (known %v)", st.name, heard, known, st.line, st.wantKnown)
		}
	}
}

func repeat(move string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = move
	}
	return out
}

// TestFollowsTheOtherServers: the rooms read the progress of every other
// server with a member in a room, once each, and not their own.
func TestFollowsTheOtherServers(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	h, _ := syncRace(t, clock, rs, l)
	if err := l.log(RoomOp{Kind: OpWatch, Inst: "c", Sid: "c/1", Code: h.Code(), Target: "viewer"}); err != nil {
		t.Fatal(err)
	}
	// Bob comes back on server b with another session: b is followed already.
	if err := l.log(RoomOp{Kind: OpJoin, Inst: "b", Sid: "b/2", Code: h.Code(), Who: &Entrant{ID: "id-bob", Name: "bob"}}); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	got := fmt.Sprint(l.follows)
	l.mu.Unlock()
	if want := "[" + h.Code() + " b]"; got != want {
		t.Fatalf("followed: %s, want %s", got, want)
	}
}

// TestStoringARaceBesideTheLog: the holder stores a race that ended
// (OnRaceEnd) off the goroutine that applies the log's ops: while the
// store takes its time, the next ops are applied.
func TestStoringARaceBesideTheLog(t *testing.T) {
	clock := NewFakeClock(t0)
	l := &syncLog{inst: "a", clock: clock, once: map[string]bool{}}
	storing, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rs, err := NewRooms(RoomsConfig{Instance: "a", Clock: clock, Logf: t.Logf, OnRaceEnd: func(RaceResult) ([]RatingChange, error) {
		once.Do(func() { close(storing) })
		<-release
		return nil, nil
	}}, l)
	if err != nil {
		t.Fatal(err)
	}
	l.rs = rs
	rs.SetHolder(true)
	defer close(release)
	h, _ := syncRace(t, clock, rs, l)
	ended := make(chan error, 1)
	go func() {
		ended <- l.log(RoomOp{Kind: OpEnd, Code: h.Code(), Round: 1, At: clock.Now(), Results: []Placing{{ID: "id-ann", Place: 1}, {ID: "id-bob", Place: 2}}})
	}()
	<-storing
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the end: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the end's op waited for the race to be stored")
	}
	if p := h.Snapshot().Phase; p != PhaseResults {
		t.Fatalf("phase %v after the end", p)
	}
	applied := make(chan error, 1)
	go func() { applied <- l.log(RoomOp{Kind: OpHello, Inst: "b"}) }()
	select {
	case err := <-applied:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an op waited for the race to be stored")
	}
}
