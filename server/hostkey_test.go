package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostKeyCreatedOnceAndReused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	path := filepath.Join(dir, "host_ed25519")
	cfg, _ := testConfig(t)
	cfg.HostKeyPath = path
	first, err := New(cfg, &testApp{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for _, p := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o700}, {path, 0o600}} {
		fi, err := os.Stat(p.path)
		if err != nil {
			t.Fatalf("stat: %v", err)
		}
		if got := fi.Mode().Perm(); got != p.want {
			t.Errorf("%s has mode %o, want %o", p.path, got, p.want)
		}
	}
	second, err := New(cfg, &testApp{})
	if err != nil {
		t.Fatalf("second New: %v", err)
	}
	if first.Fingerprint() != second.Fingerprint() || !strings.HasPrefix(first.Fingerprint(), "SHA256:") {
		t.Errorf("fingerprints %q and %q, want the same SHA256 key twice", first.Fingerprint(), second.Fingerprint())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data directory holds %d files, want only the key (no temporary leftovers)", len(entries))
	}
}

func TestHostKeyErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage_key")
	if err := os.WriteFile(garbage, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"directory cannot be created", filepath.Join(file, "host_ed25519"), "not a directory"},
		{"unparsable key", garbage, "parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := testConfig(t)
			cfg.HostKeyPath = tt.path
			_, err := New(cfg, &testApp{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("New = %v, want an error mentioning %q and the path", err, tt.want)
			}
		})
	}
}
