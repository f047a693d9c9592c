package arcade

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/lobby"
	"pyramid/race"
	"pyramid/rating"
	"pyramid/store"
	"pyramid/tui"
)

// racer is one session in a room, as the arcade binds it.
func (f *fixture) racer(t *testing.T, name string, guest bool) (*races, *lobby.Session) {
	t.Helper()
	p := tui.Player{Name: name, Guest: guest}
	var w *games.Writer
	sess := f.app.lobby.Join(lobby.Player{Name: name, Guest: guest})
	if !guest {
		sp, _, err := f.st.GetOrCreatePlayer(context.Background(), "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		p.ID = sp.ID
		w = f.app.newWriter(sess)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return f.app.newRaces(ctx, p, sess, w), sess
}

// TestNewRoomAfterLeaving: a session that opens a room while its leave
// of the room it hosted has not reached the room (the menu's race new
// right after q) gets the new room; the old one closes.
func TestNewRoomAfterLeaving(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	seat, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatal(err)
	}
	old := seat.Snapshot.Code
	ann.hold(old, false) // the tui left the room's screen; its Leave is still on its way
	next, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatalf("a new room right after leaving: %v", err)
	}
	if next.Snapshot.Code == old || next.Snapshot.Host != ann.me.ID {
		t.Fatalf("new room %+v", next.Snapshot)
	}
	if _, ok := f.app.rooms.Room(old); ok {
		t.Errorf("room %s is still open", old)
	}
	// The late leave finds the room gone and changes nothing.
	_ = ann.Leave(old)
	if r, ok := f.app.rooms.Hosted(ann.me.ID); !ok || r.Code() != next.Snapshot.Code {
		t.Errorf("ann hosts %v, want %s", r, next.Snapshot.Code)
	}
}

