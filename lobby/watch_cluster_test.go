package lobby

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
)

// watching is a lobby in a cluster on b as instance, whose sessions may
// watch the other servers' and be watched from them.
func watching(t *testing.T, b bus.Bus, instance string) *Lobby {
	t.Helper()
	l := joined(t, b, instance)
	if err := l.WatchAcross(context.Background(), b, instance); err != nil {
		t.Fatalf("WatchAcross: %v", err)
	}
	return l
}

// settle lets presence and the watch events go across.
func settle() {
	time.Sleep(clusterCfg.Every)
	synctest.Wait()
}

// spectators is the last Spectators count a session was told, or -1.
func spectators(t *testing.T, s *Session) int {
	t.Helper()
	if sp, ok := lastOf[Spectators](events(t, s)); ok {
		return sp.N
	}
	return -1
}

func TestWatchAcrossServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := watching(t, b, "one"), watching(t, b, "two")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		guest := two.Join(Player{Name: "guest-7QK2", Guest: true})
		one.SetDoing(ann, Doing{What: Playing, Rules: "classic", Deal: 42})
		settle()

		tests := []struct {
			name   string
			viewer *Session
			watch  string
			want   error
		}{
			{"nobody of that name anywhere", bob, "carol", ErrNotOnline},
			{"oneself", bob, "BOB", ErrWatchSelf},
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
		if n := spectators(t, ann); n != 2 || one.SpectatorsOf(ann) != 2 {
			t.Fatalf("ann was told %d spectators (SpectatorsOf %d), want 2 from the other server", n, one.SpectatorsOf(ann))
		}

		// ann moves: both spectators get her board, the redo stack left
		// out; a burst of moves costs a few events, the last one wins.
		events(t, bob)
		for i := range 20 {
			one.Publish(ann, board(strings.Repeat("d ", i+1)[:2*i+1]))
		}
		settle()
		for _, v := range []*Session{bob, guest} {
			w, ok := lastOf[Watched](events(t, v))
			if !ok || !w.Board.Playing() || len(w.Board.Record.Moves) != 1 || w.Board.Record.Redo != nil || w.Spectators != 2 {
				t.Fatalf("a spectator's last board: %+v (%v), want ann's last, 2 watching", w, ok)
			}
		}

		// A record longer than one event goes across in parts.
		long := make([]string, 3000)
		for i := range long {
			long[i] = "d"
		}
		one.Publish(ann, board(long...))
		settle()
		if w, _ := lastOf[Watched](events(t, bob)); len(w.Board.Record.Moves) != len(long) {
			t.Fatalf("bob's board has %d moves, want %d", len(w.Board.Record.Moves), len(long))
		}

		// The guest stops; bob leaves: ann is told each time.
		two.Unwatch(guest)
		settle()
		if n := spectators(t, ann); n != 1 {
			t.Fatalf("ann: %d spectators after the guest stopped, want 1", n)
		}
		two.Leave(bob)
		settle()
		if n := spectators(t, ann); n != 0 || one.SpectatorsOf(ann) != 0 {
			t.Fatalf("ann: %d spectators after bob left, want 0", n)
		}

		// ann turns the setting off: the spectator is told, a new one
		// refused, as on her server.
		if _, err := two.Watch(guest, "ann"); err != nil {
			t.Fatal(err)
		}
		settle()
		events(t, guest)
		one.SetWatchable(ann, false)
		settle()
		if e, ok := lastOf[WatchEnded](events(t, guest)); !ok || e.Reason != "ann no longer lets others watch" {
			t.Fatalf("the guest: %+v, want told ann no longer lets others watch", e)
		}
		if _, err := two.Watch(guest, "ann"); !errors.Is(err, ErrNotWatchable) {
			t.Fatalf("Watch with the setting off: %v, want ErrNotWatchable", err)
		}
		one.SetWatchable(ann, true)

		// ann leaves: her spectator is told.
		if _, err := two.Watch(guest, "ann"); err != nil {
			t.Fatal(err)
		}
		settle()
		events(t, guest)
		one.Leave(ann)
		settle()
		if e, ok := lastOf[WatchEnded](events(t, guest)); !ok || e.Reason != "ann left" {
			t.Fatalf("the guest: %+v, want told ann left", e)
		}
		if _, err := two.Watch(guest, "ann"); !errors.Is(err, ErrNotOnline) {
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
		one, two := watching(t, b, "one"), watching(t, b, "two")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		var viewers []*Session
		for i := range MaxSpectators + 1 {
			l := one
			if i%2 == 0 {
				l = two
			}
			viewers = append(viewers, l.Join(Player{ID: "v" + strconv.Itoa(i), Name: "v" + strconv.Itoa(i)}))
		}
		settle()
		for i, v := range viewers[:MaxSpectators] {
			l := one
			if i%2 == 0 {
				l = two
			}
			if _, err := l.Watch(v, "ann"); err != nil {
				t.Fatalf("spectator %d: %v", i, err)
			}
		}
		if _, err := one.Watch(viewers[MaxSpectators], "ann"); !errors.Is(err, ErrGameFull) {
			t.Fatalf("one more on ann's server: %v, want ErrGameFull", err)
		}
		extra := two.Join(Player{ID: "x", Name: "x"})
		if _, err := two.Watch(extra, "ann"); !errors.Is(err, ErrGameFull) {
			t.Fatalf("one more on the other server: %v, want ErrGameFull", err)
		}
		if n := one.SpectatorsOf(ann); n != MaxSpectators {
			t.Fatalf("ann has %d spectators, want %d", n, MaxSpectators)
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
		dyingViewer, dyingPlayer := &cuttable{Bus: b}, &cuttable{Bus: b}
		one := watching(t, b, "one")
		two := watching(t, dyingViewer, "two")
		three := watching(t, dyingPlayer, "three")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		cat := one.Join(Player{ID: "c", Name: "cat"})
		dan := three.Join(Player{ID: "d", Name: "dan"})
		settle()
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
		events(t, cat)

		// Kept alive past the TTL while the servers live.
		time.Sleep(2 * clusterCfg.TTL)
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
			if e, ok := lastOf[WatchEnded](events(t, cat)); ok && catTold == 0 {
				if e.Reason != "dan left" {
					t.Fatalf("cat told %q, want dan left", e.Reason)
				}
				catTold = time.Since(start)
			}
			if time.Since(start) > 3*clusterCfg.TTL {
				t.Fatalf("after %s: ann's dead spectator still counts (%v) or cat not told (%v)", time.Since(start), annAlone, catTold)
			}
		}
		t.Logf("a dead server's spectator stopped counting after %s; a dead server's game ended after %s (TTL %s)", annAlone, catTold, clusterCfg.TTL)
		if annAlone > clusterCfg.TTL {
			t.Errorf("ann's spectator of a dead server stopped counting after %s, want within the TTL %s", annAlone, clusterCfg.TTL)
		}
		// Presence forgets a dead server within the TTL and its sweep.
		if catTold > clusterCfg.TTL+clusterCfg.TTL/10 {
			t.Errorf("cat told dan's server died after %s, want within the TTL %s and a sweep", catTold, clusterCfg.TTL)
		}
	})
}

