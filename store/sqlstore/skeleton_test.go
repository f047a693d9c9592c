package sqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"pyramid/store"
	"pyramid/store/storetest"
)

// skeletonBackends are the configurations the skeleton tests run on: a
// store is opened, closed and opened again on the same database.
func skeletonBackends(t *testing.T, test func(t *testing.T, cfg Config)) {
	t.Run("sqlite", func(t *testing.T) { test(t, Config{DataDir: t.TempDir()}) })
	t.Run("postgres", func(t *testing.T) { test(t, Config{DatabaseURL: storetest.PostgresSchemaURL(t)}) })
}

// TestSkeletonsFilledOnOpen: the names given before the store kept
// skeletons get theirs when it next opens, and are compared from then on.
func TestSkeletonsFilledOnOpen(t *testing.T) {
	skeletonBackends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s, err := OpenConfig(ctx, cfg)
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
		if _, err := s.w.ExecContext(ctx, `UPDATE players SET name_skeleton = NULL, name_folded_skeleton = NULL`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if s, err = OpenConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.RenamePlayer(ctx, p.ID, "r\u0435devil"); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("rename to a look-alike of an old name: %v, want %v", err, store.ErrNameTaken)
		}
	})
}

// TestSkeletonsRecomputed: migration 0021 has the store compute every
// name's skeletons again; of two players whose names now look alike, the
// older keeps its name and the younger gets its generated one, with a
// line in the audit log, and both go on playing with their keys.
func TestSkeletonsRecomputed(t *testing.T) {
	skeletonBackends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		clock := storetest.NewClock(time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC))
		cfg.Now = clock.Now
		s, err := OpenConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The names as the store took them before: invisible code points
		// and a capital I for an l passed.
		names := []struct{ key, name, old string }{
			{"SHA256:alice", "alice", ""},
			{"SHA256:capital-i", "capital-i", "aIice"},
			{"SHA256:cgj", "cgj", "alice\u034f"},
			{"SHA256:bob", "bob", ""},
			{"SHA256:selector", "selector", "bob\ufe00"},
			{"SHA256:carol", "carol", "CAROL\U000e0100x"},
		}
		for _, n := range names {
			if _, _, err := s.GetOrCreatePlayer(ctx, n.key, n.name); err != nil {
				t.Fatal(err)
			}
			if n.old != "" {
				if _, err := s.w.ExecContext(ctx, `UPDATE players SET name = $1, name_key = $2 WHERE id = $3`,
					n.old, nameKey(n.old), n.key); err != nil {
					t.Fatal(err)
				}
			}
			clock.Advance(time.Minute)
		}
		// Back to before migration 0021.
		for _, q := range []string{
			`DROP INDEX players_name_folded_skeleton`,
			`ALTER TABLE players DROP COLUMN name_folded_skeleton`,
			`DELETE FROM schema_migrations WHERE version = 21`,
		} {
			if _, err := s.w.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		s.Close()
		if s, err = OpenConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		defer s.Close()

		want := map[string]string{"SHA256:alice": "alice", "SHA256:bob": "bob", "SHA256:carol": "CAROL\U000e0100x"}
		for _, n := range names {
			p, err := s.PlayerByKey(ctx, n.key)
			if err != nil {
				t.Fatalf("player %s: %v", n.key, err)
			}
			if w, ok := want[n.key]; ok {
				if p.Name != w {
					t.Errorf("player %s renamed %q, want it to keep %q", n.key, p.Name, w)
				}
			} else if !strings.HasPrefix(p.Name, "player-") {
				t.Errorf("player %s named %q, want a generated player- name", n.key, p.Name)
			}
		}
		log, err := s.AuditLog(ctx, "SHA256:capital-i", 10)
		if err != nil || len(log) != 1 || log[0].Action != store.AuditRename || !strings.HasPrefix(log[0].Subject, "aIice → player-") {
			t.Errorf("audit log of the renamed player = %+v, %v, want its rename", log, err)
		}
		mallory, _, err := s.GetOrCreatePlayer(ctx, "SHA256:mallory", "mallory")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"aIice", "ALICE", "a1ice", "BOB", "carolx"} {
			if err := s.RenamePlayer(ctx, mallory.ID, name); !errors.Is(err, store.ErrNameTaken) {
				t.Errorf("rename to %q: %v, want %v", name, err, store.ErrNameTaken)
			}
		}
	})
}
