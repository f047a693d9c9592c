package main

// The arena mode's web page viewers (-arena N -web-viewers V -web-url
// URL, "{id}" in URL standing for the arena's number): the players race
// through a first window of -duration without viewers, then V live
// streams of the arena's page open and a second window of -duration
// follows, the same players racing on, then they close and a third
// window follows without them again. The report gives the players' own
// latency of the three windows side by side, the server's CPU and memory
// in each, what the viewers got and how long a move took from its
// racer's key to the first viewer's board (arena-load.sh runs it with
// WEB_VIEWERS set).

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// arenaSettle is the wait between the last player's join and the first
// window: the pairing's 2 s and a race's countdown.
const arenaSettle = 8 * time.Second

// arenaWindow is what one window measured.
type arenaWindow struct {
	st             arenaStats
	secs           float64
	cpu            int64 // the server's clock ticks in the window; -1: unknown
	loadFrom       string
	loadTo         string
	rssFrom, rssTo int64
}

// measureArenaWindow runs a window of d with the players as they play,
// and collects what they measured in it.
func measureArenaWindow(ctx context.Context, players []*raceSession, run *raceRun, pid int, d time.Duration) arenaWindow {
	for _, s := range players {
		s.resetMeasures()
	}
	w := arenaWindow{loadFrom: loadAvg(), rssFrom: readRSS(pid), cpu: -1}
	cpuFrom := readCPU(pid)
	from := time.Now()
	run.measuring.Store(true)
	t := time.NewTimer(d)
	select {
	case <-ctx.Done():
		t.Stop()
	case <-t.C:
	}
	run.measuring.Store(false)
	w.secs = time.Since(from).Seconds()
	w.st = collectArena(players)
	if cpuTo := readCPU(pid); cpuFrom >= 0 && cpuTo >= 0 {
		w.cpu = cpuTo - cpuFrom
	}
	w.loadTo, w.rssTo = loadAvg(), readRSS(pid)
	return w
}

// The top game's panel of the arena page's "board" event: its racer's
// name and its moves count.
var (
	boardNameRE  = regexp.MustCompile(`<p class="meta">([^<]*?) </p>`)
	boardMovesRE = regexp.MustCompile(`· (\d+) moves`)
)

// boardLags times the arena page's top game: from its racer's key that
// made a move to the first viewer's "board" event that shows it.
type boardLags struct {
	run *raceRun

	mu      sync.Mutex
	lags    []time.Duration
	unknown int // board events whose racer or move was not found
}

// heard is the viewers' onFirst.
func (b *boardLags) heard(name, data string, at time.Time) {
	if name != "board" {
		return
	}
	nm, mv := boardNameRE.FindStringSubmatch(data), boardMovesRE.FindStringSubmatch(data)
	lag, ok := time.Duration(0), false
	if nm != nil && mv != nil {
		n, _ := strconv.Atoi(mv[1])
		if s := b.run.racer(nm[1]); s != nil && n > 0 {
			s.mu.Lock()
			if n <= len(s.sent) {
				lag = at.Sub(s.sent[n-1])
				// A move of the racer's next game, sent after this
				// event came, is not its move.
				ok = lag >= 0
			}
			s.mu.Unlock()
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok {
		b.lags = append(b.lags, lag)
	} else {
		b.unknown++
	}
}

// arenaWebPhases runs the first window without viewers, opens the
// viewers of the arena's page stream, runs the second window with them,
// reports what they got and closes them; the caller's window follows,
// without them again: a latency that moved with the viewers comes back
// without them, where one the machine's other load moved need not. It
// returns the first two windows.
func arenaWebPhases(ctx context.Context, cfg loadConfig, rc *raceConfig, id int64, players []*raceSession, run *raceRun) (one, two arenaWindow) {
	// The last players to join are paired a few seconds later: the
	// first window starts with them racing, as the others do.
	select {
	case <-ctx.Done():
	case <-time.After(arenaSettle):
	}
	one = measureArenaWindow(ctx, players, run, cfg.pid, cfg.duration)
	url := strings.ReplaceAll(rc.webURL, "{id}", strconv.FormatInt(id, 10))
	lags := &boardLags{run: run}
	start := time.Now()
	web := startWebViewers(ctx, url, rc.webViewers, cfg.dialers, lags.heard)
	fmt.Printf("web page viewers reading %s: %d/%d in %s; server RSS %s before them, %s with them\n",
		url, web.open.Load(), rc.webViewers, time.Since(start).Round(time.Millisecond), mib(one.rssTo), mib(readRSS(cfg.pid)))
	two = measureArenaWindow(ctx, players, run, cfg.pid, cfg.duration)
	web.report()
	lags.report()
	web.close()
	return one, two
}

// report prints the top game's moves' times.
func (b *boardLags) report() {
	b.mu.Lock()
	defer b.mu.Unlock()
	p50, p99, worst := percentiles(b.lags)
	fmt.Printf("  the top game's move: its racer's key→the first viewer's board event: p50 %s  p99 %s  max %s (%d timed, %d board events not matched to a racer's move)\n",
		p50, p99, worst, len(b.lags), b.unknown)
}

// reportArenaWeb prints the three windows side by side: without the
// viewers, with them, without them again.
func reportArenaWeb(viewers int, windows ...arenaWindow) {
	what := []string{"without viewers", "with viewers", "without again"}
	fmt.Printf("\n== the players' own latency without, with and again without %d viewers of the arena's page (one run, one arena, the same players)\n", viewers)
	for i, w := range windows {
		p50, p99, worst := percentiles(w.st.own)
		m50, m99, _ := percentiles(w.st.moveLat)
		c50, c99, _ := percentiles(w.st.cursorLat)
		fmt.Printf("%-16s own key→redraw p50 %s  p99 %s  max %s (%d keys); moves p50 %s p99 %s; cursor p50 %s p99 %s\n",
			what[i], p50, p99, worst, len(w.st.own), m50, m99, c50, c99)
	}
	for i, w := range windows {
		cpu := "?"
		if w.cpu >= 0 && w.secs > 0 {
			cpu = fmt.Sprintf("%.1f%%", 100*float64(w.cpu)/w.secs/clockTicks)
		}
		o50, o99, _ := percentiles(w.st.prog)
		fmt.Printf("%-16s server CPU %s of one core; RSS %s → %s; opponent move→panel p50 %s p99 %s; load average %s → %s\n",
			what[i], cpu, mib(w.rssFrom), mib(w.rssTo), o50, o99, w.loadFrom, w.loadTo)
	}
}