// TestWatchAcrossLostUnwatch: a spectator whose unwatch was lost stops
// counting within the TTL, as its server keeps it no more.
func TestWatchAcrossLostUnwatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		lossy := &dropping{Bus: b, kind: kindUnwatch}
		one, two := watching(t, b, "one"), watching(t, lossy, "two")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		settle()
		if _, err := two.Watch(bob, "ann"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		two.Unwatch(bob)
		settle()
		if n := one.SpectatorsOf(ann); n != 1 {
			t.Fatalf("ann has %d spectators with the unwatch lost, want still 1", n)
		}
		time.Sleep(clusterCfg.TTL)
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 0 {
			t.Fatalf("ann has %d spectators a TTL later, want 0", n)
		}
	})
}

// dropping is a bus that loses the events of one kind.
type dropping struct {
	bus.Bus
	kind string
	mu   sync.Mutex
	lost int
}

func (d *dropping) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	if m.Kind == d.kind {
		d.mu.Lock()
		d.lost++
		d.mu.Unlock()
		return bus.Event{}, nil
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
	n := &watchNet{b: b, instance: "one"}
	sub, err := b.Subscribe(context.Background(), WatchTopic("two"), 0)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(rec)
	if err := n.publish(context.Background(), outMsg{to: "two", kind: kindBoard, msg: watchMsg{Session: 3, Ver: 9}, rec: body}); err != nil {
		t.Fatal(err)
	}
	var got []byte
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
		if parts == m.Parts {
			break
		}
	}
	if string(got) != string(body) {
		t.Fatalf("the parts make %d bytes, want %d", len(got), len(body))
	}
}

