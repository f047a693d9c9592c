package arcade

import (
	"encoding/json"
	"pyramid/server/sshtest"
	"strings"
	"testing"
	"time"
)

func TestBuildInfoString(t *testing.T) {
	at := time.Date(2026, 12, 5, 14, 36, 51, 0, time.UTC)
	tests := []struct {
		name string
		info BuildInfo
		want string
	}{
		{"checkout", BuildInfo{Version: "devel", Commit: "f2b1e81a6f67590681a21c7e3ef17a76c6cd4f73", CommitTime: at, Go: "go1.26.8"},
			"pyramid devel, commit f2b1e81a6f67 of 2026-12-05 14:36 UTC (go1.26.8)"},
		{"changed checkout", BuildInfo{Version: "devel", Commit: "f2b1e81a6f67590681a21c7e3ef17a76c6cd4f73", CommitTime: at, Modified: true, Go: "go1.26.8"},
			"pyramid devel, commit f2b1e81a6f67 of 2026-12-05 14:36 UTC with uncommitted changes (go1.26.8)"},
		{"release", BuildInfo{Version: "v1.2.0", Commit: "f2b1e81a6f67590681a21c7e3ef17a76c6cd4f73", CommitTime: at, Go: "go1.26.8"},
			"pyramid v1.2.0, commit f2b1e81a6f67 of 2026-12-05 14:36 UTC (go1.26.8)"},
		{"nothing recorded", BuildInfo{Version: "devel", Go: "go1.26.8"},
			"pyramid devel, no commit recorded (built outside a checkout or with -buildvcs=false) (go1.26.8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.info.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestReadBuildInfoNamesTheGoRelease(t *testing.T) {
	info := ReadBuildInfo()
	if !strings.HasPrefix(info.Go, "go1.") || info.Version == "" {
		t.Fatalf("got %+v", info)
	}
}

// TestVersionCommand: `ssh HOST version` prints the line, --json the
// fields, and anything else is a usage error.
func TestVersionCommand(t *testing.T) {
	f := newFixture(t)
	alice := sshtest.NewKey(t)
	code, out, _ := f.run(session(alice, "alice", "version"))
	if code != 0 || strings.TrimSpace(out) != Version() {
		t.Errorf("version: exit %d, %q", code, out)
	}
	code, out, _ = f.run(session(alice, "alice", "version", "--json"))
	var got BuildInfo
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got != ReadBuildInfo() {
		t.Errorf("version --json: exit %d, %q", code, out)
	}
	if code, _, _ := f.run(session(alice, "alice", "version", "--bogus")); code != 2 {
		t.Errorf("version --bogus: exit %d, want 2", code)
	}
}
