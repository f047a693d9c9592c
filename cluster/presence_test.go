package cluster

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
	"pyramid/bus/pgbus"
	"pyramid/lobby"
	"pyramid/store/storetest"
)

// presenceCuttable is a bus whose publishes can be cut off, as if its
// server had died without a word (or lost its database for a while).
type presenceCuttable struct {
	bus.Bus
	mu  sync.Mutex
	cut bool
}

func (c *presenceCuttable) Publish(ctx context.Context, topic string, m bus.Message) (bus.Event, error) {
	c.mu.Lock()
	cut := c.cut
	c.mu.Unlock()
	if cut {
		return bus.Event{}, errors.New("cut off")
	}
	return c.Bus.Publish(ctx, topic, m)
}

// set cuts the bus off, or brings it back.
func (c *presenceCuttable) set(cut bool) {
	c.mu.Lock()
	c.cut = cut
	c.mu.Unlock()
}

func (c *presenceCuttable) kill() { c.set(true) }

// presenceCfg is short, for the tests' fake clock.
var presenceCfg = PresenceConfig{Heartbeat: 5 * time.Second, TTL: 15 * time.Second, Every: time.Second}

// presenceServer is a server of a cluster in a test: its lobby, its
// presence and (watchJoin) its spectating across servers.
type presenceServer struct {
	*lobby.Lobby
	presence   *Presence
	spectating *Spectating
}

// close closes the server as the arcade does: its lobby, then what
// carries it to the others (presence says bye).
func (s presenceServer) close() {
	s.Lobby.Close()
	if s.spectating != nil {
		s.spectating.Close()
	}
	s.presence.Close()
}

// presenceJoin is a lobby in a cluster on b as instance, closed when the
// test ends.
func presenceJoin(t *testing.T, b bus.Bus, instance string) presenceServer {
	t.Helper()
	l := lobby.New(lobby.Config{})
	p, err := JoinPresence(context.Background(), l, b, instance, presenceCfg)
	if err != nil {
		t.Fatalf("JoinPresence: %v", err)
	}
	s := presenceServer{Lobby: l, presence: p}
	t.Cleanup(func() { s.close() })
	return s
}

// presenceWho lists a Who snapshot as name:doing@instance.
func presenceWho(l presenceServer) string {
	var s []string
	for _, p := range l.Who() {
		s = append(s, fmt.Sprintf("%s:%s@%s", p.Name, p.What, p.Instance))
	}
	return strings.Join(s, " ")
}

func TestPresenceWho(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := presenceJoin(t, b, "one"), presenceJoin(t, b, "two")
		ann := one.Join(lobby.Player{ID: "a", Name: "ann"})
		bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
		two.Join(lobby.Player{Name: "guest", Guest: true})
		one.Join(lobby.Player{Name: "guest", Guest: true})
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		if got, want := presenceWho(one), "ann:menu@ bob:menu@two guest:menu@ guest:menu@two"; got != want {
			t.Fatalf("Who on one: %q, want %q", got, want)
		}
		if got, want := presenceWho(two), "ann:menu@one bob:menu@ guest:menu@ guest:menu@one"; got != want {
			t.Fatalf("Who on two: %q, want %q", got, want)
		}
		if one.Online() != 4 || two.Online() != 4 {
			t.Fatalf("Online: %d and %d, want 4 on both", one.Online(), two.Online())
		}

		// A change goes across within Every, many changes as one.
		for i := range 50 {
			two.SetDoing(bob, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 7, Removed: i})
		}
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		if p := one.Who()[1]; p.Name != "bob" || p.What != lobby.Playing || p.Removed != 49 || p.Deal != 7 {
			t.Fatalf("bob on one: %+v, want playing classic 7 with 49 removed", p)
		}

		// A player with sessions on both servers is listed once, with
		// the session that changed last.
		time.Sleep(time.Second)
		ann2 := two.Join(lobby.Player{ID: "a", Name: "ann"})
		two.SetDoing(ann2, lobby.Doing{What: lobby.Watching, Watched: "bob"})
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		for _, l := range []presenceServer{one, two} {
			if got, want := presenceWho(l), "ann:watching@"; !strings.HasPrefix(got, want) || strings.Count(got, "ann") != 1 {
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
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		if got, want := presenceWho(one), "guest:menu@ guest:menu@two"; got != want {
			t.Fatalf("Who on one after leaving: %q, want %q", got, want)
		}
	})
}

