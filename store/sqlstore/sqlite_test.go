package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

func TestSQLitePragmas(t *testing.T) {
	s := openSQLite(t, time.Now)
	ctx := context.Background()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
		{"journal_size_limit", "67108864"},
	}
	for _, tt := range tests {
		var got string
		if err := s.w.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("writer PRAGMA %s = %s, want %s", tt.pragma, got, tt.want)
		}
	}
	var queryOnly string
	if err := s.r.QueryRowContext(ctx, "PRAGMA query_only").Scan(&queryOnly); err != nil || queryOnly != "1" {
		t.Errorf("reader PRAGMA query_only = %s, %v, want 1", queryOnly, err)
	}
	if _, err := s.r.ExecContext(ctx, "DELETE FROM players"); err == nil {
		t.Errorf("the read pool accepted a write")
	}
	fi, err := os.Stat(dbPath(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("database file mode %v, want 0600", mode)
	}
}

// dbPath returns the file behind an SQLite store.
func dbPath(t testing.TB, s *Store) string {
	t.Helper()
	var seq int
	var name, file string
	if err := s.w.QueryRow("PRAGMA database_list").Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestSQLiteReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := s.GetOrCreatePlayer(ctx, "SHA256:k", "alice")
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 42, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveGame(ctx, g.ID, "a", g.Version, store.State{Moves: []string{"d", "r"}, Status: store.StatusPlaying}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.UnfinishedGame(ctx, p.ID, "classic", 42, "")
	if err != nil || strings.Join(got.Moves, " ") != "d r" {
		t.Errorf("after reopening: %+v, %v", got, err)
	}
	ms, err := migrations(dialectSQLite)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.r.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil || n != len(ms) {
		t.Errorf("schema_migrations has %d rows, %v; want %d, one per migration", n, err, len(ms))
	}
}

func TestSQLiteRefusesDamagedFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if _, _, err := s.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:key-%03d", i), fmt.Sprintf("player%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Scribble over every page but the first (the header and schema).
	path := filepath.Join(dir, DBFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(data) < 3*page {
		t.Fatalf("database is only %d bytes", len(data))
	}
	for i := page; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, "")
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a damaged database")
	}
	t.Logf("Open refused: %v", err)
}

func TestSQLiteNotADatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DBFile), []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(context.Background(), dir, ""); err == nil {
		s.Close()
		t.Fatal("Open accepted a file that is not a database")
	}
}

// TestSQLiteNoDatabaseLocked saves moves of 200 games at once, from two
// stores on the same file (as two server processes would), while readers
// read: every save lands, and nothing reports the database locked.
func TestSQLiteNoDatabaseLocked(t *testing.T) {
	const players, moves = 200, 5
	dir := t.TempDir()
	ctx := context.Background()
	stores := make([]*Store, 2)
	for i := range stores {
		s, err := Open(ctx, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	games := make([]store.Game, players)
	for i := range games {
		p, _, err := stores[0].GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:k%03d", i), fmt.Sprintf("p%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		if games[i], err = stores[0].CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", Owner: "o"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, players*moves*2)
	for i, g := range games {
		s := stores[i%2]
		wg.Add(2)
		go func() {
			defer wg.Done()
			st := store.State{Status: store.StatusPlaying}
			for n := range moves {
				st.Moves = append(st.Moves, "d")
				if err := s.SaveGame(ctx, g.ID, "o", g.Version+int64(n), st); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range moves {
				if _, err := s.Game(ctx, g.ID); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if strings.Contains(err.Error(), "locked") || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("database locked: %v", err)
		} else {
			t.Errorf("unexpected: %v", err)
		}
	}
	for _, g := range games {
		got, err := stores[1].Game(ctx, g.ID)
		if err != nil || len(got.Moves) != moves {
			t.Fatalf("game %d has %d moves, %v; want %d", g.ID, len(got.Moves), err, moves)
		}
	}
}

// TestSQLiteUnfinishedGamesUsesTheIndex: the unfinished-games query reads
// the partial index of unfinished games, in order, rather than the
// player's whole history.
func TestSQLiteUnfinishedGamesUsesTheIndex(t *testing.T) {
	s := openSQLite(t, time.Now)
	rows, err := s.r.Query(`EXPLAIN QUERY PLAN SELECT `+gameCols+` FROM games
		WHERE player_id = $1 AND status = 'playing' ORDER BY updated_at DESC, id DESC`, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(plan, "; ")
	if !strings.Contains(got, "games_player_playing") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("query plan %q: want the index games_player_playing and no sort", got)
	}
}