// waitPhase polls a room until it reaches a phase.
func waitPhase(t *testing.T, r *lobby.Room, want lobby.Phase) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Snapshot().Phase != want {
		if time.Now().After(deadline) {
			t.Fatalf("room %s: phase %v, want %v", r.Code(), r.Snapshot().Phase, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startRace has host open a room with opts, the others join it, and the
// host start it; it returns the room's code once the race is on.
func startRace(t *testing.T, f *fixture, opts tui.RoomOptions, host *races, others ...*races) (string, *lobby.Room) {
	t.Helper()
	ctx := context.Background()
	seat, err := host.Create(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	for _, rs := range others {
		if _, err := rs.Join(ctx, code); err != nil {
			t.Fatal(err)
		}
	}
	room, _ := f.app.rooms.Room(code)
	readyAll(t, code, others...)
	if err := host.Start(code); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, room, lobby.PhaseRacing)
	return code, room
}

// readyAll marks the racers ready in the room: a host's start waits for
// them.
func readyAll(t *testing.T, code string, racers ...*races) {
	t.Helper()
	for _, rs := range racers {
		if err := rs.Ready(code, true); err != nil {
			t.Fatalf("%s ready: %v", rs.me.Name, err)
		}
	}
}

// TestRaceStored: a race with a guest stores the placings of the players
// with a key only and their race games as stored games. Its deal is the
// host's choice, so it is unrated (TestChosenDealUnrated rates a random
// deal's race).
func TestRaceStored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	gus, _ := f.racer(t, "gus", true)
	seat, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	if seat.You != ann.me.ID || seat.Snapshot.Host != ann.me.ID {
		t.Fatalf("the host's seat: %+v", seat)
	}
	// Another session of ann's cannot open a second room while she is
	// in this one.
	annToo, _ := f.racer(t, "ann", false)
	if _, err := annToo.Create(ctx, tui.RoomOptions{Rules: engine.Classic()}); !errors.Is(err, lobby.ErrAlreadyHosting) {
		t.Errorf("a second room: got %v, want ErrAlreadyHosting", err)
	}
	for _, rs := range []*races{bob, gus} {
		if _, err := rs.Join(ctx, code); err != nil {
			t.Fatal(err)
		}
	}
	room, _ := f.app.rooms.Room(code)
	readyAll(t, code, bob, gus)
	if err := ann.Start(code); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, room, lobby.PhaseRacing)

	// ann wins; bob plays a draw and leaves; the guest plays to the end.
	for i := range rec.Moves {
		r := rec
		r.Moves = rec.Moves[:i+1]
		if note, err := ann.Play(ctx, code, 1, i+1, r); err != nil || note != "" && note != race.FastNote { // moves at a machine's pace are faster than play
			t.Fatalf("ann's move %d: note %q, err %v", i+1, note, err)
		}
	}
	if _, err := bob.Play(ctx, code, 1, 1, engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: []string{"d"}}); err != nil {
		t.Fatal(err)
	}
	// bob's race game was made at the countdown (the rooms' hook, not
	// his first move): the move is its first save (version 2).
	if bobGames, err := f.st.ListGames(ctx, bob.me.ID, store.Page{Limit: 1}); err != nil || len(bobGames) != 1 ||
		bobGames[0].Version != 2 || !slices.Equal(bobGames[0].Moves, []string{"d"}) || len(bobGames[0].MoveTimes) != 1 {
		t.Errorf("bob's race game after his first move: %+v, %v; want the draw, its time, version 2", bobGames, err)
	}
	// A report of an earlier change that comes late is ignored.
	if _, err := bob.Play(ctx, code, 1, 0, engine.Record{Rules: rec.Rules, Deal: rec.Deal}); err != nil {
		t.Fatal(err)
	}
	if _, err := gus.Play(ctx, code, 1, 1, engine.Record{Rules: rec.Rules, Deal: 1 + rec.Deal, Moves: []string{"d"}}); !errors.Is(err, race.ErrNotTheDeal) {
		t.Errorf("another deal's game: got %v, want race.ErrNotTheDeal", err)
	}
	// bob comes back in another session: his game, and the reports go
	// on from the last one taken.
	bob2, _ := f.racer(t, "bob", false)
	back, err := bob2.Join(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if back.Resume == nil || len(back.Resume.Moves) != 1 || back.Seq != 1 {
		t.Fatalf("bob's comeback: resume %+v, seq %d; want his draw and seq 1", back.Resume, back.Seq)
	}
	if err := bob2.Leave(code); err != nil {
		t.Fatal(err)
	}
	if err := gus.Leave(code); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, room, lobby.PhaseResults)

	var recs []store.RaceRecord
	deadline := time.Now().Add(10 * time.Second)
	for len(recs) == 0 && time.Now().Before(deadline) {
		recs, _ = f.st.RaceRecords(ctx, ann.me.ID)
		time.Sleep(10 * time.Millisecond)
	}
	if len(recs) != 1 || recs[0].Unrated != 1 || recs[0].Races != 0 {
		t.Fatalf("ann's race records: %+v, want one unrated race", recs)
	}
	annGames, err := f.st.ListGames(ctx, ann.me.ID, store.Page{Limit: 1})
	if err != nil || len(annGames) != 1 {
		t.Fatalf("ann's games: %+v, %v", annGames, err)
	}
	race, err := f.st.RaceOfGame(ctx, annGames[0].ID)
	if err != nil || len(race.Placings) != 2 || race.Placings[0].PlayerID != ann.me.ID || !race.Placings[0].Cleared || race.Rated {
		t.Fatalf("the stored race: %+v (%v), want ann first and bob, not the guest, unrated", race, err)
	}
	// bob's race game was stored and is finished now the race is over.
	if _, err := f.st.GameInProgress(ctx, bob.me.ID, engine.Classic().ID()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's race game is still unfinished after the race: %v", err)
	}
}

// TestRaceAllGuests: a race of guests stores nothing.
func TestRaceAllGuests(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a, _ := f.racer(t, "g1", true)
	b, _ := f.racer(t, "g2", true)
	if a.me.ID == b.me.ID || !a.me.Guest {
		t.Fatalf("guests share a seat: %+v %+v", a.me, b.me)
	}
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: 5, HasDeal: true}, a, b)
	_ = a.Leave(code)
	_ = b.Leave(code)
	waitPhase(t, room, lobby.PhaseResults)
	if top, err := f.st.TopRatings(ctx, engine.Classic().ID(), 10); err != nil || len(top) != 0 {
		t.Errorf("ratings after a race of guests: %+v (%v), want none", top, err)
	}
}

// failingStore is a store whose game saves fail while fail is set.
type failingStore struct {
	store.Store
	fail atomic.Bool
}

func (s *failingStore) SaveGame(ctx context.Context, id int64, owner string, version int64, st store.State) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.Store.SaveGame(ctx, id, owner, version, st)
}

func (s *failingStore) FinishGame(ctx context.Context, id int64, owner string, version int64, st store.State, res *store.Result) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.Store.FinishGame(ctx, id, owner, version, st, res)
}

