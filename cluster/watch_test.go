package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
	"pyramid/engine"
	"pyramid/lobby"
)

// watchJoin is a lobby in a cluster on b as instance, whose sessions may
// watch the other servers' and be watched from them.
func watchJoin(t *testing.T, b bus.Bus, instance string) presenceServer {
	t.Helper()
	s := presenceJoin(t, b, instance)
	sp, err := JoinSpectating(context.Background(), s.presence)
	if err != nil {
		t.Fatalf("JoinSpectating: %v", err)
	}
	s.spectating = sp
	t.Cleanup(func() { s.close() }) // before presenceJoin's: the spectating first
	return s
}

// watchSettle lets presence and the watch events go across.
func watchSettle() {
	time.Sleep(presenceCfg.Every)
	synctest.Wait()
}

// watchEvents takes every waiting event of a session's queue.
func watchEvents(t *testing.T, s *lobby.Session) []lobby.Event {
	t.Helper()
	var got []lobby.Event
	for s.Queue().Len() > 0 {
		ev, err := s.Queue().Next(context.Background())
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, ev)
	}
	return got
}

// watchLast returns the last event of type T in evs.
func watchLast[T any](evs []lobby.Event) (T, bool) {
	var zero T
	for i := len(evs) - 1; i >= 0; i-- {
		if v, ok := evs[i].(T); ok {
			return v, true
		}
	}
	return zero, false
}

// watchBoard is a board of Classic's deal 42 with these moves made.
func watchBoard(moves ...string) lobby.Board {
	return lobby.Board{Record: engine.Record{Rules: "classic", Deal: 42, Moves: moves, Redo: []string{"d"}}}
}

// watchSpectators is the last Spectators count a session was told, or
// -1.
func watchSpectators(t *testing.T, s *lobby.Session) int {
	t.Helper()
	if sp, ok := watchLast[lobby.Spectators](watchEvents(t, s)); ok {
		return sp.N
	}
	return -1
}

func TestWatchAcrossServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := watchJoin(t, b, "one"), watchJoin(t, b, "two")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		guest := two.Join(lobby.Player{Name: "guest-7QK2", Guest: true})
		one.SetDoing(ann, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 42})
		watchSettle()

		tests := []struct {
			name   string
			viewer *lobby.Session
			watch  string
			want   error
		}{
			{"nobody of that name anywhere", bob, "carol", lobby.ErrNotOnline},
			{"oneself", bob, "BOB", lobby.ErrWatchSelf},
			{"a player of the other server, any case", bob, "ANN", nil},
			{"a guest", guest, "ann", nil},
		}
		for _, tt := range tests {
			w, err := two.Watch(tt.viewer, tt.watch)
			if !errors.Is(err, tt.want) {
				t.Fatalf("%s: Watch(%q): got %v, want %v", tt.name, tt.watch, err, tt.want)
			}
			if err == nil && (w.Name != "ann" || w.Board.Playing()) {
				t.Fatalf("%s: Watch: %+v, want ann's name and no board yet", tt.name, w)
			}
		}
		synctest.Wait()
		if n := watchSpectators(t, ann); n != 2 || one.SpectatorsOf(ann) != 2 {
			t.Fatalf("ann was told %d spectators (SpectatorsOf %d), want 2 from the other server", n, one.SpectatorsOf(ann))
		}

		// ann moves: both spectators get her board, the redo stack left
		// out; a burst of moves costs a few events, the last one wins.
		watchEvents(t, bob)
		for i := range 20 {
			one.Publish(ann, watchBoard(strings.Repeat("d ", i+1)[:2*i+1]))
		}
		watchSettle()
		for _, v := range []*lobby.Session{bob, guest} {
			w, ok := watchLast[lobby.Watched](watchEvents(t, v))
			if !ok || !w.Board.Playing() || len(w.Board.Record.Moves) != 1 || w.Board.Record.Redo != nil || w.Spectators != 2 {
				t.Fatalf("a spectator's last board: %+v (%v), want ann's last, 2 watching", w, ok)
			}
		}

		// A record longer than one event goes across in parts.
		long := make([]string, 3000)
		for i := range long {
			long[i] = "d"
		}
		one.Publish(ann, watchBoard(long...))
		watchSettle()
		if w, _ := watchLast[lobby.Watched](watchEvents(t, bob)); len(w.Board.Record.Moves) != len(long) {
			t.Fatalf("bob's board has %d moves, want %d", len(w.Board.Record.Moves), len(long))
		}

		// The guest stops; bob leaves: ann is told each time.
		two.Unwatch(guest)
		watchSettle()
		if n := watchSpectators(t, ann); n != 1 {
			t.Fatalf("ann: %d spectators after the guest stopped, want 1", n)
		}
		two.Leave(bob)
		watchSettle()
		if n := watchSpectators(t, ann); n != 0 || one.SpectatorsOf(ann) != 0 {
			t.Fatalf("ann: %d spectators after bob left, want 0", n)
		}

		// ann turns the setting off: the spectator is told, a new one
		// refused, as on her server.
		if _, err := two.Watch(guest, "ann"); err != nil {
			t.Fatal(err)
		}
		watchSettle()
		watchEvents(t, guest)
		one.SetWatchable(ann, false)
		watchSettle()
		if e, ok := watchLast[lobby.WatchEnded](watchEvents(t, guest)); !ok || e.Reason != "ann no longer lets others watch" {
			t.Fatalf("the guest: %+v, want told ann no longer lets others watch", e)
		}
		if _, err := two.Watch(guest, "ann"); !errors.Is(err, lobby.ErrNotWatchable) {
			t.Fatalf("Watch with the setting off: %v, want ErrNotWatchable", err)
		}
		one.SetWatchable(ann, true)

		// ann leaves: her spectator is told.
		if _, err := two.Watch(guest, "ann"); err != nil {
			t.Fatal(err)
		}
		watchSettle()
		watchEvents(t, guest)
		one.Leave(ann)
		watchSettle()
		if e, ok := watchLast[lobby.WatchEnded](watchEvents(t, guest)); !ok || e.Reason != "ann left" {
			t.Fatalf("the guest: %+v, want told ann left", e)
		}
		if _, err := two.Watch(guest, "ann"); !errors.Is(err, lobby.ErrNotOnline) {
			t.Fatalf("Watch after ann left: %v, want ErrNotOnline", err)
		}
	})
}

