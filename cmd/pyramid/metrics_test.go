package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pyramid/budget"
	"pyramid/server"
)

type fakeCounter struct{ conns, sessions int }

func (f fakeCounter) Counts() (int, int) { return f.conns, f.sessions }

type fakeStatser struct{ fakeCounter }

func (fakeStatser) Stats() server.Stats {
	return server.Stats{Refused: map[string]uint64{"address_full": 7, "penalised": 2}, LoginTimeouts: 3, Unauthenticated: 5, ProxyTrustsEveryAddress: true}
}

type fakePinger struct{ err error }

func (f fakePinger) Ping(context.Context) error { return f.err }

func TestMetricsHandler(t *testing.T) {
	get := func(h http.Handler, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(b)
	}
	h := metricsHandler(fakeCounter{3, 2}, fakePinger{}, nil)
	code, body := get(h, "/metrics")
	if code != 200 || !strings.Contains(body, "pyramid_connections 3\n") || !strings.Contains(body, "pyramid_sessions 2\n") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if code, body := get(h, "/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	_, body = get(metricsHandler(fakeStatser{}, fakePinger{}, nil), "/metrics")
	for _, want := range []string{
		`pyramid_connections_refused_total{reason="address_full"} 7` + "\n",
		`pyramid_connections_refused_total{reason="penalised"} 2` + "\n",
		"pyramid_login_timeouts_total 3\n",
		"pyramid_connections_unauthenticated 5\n",
		"pyramid_proxy_protocol_trusts_every_address 1\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	down := metricsHandler(fakeCounter{}, fakePinger{errors.New("no database")}, nil)
	if code, body := get(down, "/healthz"); code != 503 || !strings.Contains(body, "no database") {
		t.Fatalf("/healthz with the database down: %d %q", code, body)
	}
}

// TestMetricsBudgets: /metrics counts each budget's actions allowed and
// refused, by kind.
func TestMetricsBudgets(t *testing.T) {
	b, err := budget.New(budget.Config{Limits: map[budget.Kind]budget.Limit{budget.WrongCode: {N: 2, Per: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	guest := budget.Who{Addr: "203.0.113.7"}
	for range 5 {
		_ = b.Take(budget.WrongCode, guest)
	}
	_ = b.Take(budget.RoomMade, guest)
	rec := httptest.NewRecorder()
	metricsHandler(fakeCounter{}, fakePinger{}, budgetStats{b}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`pyramid_budget_actions_total{kind="wrong_code",verdict="allowed"} 2` + "\n",
		`pyramid_budget_actions_total{kind="wrong_code",verdict="refused"} 3` + "\n",
		`pyramid_budget_actions_total{kind="room_made",verdict="allowed"} 1` + "\n",
		`pyramid_budget_actions_total{kind="spectator_seat",verdict="refused"} 0` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

// budgetStats is the budgets as the arcade reports them.
type budgetStats struct{ b *budget.Budgets }

func (s budgetStats) BudgetStats() []budget.Stat { return s.b.Stats() }