// TestRacePlayUnstoredIsUndone: a race move the store does not take is
// refused (the racer's board goes back, tui/race.go), and the room's
// panel and a comeback keep the stored game, as at the table.
func TestRacePlayUnstoredIsUndone(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	fs := &failingStore{Store: f.st}
	ann.w = games.New(games.Config{Store: fs, Owner: ann.w.Owner()})
	ann.racer = f.app.race.Racer(ann.ctx, ann.me, ann.sink, ann.w)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	first := engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:1]}
	if note, err := ann.Play(ctx, code, 1, 1, first); err != nil || note != "" {
		t.Fatalf("the first move: note %q, err %v", note, err)
	}
	fs.fail.Store(true)
	two := engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:2]}
	if _, err := ann.Play(ctx, code, 1, 2, two); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("an unstored move: got %v, want the store's error", err)
	}
	if m, _ := room.Snapshot().Member(ann.me.ID); m.Moves != 1 {
		t.Errorf("the room shows %d moves of ann's, want the stored 1", m.Moves)
	}
	fs.fail.Store(false)
	ann2, _ := f.racer(t, "ann", false)
	back, err := ann2.Join(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if back.Resume == nil || len(back.Resume.Moves) != 1 || back.Seq != 2 {
		t.Fatalf("ann's comeback: resume %+v, seq %d; want the stored move and seq 2", back.Resume, back.Seq)
	}
}

// TestJoiningARoomStopsWatching: a player who takes a seat in a race
// room stops watching in their other sessions: the watched player's
// count drops and the watching session is told why.
func TestJoiningARoomStopsWatching(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	host, _ := f.racer(t, "host", false)
	seat, err := host.Create(ctx, tui.RoomOptions{Rules: engine.Classic()})
	if err != nil {
		t.Fatal(err)
	}
	sp, _, err := f.st.GetOrCreatePlayer(ctx, "SHA256:ann", "ann")
	if err != nil {
		t.Fatal(err)
	}
	bob := f.app.lobby.Join(lobby.Player{ID: "SHA256:bob", Name: "bob"})
	watcher := f.app.lobby.Join(lobby.Player{ID: sp.ID, Name: "ann"})
	if _, err := f.app.lobby.Watch(watcher, "bob"); err != nil {
		t.Fatal(err)
	}
	f.app.lobby.SetDoing(watcher, lobby.Doing{What: lobby.Watching, Watched: "bob"})
	racerSess := f.app.lobby.Join(lobby.Player{ID: sp.ID, Name: "ann"})
	cctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	ann := f.app.newRaces(cctx, tui.Player{ID: sp.ID, Name: "ann"}, racerSess,
		f.app.newWriter(racerSess))
	if _, err := ann.Join(ctx, seat.Snapshot.Code); err != nil {
		t.Fatal(err)
	}
	if n := f.app.lobby.SpectatorsOf(bob); n != 0 {
		t.Errorf("bob has %d spectators after ann joined a room, want 0", n)
	}
	qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
	defer qcancel()
	for {
		ev, err := watcher.Queue().Next(qctx)
		if err != nil {
			t.Fatalf("the watching session was not told: %v", err)
		}
		if end, ok := ev.(lobby.WatchEnded); ok {
			if want := "you joined room " + seat.Snapshot.Code; end.Reason != want {
				t.Errorf("WatchEnded says %q, want %q", end.Reason, want)
			}
			return
		}
	}
}

