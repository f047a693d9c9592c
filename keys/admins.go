package keys

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
)

// Admins is the set of admin keys, by fingerprint. The zero value and nil
// hold no admin. It is read-only once made, so safe for concurrent use.
type Admins struct {
	set map[string]struct{}
}

// ParseAdmins reads the admin list from a configuration value (the --admins
// flag or PYRAMID_ADMINS): SHA256 fingerprints ("SHA256:…") separated by
// commas, spaces or newlines, and/or authorized_keys lines, each of which
// takes the rest of its line. '#' starts a comment that runs to the end of
// the line. Unlike the allowlist file, a bad entry here is an error: a typo
// in the admin list should stop the server, not quietly drop an admin.
func ParseAdmins(spec string) (*Admins, error) {
	a := &Admins{set: make(map[string]struct{})}
	for n, line := range strings.Split(spec, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		rest := strings.TrimLeftFunc(line, isListSeparator)
		for rest != "" {
			if !strings.HasPrefix(rest, "SHA256:") {
				pub, err := parseKeyLine([]byte(rest))
				if err != nil {
					return nil, fmt.Errorf("admins: line %d: %w", n+1, err)
				}
				a.set[Fingerprint(pub)] = struct{}{}
				break
			}
			end := strings.IndexFunc(rest, isListSeparator)
			if end < 0 {
				end = len(rest)
			}
			fp := rest[:end]
			if !validFingerprint(fp) {
				return nil, fmt.Errorf("admins: line %d: %q is not a SHA256 key fingerprint", n+1, Clean(fp, 64))
			}
			a.set[fp] = struct{}{}
			rest = strings.TrimLeftFunc(rest[end:], isListSeparator)
		}
	}
	return a, nil
}

// IsAdmin reports whether the key with this fingerprint is an admin's.
func (a *Admins) IsAdmin(fingerprint string) bool {
	if a == nil {
		return false
	}
	_, ok := a.set[fingerprint]
	return ok
}

// Len returns the number of admin keys.
func (a *Admins) Len() int {
	if a == nil {
		return 0
	}
	return len(a.set)
}

func isListSeparator(r rune) bool { return r == ',' || unicode.IsSpace(r) }

// validFingerprint reports whether s looks like ssh.FingerprintSHA256 output:
// "SHA256:" and the 32-byte digest in unpadded standard base64.
func validFingerprint(s string) bool {
	b64, ok := strings.CutPrefix(s, "SHA256:")
	if !ok {
		return false
	}
	sum, err := base64.RawStdEncoding.DecodeString(b64)
	return err == nil && len(sum) == 32
}