// TestPresenceKilled: a server that dies without a word loses its
// players on the others once their time to live runs out, not before.
func TestPresenceKilled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		dying := &presenceCuttable{Bus: b}
		one, two := presenceJoin(t, b, "one"), presenceJoin(t, dying, "two")
		two.Join(lobby.Player{ID: "b", Name: "bob"})
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		if got := presenceWho(one); got != "bob:menu@two" {
			t.Fatalf("Who on one: %q", got)
		}
		dying.kill()
		start := time.Now()
		for presenceWho(one) != "" {
			time.Sleep(100 * time.Millisecond)
		}
		// Gone between TTL after the last heartbeat heard (at most
		// Heartbeat before the kill) and TTL plus the sweep's Heartbeat.
		if gone := time.Since(start); gone < presenceCfg.TTL-presenceCfg.Heartbeat || gone > presenceCfg.TTL+presenceCfg.Heartbeat {
			t.Fatalf("bob gone %s after his server died, want about the TTL, %s", gone, presenceCfg.TTL)
		}
	})
}

// TestPresenceByeHello: a server that stops says bye and its players go
// at once; one that starts hears the others' rosters at once, not at
// their next heartbeat.
func TestPresenceByeHello(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one := presenceJoin(t, b, "one")
		one.Join(lobby.Player{ID: "a", Name: "ann"})
		time.Sleep(time.Millisecond)
		two := presenceJoin(t, b, "two")
		two.Join(lobby.Player{ID: "b", Name: "bob"})
		synctest.Wait()
		if got := presenceWho(two); got != "ann:menu@one bob:menu@" {
			t.Fatalf("Who on a server just started: %q, want ann from one already", got)
		}
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		if got := presenceWho(one); got != "ann:menu@ bob:menu@two" {
			t.Fatalf("Who on one: %q", got)
		}
		two.close()
		synctest.Wait()
		if got := presenceWho(one); got != "ann:menu@" {
			t.Fatalf("Who on one after two said bye: %q, want ann alone", got)
		}
	})
}

// TestPresenceViewers: a viewer of presence on one server hears of a
// player joining another.
func TestPresenceViewers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := presenceJoin(t, b, "one"), presenceJoin(t, b, "two")
		viewer := one.Join(lobby.Player{ID: "a", Name: "ann"})
		one.WatchPresence(viewer, true)
		ctx := context.Background()
		if ev, err := viewer.Queue().Next(ctx); err != nil || ev.(lobby.PresenceChanged).Online != 1 {
			t.Fatalf("first event: %v, %v", ev, err)
		}
		two.Join(lobby.Player{ID: "b", Name: "bob"})
		ev, err := viewer.Queue().Next(ctx)
		if err != nil || ev.(lobby.PresenceChanged).Online != 2 {
			t.Fatalf("after bob joined the other server: %v, %v; want PresenceChanged of 2 online", ev, err)
		}
	})
}

