package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

// groupGames makes n players with a game each, owned by "o".
func groupGames(t *testing.T, s *Store, n int) []store.Game {
	t.Helper()
	ctx := context.Background()
	games := make([]store.Game, n)
	for i := range games {
		p, _, err := s.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:group-%03d", i), fmt.Sprintf("group%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		if games[i], err = s.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: uint64(i), Owner: "o"}); err != nil {
			t.Fatal(err)
		}
	}
	return games
}

// holdWriter takes the writer, so that saves queue up behind it, until
// the function it returns lets it go.
func holdWriter(s *Store) (release func()) {
	s.gate <- struct{}{}
	return func() { <-s.gate }
}

// waitQueued polls until n saves wait for the writer.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		s.saves.mu.Lock()
		got := len(s.saves.pending)
		s.saves.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d saves queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising
	}
}

// TestGroupCommit: saves that queue behind the writer are stored in one
// transaction, each with its own answer: a game claimed by another owner
// or finished refuses its save, the others are stored.
func TestGroupCommit(t *testing.T) {
	s := openSQLite(t, time.Now)
	ctx := context.Background()
	games := groupGames(t, s, 40)
	finished := games[len(games)-1]
	if err := s.FinishGame(ctx, finished.ID, "o", finished.Version, store.State{Status: store.StatusAbandoned}, nil); err != nil {
		t.Fatal(err)
	}
	release := holdWriter(s)
	errs := make([]error, len(games))
	var wg sync.WaitGroup
	for i, g := range games {
		owner := "o"
		if i == 0 {
			owner = "someone else"
		}
		wg.Go(func() {
			errs[i] = s.SaveGame(ctx, g.ID, owner, g.Version, store.State{Status: store.StatusPlaying, Moves: []string{"d", fmt.Sprint(i + 1)}})
		})
	}
	waitQueued(t, s, len(games))
	txs0, saves0 := s.saves.counts() // the games' creations went through it too
	release()
	wg.Wait()
	if txs, saves := s.saves.counts(); txs-txs0 != 1 || saves-saves0 != len(games) {
		t.Errorf("%d transactions for %d saves, want 1 for %d", txs-txs0, saves-saves0, len(games))
	}
	for i, g := range games {
		err := errs[i]
		switch {
		case i == 0:
			if !errors.Is(err, store.ErrConflict) {
				t.Errorf("a save of another owner: got %v, want ErrConflict", err)
			}
		case g.ID == finished.ID:
			if !errors.Is(err, store.ErrFinished) {
				t.Errorf("a save of a finished game: got %v, want ErrFinished", err)
			}
		case err != nil:
			t.Errorf("save %d: %v", i, err)
		default:
			got, err := s.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if want := "d " + fmt.Sprint(i+1); strings.Join(got.Moves, " ") != want {
				t.Errorf("game %d has moves %q, want %q", i, got.Moves, want)
			}
		}
	}
}

// TestGroupCommitFailure: a transaction that fails is rolled back, and its
// saves are stored one by one, each with its own error.
func TestGroupCommitFailure(t *testing.T) {
	s := openSQLite(t, time.Now)
	ctx := context.Background()
	games := groupGames(t, s, 3)
	args := func(g store.Game, moves ...string) []any {
		return saveArgs(g.ID, "o", g.Version, store.State{Status: store.StatusPlaying, Moves: moves}, time.Now())
	}
	bad := args(games[1], "d")
	bad[2] = "no such status" // the table's CHECK refuses it
	release := holdWriter(s)
	errs := make([]error, len(games))
	var wg sync.WaitGroup
	for i, g := range games {
		a := args(g, "d", "d")
		if i == 1 {
			a = bad
		}
		wg.Go(func() { errs[i] = s.groupSave(ctx, g.ID, "o", a) })
	}
	waitQueued(t, s, len(games))
	release()
	wg.Wait()
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "CHECK") {
		t.Errorf("the bad save: got %v, want the CHECK constraint's error", errs[1])
	}
	for _, i := range []int{0, 2} {
		if errs[i] != nil {
			t.Errorf("save %d: %v", i, errs[i])
		}
		if got, err := s.Game(ctx, games[i].ID); err != nil || len(got.Moves) != 2 {
			t.Errorf("game %d: %v moves, %v; want 2", i, got.Moves, err)
		}
	}
	if got, err := s.Game(ctx, games[1].ID); err != nil || len(got.Moves) != 0 || got.Status != store.StatusPlaying {
		t.Errorf("the bad save's game: %+v, %v; want it untouched", got, err)
	}
}

