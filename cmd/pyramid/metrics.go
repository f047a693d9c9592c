package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"runtime"
	"slices"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/budget"
	"pyramid/server"
)

// counter reports the server's open connections and running sessions.
type counter interface {
	Counts() (conns, sessions int)
}

// statser reports the server's refusal and timeout counters.
type statser interface {
	Stats() server.Stats
}

// budgeter reports the budgets' counts (arcade.App.BudgetStats); nil
// writes none.
type budgeter interface {
	BudgetStats() []budget.Stat
}

// pinger checks that the database answers.
type pinger interface {
	Ping(ctx context.Context) error
}

// metricsHandler serves /metrics in the Prometheus text format and
// /healthz, which answers 200 "ok" while the database answers and 503
// otherwise.
func metricsHandler(srv counter, db pinger, budgets budgeter) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		conns, sessions := srv.Counts()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# HELP pyramid_connections Open SSH connections.\n# TYPE pyramid_connections gauge\npyramid_connections %d\n", conns)
		fmt.Fprintf(w, "# HELP pyramid_sessions Running SSH sessions.\n# TYPE pyramid_sessions gauge\npyramid_sessions %d\n", sessions)
		if st, ok := srv.(statser); ok {
			writeStats(w, st.Stats())
		}
		if budgets != nil {
			writeBudgets(w, budgets.BudgetStats())
		}
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

// writeStats writes the server's counters in the Prometheus text format.
func writeStats(w io.Writer, st server.Stats) {
	fmt.Fprintf(w, "# HELP pyramid_connections_refused_total Connections refused before their handshake, by reason.\n# TYPE pyramid_connections_refused_total counter\n")
	for _, reason := range slices.Sorted(maps.Keys(st.Refused)) {
		fmt.Fprintf(w, "pyramid_connections_refused_total{reason=%q} %d\n", reason, st.Refused[reason])
	}
	fmt.Fprintf(w, "# HELP pyramid_login_timeouts_total Connections closed by the handshake deadline.\n# TYPE pyramid_login_timeouts_total counter\npyramid_login_timeouts_total %d\n", st.LoginTimeouts)
	fmt.Fprintf(w, "# HELP pyramid_logins_evicted_total Connections still logging in closed to make room for a newcomer.\n# TYPE pyramid_logins_evicted_total counter\npyramid_logins_evicted_total %d\n", st.Evicted)
	fmt.Fprintf(w, "# HELP pyramid_write_timeouts_total Sessions closed because their output was blocked.\n# TYPE pyramid_write_timeouts_total counter\npyramid_write_timeouts_total %d\n", st.WriteTimeouts)
	fmt.Fprintf(w, "# HELP pyramid_connections_unauthenticated Connections still logging in.\n# TYPE pyramid_connections_unauthenticated gauge\npyramid_connections_unauthenticated %d\n", st.Unauthenticated)
	trustsAll := 0
	if st.ProxyTrustsEveryAddress {
		trustsAll = 1
	}
	fmt.Fprintf(w, "# HELP pyramid_proxy_protocol_trusts_every_address 1 when --proxy-protocol trusts 0.0.0.0/0 or ::/0: any client chooses the address the limits count.\n# TYPE pyramid_proxy_protocol_trusts_every_address gauge\npyramid_proxy_protocol_trusts_every_address %d\n", trustsAll)
}

// writeBudgets writes the budgets' counts in the Prometheus text format:
// the actions each kind allowed and refused.
func writeBudgets(w io.Writer, stats []budget.Stat) {
	fmt.Fprintf(w, "# HELP pyramid_budget_actions_total Actions held to a budget per address and account, by kind and verdict.\n# TYPE pyramid_budget_actions_total counter\n")
	for _, st := range stats {
		fmt.Fprintf(w, "pyramid_budget_actions_total{kind=%q,verdict=\"allowed\"} %d\n", st.Kind, st.Allowed)
		fmt.Fprintf(w, "pyramid_budget_actions_total{kind=%q,verdict=\"refused\"} %d\n", st.Kind, st.Refused)
	}
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