// TestPresenceSplit: a big roster goes in several events, each within
// the bus's body limit, and arrives whole; so do the keys of a thousand
// players leaving at once, before any heartbeat.
func TestPresenceSplit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		sub, err := b.Subscribe(context.Background(), PresenceTopic, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		one := presenceJoin(t, b, "one")
		const n = 1000
		sessions := make([]*lobby.Session, n)
		for i := range n {
			s := one.Join(lobby.Player{ID: fmt.Sprint("id-", i), Name: fmt.Sprintf("player%03d", i)})
			one.SetDoing(s, lobby.Doing{What: lobby.Racing, Rules: "classic-draw3-passes3", Deal: 1 << 60, Removed: 27, Room: "ABCD"})
			sessions[i] = s
		}
		two := presenceJoin(t, b, "two")
		synctest.Wait()
		if got := two.Online(); got != n {
			t.Fatalf("Online on two: %d, want %d", got, n)
		}
		// All leave at once: the keys gone are split too.
		for _, s := range sessions {
			one.Leave(s)
		}
		time.Sleep(2 * time.Second) // past the changes' publish, before a heartbeat or the TTL
		synctest.Wait()
		if got := two.Online(); got != 0 {
			t.Fatalf("Online on two after all left: %d, want 0", got)
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

// TestPresenceDaily: a result recorded on one server's daily board
// tells the viewers of the board on the others, at once.
func TestPresenceDaily(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := presenceJoin(t, b, "one"), presenceJoin(t, b, "two")
		here, there := one.Join(lobby.Player{ID: "a", Name: "ann"}), two.Join(lobby.Player{ID: "b", Name: "bob"})
		one.WatchDaily(here, true)
		two.WatchDaily(there, true)
		synctest.Wait()
		one.DailyFinished("daily", "2026-12-01")
		synctest.Wait()
		want := lobby.DailyChanged{Rules: "daily", Date: "2026-12-01"}
		for _, tt := range []struct {
			name string
			s    *lobby.Session
		}{{"this server's viewer", here}, {"the other server's viewer", there}} {
			// (t.Run is not allowed in a synctest bubble.)
			if !presenceGot(tt.s, want) {
				t.Errorf("%s: no %+v", tt.name, want)
			}
		}
	})
}

// presenceGot reports whether s's queue holds want among the events it
// has now.
func presenceGot(s *lobby.Session, want lobby.Event) bool {
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

// presenceBatchCounter is a Memory bus that counts the posts of each
// batch.
type presenceBatchCounter struct {
	*bus.Memory
	mu    sync.Mutex
	sizes []int
}

func (b *presenceBatchCounter) PublishBatch(ctx context.Context, posts []bus.Post) ([]bus.Event, error) {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(posts))
	b.mu.Unlock()
	return b.Memory.PublishBatch(ctx, posts)
}

// TestPresenceRosterOneBatch: the parts of a big roster go out in one
// batch (one commit on PostgreSQL), not one publish each.
func TestPresenceRosterOneBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &presenceBatchCounter{Memory: bus.NewMemory(bus.MemoryOptions{})}
		defer b.Close()
		one := presenceJoin(t, b, "one")
		for i := range 300 {
			s := one.Join(lobby.Player{ID: fmt.Sprint("id-", i), Name: fmt.Sprintf("player%03d", i)})
			one.SetDoing(s, lobby.Doing{What: lobby.Racing, Rules: "classic-draw3-passes3", Deal: 1 << 60, Removed: 27, Room: "ABCD"})
		}
		time.Sleep(presenceCfg.Heartbeat) // the bubble's clock: one heartbeat, the whole roster
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

// TestPresencePlayingRules: on two servers the daily board said "1
// player is playing today's deal now" while two were (one on each): the
// count was of this server's sessions alone; it counts the cluster's,
// each player once.
func TestPresencePlayingRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := presenceJoin(t, b, "one"), presenceJoin(t, b, "two")
		daily := lobby.Doing{What: lobby.Playing, Rules: "daily", Deal: 9}
		one.SetDoing(one.Join(lobby.Player{ID: "a", Name: "ann"}), daily)
		two.SetDoing(two.Join(lobby.Player{ID: "b", Name: "bob"}), daily)
		two.SetDoing(two.Join(lobby.Player{ID: "a", Name: "ann"}), daily) // ann's second session
		two.SetDoing(two.Join(lobby.Player{ID: "c", Name: "cat"}), lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 9})
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		if got1, got2 := one.PlayingRules("daily"), two.PlayingRules("daily"); got1 != 2 || got2 != 2 {
			t.Fatalf("playing the daily: %d on one, %d on two; want 2 on both", got1, got2)
		}
	})
}

