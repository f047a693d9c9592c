package lobby

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// names lists the names in a Who snapshot with what each does.
func names(who []Presence) string {
	s := ""
	for _, p := range who {
		s += fmt.Sprintf("%s:%s ", p.Name, p.What)
	}
	return s
}

func TestLobbyJoinLeaveWho(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		defer l.Close()
		alice := Player{ID: "SHA256:a", Name: "alice"}
		a1 := l.Join(alice)
		time.Sleep(time.Second) // the bubble's clock: a2 joins later
		a2 := l.Join(alice)
		bob := l.Join(Player{ID: "SHA256:b", Name: "Bob"})
		g1, g2 := l.Join(Player{Name: "guest", Guest: true}), l.Join(Player{Name: "guest", Guest: true})
		if g1.Queue() == nil || g2.Queue() == nil || g1.Queue() == g2.Queue() {
			t.Fatal("guests do not get a queue of their own")
		}
		if got, want := names(l.Who()), "alice:menu Bob:menu guest:menu guest:menu "; got != want {
			t.Fatalf("Who = %q, want %q (each player once, each guest apart, by name)", got, want)
		}
		if l.Online() != 4 {
			t.Fatalf("Online = %d, want 4", l.Online())
		}
		// A player is shown with the session that changed last.
		time.Sleep(time.Second)
		l.SetDoing(a1, Doing{What: Playing, Rules: "classic", Deal: 42, Removed: 3})
		who := l.Who()
		if who[0].Session != a1.ID() || who[0].Rules != "classic" || who[0].Deal != 42 || who[0].Removed != 3 {
			t.Fatalf("alice: got %+v, want session %d playing classic 42 with 3 removed", who[0], a1.ID())
		}
		time.Sleep(time.Second)
		l.SetDoing(a2, Doing{What: Watching, Watched: "Bob"})
		if who := l.Who(); who[0].Session != a2.ID() || who[0].What != Watching || who[0].Watched != "Bob" {
			t.Fatalf("alice after her other session changed: %+v", who[0])
		}
		l.Leave(a2)
		if who := l.Who(); who[0].Session != a1.ID() || who[0].What != Playing {
			t.Fatalf("alice after one session left: %+v", who[0])
		}
		l.Leave(bob)
		l.Leave(bob)
		l.Leave(g1)
		if got, want := names(l.Who()), "alice:playing guest:menu "; got != want || l.Online() != 2 {
			t.Fatalf("Who = %q (%d online), want %q", got, l.Online(), want)
		}
		if _, err := bob.Queue().Next(context.Background()); !errors.Is(err, ErrClosed) {
			t.Fatalf("a left session's queue: %v, want ErrClosed", err)
		}
		l.Leave(a1)
		l.Leave(g2)
		if len(l.sessions) != 0 || len(l.byPlayer) != 0 || l.viewers != 0 {
			t.Fatalf("the lobby keeps %d sessions, %d players, %d viewers after all left", len(l.sessions), len(l.byPlayer), l.viewers)
		}
	})
}

func TestLobbyTakeOver(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	alice := Player{ID: "SHA256:a", Name: "alice"}
	a1, a2 := l.Join(alice), l.Join(alice)
	bob := l.Join(Player{ID: "SHA256:b", Name: "bob"})
	guest := l.Join(Player{Name: "guest", Guest: true})
	l.TakeOver(context.Background(), a2, "7", "")
	if a1.Queue().Len() != 1 || a2.Queue().Len() != 0 || bob.Queue().Len() != 0 || guest.Queue().Len() != 0 {
		t.Fatalf("queues after a2 took over: %d %d %d %d, want only a1's holding one", a1.Queue().Len(), a2.Queue().Len(), bob.Queue().Len(), guest.Queue().Len())
	}
	if ev, err := a1.Queue().Next(context.Background()); ev != (TakenOver{GameID: "7"}) || err != nil {
		t.Fatalf("a1 got %v, %v", ev, err)
	}
	// Guests share no games: a guest's takeover tells nobody.
	g2 := l.Join(Player{Name: "guest", Guest: true})
	l.TakeOver(context.Background(), g2, "1", "")
	if guest.Queue().Len() != 0 {
		t.Fatal("a guest was told of another guest's takeover")
	}
}

// fakeTakeoverNet is a TakeoverNet that notes the takeovers told and
// whether each is still current, and refuses them with err.
type fakeTakeoverNet struct {
	mu      sync.Mutex
	told    []Takeover
	current []func() bool
	err     error
}

func (n *fakeTakeoverNet) TellTakeover(_ context.Context, t Takeover, current func() bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.told, n.current = append(n.told, t), append(n.current, current)
	return n.err
}