// TestWatchAcrossFull: at most MaxSpectators watch a game, counted on
// every server.
func TestWatchAcrossFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := watchJoin(t, b, "one"), watchJoin(t, b, "two")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		var viewers []*lobby.Session
		for i := range lobby.MaxSpectators + 1 {
			l := one
			if i%2 == 0 {
				l = two
			}
			viewers = append(viewers, l.Join(lobby.Player{ID: "v" + strconv.Itoa(i), Name: "v" + strconv.Itoa(i)}))
		}
		watchSettle()
		for i, v := range viewers[:lobby.MaxSpectators] {
			l := one
			if i%2 == 0 {
				l = two
			}
			if _, err := l.Watch(v, "ann"); err != nil {
				t.Fatalf("spectator %d: %v", i, err)
			}
		}
		if _, err := one.Watch(viewers[lobby.MaxSpectators], "ann"); !errors.Is(err, lobby.ErrGameFull) {
			t.Fatalf("one more on ann's server: %v, want ErrGameFull", err)
		}
		extra := two.Join(lobby.Player{ID: "x", Name: "x"})
		if _, err := two.Watch(extra, "ann"); !errors.Is(err, lobby.ErrGameFull) {
			t.Fatalf("one more on the other server: %v, want ErrGameFull", err)
		}
		if n := one.SpectatorsOf(ann); n != lobby.MaxSpectators {
			t.Fatalf("ann has %d spectators, want %d", n, lobby.MaxSpectators)
		}
	})
}

