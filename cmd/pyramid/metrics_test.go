package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type fakeCounter struct{ conns, sessions int }

func (f fakeCounter) Counts() (int, int) { return f.conns, f.sessions }

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
	down := metricsHandler(fakeCounter{}, fakePinger{errors.New("no database")})
	if code, body := get(down, "/healthz"); code != 503 || !strings.Contains(body, "no database") {
		t.Fatalf("/healthz with the database down: %d %q", code, body)
	}
}