// TestLobbyTakeOverAcross: a takeover is told to the other servers with
// its player, and stays current (worth telling again) while its session
// is here and no newer takeover of the player's came, made here or
// heard of; one heard of tells every session of the player here.
func TestLobbyTakeOverAcross(t *testing.T) {
	ctx := context.Background()
	l := New(Config{})
	defer l.Close()
	n := &fakeTakeoverNet{err: errors.New("connection refused")}
	if err := l.AttachTakeovers(n); err != nil {
		t.Fatal(err)
	}
	if err := l.AttachTakeovers(n); err == nil {
		t.Fatal("a second TakeoverNet was attached")
	}
	alice := Player{ID: "SHA256:a", Name: "alice"}
	a1, a2 := l.Join(alice), l.Join(alice)
	if err := l.TakeOver(ctx, a1, "7", ""); !errors.Is(err, n.err) {
		t.Fatalf("TakeOver with the others unreachable: %v, want their error", err)
	}
	if len(n.told) != 1 || n.told[0] != (Takeover{Player: "SHA256:a", GameID: "7"}) || !n.current[0]() {
		t.Fatalf("told %+v, want alice's takeover of 7, current", n.told)
	}
	l.TakeOver(ctx, a2, "8", "abandoned")
	if n.current[0]() || !n.current[1]() {
		t.Fatal("after a newer takeover: the older still current, or the newer not")
	}
	l.HearTakeover(Takeover{Player: "SHA256:a", GameID: "9"})
	if n.current[1]() {
		t.Fatal("a takeover made here still current after one heard of")
	}
	evs1, evs2 := events(t, a1), events(t, a2)
	if len(evs1) != 2 || evs1[1] != (TakenOver{GameID: "9"}) || len(evs2) != 2 || evs2[1] != (TakenOver{GameID: "9"}) {
		t.Fatalf("alice's sessions got %v and %v, want each told of 9 last", evs1, evs2)
	}
	l.TakeOver(ctx, a1, "10", "")
	l.Leave(a1)
	if n.current[2]() {
		t.Fatal("a takeover still current after its session left")
	}
	l.TakeOver(ctx, l.Join(Player{Name: "guest", Guest: true}), "1", "")
	if len(n.told) != 3 {
		t.Fatalf("%d takeovers told, want a guest's not", len(n.told))
	}
}

// TestLobbyPresenceCoalesces: a burst of joins and leaves costs each viewer
// at most one PresenceChanged per PresenceEvery, and the last one it gets
// tells the final count.
func TestLobbyPresenceCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		const viewers, joins = 20, 300
		type got struct {
			at     []time.Time
			online int
		}
		results := make([]got, viewers)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i := range viewers {
			v := l.Join(Player{ID: fmt.Sprintf("v%d", i), Name: fmt.Sprintf("viewer%d", i)})
			l.WatchPresence(v, true)
			wg.Go(func() {
				for {
					ev, err := v.Queue().Next(ctx)
					if err != nil {
						return
					}
					if pc, ok := ev.(PresenceChanged); ok {
						results[i].at = append(results[i].at, time.Now())
						results[i].online = pc.Online
					}
				}
			})
		}
		synctest.Wait()
		start := time.Now()
		var joined []*Session
		for i := range joins {
			joined = append(joined, l.Join(Player{ID: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("p%d", i)}))
			if i%3 == 0 {
				l.Leave(joined[i/3])
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(2 * PresenceEvery)
		synctest.Wait()
		cancel()
		wg.Wait()
		most := 0
		defer func() {
			t.Logf("%d joins and %d leaves over 1.5 s: at most %d redraws per viewer", joins, joins/3, most)
		}()
		for i, r := range results {
			if r.online != l.Online() {
				t.Errorf("viewer %d: last told %d online, want %d", i, r.online, l.Online())
			}
			burst := 0
			for j, at := range r.at {
				if at.Before(start) {
					continue
				}
				burst++
				if j > 0 && at.Sub(r.at[j-1]) < PresenceEvery {
					t.Errorf("viewer %d: told at %v and again %v later, want at least %v apart", i, r.at[j-1].Sub(start), at.Sub(r.at[j-1]), PresenceEvery)
				}
			}
			most = max(most, burst)
			// 1.5 s of joins: told at once, then at most once per 500 ms.
			if limit := int(joins*5*time.Millisecond/PresenceEvery) + 2; burst > limit {
				t.Errorf("viewer %d: %d redraws for %d joins, want at most %d", i, burst, joins, limit)
			}
		}
		l.Close()
	})
}

