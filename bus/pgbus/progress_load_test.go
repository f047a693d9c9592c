package pgbus

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pyramid/bus"
	"pyramid/store/storetest"
)

// durableOnly is a bus without PublishVolatile: a Coalescer on it
// publishes every batch durable, as before volatile batches.
type durableOnly struct{ bus.Batcher }

// TestProgressLoad measures the race progress's way from one server to
// another through the bus alone (no sessions, no terminals), as the
// cluster race loads it: 63 rooms, 4 racers of each server in each,
// each moving every 2 s, coalesced per room and server every 100 ms on
// both servers, while each server's game saves (one batch after
// another, as sqlstore's group commit makes them) keep the disk
// syncing. It alternates durable and volatile progress batches
// (-pgbus.rounds of each), so that both are measured in the same
// minutes. It runs only with -pgbus.load:
//
//	go test ./bus/pgbus -run ProgressLoad -pgbus.load=10s -pgbus.rounds=3 -v
func TestProgressLoad(t *testing.T) {
	if *loadFor <= 0 {
		t.Skip("a measurement: run with -pgbus.load=10s")
	}
	for round := range *loadRounds {
		for _, volatile := range []bool{false, true} {
			name := fmt.Sprint("durable ", round)
			if volatile {
				name = fmt.Sprint("volatile ", round)
			}
			t.Run(name, func(t *testing.T) { progressLoad(t, volatile) })
		}
	}
}

func progressLoad(t *testing.T, volatile bool) {
	const (
		rooms, racers = 63, 4
		moveEvery     = 2 * time.Second
		every         = 100 * time.Millisecond
	)
	u := storetest.PostgresSchemaURL(t)
	buses := []*Bus{open(t, u, Options{}), open(t, u, Options{})}
	ctx, cancel := context.WithTimeout(context.Background(), *loadFor+time.Minute)
	defer cancel()
	// The saves: a table of games, one UPDATE of 60 rows after another
	// per server.
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, `CREATE TABLE saves (id int PRIMARY KEY, moves text NOT NULL);
		INSERT INTO saves SELECT i, '' FROM generate_series(1, 600) AS i`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	saves := make([]int, len(buses))
	for i, b := range buses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := b.pool.Exec(ctx, `UPDATE saves SET moves = moves || 'x' WHERE id % 10 = $1`, (2*n+i)%10); err != nil {
					if ctx.Err() == nil {
						t.Errorf("save: %v", err)
					}
					return
				}
				saves[i]++
			}
		}()
	}
	// Each server's coalescer, and the other's subscriptions.
	var mu sync.Mutex
	var lat []time.Duration
	for i, b := range buses {
		var pub bus.Bus = b
		if !volatile {
			pub = durableOnly{b}
		}
		c := bus.NewCoalescer(pub, every, func(topic string, err error) { t.Errorf("publish on %s: %v", topic, err) })
		defer c.Close()
		other := buses[1-i]
		for room := range rooms {
			topic := fmt.Sprintf("lobby.room.R%02d.s%d", room, i)
			sub, err := other.Subscribe(ctx, topic, bus.Latest)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ev, err := sub.Next(ctx)
					if err != nil {
						return
					}
					var sent time.Time
					if sent.UnmarshalBinary(ev.Body) == nil {
						mu.Lock()
						lat = append(lat, time.Since(sent))
						mu.Unlock()
					}
				}
			}()
			for r := range racers {
				phase := time.Duration((room*racers+r)*7919%int(moveEvery/time.Millisecond)) * time.Millisecond
				wg.Add(1)
				go func() {
					defer wg.Done()
					timer := time.NewTimer(phase)
					defer timer.Stop()
					for {
						select {
						case <-stop:
							return
						case <-timer.C:
						}
						body, _ := time.Now().MarshalBinary()
						c.Offer(topic, bus.Message{Kind: "progress", Body: body})
						timer.Reset(moveEvery)
					}
				}()
			}
		}
	}
	start := time.Now()
	time.Sleep(*loadFor) // the measurement's length: the load runs meanwhile
	close(stop)
	elapsed := time.Since(start)
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatal("no progress arrived")
	}
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(100 * time.Microsecond)
	}
	s0, s1 := buses[0].Stats(), buses[1].Stats()
	t.Logf("offer on one server → event on the other: p50 %s  p90 %s  p99 %s  max %s (%d events); %.0f progress commits/s, %.0f save statements/s",
		q(0.5), q(0.9), q(0.99), lat[len(lat)-1].Round(100*time.Microsecond), len(lat),
		float64(s0.Commits+s1.Commits)/elapsed.Seconds(), float64(saves[0]+saves[1])/elapsed.Seconds())
}
