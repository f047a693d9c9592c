package sqlstore

import (
	"context"
	"errors"
	"testing"

	"pyramid/store"
)

// TestSkeletonsFilledOnOpen: the names given before the store kept
// skeletons get theirs when it next opens, and are compared from then on.
func TestSkeletonsFilledOnOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.GetOrCreatePlayer(ctx, "SHA256:old", "redevil"); err != nil {
		t.Fatal(err)
	}
	p, _, err := s.GetOrCreatePlayer(ctx, "SHA256:new", "mallory")
	if err != nil {
		t.Fatal(err)
	}
	// As a store from before migration 0003 left them.
	if _, err := s.w.ExecContext(ctx, `UPDATE players SET name_skeleton = NULL`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir, ""); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RenamePlayer(ctx, p.ID, "r\u0435devil"); !errors.Is(err, store.ErrNameTaken) {
		t.Errorf("rename to a look-alike of an old name: %v, want %v", err, store.ErrNameTaken)
	}
}