// TestPresenceFinishedNotPlaying: a player still at the table of a game
// that is over (Doing.Finished) shows as finished on every server of the
// cluster and is not counted among those playing its rules (the live
// daily board's "N playing now").
func TestPresenceFinishedNotPlaying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := presenceJoin(t, b, "one"), presenceJoin(t, b, "two")
		daily := lobby.Doing{What: lobby.Playing, Rules: "daily", Deal: 9, Removed: 28}
		done := daily
		done.Finished = true
		one.SetDoing(one.Join(lobby.Player{ID: "a", Name: "ann"}), done)
		two.SetDoing(two.Join(lobby.Player{ID: "b", Name: "bob"}), daily)
		two.SetDoing(two.Join(lobby.Player{ID: "c", Name: "cat"}), done)
		time.Sleep(presenceCfg.Every)
		synctest.Wait()
		for _, l := range []presenceServer{one, two} {
			if n := l.PlayingRules("daily"); n != 1 {
				t.Errorf("PlayingRules(daily) = %d, want 1 (bob; ann and cat finished)", n)
			}
			for _, p := range l.Who() {
				if want := p.Name != "bob"; p.Finished != want || p.What != lobby.Playing {
					t.Errorf("%s: %+v, want playing, finished %v", p.Name, p.Doing, want)
				}
			}
		}
	})
}

// TestPresenceWirePhase: a racer's phase crosses to the other servers
// of a cluster with the rest of what they do.
func TestPresenceWirePhase(t *testing.T) {
	w := presenceEntry{Key: "a", ID: "a", Name: "ann", What: lobby.Racing, Rules: "classic", Deal: 3, Room: "KMTX", Phase: lobby.RaceResults}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back presenceEntry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if e := back.entry(); e.Phase != lobby.RaceResults || e.Room != "KMTX" {
		t.Fatalf("across the wire %s: %+v, want room KMTX at its results", b, e.Doing)
	}
}

// TestPresencePostgres: two servers on one PostgreSQL, each on a bus of
// its own, as in a cluster: who on either lists the players of both,
// what one does crosses, and a server that stops takes its players with
// it.
func TestPresencePostgres(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	ctx := context.Background()
	server := func(instance string) presenceServer {
		b, err := pgbus.Open(ctx, u, pgbus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		l := lobby.New(lobby.Config{})
		p, err := JoinPresence(ctx, l, b, instance, PresenceConfig{Heartbeat: time.Second, Every: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s := presenceServer{Lobby: l, presence: p}
		t.Cleanup(s.close) // before the bus closes (cleanups run last first)
		return s
	}
	one, two := server("one"), server("two")
	one.Join(lobby.Player{ID: "a", Name: "ann"})
	bob := two.Join(lobby.Player{ID: "b", Name: "bob"})
	eventually(t, "both servers list ann and bob", func() bool {
		return presenceWho(one) == "ann:menu@ bob:menu@two" && presenceWho(two) == "ann:menu@one bob:menu@"
	})
	two.SetDoing(bob, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 7, Removed: 3})
	eventually(t, "one shows bob playing", func() bool { return presenceWho(one) == "ann:menu@ bob:playing@two" })
	two.close()
	eventually(t, "one lists ann alone once two said bye", func() bool { return presenceWho(one) == "ann:menu@" })
}

// TestPresenceWirePrivate: a racer in a private room crosses to the other
// servers as in a private room, with neither its code nor its deal: their
// who and Lobby say "racing in a private room" too.
func TestPresenceWirePrivate(t *testing.T) {
	w := presenceEntry{Key: "a", ID: "a", Name: "ann", What: lobby.Racing, Rules: "classic", Private: true, Phase: lobby.RaceRunning}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back presenceEntry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if e := back.entry(); !e.Private || e.Room != "" || e.Deal != 0 {
		t.Fatalf("across the wire %s: %+v, want a private room, no code, no deal", b, e.Doing)
	}
}
