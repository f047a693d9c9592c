package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/charmbracelet/log"
)

// counter reports the server's open connections and running sessions.
type counter interface {
	Counts() (conns, sessions int)
}

// pinger checks that the database answers.
type pinger interface {
	Ping(ctx context.Context) error
}

// metricsHandler serves /metrics in the Prometheus text format and
// /healthz, which answers 200 "ok" while the database answers and 503
// otherwise.
func metricsHandler(srv counter, db pinger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		conns, sessions := srv.Counts()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# HELP pyramid_connections Open SSH connections.\n# TYPE pyramid_connections gauge\npyramid_connections %d\n", conns)
		fmt.Fprintf(w, "# HELP pyramid_sessions Running SSH sessions.\n# TYPE pyramid_sessions gauge\npyramid_sessions %d\n", sessions)
		fmt.Fprintf(w, "# HELP go_goroutines Goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
		fmt.Fprintf(w, "# HELP go_memstats_heap_inuse_bytes Heap in use.\n# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes %d\n", ms.HeapInuse)
		fmt.Fprintf(w, "# HELP go_memstats_sys_bytes Memory obtained from the OS.\n# TYPE go_memstats_sys_bytes gauge\ngo_memstats_sys_bytes %d\n", ms.Sys)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := db.Ping(ctx); err != nil {
			http.Error(w, "database: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// serveMetrics serves the metrics endpoint on addr until ctx ends.
func serveMetrics(ctx context.Context, addr string, h http.Handler, logger *log.Logger) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	go func() {
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server stopped", "err", err)
		}
	}()
	logger.Info("metrics", "addr", l.Addr().String())
	return nil
}