// TestWatchAcrossDeadServers: the spectators of a server that dies
// without a word stop counting within the TTL; the spectators of a game
// whose server dies are told it ended within the TTL too.
func TestWatchAcrossDeadServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		dyingViewer, dyingPlayer := &presenceCuttable{Bus: b}, &presenceCuttable{Bus: b}
		one := watchJoin(t, b, "one")
		two := watchJoin(t, dyingViewer, "two")
		three := watchJoin(t, dyingPlayer, "three")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		cat := one.Join(lobby.Player{ID: "c", Name: "cat"})
		dan := three.Join(lobby.Player{ID: "d", Name: "dan"})
		watchSettle()
		if _, err := two.Watch(bob, "ann"); err != nil {
			t.Fatal(err)
		}
		if _, err := one.Watch(cat, "dan"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 1 {
			t.Fatalf("ann has %d spectators, want 1", n)
		}
		if n := three.SpectatorsOf(dan); n != 1 {
			t.Fatalf("dan has %d spectators, want 1", n)
		}
		watchEvents(t, cat)

		// Kept alive past the TTL while the servers live.
		time.Sleep(2 * presenceCfg.TTL)
		synctest.Wait()
		if one.SpectatorsOf(ann) != 1 || three.SpectatorsOf(dan) != 1 {
			t.Fatalf("spectators lost while their servers live: ann %d, dan %d", one.SpectatorsOf(ann), three.SpectatorsOf(dan))
		}

		dyingViewer.kill()
		dyingPlayer.kill()
		start := time.Now()
		var annAlone, catTold time.Duration
		for annAlone == 0 || catTold == 0 {
			time.Sleep(100 * time.Millisecond)
			if annAlone == 0 && one.SpectatorsOf(ann) == 0 {
				annAlone = time.Since(start)
			}
			if e, ok := watchLast[lobby.WatchEnded](watchEvents(t, cat)); ok && catTold == 0 {
				if e.Reason != "dan left" {
					t.Fatalf("cat told %q, want dan left", e.Reason)
				}
				catTold = time.Since(start)
			}
			if time.Since(start) > 3*presenceCfg.TTL {
				t.Fatalf("after %s: ann's dead spectator still counts (%v) or cat not told (%v)", time.Since(start), annAlone, catTold)
			}
		}
		t.Logf("a dead server's spectator stopped counting after %s; a dead server's game ended after %s (TTL %s)", annAlone, catTold, presenceCfg.TTL)
		if annAlone > presenceCfg.TTL {
			t.Errorf("ann's spectator of a dead server stopped counting after %s, want within the TTL %s", annAlone, presenceCfg.TTL)
		}
		// Presence forgets a dead server within the TTL and its sweep.
		if catTold > presenceCfg.TTL+presenceCfg.TTL/10 {
			t.Errorf("cat told dan's server died after %s, want within the TTL %s and a sweep", catTold, presenceCfg.TTL)
		}
	})
}

// TestWatchAcrossLostUnwatch: a spectator whose unwatch was lost stops
// counting within the TTL, as its server keeps it no more.
func TestWatchAcrossLostUnwatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		lossy := &watchDropping{Bus: b, kind: watchKinds[lobby.WatchUnwatch]}
		one, two := watchJoin(t, b, "one"), watchJoin(t, lossy, "two")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		watchSettle()
		if _, err := two.Watch(bob, "ann"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		two.Unwatch(bob)
		watchSettle()
		if n := one.SpectatorsOf(ann); n != 1 {
			t.Fatalf("ann has %d spectators with the unwatch lost, want still 1", n)
		}
		time.Sleep(presenceCfg.TTL)
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 0 {
			t.Fatalf("ann has %d spectators a TTL later, want 0", n)
		}
	})
}

// watchDropping is a bus that loses the events of one kind: all of
// them, or the first limit.
type watchDropping struct {
	bus.Bus
	kind  string
	limit int
	mu    sync.Mutex
	lost  int
}

func (d *watchDropping) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	if m.Kind == d.kind {
		d.mu.Lock()
		drop := d.limit == 0 || d.lost < d.limit
		if drop {
			d.lost++
		}
		d.mu.Unlock()
		if drop {
			return bus.Event{}, nil
		}
	}
	return d.Bus.Publish(ctx, topic, m)
}

func TestWatchTopic(t *testing.T) {
	tests := []struct{ instance, want string }{
		{"one", "lobby.watch.one"},
		{"a b", ""},
		{strings.Repeat("x", 200), ""},
	}
	for _, tt := range tests {
		got := WatchTopic(tt.instance)
		if bus.Check(got, bus.Message{}) != nil {
			t.Fatalf("WatchTopic(%q) = %q: not a valid topic", tt.instance, got)
		}
		if tt.want != "" && got != tt.want {
			t.Fatalf("WatchTopic(%q) = %q, want %q", tt.instance, got, tt.want)
		}
	}
	if WatchTopic("a b") == WatchTopic("a c") {
		t.Fatal("two instances share a topic")
	}
}