// TestLobbyDropsAFullSession: among many sessions, one that never reads is
// dropped once its queue stayed full for DropAfter; posting to it never
// delays the sender, and every other session gets every event.
func TestLobbyDropsAFullSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		defer l.Close()
		const n, rounds = 200, 80
		stuck := l.Join(Player{ID: "stuck", Name: "stuck"})
		sessions := []*Session{stuck}
		counts := make([]int, n)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		for i := range n {
			s := l.Join(Player{ID: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("p%d", i)})
			sessions = append(sessions, s)
			wg.Go(func() {
				for {
					if _, err := s.Queue().Next(ctx); err != nil {
						return
					}
					counts[i]++
				}
			})
		}
		start := time.Now()
		dropped := time.Duration(-1)
		for r := range rounds {
			before := time.Now()
			for _, s := range sessions {
				l.Post(s, r)
			}
			if d := time.Since(before); d != 0 {
				t.Fatalf("round %d: posting to %d sessions took %v of the bubble's time: something waited", r, len(sessions), d)
			}
			if dropped < 0 && stuck.gone {
				dropped = time.Since(start)
			}
			synctest.Wait() // every reader has read what it was given
			time.Sleep(100 * time.Millisecond)
		}
		// Its queue fills in the round QueueSize (the first refused post),
		// and stays full from then on.
		if full := QueueSize * 100 * time.Millisecond; dropped < full+DropAfter || dropped > full+DropAfter+100*time.Millisecond {
			t.Fatalf("the stuck session was dropped after %v, want %v after its queue filled at %v", dropped, DropAfter, full)
		}
		for _, p := range l.Who() {
			if p.Name == "stuck" {
				t.Fatal("the dropped session is still in Who")
			}
		}
		if _, err := stuck.Queue().Next(ctx); !errors.Is(err, ErrClosed) {
			t.Fatalf("the dropped session's queue: %v, want ErrClosed", err)
		}
		cancel()
		wg.Wait()
		for i, c := range counts {
			if c != rounds {
				t.Fatalf("session %d read %d events, want %d", i, c, rounds)
			}
		}
	})
}

// TestLobbyViewers: a new viewer is told at once; one that stops viewing,
// or a session that never viewed, is told nothing; doing the same thing
// again is no change.
func TestLobbyViewers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		defer l.Close()
		v := l.Join(Player{ID: "v", Name: "viewer"})
		other := l.Join(Player{ID: "o", Name: "other"})
		time.Sleep(PresenceEvery)
		l.WatchPresence(v, true)
		if ev, err := v.Queue().Next(context.Background()); ev != (PresenceChanged{Online: 2}) || err != nil {
			t.Fatalf("a new viewer got %v, %v; want PresenceChanged{2}", ev, err)
		}
		l.SetDoing(other, Doing{What: Playing, Rules: "classic", Deal: 1})
		time.Sleep(PresenceEvery) // at most this long after the change
		synctest.Wait()
		if n := v.Queue().Len(); n != 1 {
			t.Fatalf("viewer's queue after a change: %d, want 1", n)
		}
		v.Queue().Next(context.Background())
		time.Sleep(PresenceEvery)
		l.SetDoing(other, Doing{What: Playing, Rules: "classic", Deal: 1})
		time.Sleep(PresenceEvery)
		if n := v.Queue().Len(); n != 0 {
			t.Fatalf("the same doing again told the viewer %d times", n)
		}
		l.WatchPresence(v, false)
		l.Join(Player{Name: "guest", Guest: true})
		time.Sleep(2 * PresenceEvery)
		if v.Queue().Len() != 0 || other.Queue().Len() != 0 {
			t.Fatalf("sessions that do not view were told: %d, %d", v.Queue().Len(), other.Queue().Len())
		}
		if got := l.Doing(other); got.What != Playing || got.Deal != 1 {
			t.Fatalf("Doing = %+v", got)
		}
	})
}

// TestLobbyClosed: after Close every queue is closed, a late join gets a
// closed queue, and nothing is posted.
func TestLobbyClosed(t *testing.T) {
	l := New(Config{})
	s := l.Join(Player{ID: "a", Name: "ann"})
	l.Close()
	if _, err := s.Queue().Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("a session's queue after Close: %v", err)
	}
	late := l.Join(Player{ID: "b", Name: "bob"})
	if l.Post(late, "x") || l.Online() != 0 || len(l.Who()) != 0 {
		t.Fatalf("a closed lobby took a session: post %v, online %d", l.Post(late, "x"), l.Online())
	}
	l.Close()
}
