package pgbus

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/lobby"
	"pyramid/store/storetest"
)

var (
	loadFor      = flag.Duration("pgbus.load", 0, "run TestPresenceLoad for this long (0: skip it)")
	loadSessions = flag.Int("pgbus.sessions", 200, "sessions of TestPresenceLoad, split over two servers")
	loadEvery    = flag.Duration("pgbus.every", 500*time.Millisecond, "how often each session of TestPresenceLoad changes what it does")
	loadRounds   = flag.Int("pgbus.rounds", 2, "rounds of TestProgressLoad, each one durable and one volatile")
)

// TestPresenceLoad measures the NOTIFYs two servers' presence costs when
// every one of their sessions changes what it does (a move) every
// -pgbus.every, and how long a change takes to show in Who on the other
// server. It runs only with -pgbus.load:
//
//	go test ./bus/pgbus -run PresenceLoad -pgbus.load=20s -v
func TestPresenceLoad(t *testing.T) {
	if *loadFor <= 0 {
		t.Skip("a measurement: run with -pgbus.load=20s")
	}
	u := storetest.PostgresSchemaURL(t)
	busOne, busTwo := open(t, u, Options{}), open(t, u, Options{})
	one, two := lobby.New(lobby.Config{}), lobby.New(lobby.Config{})
	defer one.Close()
	defer two.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *loadFor+time.Minute)
	defer cancel()
	for i, pair := range []struct {
		l *lobby.Lobby
		b *Bus
	}{{one, busOne}, {two, busTwo}} {
		tk, err := cluster.JoinTakeovers(ctx, pair.l, pair.b, fmt.Sprint("server-", i))
		if err != nil {
			t.Fatal(err)
		}
		defer tk.Close()
		p, err := cluster.JoinPresence(ctx, pair.l, pair.b, fmt.Sprint("server-", i), cluster.PresenceConfig{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
	}
	var sessions []*lobby.Session
	for i := range *loadSessions {
		l := one
		if i%2 == 1 {
			l = two
		}
		sessions = append(sessions, l.Join(lobby.Player{ID: fmt.Sprint("id-", i), Name: fmt.Sprintf("p%03d", i)}))
	}
	lobbyOf := func(i int) *lobby.Lobby {
		if i%2 == 1 {
			return two
		}
		return one
	}
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	notifies := func() int64 {
		var n int64
		if err := admin.QueryRow(context.Background(), "SELECT coalesce(sum(seq), 0) FROM bus_topics").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Let the hellos and first rosters pass.
	for two.Online() != *loadSessions || one.Online() != *loadSessions {
		time.Sleep(10 * time.Millisecond) // polling, not synchronising
	}
	before, start := notifies(), time.Now()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(*loadEvery / time.Duration(len(sessions)))
		defer tick.Stop()
		moves := make([]int, len(sessions))
		for i := 0; ; i = (i + 1) % len(sessions) {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			moves[i]++
			lobbyOf(i).SetDoing(sessions[i], lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: uint64(i), Removed: moves[i]})
		}
	}()
	// The bus's own latency under that load, as a race's progress would
	// see it: events published on server one, 20 a second, read on two.
	raceSub, err := busTwo.Subscribe(ctx, "race.probe", bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	var busLat []time.Duration
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			ev, err := raceSub.Next(ctx)
			if err != nil {
				return
			}
			var sent time.Time
			if sent.UnmarshalBinary(ev.Body) == nil {
				busLat = append(busLat, time.Since(sent))
			}
		}
	}()
	racing := make(chan struct{})
	var pubLat []time.Duration // of Publish alone
	go func() {
		defer close(racing)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			at := time.Now()
			body, _ := at.MarshalBinary()
			if _, err := busOne.Publish(ctx, "race.probe", bus.Message{Kind: "progress", Body: body}); err != nil {
				t.Errorf("Publish: %v", err)
				return
			}
			pubLat = append(pubLat, time.Since(at))
		}
	}()
	// The probe: a session of server one changes; how long until two
	// lists the change.
	probe := one.Join(lobby.Player{ID: "probe", Name: "probe"})
	var lat []time.Duration
	for n := 1; time.Since(start) < *loadFor; n++ {
		sent := time.Now()
		one.SetDoing(probe, lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 1, Removed: n})
		for !seen(two, n) {
			time.Sleep(2 * time.Millisecond) // polling, not synchronising
		}
		lat = append(lat, time.Since(sent))
		time.Sleep(300 * time.Millisecond) // the probe's pace
	}
	close(stop)
	<-done
	<-racing
	elapsed, sent := time.Since(start), notifies()-before
	raceSub.Close()
	<-read
	slices.Sort(busLat)
	slices.Sort(pubLat)
	t.Logf("meanwhile a bus event from server one to a subscriber on two: p50 %s, p99 %s, max %s (%d events, 20/s, counted in the NOTIFYs); of which Publish: p50 %s, p99 %s",
		busLat[len(busLat)/2], busLat[len(busLat)*99/100], busLat[len(busLat)-1], len(busLat), pubLat[len(pubLat)/2], pubLat[len(pubLat)*99/100])
	slices.Sort(lat)
	t.Logf("%d sessions on 2 servers, each changing every %s (%.0f changes/s): %d NOTIFYs in %s = %.1f/s; "+
		"a change on one server in Who on the other: p50 %s, p99 %s, max %s (%d probes)",
		len(sessions), *loadEvery, float64(len(sessions))/loadEvery.Seconds(), sent, elapsed.Round(time.Millisecond),
		float64(sent)/elapsed.Seconds(), lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], len(lat))
}

// seen reports whether l lists the probe with n removed.
func seen(l *lobby.Lobby, n int) bool {
	for _, p := range l.Who() {
		if p.ID == "probe" {
			return p.Removed == n
		}
	}
	return false
}
