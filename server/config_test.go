package server

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	cfg, err := Config{}.withDefaults()
	if err != nil {
		t.Fatalf("withDefaults: %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"Listen", cfg.Listen, ":23234"},
		{"HostKeyPath", cfg.HostKeyPath, "data/host_ed25519"},
		{"Guests", cfg.Guests, false},
		{"HandshakeTimeout", cfg.HandshakeTimeout, 20 * time.Second},
		{"MaxConns", cfg.MaxConns, 500},
		{"MaxConnsPerIP", cfg.MaxConnsPerIP, 8},
		{"MaxUnauthPerIP", cfg.MaxUnauthPerIP, 4},
		{"SessionsPerConn", cfg.SessionsPerConn, 2},
		{"ReadBudget", cfg.ReadBudget, ReadBudget{Burst: 1 << 20, PerSecond: 32 << 10}},
		{"IdleTimeout", cfg.IdleTimeout, 15 * time.Minute},
		{"MaxSessionTime", cfg.MaxSessionTime, 12 * time.Hour},
		{"ShutdownGrace", cfg.ShutdownGrace, 10 * time.Second},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if cfg.Logger == nil {
		t.Error("Logger is nil")
	}
}

func TestConfigRejectsNegative(t *testing.T) {
	for _, cfg := range []Config{
		{MaxConns: -1},
		{IdleTimeout: -time.Second},
		{ReadBudget: ReadBudget{PerSecond: -5}},
	} {
		_, err := cfg.withDefaults()
		if err == nil || !strings.Contains(err.Error(), "negative") {
			t.Errorf("withDefaults(%+v) = %v, want a 'negative' error", cfg, err)
		}
	}
}