// TestTakenOverSeatReportsNothing: once a second session of a racer takes
// the seat over, the first one's moves count for nothing: the room and the
// stored game have only the new session's, and the old one is told that
// its race goes on in the other session.
func TestTakenOverSeatReportsNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	bob2, _ := f.racer(t, "bob", false)
	if _, err := bob2.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	one := engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:1]}
	if _, err := bob.Play(ctx, code, 1, 1, one); !errors.Is(err, tui.ErrTakenOver) {
		t.Fatalf("the old session's move: err %v, want ErrTakenOver", err)
	}
	if m, _ := room.Snapshot().Member(bob.me.ID); m.Moves != 0 {
		t.Fatalf("the room counts %d moves of the old session's, want 0", m.Moves)
	}
	two := engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:2]}
	if _, err := bob2.Play(ctx, code, 1, 1, two); err != nil {
		t.Fatalf("the new session's move: %v", err)
	}
	if m, _ := room.Snapshot().Member(bob.me.ID); m.Moves != 2 {
		t.Errorf("the room counts %d moves of bob's, want the new session's 2", m.Moves)
	}
	if _, err := bob.Play(ctx, code, 1, 3, rec); !errors.Is(err, tui.ErrTakenOver) {
		t.Fatalf("the old session's later move: err %v, want ErrTakenOver", err)
	}
	if m, _ := room.Snapshot().Member(bob.me.ID); m.Moves != 2 || m.State != lobby.RacerPlaying {
		t.Errorf("after the old session's win: bob %d moves, %v; want the new session's 2, playing", m.Moves, m.State)
	}
	// The old session's end leaves nothing: the seat is the new one's.
	if err := bob.Leave(code); !errors.Is(err, lobby.ErrSeatTaken) {
		t.Errorf("the old session leaves: err %v, want ErrSeatTaken", err)
	}
	bob.leaveAll()
	if m, _ := room.Snapshot().Member(bob.me.ID); !m.Present {
		t.Errorf("the old session's end took the new session's seat: %+v", m)
	}
}

// countingGames is a store that counts the games read.
type countingGames struct {
	store.Store
	asked atomic.Int32
}

func (s *countingGames) Game(ctx context.Context, id int64) (store.Game, error) {
	s.asked.Add(1)
	return s.Store.Game(ctx, id)
}

func (s *countingGames) RaceGame(ctx context.Context, playerID, race string) (store.Game, error) {
	s.asked.Add(1)
	return s.Store.RaceGame(ctx, playerID, race)
}

// TestRaceBoardFromTheRoom: a spectator's board of a racer is the room's,
// as the racer's moves reached it (on another server, by its progress
// events): this server's race book and the store are not read.
func TestRaceBoardFromTheRoom(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	two := engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:2]}
	if _, err := bob.Play(ctx, code, 1, 1, two); err != nil {
		t.Fatal(err)
	}
	counted := &countingGames{Store: f.st}
	f.app.cfg.Store = counted
	board, err := ann.Board(ctx, code, bob.me.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := room.Snapshot().Member(bob.me.ID); !slices.Equal(board.Moves, two.Moves) || m.Moves != 2 {
		t.Fatalf("bob's board has moves %v, his panel line %d; want %v", board.Moves, m.Moves, two.Moves)
	}
	if n := counted.asked.Load(); n != 0 {
		t.Errorf("the store was read %d times for a spectator's board, want none", n)
	}
}

// TestRacerCannotWatchOwnRace: a spectator sees every racer's board,
// waste included, and the racers of a race play one deal: a racer's
// other session may not watch the race while their game goes on, and
// may once it is over. Another player still watches.
func TestRacerCannotWatchOwnRace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	annToo, _ := f.racer(t, "ann", false)
	if _, err := annToo.Watch(ctx, code); !errors.Is(err, lobby.ErrWatchOwnRace) {
		t.Fatalf("ann's other session watches her race: got %v, want ErrWatchOwnRace", err)
	}
	if n := room.Snapshot().Spectators; n != 0 {
		t.Fatalf("the refused watch left %d spectators", n)
	}
	cy, _ := f.racer(t, "cy", false)
	if _, err := cy.Watch(ctx, code); err != nil {
		t.Fatalf("another player watches: %v", err)
	}
	playLine(t, ann, code, 1, rec) // ann clears: her game is over, bob's goes on
	if _, err := annToo.Watch(ctx, code); err != nil {
		t.Fatalf("ann's other session, her game over: %v", err)
	}
}

// playLine plays rec move by move as rs in round of room code.
func playLine(t *testing.T, rs *races, code string, round int, rec engine.Record) {
	t.Helper()
	for i := range rec.Moves {
		r := rec
		r.Moves = rec.Moves[:i+1]
		if _, err := rs.Play(context.Background(), code, round, i+1, r); err != nil {
			t.Fatalf("%s's move %d: %v", rs.me.Name, i+1, err)
		}
	}
}

