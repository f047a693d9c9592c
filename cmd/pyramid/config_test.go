package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pyramid/budget"
)

// TestServeConfigPrecedence: flags win over PYRAMID_* variables, which win
// over the config file, which wins over the defaults.
func TestServeConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pyramid.conf")
	conf := "# club server\nlisten = :4000\ndata = /srv/from-file\nguests = false\nidle-timeout = 5m\nmax-conns = 50\n"
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PYRAMID_CONFIG": file, "PYRAMID_DATA": "/srv/from-env", "PYRAMID_MAX_CONNS": "60"}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c serveConfig
	c.register(fs)
	if err := fs.Parse([]string{"--max-conns", "70"}); err != nil {
		t.Fatal(err)
	}
	if err := c.resolve(fs, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.listen != ":4000" || c.data != "/srv/from-env" || c.guests || c.idleTimeout != 5*time.Minute || c.maxConns != 70 || c.databaseURL != "" {
		t.Fatalf("got %+v", c)
	}
}

func TestServeConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct {
		file, env, want string
	}{
		"bad env value":    {"", "PYRAMID_MAX_CONNS=lots", `PYRAMID_MAX_CONNS: bad value "lots"`},
		"unknown name":     {"colour = red\n", "", "line 1: want name = value"},
		"no equals":        {"listen :22\n", "", "line 1"},
		"bad file value":   {"guests = maybe\n", "", `guests: bad value "maybe"`},
		"missing file":     {"-", "", "config: open"},
		"config in config": {"config = other\n", "", "line 1"},
	} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			if tt.env != "" {
				k, v, _ := strings.Cut(tt.env, "=")
				env[k] = v
			}
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
			if tt.file != "-" && tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.file != "" {
				env["PYRAMID_CONFIG"] = path
			}
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			var c serveConfig
			c.register(fs)
			_ = fs.Parse(nil)
			err := c.resolve(fs, func(k string) string { return env[k] })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestServeLimits(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    serveConfig
		want string // error text, "" for none
	}{
		{"defaults", serveConfig{}, ""},
		{"all set", serveConfig{maxStartups: "10:30:100", penalties: "10s:1s:15s:10m", proxyProtocol: "10.0.0.5, 192.168.0.0/16, ::1"}, ""},
		{"bad startups", serveConfig{maxStartups: "10:30"}, "--max-startups"},
		{"bad penalties", serveConfig{penalties: "1s"}, "--penalties"},
		{"bad proxy", serveConfig{proxyProtocol: "10.0.0.300"}, "--proxy-protocol"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.c.serverLimits()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("serverLimits: %v", err)
				}
				if tt.c.proxyProtocol != "" && len(got.TrustedProxies) != 3 {
					t.Errorf("trusted proxies %v, want 3", got.TrustedProxies)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

// TestServeBudgets: the budgets' flags have their PYRAMID_* variables and
// config file names like every flag, default to package budget's, and a
// bad value names its flag.
func TestServeBudgets(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pyramid.conf")
	if err := os.WriteFile(file, []byte("limit-chat = 30/1m\nlimit-spectator-seats = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PYRAMID_CONFIG": file, "PYRAMID_LIMIT_ROOMS": "5/1h"}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c serveConfig
	c.register(fs)
	if err := fs.Parse([]string{"--limit-wrong-codes", "3/1m"}); err != nil {
		t.Fatal(err)
	}
	if err := c.resolve(fs, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	limits, err := c.budgetLimits()
	if err != nil {
		t.Fatal(err)
	}
	want := map[budget.Kind]budget.Limit{
		budget.WrongCode:     {N: 3, Per: time.Minute},
		budget.RoomMade:      {N: 5, Per: time.Hour},
		budget.ChatLine:      {N: 30, Per: time.Minute},
		budget.SpectatorSeat: {N: 3},
		budget.Report:        budget.Report.Default(),
	}
	for k, l := range want {
		if limits[k] != l {
			t.Errorf("%s: got %v, want %v", k, limits[k], l)
		}
	}
	if _, err := budget.New(budget.Config{Limits: limits}); err != nil {
		t.Errorf("the budgets of the flags: %v", err)
	}
	c.budgets[budget.NameTaken] = "ten"
	if _, err := c.budgetLimits(); err == nil || !strings.Contains(err.Error(), "--limit-renames") {
		t.Errorf("a bad limit: got %v, want an error naming --limit-renames", err)
	}
}

// TestServeConfigWeb: the club's page is off by default, and its address
// and limits come from the flags, PYRAMID_WEB* or the config file.
func TestServeConfigWeb(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pyramid.conf")
	if err := os.WriteFile(file, []byte("web = :8080\nweb-max-conns = 300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	resolve := func(args []string, env map[string]string) serveConfig {
		t.Helper()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var c serveConfig
		c.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := c.resolve(fs, func(k string) string { return env[k] }); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := resolve(nil, nil); c.web != "" || c.webMaxConns != 2000 || c.webMaxConnsPerIP != 32 {
		t.Fatalf("defaults: web %q, max conns %d, per address %d; want off, 2000, 32", c.web, c.webMaxConns, c.webMaxConnsPerIP)
	}
	c := resolve(nil, map[string]string{"PYRAMID_CONFIG": file, "PYRAMID_WEB_MAX_CONNS_PER_IP": "4"})
	if c.web != ":8080" || c.webMaxConns != 300 || c.webMaxConnsPerIP != 4 {
		t.Fatalf("from the file and the environment: web %q, max conns %d, per address %d", c.web, c.webMaxConns, c.webMaxConnsPerIP)
	}
	if c := resolve([]string{"--web", "127.0.0.1:9000"}, map[string]string{"PYRAMID_WEB": ":7000"}); c.web != "127.0.0.1:9000" {
		t.Fatalf("the flag: web %q, want 127.0.0.1:9000", c.web)
	}
	if c := resolve(nil, map[string]string{"PYRAMID_WEB": ":7000"}); c.web != ":7000" {
		t.Fatalf("PYRAMID_WEB: web %q, want :7000", c.web)
	}
}