// TestWatchAcrossKeepRepairs: a spectator whose server could not keep it
// for longer than the TTL (its bus was down) stops counting, and counts
// again at its server's next keep, still watching.
func TestWatchAcrossKeepRepairs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		f := &flaky{Bus: b}
		one, two := watching(t, b, "one"), watching(t, f, "two")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		settle()
		if _, err := two.Watch(bob, "ann"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		f.set(true)
		time.Sleep(clusterCfg.TTL + clusterCfg.Heartbeat)
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 0 {
			t.Fatalf("ann has %d spectators after the spectator's server was cut off past the TTL, want 0", n)
		}
		f.set(false)
		time.Sleep(clusterCfg.Heartbeat)
		synctest.Wait()
		if n := one.SpectatorsOf(ann); n != 1 {
			t.Fatalf("ann has %d spectators once the spectator's server keeps it again, want 1", n)
		}
		one.Publish(ann, board("d"))
		settle()
		evs := events(t, bob)
		if _, ended := lastOf[WatchEnded](evs); ended {
			t.Fatalf("bob was told watching ended: %v", evs)
		}
		if w, ok := lastOf[Watched](evs); !ok || len(w.Board.Record.Moves) != 1 {
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
		one, two := watching(t, b, "one"), watching(t, b, "two")
		ann1 := one.Join(Player{ID: "a", Name: "ann"})
		ann2 := two.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		settle()
		if _, err := two.Watch(bob, "ann"); err != nil { // ann's session on two
			t.Fatal(err)
		}
		one.SetWatchable(ann1, false)
		settle()
		if two.Watchable(ann2) {
			t.Fatal("ann's session on two still lets others watch")
		}
		if e, ok := lastOf[WatchEnded](events(t, bob)); !ok || e.Reason != "ann no longer lets others watch" {
			t.Fatalf("bob: %+v, want told ann no longer lets others watch", e)
		}
		one.SetWatchable(ann1, true)
		settle()
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
		one, two := watching(t, b, "one"), watching(t, b, "two")
		annThere := one.Join(Player{ID: "a", Name: "ann"})
		one.SetDoing(annThere, Doing{What: Playing, Rules: "classic", Deal: 42})
		annHere := two.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		settle()
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
		dyingTwo, dyingThree := &cuttable{Bus: b}, &cuttable{Bus: b}
		one, two, three, four := watching(t, b, "one"), watching(t, dyingTwo, "two"), watching(t, dyingThree, "three"), watching(t, b, "four")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		two.Join(Player{ID: "d", Name: "dan"})
		three.Join(Player{ID: "e", Name: "eve"})
		four.Join(Player{ID: "f", Name: "fay"})
		settle()
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
		if d := watch("just after the death", "eve", ErrNoAnswer); d < askTimeout {
			t.Fatalf("the first ask was answered after %s, want askTimeout", d)
		}
		if d := watch("after an unanswered ask", "eve", ErrServerDown); d != 0 {
			t.Errorf("an ask after an unanswered one took %s, want at once", d)
		}
		if _, err := one.Watch(ann, "eve"); err == nil || err.Error() != "eve's server is not answering" {
			t.Errorf("the refusal says %v, want eve's server is not answering", err)
		}

		// A server alive but silent to one ask (its answer lost) is
		// asked again once presence hears from it.
		one.mu.Lock()
		one.watchNet.unanswered["four"] = one.now()
		one.mu.Unlock()
		watch("right after an unanswered ask", "fay", ErrServerDown)
		time.Sleep(clusterCfg.Heartbeat)
		synctest.Wait()
		watch("once her server was heard from", "fay", nil)

		// Two heartbeats missed (and still listed): refused at once,
		// without an ask.
		time.Sleep(time.Second)
		synctest.Wait()
		if d := watch("two heartbeats missed", "dan", ErrServerDown); d != 0 {
			t.Errorf("an ask to a server silent for two heartbeats took %s, want at once", d)
		}
	})
}

// slowBoards is a bus on which each board takes a second to publish.
type slowBoards struct {
	bus.Bus
	mu     sync.Mutex
	boards int
}

func (s *slowBoards) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	if m.Kind == kindBoard {
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
// about its boards' publishes over boardWorkers, not their sum.
func TestWatchAcrossBoardsDoNotBlockAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		slow := &slowBoards{Bus: b}
		one, two := watching(t, slow, "one"), watching(t, b, "two")
		const games = 40
		players, viewers := make([]*Session, games), make([]*Session, games)
		for i := range games {
			players[i] = one.Join(Player{ID: "p" + strconv.Itoa(i), Name: "p" + strconv.Itoa(i)})
			one.SetDoing(players[i], Doing{What: Playing, Rules: "classic", Deal: 42})
			viewers[i] = two.Join(Player{ID: "v" + strconv.Itoa(i), Name: "v" + strconv.Itoa(i)})
		}
		settle()
		for i := range games {
			if _, err := two.Watch(viewers[i], players[i].player.Name); err != nil {
				t.Fatalf("watch %d: %v", i, err)
			}
		}
		time.Sleep(time.Minute) // the first boards' rounds go out
		synctest.Wait()
		for _, v := range viewers {
			events(t, v)
		}

		start := time.Now()
		for _, p := range players {
			one.Publish(p, board("d"))
		}
		late := two.Join(Player{ID: "z", Name: "zed"})
		if _, err := two.Watch(late, "p0"); err != nil {
			t.Fatalf("a watch request behind %d boards: %v", games, err)
		}
		if d := time.Since(start); d >= time.Second {
			t.Errorf("a watch request behind %d boards was answered after %s, want at once", games, d)
		}
		for i, v := range viewers {
			for {
				if w, ok := lastOf[Watched](events(t, v)); ok && w.Board.Playing() {
					break
				}
				if time.Since(start) > 2*games/boardWorkers*time.Second {
					t.Fatalf("after %s viewer %d has no board yet, want a round of %d boards in about %s",
						time.Since(start), i, games, games/boardWorkers*time.Second)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		t.Logf("%d boards of slow publishes (1 s each) went out in %s", games, time.Since(start))
	})
}
