//go:build pprof

// A profiling build (go build -tags pprof ./cmd/pyramid) serves
// net/http/pprof on the address in PYRAMID_PPROF, with a heap sample
// every 4 KiB, for profiling the server under load (issue 13). Release
// builds have none of it.

package main

import (
	"net/http"
	_ "net/http/pprof" //nolint:gosec // a profiling build only, on the address given
	"os"
	"runtime"
)

func init() {
	addr := os.Getenv("PYRAMID_PPROF")
	if addr == "" {
		return
	}
	runtime.MemProfileRate = 4096
	go func() { _ = http.ListenAndServe(addr, nil) }() //nolint:gosec // profiling build only
}
