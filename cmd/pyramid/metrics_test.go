package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pyramid/server"
)

type fakeCounter struct{ conns, sessions int }

func (f fakeCounter) Counts() (int, int) { return f.conns, f.sessions }

type fakeStatser struct{ fakeCounter }

func (fakeStatser) Stats() server.Stats {
	return server.Stats{Refused: map[string]uint64{"address_full": 7, "penalised": 2}, LoginTimeouts: 3, Unauthenticated: 5}
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
	h := metricsHandler(fakeCounter{3, 2}, fakePinger{})
	code, body := get(h, "/metrics")
	if code != 200 || !strings.Contains(body, "pyramid_connections 3\n") || !strings.Contains(body, "pyramid_sessions 2\n") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if code, body := get(h, "/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	_, body = get(metricsHandler(fakeStatser{}, fakePinger{}), "/metrics")
	for _, want := range []string{
		`pyramid_connections_refused_total{reason="address_full"} 7` + "\n",
		`pyramid_connections_refused_total{reason="penalised"} 2` + "\n",
		"pyramid_login_timeouts_total 3\n",
		"pyramid_connections_unauthenticated 5\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	down := metricsHandler(fakeCounter{}, fakePinger{errors.New("no database")})
	if code, body := get(down, "/healthz"); code != 503 || !strings.Contains(body, "no database") {
		t.Fatalf("/healthz with the database down: %d %q", code, body)
	}
}
