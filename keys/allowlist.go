package keys

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// DefaultRecheckInterval is how often, at most, an Allowlist looks at its
// file to see whether it changed.
const DefaultRecheckInterval = 2 * time.Second

// LineError is a line of an authorized_keys file that could not be used. Bad
// lines are skipped, not fatal: one typo must not lock a whole club out.
type LineError struct {
	Path string
	Line int // 1-based
	Err  error
}

// Error implements error.
func (e *LineError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
}

// Unwrap returns the parse error.
func (e *LineError) Unwrap() error { return e.Err }

// AllowlistOptions tunes an Allowlist. The zero value is fine.
type AllowlistOptions struct {
	// RecheckInterval is the least time between two looks at the file;
	// DefaultRecheckInterval when zero.
	RecheckInterval time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logf, when set, is told about bad lines and failed reloads.
	Logf func(format string, args ...any)
}

// Allowlist is the set of keys allowed to play on a club server, read from
// an OpenSSH authorized_keys file and read again when the file changes
// (checked by modification time, size and identity, at most once per
// RecheckInterval, by whichever call to Allowed comes first). Key options
// such as from= or restrict are accepted but not enforced: the server only
// asks whether a key may play.
//
// A nil *Allowlist, or one made from an empty path, allows every key. An
// Allowlist is safe for concurrent use.
type Allowlist struct {
	path     string
	interval time.Duration
	now      func() time.Time
	logf     func(format string, args ...any)

	mu       sync.Mutex
	keys     map[string]struct{} // fingerprints
	problems []LineError
	stat     os.FileInfo // of the file last read
	checked  time.Time   // when the file was last looked at
}

// LoadAllowlist reads the authorized_keys file at path. An empty path yields
// an Allowlist that allows everyone. A file that cannot be read is an error;
// bad lines in it are not (see Problems).
func LoadAllowlist(path string, opts AllowlistOptions) (*Allowlist, error) {
	a := &Allowlist{path: path, interval: opts.RecheckInterval, now: opts.Now, logf: opts.Logf}
	if a.interval <= 0 {
		a.interval = DefaultRecheckInterval
	}
	if a.now == nil {
		a.now = time.Now
	}
	if path == "" {
		return a, nil
	}
	if err := a.reload(); err != nil {
		return nil, err
	}
	return a, nil
}

// Allowed reports whether pub may play. With no allowlist file everyone may;
// with one, only its keys, and nil never.
func (a *Allowlist) Allowed(pub ssh.PublicKey) bool {
	if a == nil || a.path == "" {
		return true
	}
	if pub == nil {
		return false
	}
	fp := Fingerprint(pub)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshLocked()
	_, ok := a.keys[fp]
	return ok
}

// Len returns how many keys the allowlist holds (0 when everyone is allowed).
func (a *Allowlist) Len() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.keys)
}

// Problems returns the bad lines found the last time the file was read.
func (a *Allowlist) Problems() []LineError {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]LineError(nil), a.problems...)
}

// Reload reads the file again now, whether or not it changed. On error the
// keys read before stay in force.
func (a *Allowlist) Reload() error {
	if a == nil || a.path == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reloadLocked()
}

func (a *Allowlist) reload() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reloadLocked()
}

// refreshLocked re-reads the file if it is time to look and it changed. A
// file that vanished or cannot be read keeps the last good set: editors
// replace files by rename, and a club should not lock out while they do.
func (a *Allowlist) refreshLocked() {
	now := a.now()
	if now.Sub(a.checked) < a.interval && !now.Before(a.checked) {
		return
	}
	a.checked = now
	fi, err := os.Stat(a.path)
	if err != nil {
		a.log("allowlist: %v (keeping the %d keys read before)", err, len(a.keys))
		return
	}
	if a.stat != nil && os.SameFile(fi, a.stat) && fi.ModTime().Equal(a.stat.ModTime()) && fi.Size() == a.stat.Size() {
		return
	}
	if err := a.reloadLocked(); err != nil {
		a.log("allowlist: %v (keeping the %d keys read before)", err, len(a.keys))
	}
}

func (a *Allowlist) reloadLocked() error {
	f, err := os.Open(a.path)
	if err != nil {
		return fmt.Errorf("allowlist: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("allowlist: %w", err)
	}
	keys, problems, err := parseAuthorizedKeys(a.path, f)
	if err != nil {
		return err
	}
	a.keys, a.problems, a.stat = keys, problems, fi
	a.checked = a.now()
	for i := range problems {
		a.log("allowlist: %v", &problems[i])
	}
	return nil
}

func (a *Allowlist) log(format string, args ...any) {
	if a.logf != nil {
		a.logf(format, args...)
	}
}

// maxAuthorizedKeysLine bounds one line of an authorized_keys file (an RSA
// key of 16384 bits with options fits well within it).
const maxAuthorizedKeysLine = 64 << 10

// parseAuthorizedKeys reads authorized_keys lines, returning the fingerprints
// of the good ones and a LineError for each bad one. Blank lines and lines
// starting with '#' are skipped.
func parseAuthorizedKeys(path string, f *os.File) (map[string]struct{}, []LineError, error) {
	keys := make(map[string]struct{})
	var problems []LineError
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxAuthorizedKeysLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pub, err := parseKeyLine(line)
		if err != nil {
			problems = append(problems, LineError{Path: path, Line: n, Err: err})
			continue
		}
		keys[Fingerprint(pub)] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("allowlist: read %s: %w", path, err)
	}
	return keys, problems, nil
}

// parseKeyLine parses one authorized_keys line. ssh.ParseAuthorizedKey skips
// lines it cannot parse and goes on to the next, so it is handed a single
// line to keep line numbers meaningful.
func parseKeyLine(line []byte) (ssh.PublicKey, error) {
	pub, _, _, _, err := ssh.ParseAuthorizedKey(line)
	if err != nil {
		return nil, fmt.Errorf("not a public key line: %w", err)
	}
	return pub, nil
}
