package sqlstore

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

// benchPaced turns BenchmarkSaveMove into the load test of the hardening
// notes (T12): each of the players saves one move a second, for this long,
// instead of saving as fast as it can.
var benchPaced = flag.Duration("pyramid.paced", 0, "run BenchmarkSaveMove at one save per player per second for this long")

// benchNoTimes leaves the move times out of BenchmarkSaveMove's saves, to
// measure what writing them costs.
var benchNoTimes = flag.Bool("pyramid.notimes", false, "BenchmarkSaveMove without move times")

// benchPlayers is the number of simulated players.
var benchPlayers = flag.Int("pyramid.players", 200, "BenchmarkSaveMove's simulated players")

// BenchmarkSaveMove has 200 simulated players (-pyramid.players) each
// saving the moves of their own game, and reports commit latency
// percentiles. By default the b.N saves are spread over the 200
// goroutines with no pause (the store at saturation); with
// -pyramid.paced=60s each player saves once a second for a minute, as
// real players would at a brisk pace. On SQLite the saves go through the
// group commit (group.go), and sqlite-solo stores each in its own
// statement, as before it; on PostgreSQL likewise (pggroup.go) with
// postgres-solo.
//
//	go test -run '^$' -bench SaveMove ./store/sqlstore/
//	go test -run '^$' -bench SaveMove/sqlite -benchtime 1x -timeout 5m ./store/sqlstore/ -pyramid.paced=60s
func BenchmarkSaveMove(b *testing.B) {
	for _, solo := range []bool{false, true} {
		name := "sqlite"
		if solo {
			name = "sqlite-solo"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			s, err := OpenConfig(context.Background(), Config{DataDir: dir})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.soloSaves = solo
			benchSaveMove(b, s)
			if txs, saves := s.saves.counts(); txs > 0 {
				b.ReportMetric(float64(saves)/float64(txs), "saves/tx")
			}
			if fi, err := os.Stat(dbPath(b, s) + "-wal"); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "wal-MiB")
			}
		})
	}
	for _, solo := range []bool{false, true} {
		name := "postgres"
		if solo {
			name = "postgres-solo"
		}
		b.Run(name, func(b *testing.B) {
			s := openPostgres(b, time.Now)
			s.soloSaves = solo
			benchSaveMove(b, s)
			if txs, saves := s.saves.counts(); txs > 0 {
				b.ReportMetric(float64(saves)/float64(txs), "saves/tx")
			}
		})
	}
}

func benchSaveMove(b *testing.B, s *Store) {
	ctx := context.Background()
	games := make([]store.Game, *benchPlayers)
	for i := range games {
		p, _, err := s.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:bench-%03d", i), fmt.Sprintf("bench%03d", i))
		if err != nil {
			b.Fatal(err)
		}
		if games[i], err = s.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: uint64(i), Owner: "o"}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([][]time.Duration, *benchPlayers)
	var errs []error
	var mu sync.Mutex
	b.ResetTimer()
	begin := time.Now()
	var wg sync.WaitGroup
	for i, g := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := store.State{Status: store.StatusPlaying}
			save := func() {
				// A game of up to 100 moves, then it starts over.
				if len(st.Moves) == 100 {
					st.Moves = st.Moves[:0]
				}
				st.Moves = append(st.Moves, "7.1+7.2")
				st.Removed, st.Elapsed = len(st.Moves)%29, time.Duration(len(st.Moves))*time.Second
				if !*benchNoTimes {
					// The move times the server writes with the moves.
					st.MoveTimes = append(st.MoveTimes[:len(st.Moves)-1], st.Elapsed+1234*time.Millisecond)
				}
				t0 := time.Now()
				err := s.SaveGame(ctx, g.ID, "o", st)
				lat[i] = append(lat[i], time.Since(t0))
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
			if *benchPaced > 0 {
				// Spread the players over the second, then tick.
				time.Sleep(rand.N(time.Second))
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for end := begin.Add(*benchPaced); time.Now().Before(end); <-tick.C {
					save()
				}
				return
			}
			n := b.N / *benchPlayers
			if i < b.N%*benchPlayers {
				n++
			}
			for range n {
				save()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.StopTimer()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	pct := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "saves/s")
	b.ReportMetric(float64(len(errs)), "errors")
	if len(errs) > 0 {
		b.Errorf("%d saves failed, the first: %v", len(errs), errs[0])
	}
}
