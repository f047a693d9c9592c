package sqlstore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"syscall"
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
			version := g.Version
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
				err := s.SaveGame(ctx, g.ID, "o", version, st)
				lat[i] = append(lat[i], time.Since(t0))
				if err == nil {
					version++
				}
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

// Flags of BenchmarkRaceSaves and BenchmarkRaceCreates.
var (
	benchRaceFor  = flag.Duration("pyramid.racefor", 5*time.Second, "how long BenchmarkRaceSaves saves at each rate")
	benchBusy     = flag.Int("pyramid.busy", 0, "goroutines that keep the CPU busy beside the store, as sessions drawing frames do (each -pyramid.busywork of work every 100ms)")
	benchBusyWork = flag.Duration("pyramid.busywork", 100*time.Microsecond, "the CPU work of one -pyramid.busy goroutine every 100ms")
)

// busyCPU starts n goroutines that each work for -pyramid.busywork every
// 100 ms until stop is closed, as the sessions of a race drawing their
// frames do beside the store: the writer then waits for the scheduler.
func busyCPU(n int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			x := uint64(i)
			for {
				select {
				case <-stop:
					return
				case <-t.C:
				}
				for end := time.Now().Add(*benchBusyWork); time.Now().Before(end); {
					for range 100 {
						x = x*6364136223846793005 + 1442695040888963407
					}
				}
			}
		})
	}
	return &wg
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// raceGames makes n players with a race game each, owned by "o".
func raceGames(b *testing.B, s *Store, n int) []store.Game {
	b.Helper()
	ctx := context.Background()
	games := make([]store.Game, n)
	for i := range games {
		p, _, err := s.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:race-%04d", i), fmt.Sprintf("race%04d", i))
		if err != nil {
			b.Fatal(err)
		}
		if games[i], err = s.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 2,
			Owner: "o", Practice: true, Kind: store.KindRace}); err != nil {
			b.Fatal(err)
		}
	}
	return games
}

// reportSaveTimes reports the stages of the saves the store's saveTimes
// kept (group.go): the wait behind the batch being stored, the handoff to
// the next batch, the batch's transaction, the answer's wake-up, and
// the batches' sizes and statements.
func reportSaveTimes(b *testing.B, t *saveTimes, elapsed time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, st := range []struct {
		name string
		ds   []time.Duration
	}{{"behind", t.behind}, {"handoff", t.handoff}, {"tx", t.work}, {"answer", t.answer}} {
		b.ReportMetric(pct(st.ds, 0.5), st.name+"-p50-ms")
		b.ReportMetric(pct(st.ds, 0.99), st.name+"-p99-ms")
	}
	if len(t.sizes) == 0 {
		return
	}
	sizes := slices.Clone(t.sizes)
	slices.Sort(sizes)
	b.ReportMetric(float64(sizes[len(sizes)/2]), "batch-p50")
	b.ReportMetric(float64(sizes[len(sizes)-1]), "batch-max")
	b.ReportMetric(float64(len(t.sizes))/elapsed.Seconds(), "commits/s")
	b.ReportMetric(pct(t.begin, 0.5), "begin-p50-ms")
	b.ReportMetric(pct(t.stmts, 0.5), "stmts-p50-ms")
	b.ReportMetric(pct(t.stmts, 0.99), "stmts-p99-ms")
	b.ReportMetric(pct(t.commit, 0.5), "commit-p50-ms")
	b.ReportMetric(pct(t.commit, 0.99), "commit-p99-ms")
}

// BenchmarkRaceSaves is a race's saves at 1,000 racers (the race load's
// load): each racer saves its own race game (20 to 60 moves, with their
// times) at a steady pace, so that the store gets 250, 500 or 1,000
// saves a second in all, for -pyramid.racefor; it reports each save's
// latency and where it went (reportSaveTimes). With -pyramid.busy=800
// the CPU is kept busy beside it (80 % of a core), as a loaded server's is.
//
//	go test -run '^$' -bench RaceSaves -benchtime 1x ./store/sqlstore/
//	go test -run '^$' -bench RaceSaves -benchtime 1x ./store/sqlstore/ -pyramid.busy=800
func BenchmarkRaceSaves(b *testing.B) {
	const racers = 1000
	for _, rate := range []int{250, 500, 1000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			s, err := OpenConfig(context.Background(), Config{DataDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			games := raceGames(b, s, racers)
			for b.Loop() {
				s.saves.times = &saveTimes{}
				stop := make(chan struct{})
				busy := busyCPU(*benchBusy, stop)
				cpu := cpuTime(b)
				lat, errs, elapsed := paceSaves(s, games, rate, *benchRaceFor)
				cpu = cpuTime(b) - cpu
				close(stop)
				busy.Wait()
				b.StopTimer()
				if *benchBusy == 0 {
					// The CPU of the savers and the store, per save.
					b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu-µs/save")
				}
				b.ReportMetric(pct(lat, 0.5), "p50-ms")
				b.ReportMetric(pct(lat, 0.99), "p99-ms")
				b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "saves/s")
				b.ReportMetric(float64(errs), "errors")
				reportSaveTimes(b, s.saves.times, elapsed)
				s.saves.times = nil
				b.StartTimer()
			}
		})
	}
}