// A board's record survives the trip in parts.
func TestWatchBoardParts(t *testing.T) {
	rec := engine.Record{Rules: "classic", Deal: 1, Moves: make([]string, 5000)}
	for i := range rec.Moves {
		rec.Moves[i] = "d"
	}
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	s := &Spectating{b: b, instance: "one"}
	sub, err := b.Subscribe(context.Background(), WatchTopic("two"), 0)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(rec)
	m := lobby.WatchMsg{Kind: lobby.WatchBoard, To: "two", Session: 3, Ver: 9, Board: lobby.Board{Record: rec}}
	if err := s.publish(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	var got, whole []byte
	partials := watchPartials{}
	parts := 0
	for {
		ev, err := sub.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m, part, ok := decodeWatch(ev.Body)
		if !ok || m.Parts < 2 || m.Part != parts || m.Session != 3 || m.Ver != 9 || m.From != "one" {
			t.Fatalf("part %d: %+v", parts, m)
		}
		got = append(got, part...)
		parts++
		joined, done := partials.add(m, part, time.Now(), time.Minute)
		if done != (parts == m.Parts) {
			t.Fatalf("part %d of %d: whole %v", parts, m.Parts, done)
		}
		if done {
			whole = joined
			break
		}
	}
	if string(got) != string(body) {
		t.Fatalf("the parts make %d bytes, want %d", len(got), len(body))
	}
	if string(whole) != string(body) || len(partials) != 0 {
		t.Fatalf("the reader put %d bytes together (%d boards waiting), want %d", len(whole), len(partials), len(body))
	}
}

// TestWatchAcrossKeepRepairs: a spectator whose server could not keep it
// for longer than the TTL (its bus was down) stops counting, and counts
// again at its server's next keep, still watching.
func TestWatchAcrossKeepRepairs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		f := &presenceCuttable{Bus: b}
		one, two := watchJoin(t, b, "one"), watchJoin(t, f, "two")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		watchSettle()
		if _, err := two.Watch(bob, "ann"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		f.set(true)
		time.Sleep(presenceCfg.TTL + presenceCfg.Heartbeat)
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 0 {
			t.Fatalf("ann has %d spectators after the spectator's server was cut off past the TTL, want 0", n)
		}
		f.set(false)
		time.Sleep(presenceCfg.Heartbeat)
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 1 {
			t.Fatalf("ann has %d spectators once the spectator's server keeps it again, want 1", n)
		}
		one.Publish(ann, watchBoard("d"))
		watchSettle()
		evs := watchEvents(t, bob)
		if _, ended := watchLast[lobby.WatchEnded](evs); ended {
			t.Fatalf("bob was told watching ended: %v", evs)
		}
		if w, ok := watchLast[lobby.Watched](evs); !ok || len(w.Board.Record.Moves) != 1 {
			t.Fatalf("bob's last board: %+v, want ann's move", w)
		}
	})
}

// TestWatchAcrossSettingFollows: "Others may watch me" turned off on one
// server holds for the player's sessions on the others too.
func TestWatchAcrossSettingFollows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := watchJoin(t, b, "one"), watchJoin(t, b, "two")
		ann1 := one.Join(lobby.Player{ID: "a", Name: "ann"})
		ann2 := two.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		watchSettle()
		if _, err := two.Watch(bob, "ann"); err != nil { // ann's session on two
			t.Fatal(err)
		}
		one.SetWatchable(ann1, false)
		watchSettle()
		if two.Watchable(ann2) {
			t.Fatal("ann's session on two still lets others watch")
		}
		if e, ok := watchLast[lobby.WatchEnded](watchEvents(t, bob)); !ok || e.Reason != "ann no longer lets others watch" {
			t.Fatalf("bob: %+v, want told ann no longer lets others watch", e)
		}
		one.SetWatchable(ann1, true)
		watchSettle()
		if !two.Watchable(ann2) {
			t.Fatal("ann's session on two does not let others watch again")
		}
	})
}

