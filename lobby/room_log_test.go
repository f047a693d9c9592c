package lobby

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
)

// syncLog is a RoomLog of one process that applies each op at once, in
// the caller's goroutine, and records what the rooms offered and
// followed: the rooms without a bus, for tests of what is the rooms' own
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

// offered is one call of Offer.
type offered struct {
	removed int // the first racer's cards removed
	news    bool
}

// syncRooms makes rooms of instance "a" over a syncLog, on clock.
func syncRooms(t *testing.T, clock Clock) (*Rooms, *syncLog) {
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

func (l *syncLog) Offer(code string, p ServerProgress, news bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := offered{news: news}
	if len(p.Racers) > 0 {
		o.removed = p.Racers[0].Progress.Removed
	}
	l.offers = append(l.offers, o)
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

// TestOfferNewest: progress is offered to the log without the room's
// lock, so two reports of one room may come to it in either order: the
// newest version goes, an older one that comes late is dropped, and late
// news sends the newest again, as news.
func TestOfferNewest(t *testing.T) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(t, clock)
	h, _ := syncRace(t, clock, rs, l)
	r := rs.lookup(h.Code())
	l.mu.Lock()
	l.offers = nil // what the other server's join made this one offer
	l.mu.Unlock()
	offer := func(version uint64, removed int, news bool) {
		rs.offerProgress(r, progressOffer{version: version, news: news, msg: ServerProgress{Inst: "a", Round: 1,
			Racers: []RacerReport{{ID: "id-ann", Progress: Progress{Removed: removed, Moves: removed / 2, Pass: 1}}}}})
	}
	offer(1001, 2, false)
	offer(1003, 6, false)
	offer(1002, 4, true)  // late news: the newest goes, as news
	offer(1001, 2, false) // late and no news: dropped
	l.mu.Lock()
	got := fmt.Sprint(l.offers)
	l.mu.Unlock()
	if want := "[{2 false} {6 false} {6 true}]"; got != want {
		t.Fatalf("offered (cards removed, news): %s, want %s", got, want)
	}
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