// waitEndedOffers waits until rs's Ended offers the results of the race
// in room code, which it does once the race is stored.
func waitEndedOffers(t *testing.T, rs *races, code string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, ok := rs.Ended(context.Background()); ok && got == code {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's new session: Ended does not offer race %s (the race is not stored?)", rs.me.Name, code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRaceGameMadeBeforeTheRace: a racer's stored game is made when the
// countdown begins (the session's inbox sees the room change), so the
// race's first move is a save like the others, not every racer's game
// made at once; a racer who never moves has the empty game finished with
// the race.
func TestRaceGameMadeBeforeTheRace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, annSess := f.racer(t, "ann", false)
	bob, bobSess := f.racer(t, "bob", false)
	readers, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	readInbox(readers, inbox{q: annSess.Queue()})
	readInbox(readers, inbox{q: bobSess.Queue()})
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	made := func(rs *races) store.Game {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			gs, err := f.st.ListGames(ctx, rs.me.ID, store.Page{Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(gs) == 1 {
				return gs[0]
			}
			if len(gs) > 1 || time.Now().After(deadline) {
				t.Fatalf("%s's games before a move: %+v, want one", rs.me.Name, gs)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	annGame, bobGame := made(ann), made(bob)
	for _, g := range []store.Game{annGame, bobGame} {
		if g.Kind != store.KindRace || len(g.Moves) != 0 || g.Status != store.StatusPlaying || g.DealNumber != rec.Deal {
			t.Fatalf("a game made before the race: %+v, want an empty race game of the deal", g)
		}
	}

	// ann's first move is a save of that game, and so is every other.
	playLine(t, ann, code, 1, engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:1]})
	if g := made(ann); g.ID != annGame.ID || g.Version != 2 || len(g.Moves) != 1 || len(g.MoveTimes) != 1 {
		t.Fatalf("ann's game after her first move: %+v, want game %d saved (version 2) with the move and its time", g, annGame.ID)
	}
	if m, _ := room.Snapshot().Member(ann.me.ID); m.GameID != annGame.ID {
		t.Errorf("the room names ann's game %d, want %d", m.GameID, annGame.ID)
	}
	playLine(t, ann, code, 1, rec)
	// bob never moves, and leaves: the race ends, ann first.
	if err := bob.Leave(code); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, room, lobby.PhaseResults)
	waitEndedOffers(t, bob, code)
	deadline := time.Now().Add(10 * time.Second)
	for made(bob).Status == store.StatusPlaying {
		if time.Now().After(deadline) {
			t.Fatalf("bob's empty race game is still being played after the race")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if g := made(ann); g.ID != annGame.ID || g.Status != store.StatusWon {
		t.Errorf("ann's race game at the end: %+v, want game %d won", g, annGame.ID)
	}
}

// TestRaceNobodyPlayedNotStored: three racers whose connections all
// dropped before a move (room WJCN) were stored all first, each with a
// race won and a rating up; a race in which no card was removed ranks
// nobody, and is not stored.
func TestRaceNobodyPlayedNotStored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var ids []string
	for _, name := range []string{"ann", "bob", "cat"} {
		p, _, err := f.st.GetOrCreatePlayer(ctx, "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	now := time.Now()
	res := lobby.RaceResult{Code: "WJCN", Round: 1, RulesID: "classic", Deal: 3, Rated: true, Started: now, Ended: now.Add(time.Second)}
	for i, id := range ids {
		res.Placings = append(res.Placings, lobby.Placing{Place: 1, ID: id, Name: "p" + strconv.Itoa(i), State: lobby.RacerLeft, Moves: i})
	}
	if _, err := f.app.race.Store(res); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if recs, err := f.st.RaceRecords(ctx, id); err != nil || len(recs) != 0 {
			t.Errorf("race records of %s after a race nobody played: %+v (%v), want none", id, recs, err)
		}
	}
	// A race with a card removed is stored: bob's opponents never moved
	// or left before removing a card, so it is unrated for him.
	res.Code, res.Placings[1].Removed, res.Placings[1].Place = "WJCM", 2, 1
	res.Placings[0].Place, res.Placings[2].Place = 2, 2
	changes, err := f.app.race.Store(res)
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := f.st.RaceRecords(ctx, ids[1]); err != nil || len(recs) != 1 || recs[0].Wins != 0 || recs[0].Unrated != 1 {
		t.Errorf("bob's race records: %+v (%v), want one unrated race", recs, err)
	}
	reasons := map[string]rating.Reason{}
	for _, c := range changes {
		reasons[c.ID] = c.Reason
	}
	if want := map[string]rating.Reason{ids[0]: rating.ReasonNeverMoved, ids[1]: rating.ReasonNoOpponent,
		ids[2]: rating.ReasonLeftEmpty}; !maps.Equal(reasons, want) {
		t.Errorf("rating changes %+v, want the reasons %v", changes, want)
	}
}
