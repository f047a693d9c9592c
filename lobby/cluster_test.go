package lobby

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
)

// cuttable is a bus whose publishes can be cut off, as if its server had
// died without a word.
type cuttable struct {
	bus.Bus
	mu  sync.Mutex
	cut bool
}

func (c *cuttable) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	c.mu.Lock()
	cut := c.cut
	c.mu.Unlock()
	if cut {
		return bus.Event{}, errors.New("cut off")
	}
	return c.Bus.Publish(ctx, topic, m)
}

func (c *cuttable) kill() {
	c.mu.Lock()
	c.cut = true
	c.mu.Unlock()
}

// clusterCfg is short, for the tests' fake clock.
var clusterCfg = ClusterConfig{Heartbeat: 5 * time.Second, TTL: 15 * time.Second, Every: time.Second}

// joined is a lobby in a cluster on b as instance, closed when the test
// ends.
func joined(t *testing.T, b bus.Bus, instance string) *Lobby {
	t.Helper()
	l := New(Config{})
	t.Cleanup(l.Close)
	if err := l.Cluster(context.Background(), b, instance, clusterCfg); err != nil {
		t.Fatalf("Cluster: %v", err)
	}
	return l
}

// whoOf lists a Who snapshot as name:doing@instance.
func whoOf(l *Lobby) string {
	var s []string
	for _, p := range l.Who() {
		s = append(s, fmt.Sprintf("%s:%s@%s", p.Name, p.What, p.Instance))
	}
	return strings.Join(s, " ")
}

func TestClusterWho(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		ann := one.Join(Player{ID: "a", Name: "ann"})
		bob := two.Join(Player{ID: "b", Name: "bob"})
		two.Join(Player{Name: "guest", Guest: true})
		one.Join(Player{Name: "guest", Guest: true})
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if got, want := whoOf(one), "ann:menu@ bob:menu@two guest:menu@ guest:menu@two"; got != want {
			t.Fatalf("Who on one: %q, want %q", got, want)
		}
		if got, want := whoOf(two), "ann:menu@one bob:menu@ guest:menu@ guest:menu@one"; got != want {
			t.Fatalf("Who on two: %q, want %q", got, want)
		}
		if one.Online() != 4 || two.Online() != 4 {
			t.Fatalf("Online: %d and %d, want 4 on both", one.Online(), two.Online())
		}

		// A change goes across within Every, many changes as one.
		for i := range 50 {
			two.SetDoing(bob, Doing{What: Playing, Rules: "classic", Deal: 7, Removed: i})
		}
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if p := one.Who()[1]; p.Name != "bob" || p.What != Playing || p.Removed != 49 || p.Deal != 7 {
			t.Fatalf("bob on one: %+v, want playing classic 7 with 49 removed", p)
		}

		// A player with sessions on both servers is listed once, with
		// the session that changed last.
		time.Sleep(time.Second)
		ann2 := two.Join(Player{ID: "a", Name: "ann"})
		two.SetDoing(ann2, Doing{What: Watching, Watched: "bob"})
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		for _, l := range []*Lobby{one, two} {
			if got, want := whoOf(l), "ann:watching@"; !strings.HasPrefix(got, want) || strings.Count(got, "ann") != 1 {
				t.Fatalf("Who: %q, want ann once, watching", got)
			}
		}
		if one.Online() != 4 {
			t.Fatalf("Online on one: %d, want 4", one.Online())
		}

		// Leaving goes across.
		two.Leave(ann2)
		two.Leave(bob)
		one.Leave(ann)
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if got, want := whoOf(one), "guest:menu@ guest:menu@two"; got != want {
			t.Fatalf("Who on one after leaving: %q, want %q", got, want)
		}
	})
}

// TestClusterKilled: a server that dies without a word loses its players
// on the others once their time to live runs out, not before.
func TestClusterKilled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		dying := &cuttable{Bus: b}
		one, two := joined(t, b, "one"), joined(t, dying, "two")
		two.Join(Player{ID: "b", Name: "bob"})
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if got := whoOf(one); got != "bob:menu@two" {
			t.Fatalf("Who on one: %q", got)
		}
		dying.kill()
		start := time.Now()
		for whoOf(one) != "" {
			time.Sleep(100 * time.Millisecond)
		}
		// Gone between TTL after the last heartbeat heard (at most
		// Heartbeat before the kill) and TTL plus the sweep's Heartbeat.
		if gone := time.Since(start); gone < clusterCfg.TTL-clusterCfg.Heartbeat || gone > clusterCfg.TTL+clusterCfg.Heartbeat {
			t.Fatalf("bob gone %s after his server died, want about the TTL, %s", gone, clusterCfg.TTL)
		}
	})
}

// TestClusterByeHello: a server that stops says bye and its players go at
// once; one that starts hears the others' rosters at once, not at their
// next heartbeat.
func TestClusterByeHello(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one := joined(t, b, "one")
		one.Join(Player{ID: "a", Name: "ann"})
		time.Sleep(time.Millisecond)
		two := joined(t, b, "two")
		two.Join(Player{ID: "b", Name: "bob"})
		synctest.Wait()
		if got := whoOf(two); got != "ann:menu@one bob:menu@" {
			t.Fatalf("Who on a server just started: %q, want ann from one already", got)
		}
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if got := whoOf(one); got != "ann:menu@ bob:menu@two" {
			t.Fatalf("Who on one: %q", got)
		}
		two.Close()
		synctest.Wait()
		if got := whoOf(one); got != "ann:menu@" {
			t.Fatalf("Who on one after two said bye: %q, want ann alone", got)
		}
	})
}

