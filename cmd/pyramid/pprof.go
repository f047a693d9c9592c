//go:build pprof

// A profiling build (go build -tags pprof ./cmd/pyramid) serves
// net/http/pprof on the address in PYRAMID_PPROF, with a heap sample
// every 4 KiB, for profiling the server under load (issues 13 and 14):
// /debug/pprof/profile, heap, goroutine, trace (runtime/trace), and the
// mutex and block profiles, which sample one contended lock in
// PYRAMID_PPROF_MUTEX (default 10) and one blocking event per
// PYRAMID_PPROF_BLOCK nanoseconds blocked (default 100000; 0 turns
// either off). Release builds have none of it.

package main

import (
	"net/http"
	_ "net/http/pprof" //nolint:gosec // a profiling build only, on the address given
	"os"
	"runtime"
	"strconv"
)

func init() {
	addr := os.Getenv("PYRAMID_PPROF")
	if addr == "" {
		return
	}
	runtime.MemProfileRate = 4096
	runtime.SetMutexProfileFraction(envInt("PYRAMID_PPROF_MUTEX", 10))
	runtime.SetBlockProfileRate(envInt("PYRAMID_PPROF_BLOCK", 100_000))
	go func() { _ = http.ListenAndServe(addr, nil) }() //nolint:gosec // profiling build only
}

// envInt is the integer in the environment variable name, or def when it
// is unset or not a number.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}
