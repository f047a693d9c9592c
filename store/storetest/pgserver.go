package storetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Server is a throwaway PostgreSQL server of one test's own, made as
// .ci/postgres.sh makes one (initdb, pg_ctl, trust authentication on
// 127.0.0.1), which the test may stop and start again: a restart of the
// database, as a test of a shared server must never do.
type Server struct {
	t     testing.TB
	bin   string // the directory of initdb and pg_ctl
	data  string // the cluster's directory
	owner string // the user the server runs as ("" for the test's own)
	port  int
	// URL is the database pyramid_test on the server, for the user
	// pyramid.
	URL string
}

// The ports a Server may listen on: the first free one of these.
const serverLow, serverHigh = 25360, 25379

// NewServer starts a server, stopped and deleted when t ends; it skips t
// when PostgreSQL's programs are not installed (or, run as root, there
// is no user postgres to run them as).
func NewServer(t testing.TB) *Server {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.Sort(dirs)
	s := &Server{t: t}
	for _, d := range slices.Backward(dirs) {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			s.bin = d
			break
		}
	}
	if s.bin == "" {
		t.Skip("no PostgreSQL server programs (/usr/lib/postgresql/*/bin/initdb)")
	}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		if _, err := user.Lookup("postgres"); err != nil {
			t.Skip("run as root without a user postgres to run PostgreSQL as")
		}
		s.owner = "postgres"
	}
	for port := serverLow; port <= serverHigh && s.port == 0; port++ {
		if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			ln.Close()
			s.port = port
		}
	}
	if s.port == 0 {
		t.Skipf("no free port in %d–%d for PostgreSQL", serverLow, serverHigh)
	}
	data, err := os.MkdirTemp("", "pyramid-pg-test.")
	if err != nil {
		t.Fatal(err)
	}
	s.data = data
	t.Cleanup(func() {
		s.run("pg_ctl", "-D", s.dir(), "-m", "immediate", "-w", "stop")
		os.RemoveAll(data)
	})
	if s.owner != "" {
		if out, err := exec.Command("chown", s.owner, data).CombinedOutput(); err != nil {
			t.Fatalf("chown %s: %v: %s", data, err, out)
		}
	}
	if out, err := s.run("initdb", "-D", s.dir(), "-U", "pyramid", "--auth=trust", "-E", "UTF8", "--locale=C"); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	s.Start()
	if out, err := s.run("createdb", "-h", "127.0.0.1", "-p", fmt.Sprint(s.port), "-U", "pyramid", "pyramid_test"); err != nil {
		t.Fatalf("createdb: %v: %s", err, out)
	}
	s.URL = fmt.Sprintf("postgres://pyramid@127.0.0.1:%d/pyramid_test?sslmode=disable", s.port)
	return s
}

// dir is the cluster's data directory.
func (s *Server) dir() string { return filepath.Join(s.data, "db") }

// run runs one of PostgreSQL's programs as the server's owner.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	name, argv := filepath.Join(s.bin, prog), args
	if s.owner != "" {
		name, argv = "runuser", append([]string{"-u", s.owner, "--", name}, args...)
	}
	return exec.Command(name, argv...).CombinedOutput()
}

// Start starts the server (again), and waits until it takes connections.
func (s *Server) Start() {
	s.t.Helper()
	t0 := time.Now()
	out, err := s.run("pg_ctl", "-D", s.dir(), "-l", filepath.Join(s.data, "server.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=200", s.port, s.data), "start")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.data, "server.log"))
		s.t.Fatalf("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	s.t.Logf("PostgreSQL on port %d up in %v", s.port, time.Since(t0).Round(time.Millisecond))
}

// Stop stops the server in mode (pg_ctl's -m: "immediate" is a crash:
// every connection ends at once, nothing is written out).
func (s *Server) Stop(mode string) {
	s.t.Helper()
	if out, err := s.run("pg_ctl", "-D", s.dir(), "-m", mode, "-w", "stop"); err != nil {
		s.t.Fatalf("pg_ctl stop: %v: %s", err, out)
	}
}