// TestWatchAcrossPrefersAGame: a player at the menu here and at a game on
// another server is watched at the game; when that session is gone
// already (presence here does not know yet), at the menu here.
func TestWatchAcrossPrefersAGame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := watchJoin(t, b, "one"), watchJoin(t, b, "two")
		annThere := one.Join(lobby.Player{ID: "a", Name: "ann"})
		one.SetDoing(annThere, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 42})
		annHere := two.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		watchSettle()
		if _, err := two.Watch(bob, "ann"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if one.SpectatorsOf(annThere) != 1 || two.SpectatorsOf(annHere) != 0 {
			t.Fatalf("spectators: %d of ann at her game, %d of ann at the menu; want 1 and 0",
				one.SpectatorsOf(annThere), two.SpectatorsOf(annHere))
		}
		two.Unwatch(bob)
		one.Leave(annThere)
		if _, err := two.Watch(bob, "ann"); err != nil { // before presence tells two
			t.Fatal(err)
		}
		if n := two.SpectatorsOf(annHere); n != 1 {
			t.Fatalf("ann at the menu here has %d spectators, want 1", n)
		}
	})
}

// TestWatchAcrossDownServer: a watch request to a server that died but
// is still listed in presence is answered at once, saying the player's
// server is not answering: right after an ask to it went unanswered, and
// once presence missed two of its heartbeats; a server heard from again
// is asked again.
func TestWatchAcrossDownServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		dyingTwo, dyingThree := &presenceCuttable{Bus: b}, &presenceCuttable{Bus: b}
		// four is alive, but its answer to the first ask is lost.
		lossy := &watchDropping{Bus: b, kind: watchKinds[lobby.WatchReply], limit: 1}
		one, two, three, four := watchJoin(t, b, "one"), watchJoin(t, dyingTwo, "two"), watchJoin(t, dyingThree, "three"), watchJoin(t, lossy, "four")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		gus := one.Join(lobby.Player{ID: "g", Name: "gus"})
		two.Join(lobby.Player{ID: "d", Name: "dan"})
		three.Join(lobby.Player{ID: "e", Name: "eve"})
		four.Join(lobby.Player{ID: "f", Name: "fay"})
		watchSettle()
		dyingTwo.kill()
		dyingThree.kill()

		watch := func(what, name string, want error) time.Duration {
			t.Helper()
			start := time.Now()
			_, err := one.Watch(ann, name)
			if !errors.Is(err, want) {
				t.Fatalf("%s: Watch(%s): %v, want %v", what, name, err, want)
			}
			return time.Since(start)
		}
		// Meanwhile gus asks four, whose answer is lost.
		var fayErr error
		asked := make(chan struct{})
		go func() {
			defer close(asked)
			_, fayErr = one.Watch(gus, "fay")
		}()
		if d := watch("just after the death", "eve", lobby.ErrNoAnswer); d < lobby.AskTimeout {
			t.Fatalf("the first ask was answered after %s, want AskTimeout", d)
		}
		<-asked
		if !errors.Is(fayErr, lobby.ErrNoAnswer) {
			t.Fatalf("an ask whose answer was lost: %v, want ErrNoAnswer", fayErr)
		}
		if d := watch("after an unanswered ask", "eve", lobby.ErrServerDown); d != 0 {
			t.Errorf("an ask after an unanswered one took %s, want at once", d)
		}
		if _, err := one.Watch(ann, "eve"); err == nil || err.Error() != "eve's server is not answering" {
			t.Errorf("the refusal says %v, want eve's server is not answering", err)
		}

		// A server alive but silent to one ask (its answer lost) is
		// asked again once presence hears from it.
		watch("right after an unanswered ask", "fay", lobby.ErrServerDown)
		time.Sleep(presenceCfg.Heartbeat)
		synctest.Wait()
		watch("once her server was heard from", "fay", nil)

		// Two heartbeats missed (and still listed): refused at once,
		// without an ask.
		time.Sleep(time.Second)
		synctest.Wait()
		if d := watch("two heartbeats missed", "dan", lobby.ErrServerDown); d != 0 {
			t.Errorf("an ask to a server silent for two heartbeats took %s, want at once", d)
		}
	})
}

// watchSlowBoards is a bus on which each board takes a second to
// publish.
type watchSlowBoards struct {
	bus.Bus
	mu     sync.Mutex
	boards int
}

