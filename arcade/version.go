package arcade

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// BuildInfo is what a binary knows of how it was built: the release (a
// tag, or "devel" for a build from a checkout), the commit and its time
// when Go recorded them, and the Go release.
type BuildInfo struct {
	Version string `json:"version"`
	// Commit is the full commit hash, empty when none was recorded (a
	// build outside a checkout, or with -buildvcs=false).
	Commit string `json:"commit,omitempty"`
	// CommitTime is the commit's time, zero when none was recorded.
	CommitTime time.Time `json:"commit_time,omitzero"`
	// Modified says the checkout had changes that no commit holds.
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ReadBuildInfo reads the build information Go recorded in the binary.
func ReadBuildInfo() BuildInfo {
	info := BuildInfo{Version: "devel"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.Go = bi.GoVersion
	// A tagged release names itself; a pseudo-version (v0.0.0-date-hash)
	// only repeats the commit, which is printed on its own.
	if v := bi.Main.Version; v != "" && v != "(devel)" && !strings.HasPrefix(v, "v0.0.0-") {
		info.Version = strings.TrimSuffix(v, "+dirty")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.CommitTime, _ = time.Parse(time.RFC3339, s.Value)
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the one line `pyramid version` prints, e.g. "pyramid devel,
// commit f2b1e81a6f67 of 2026-12-05 14:36 UTC (go1.26.8)".
func (b BuildInfo) String() string {
	var sb strings.Builder
	sb.WriteString("pyramid " + b.Version)
	if b.Commit != "" {
		fmt.Fprintf(&sb, ", commit %.12s", b.Commit)
		if !b.CommitTime.IsZero() {
			sb.WriteString(" of " + b.CommitTime.UTC().Format("2006-01-02 15:04 MST"))
		}
		if b.Modified {
			sb.WriteString(" with uncommitted changes")
		}
	} else if b.Version == "devel" {
		sb.WriteString(", no commit recorded (built outside a checkout or with -buildvcs=false)")
	}
	if b.Go != "" {
		sb.WriteString(" (" + b.Go + ")")
	}
	return sb.String()
}

// Version is the build's version line (BuildInfo.String).
func Version() string { return ReadBuildInfo().String() }

func (c *call) version() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	if asJSON {
		return c.writeJSON(ReadBuildInfo())
	}
	fmt.Fprintln(c.stdout, Version())
	return 0
}
