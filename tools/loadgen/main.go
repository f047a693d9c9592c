// Command loadgen measures an SSH game server under load: N concurrent PTY
// sessions (golang.org/x/crypto/ssh clients) each press a key every X ms,
// and it reports keystroke → first byte of redraw latency (p50/p99), bytes
// per keystroke and, given the server's pid, its RSS per session.
//
// It can also be the server under test, so runs are comparable:
//
//	loadgen -serve -addr 127.0.0.1:23300            # package server + a one-line demo App
//	loadgen -baseline-server -addr 127.0.0.1:23301  # bare Wish + stock bubbletea middleware
//	loadgen -addr 127.0.0.1:23300 -n 500 -every 500ms -duration 60s -pid PID
//	loadgen -addr 127.0.0.1:23234 -cmd "classic 42" -ready "pass 1/3" -key lh -n 500 -pid PID  # the arcade
//	loadgen -addr … -n 30 -spread -flood-rate 200 -flood-addrs 60 -newcomers 20 -server-log LOG  # a login flood
//	loadgen -addr 127.0.0.1:23234 -arena 1000 -arena-admin-key KEY -duration 4m -pid PID  # an arena (arena.go)
//
// Only point it at servers on this machine. As a client it collects its
// garbage less often than Go's default (GOGC=400, unless GOGC is set), so
// that its own pauses stay out of what it measures.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"
)

// loadgenGC is the generator's GOGC when the environment sets none.
const loadgenGC = 400

func main() {
	var (
		serve    = flag.Bool("serve", false, "run package server with a one-line demo App on -addr")
		baseline = flag.Bool("baseline-server", false, "run a bare Wish + stock Bubble Tea middleware server on -addr")
		addr     = flag.String("addr", "127.0.0.1:23300", "server address")
		n        = flag.Int("n", 100, "concurrent sessions")
		every    = flag.Duration("every", 500*time.Millisecond, "time between key presses of one session")
		duration = flag.Duration("duration", 30*time.Second, "how long to press keys once all sessions are up")
		dialers  = flag.Int("dialers", 20, "sessions connecting at once")
		pid      = flag.Int("pid", 0, "server process id, to report its RSS (Linux)")
		width    = flag.Int("width", 80, "terminal width")
		height   = flag.Int("height", 24, "terminal height")
		key      = flag.String("key", "l", "keys to press, in turn: one per character (\"lh\" walks right and left) or names separated by commas (\"down,up\"; up down left right enter esc space tab)")
		trace    = flag.Int("trace", 0, "print what the first session receives after each of its first N keys")
		command  = flag.String("cmd", "", "command to run in the PTY instead of a shell (e.g. \"classic 42\" for the arcade)")
		ready    = flag.String("ready", "load test", "text in the output that marks the first frame")
		spread   = flag.Bool("spread", false, "dial each player from its own loopback address 127.0.1.N (per-address limits)")
		fRate    = flag.Int("flood-rate", 0, "half-open connections per second beside the players (0: none)")
		fAddrs   = flag.Int("flood-addrs", 60, "source addresses of the flood, 127.0.0.10 on")
		fNew     = flag.Int("newcomers", 0, "logins spread over the run, each from its own address 127.0.0.200 on")
		fNewCmd  = flag.String("newcomer-cmd", "help", "command each newcomer runs")
		fLog     = flag.String("server-log", "", "the server's log file, to report its growth during the flood")
		cpuProf  = flag.String("cpuprofile", "", "write the load generator's own CPU profile to this file (its share of the machine is the server's loss)")
	)
	race := raceFlags(flag.CommandLine)      // race.go
	arenaCfg := arenaFlags(flag.CommandLine) // arena.go
	flag.Parse()
	if !*serve && !*baseline && os.Getenv("GOGC") == "" {
		// The generator's own collections pause its reads: with a
		// thousand players' screens its heap is a server's, and each of
		// its cycles showed as a tail of the server's latency. The
		// servers it runs keep Go's default, as the arcade does.
		debug.SetGCPercent(loadgenGC)
	}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen: cpu profile:", err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case *serve:
		err = runServer(ctx, *addr)
	case *baseline:
		err = runBaseline(ctx, *addr)
	case arenaCfg.players > 0: // arena.go
		err = runArena(ctx, loadConfig{addr: *addr, every: *every, duration: *duration, dialers: *dialers, pid: *pid, width: *width, height: *height}, race, arenaCfg)
	case race.racers > 0: // race.go
		err = runRace(ctx, loadConfig{addr: *addr, every: *every, duration: *duration, dialers: *dialers, pid: *pid, width: *width, height: *height}, race)
	default:
		err = runLoad(ctx, loadConfig{
			addr: *addr, sessions: *n, every: *every, duration: *duration, dialers: *dialers,
			pid: *pid, width: *width, height: *height, key: *key, trace: *trace, command: *command, ready: *ready,
			spread: *spread,
			flood:  floodConfig{rate: *fRate, addrs: *fAddrs, newcomers: *fNew, newcomerDo: *fNewCmd, logFile: *fLog},
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		stop()
		pprof.StopCPUProfile()
		os.Exit(1) //nolint:gocritic // the profile is stopped above
	}
}