func (s *watchSlowBoards) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	if m.Kind == watchKinds[lobby.WatchBoard] {
		time.Sleep(time.Second)
		s.mu.Lock()
		s.boards++
		s.mu.Unlock()
	}
	return s.Bus.Publish(ctx, topic, m)
}

// TestWatchAcrossBoardsDoNotBlockAnswers: on a server whose boards are
// slow to publish, with many watched games, an answer to a watch request
// goes out at once, not behind the boards, and a round of boards takes
// about its boards' publishes over watchBoardWorkers, not their sum.
func TestWatchAcrossBoardsDoNotBlockAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		slow := &watchSlowBoards{Bus: b}
		one, two := watchJoin(t, slow, "one"), watchJoin(t, b, "two")
		const games = 40
		players, viewers := make([]*lobby.Session, games), make([]*lobby.Session, games)
		for i := range games {
			players[i] = one.Join(lobby.Player{ID: "p" + strconv.Itoa(i), Name: "p" + strconv.Itoa(i)})
			one.SetDoing(players[i], lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 42})
			viewers[i] = two.Join(lobby.Player{ID: "v" + strconv.Itoa(i), Name: "v" + strconv.Itoa(i)})
		}
		watchSettle()
		for i := range games {
			if _, err := two.Watch(viewers[i], players[i].Player().Name); err != nil {
				t.Fatalf("watch %d: %v", i, err)
			}
		}
		time.Sleep(time.Minute) // the first boards' rounds go out
		synctest.Wait()
		for _, v := range viewers {
			watchEvents(t, v)
		}

		start := time.Now()
		for _, p := range players {
			one.Publish(p, watchBoard("d"))
		}
		late := two.Join(lobby.Player{ID: "z", Name: "zed"})
		if _, err := two.Watch(late, "p0"); err != nil {
			t.Fatalf("a watch request behind %d boards: %v", games, err)
		}
		if d := time.Since(start); d >= time.Second {
			t.Errorf("a watch request behind %d boards was answered after %s, want at once", games, d)
		}
		for i, v := range viewers {
			for {
				if w, ok := watchLast[lobby.Watched](watchEvents(t, v)); ok && w.Board.Playing() {
					break
				}
				if time.Since(start) > 2*games/watchBoardWorkers*time.Second {
					t.Fatalf("after %s viewer %d has no board yet, want a round of %d boards in about %s",
						time.Since(start), i, games, games/watchBoardWorkers*time.Second)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		t.Logf("%d boards of slow publishes (1 s each) went out in %s", games, time.Since(start))
	})
}

// TestStopWatchingAcrossServers: a player who joins a race room on one
// server stops watching in their sessions on the others too: the watched
// player's count drops on its server, the watching session is told why,
// and another player's spectating is left alone.
func TestStopWatchingAcrossServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := watchJoin(t, b, "one"), watchJoin(t, b, "two")
		bob := one.Join(lobby.Player{ID: "b", Name: "bob"})
		one.SetDoing(bob, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 42})
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		annThere := two.Join(lobby.Player{ID: "a", Name: "ann"})
		carol := two.Join(lobby.Player{ID: "c", Name: "carol"})
		watchSettle()
		for _, v := range []*lobby.Session{annThere, carol} {
			if _, err := two.Watch(v, "bob"); err != nil {
				t.Fatal(err)
			}
		}
		two.SetDoing(annThere, lobby.Doing{What: lobby.Watching, Watched: "bob"})
		watchSettle()
		if n := one.SpectatorsOf(bob); n != 2 {
			t.Fatalf("bob has %d spectators, want 2", n)
		}
		watchEvents(t, annThere)
		one.StopWatching(ann, "you joined room KMTX")
		watchSettle()
		if n := one.SpectatorsOf(bob); n != 1 {
			t.Errorf("after ann joined a room on bob's server, bob has %d spectators, want carol alone", n)
		}
		end, ok := watchLast[lobby.WatchEnded](watchEvents(t, annThere))
		if !ok || end.Reason != "you joined room KMTX" || end.Name != "bob" {
			t.Errorf("ann's watching session on the other server got %+v (%v), want WatchEnded saying why", end, ok)
		}
		if _, ok := watchLast[lobby.WatchEnded](watchEvents(t, carol)); ok {
			t.Error("carol's spectating ended too")
		}
	})
}