// TestClusterViewers: a viewer of presence on one server hears of a
// player joining another.
func TestClusterViewers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		viewer := one.Join(Player{ID: "a", Name: "ann"})
		one.WatchPresence(viewer, true)
		ctx := context.Background()
		if ev, err := viewer.Queue().Next(ctx); err != nil || ev.(PresenceChanged).Online != 1 {
			t.Fatalf("first event: %v, %v", ev, err)
		}
		two.Join(Player{ID: "b", Name: "bob"})
		ev, err := viewer.Queue().Next(ctx)
		if err != nil || ev.(PresenceChanged).Online != 2 {
			t.Fatalf("after bob joined the other server: %v, %v; want PresenceChanged of 2 online", ev, err)
		}
	})
}

// TestClusterSplit: a big roster goes in several events, each within the
// bus's body limit, and arrives whole.
func TestClusterSplit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		sub, err := b.Subscribe(context.Background(), PresenceTopic, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		one := joined(t, b, "one")
		const n = 300
		for i := range n {
			s := one.Join(Player{ID: fmt.Sprint("id-", i), Name: fmt.Sprintf("player%03d", i)})
			one.SetDoing(s, Doing{What: Racing, Rules: "classic-draw3-passes3", Deal: 1 << 60, Removed: 27, Room: "ABCD"})
		}
		two := joined(t, b, "two")
		synctest.Wait()
		if got := two.Online(); got != n {
			t.Fatalf("Online on two: %d, want %d", got, n)
		}
		events := 0
		for {
			short, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			ev, err := sub.Next(short)
			cancel()
			if err != nil {
				break
			}
			events++
			if len(ev.Body) > bus.MaxBody {
				t.Fatalf("an event of %d bytes", len(ev.Body))
			}
			var m presenceMsg
			if err := json.Unmarshal(ev.Body, &m); err != nil {
				t.Fatal(err)
			}
		}
		if events < 3 {
			t.Fatalf("%d events for %d players, want the roster split", events, n)
		}
	})
}

// TestClusterDaily: a result recorded on one server's daily board tells
// the viewers of the board on the others, at once.
func TestClusterDaily(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		here, there := one.Join(Player{ID: "a", Name: "ann"}), two.Join(Player{ID: "b", Name: "bob"})
		one.WatchDaily(here, true)
		two.WatchDaily(there, true)
		synctest.Wait()
		one.DailyFinished("daily", "2026-12-01")
		synctest.Wait()
		want := DailyChanged{Rules: "daily", Date: "2026-12-01"}
		for _, tt := range []struct {
			name string
			s    *Session
		}{{"this server's viewer", here}, {"the other server's viewer", there}} {
			// (t.Run is not allowed in a synctest bubble.)
			if !gotEvent(tt.s, want) {
				t.Errorf("%s: no %+v", tt.name, want)
			}
		}
	})
}

// gotEvent reports whether s's queue holds want among the events it has
// now.
func gotEvent(s *Session, want Event) bool {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		ev, err := s.Queue().Next(ctx)
		cancel()
		if err != nil {
			return false
		}
		if ev == want {
			return true
		}
	}
}

// batchCounter is a Memory bus that counts the posts of each batch.
type batchCounter struct {
	*bus.Memory
	mu    sync.Mutex
	sizes []int
}

func (b *batchCounter) PublishBatch(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(posts))
	b.mu.Unlock()
	return b.Memory.PublishBatch(ctx, posts)
}

// TestClusterRosterOneBatch: the parts of a big roster go out in one
// batch (one commit on PostgreSQL), not one publish each.
func TestClusterRosterOneBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &batchCounter{Memory: bus.NewMemory(bus.MemoryOptions{})}
		defer b.Close()
		one := joined(t, b, "one")
		for i := range 300 {
			s := one.Join(Player{ID: fmt.Sprint("id-", i), Name: fmt.Sprintf("player%03d", i)})
			one.SetDoing(s, Doing{What: Racing, Rules: "classic-draw3-passes3", Deal: 1 << 60, Removed: 27, Room: "ABCD"})
		}
		time.Sleep(clusterCfg.Heartbeat) // the bubble's clock: one heartbeat, the whole roster
		synctest.Wait()
		b.mu.Lock()
		defer b.mu.Unlock()
		most := 0
		for _, n := range b.sizes {
			most = max(most, n)
		}
		if most < 3 {
			t.Fatalf("batches of %v posts, want the whole roster's parts (3 or more) in one", b.sizes)
		}
	})
}

// TestClusterPlayingRules: on two servers the daily board said "1 player
// is playing today's deal now" while two were (one on each): the count
// was of this server's sessions alone; it counts the cluster's, each
// player once.
func TestClusterPlayingRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		daily := Doing{What: Playing, Rules: "daily", Deal: 9}
		one.SetDoing(one.Join(Player{ID: "a", Name: "ann"}), daily)
		two.SetDoing(two.Join(Player{ID: "b", Name: "bob"}), daily)
		two.SetDoing(two.Join(Player{ID: "a", Name: "ann"}), daily) // ann's second session
		two.SetDoing(two.Join(Player{ID: "c", Name: "cat"}), Doing{What: Playing, Rules: "classic", Deal: 9})
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if got1, got2 := one.PlayingRules("daily"), two.PlayingRules("daily"); got1 != 2 || got2 != 2 {
			t.Fatalf("playing the daily: %d on one, %d on two; want 2 on both", got1, got2)
		}
	})
}