// paceSaves has each game's racer save a move every len(games)/rate
// seconds (spread over that period) for d, and returns the saves'
// latencies and failures.
func paceSaves(s *Store, games []store.Game, rate int, d time.Duration) (lat []time.Duration, errs int, elapsed time.Duration) {
	ctx := context.Background()
	period := time.Duration(len(games)) * time.Second / time.Duration(rate)
	lats := make([][]time.Duration, len(games))
	failed := make([]int, len(games))
	begin := time.Now()
	end := begin.Add(d)
	var wg sync.WaitGroup
	for i, g := range games {
		wg.Go(func() {
			// A race game of 20 to 60 moves so far.
			st := store.State{Status: store.StatusPlaying, Removed: 9}
			version := g.Version
			for n := range 20 + i%41 {
				st.Moves = append(st.Moves, "7.1+7.2")
				st.MoveTimes = append(st.MoveTimes, time.Duration(n)*1234*time.Millisecond)
			}
			t := time.NewTimer(period * time.Duration(i) / time.Duration(len(games)))
			defer t.Stop()
			for {
				<-t.C
				if time.Now().After(end) {
					return
				}
				t.Reset(period)
				st.Moves = append(st.Moves, "d")
				st.MoveTimes = append(st.MoveTimes, time.Since(begin))
				st.Elapsed = time.Since(begin)
				t0 := time.Now()
				err := s.SaveGame(ctx, g.ID, "o", version, st)
				lats[i] = append(lats[i], time.Since(t0))
				if err == nil {
					version++
				}
				if err != nil {
					failed[i]++
				}
			}
		})
	}
	wg.Wait()
	for i := range lats {
		lat = append(lat, lats[i]...)
		errs += failed[i]
	}
	return lat, errs, time.Since(begin)
}

// BenchmarkRaceCreates is a race's first moves at 1,000 racers: every
// racer creates its race game at once (CreateGame, which rides in the
// group commit), and it reports their latency and batches.
//
//	go test -run '^$' -bench RaceCreates -benchtime 3x ./store/sqlstore/
func BenchmarkRaceCreates(b *testing.B) {
	const racers = 1000
	s, err := OpenConfig(context.Background(), Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	players := make([]string, racers)
	for i := range players {
		p, _, err := s.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:race-%04d", i), fmt.Sprintf("race%04d", i))
		if err != nil {
			b.Fatal(err)
		}
		players[i] = p.ID
	}
	var lat []time.Duration
	s.saves.times = &saveTimes{}
	stop := make(chan struct{})
	busy := busyCPU(*benchBusy, stop)
	round := 0
	begin := time.Now()
	var cpu time.Duration
	for b.Loop() {
		round++
		start := make(chan struct{})
		lats := make([]time.Duration, racers)
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i, id := range players {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				_, errs[i] = s.CreateGame(ctx, store.NewGame{PlayerID: id, RulesID: "classic", DealNumber: uint64(round),
					Owner: "o", Practice: true, Kind: store.KindRace})
				lats[i] = time.Since(t0)
			})
		}
		cpu0 := cpuTime(b)
		close(start)
		wg.Wait()
		cpu += cpuTime(b) - cpu0
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, lats...)
	}
	elapsed := time.Since(begin)
	close(stop)
	busy.Wait()
	b.ReportMetric(pct(lat, 0.5), "p50-ms")
	b.ReportMetric(pct(lat, 0.99), "p99-ms")
	if *benchBusy == 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu-µs/create")
	}
	reportSaveTimes(b, s.saves.times, elapsed)
	s.saves.times = nil
}