// TestGroupCommitGiveUp: a save whose caller gives up before a leader
// takes it is never stored.
func TestGroupCommitGiveUp(t *testing.T) {
	s := openSQLite(t, time.Now)
	games := groupGames(t, s, 1)
	release := holdWriter(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.SaveGame(ctx, games[0].ID, "o", games[0].Version, store.State{Status: store.StatusPlaying, Moves: []string{"d"}})
	}()
	waitQueued(t, s, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	release()
	if got, err := s.Game(context.Background(), games[0].ID); err != nil || len(got.Moves) != 0 {
		t.Errorf("the game: %v moves, %v; want none", got.Moves, err)
	}
	waitQueued(t, s, 0)
}

// TestGroupCommitBusy: while another process holds the database's write
// lock, a batch is retried until every caller in it gave up, and each is
// told the save did not happen.
func TestGroupCommitBusy(t *testing.T) {
	s := openSQLite(t, time.Now)
	games := groupGames(t, s, 2)
	other, err := sql.Open("sqlite", dbPath(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	errs := make([]error, len(games))
	var wg sync.WaitGroup
	for i, g := range games {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i+1)*300*time.Millisecond)
			defer cancel()
			errs[i] = s.SaveGame(ctx, g.ID, "o", g.Version, store.State{Status: store.StatusPlaying, Moves: []string{"d"}})
		})
	}
	wg.Wait()
	took := time.Since(start)
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err == nil {
			t.Errorf("save %d: stored while the database was locked", i)
		}
	}
	if took > 4*time.Second {
		t.Errorf("the saves took %v to give up, want about their callers' 600 ms", took)
	}
	for _, g := range games {
		if got, err := s.Game(context.Background(), g.ID); err != nil || len(got.Moves) != 0 {
			t.Errorf("game %d: %v moves, %v; want none", g.ID, got.Moves, err)
		}
	}
}

// TestGroupCreate: new games queued behind the writer are created in one
// transaction with the saves waiting, each with its own answer: a second
// unfinished game of the same rules is refused alone (ErrInProgress),
// a banned player's too, and the others are created.
func TestGroupCreate(t *testing.T) {
	s := openSQLite(t, time.Now)
	ctx := context.Background()
	const n = 20
	players := make([]string, n)
	for i := range players {
		p, _, err := s.GetOrCreatePlayer(ctx, fmt.Sprintf("SHA256:create-%03d", i), fmt.Sprintf("create%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		players[i] = p.ID
	}
	if _, err := s.CreateGame(ctx, store.NewGame{PlayerID: players[0], RulesID: "classic", DealNumber: 1, Owner: "o"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBanned(ctx, players[1], true); err != nil {
		t.Fatal(err)
	}
	release := holdWriter(s)
	games := make([]store.Game, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, id := range players {
		wg.Go(func() {
			games[i], errs[i] = s.CreateGame(ctx, store.NewGame{PlayerID: id, RulesID: "classic", DealNumber: 7, Owner: "o"})
		})
	}
	waitQueued(t, s, n)
	txs0, _ := s.saves.counts()
	release()
	wg.Wait()
	if txs, _ := s.saves.counts(); txs-txs0 != 1 {
		t.Errorf("%d transactions for %d creations, want 1", txs-txs0, n)
	}
	for i := range players {
		switch err := errs[i]; {
		case i == 0:
			if !errors.Is(err, store.ErrInProgress) {
				t.Errorf("a second unfinished classic game: got %v, want ErrInProgress", err)
			}
		case i == 1:
			if !errors.Is(err, store.ErrBanned) {
				t.Errorf("a banned player's game: got %v, want ErrBanned", err)
			}
		case err != nil:
			t.Errorf("create %d: %v", i, err)
		default:
			g, err := s.Game(ctx, games[i].ID)
			if err != nil || g.PlayerID != players[i] || g.DealNumber != 7 {
				t.Errorf("game %d as stored: %+v, %v", games[i].ID, g, err)
			}
		}
	}
}

// TestGroupClose: Close lets the writer store the saves queued before it,
// each told so, and refuses those that come after.
func TestGroupClose(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := OpenConfig(ctx, Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	games := groupGames(t, s, 5)
	release := holdWriter(s)
	st := store.State{Status: store.StatusPlaying, Moves: []string{"d"}}
	errs := make([]error, len(games))
	var wg sync.WaitGroup
	for i, g := range games {
		wg.Go(func() { errs[i] = s.SaveGame(ctx, g.ID, "o", g.Version, st) })
	}
	waitQueued(t, s, len(games))
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for deadline := time.Now().Add(10 * time.Second); ; {
		s.saves.mu.Lock()
		refusing := s.saves.closed
		s.saves.mu.Unlock()
		if refusing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Close did not start")
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising
	}
	if err := s.SaveGame(ctx, games[0].ID, "o", 2, st); !errors.Is(err, errClosing) {
		t.Errorf("a save while the store closes: got %v, want errClosing", err)
	}
	release()
	wg.Wait()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("save %d queued before Close: %v", i, err)
		}
	}
	s, err = OpenConfig(ctx, Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, g := range games {
		got, err := s.Game(ctx, g.ID)
		if err != nil || strings.Join(got.Moves, " ") != "d" {
			t.Errorf("game %d after Close: moves %q, %v; want d", g.ID, got.Moves, err)
		}
	}
}
