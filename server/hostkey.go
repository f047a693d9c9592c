package server

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// loadOrCreateHostKey returns the host key stored at path, generating an
// ed25519 key there first if the file does not exist. The directory is
// created 0700 and the key written 0600. A missing directory must never fall
// back to an ephemeral key: every restart would then change the server's
// identity and teach players to ignore host key warnings.
func loadOrCreateHostKey(path string) (gossh.Signer, error) {
	signer, err := readHostKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return signer, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("host key: create directory for %s: %w", path, err)
	}
	if err := writeNewHostKey(path); err != nil {
		return nil, err
	}
	return readHostKey(path)
}

// readHostKey loads and parses the private key at path.
func readHostKey(path string) (gossh.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host key: read %s: %w", path, err)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key: parse %s: %w", path, err)
	}
	return signer, nil
}

// writeNewHostKey generates an ed25519 key and stores it at path without
// ever exposing a half-written file: it is written to a temporary file in the
// same directory, synced, and linked into place. Linking fails if another
// instance created the key meanwhile; that key is then kept.
func writeNewHostKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("host key: generate: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "pyramid host key")
	if err != nil {
		return fmt.Errorf("host key: encode: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".host_key_*")
	if err != nil {
		return fmt.Errorf("host key: cannot write in %s: %w", filepath.Dir(path), err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // best effort: the link below is the real file
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close() //nolint:errcheck,gosec // already failing
		return fmt.Errorf("host key: chmod %s: %w", tmp.Name(), err)
	}
	if err := pem.Encode(tmp, block); err != nil {
		tmp.Close() //nolint:errcheck,gosec // already failing
		return fmt.Errorf("host key: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close() //nolint:errcheck,gosec // already failing
		return fmt.Errorf("host key: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("host key: close %s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("host key: store %s: %w", path, err)
	}
	return nil
}
