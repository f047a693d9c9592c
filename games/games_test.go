package games_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/store"
	"pyramid/store/sqlstore"
)

// env is a store with a player, and what the writers built on it told.
type env struct {
	t      *testing.T
	ctx    context.Context
	st     store.Store
	player string

	mu    sync.Mutex
	taken []string // "id reason" of each game a writer told of
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, _, err := st.GetOrCreatePlayer(context.Background(), "SHA256:ann", "ann")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: context.Background(), st: st, player: p.ID}
}

// writer is the writer of a session whose token is owner.
func (e *env) writer(owner string) *games.Writer {
	return games.New(games.Config{Store: e.st, Owner: owner, Taken: func(_ context.Context, id int64, reason string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.taken = append(e.taken, reason)
	}})
}

func play(moves ...string) games.Play {
	return games.Play{Record: engine.Record{Rules: "classic", Deal: 42, Moves: moves}}
}

// TestSaveDecidesAndVersions: a writer's saves build on the version it
// last read or wrote; a copy of the game older than the stored one is
// refused (ErrStale), whoever holds it, and the game stays as stored.
func TestSaveDecidesAndVersions(t *testing.T) {
	e := newEnv(t)
	a := e.writer("session-a")
	saved, err := a.Save(e.ctx, e.player, 0, play("d"), nil)
	if err != nil || saved.Status != store.StatusPlaying {
		t.Fatalf("the first save: %+v, %v", saved, err)
	}
	if _, err := a.Save(e.ctx, e.player, saved.ID, play("d", "d"), nil); err != nil {
		t.Fatalf("the second save: %v", err)
	}
	// b takes the game over, plays on; a's copy is old now, and a is
	// not its owner any more.
	b := e.writer("session-b")
	if _, err := b.TakeOver(e.ctx, e.player, saved.ID); err != nil {
		t.Fatal(err)
	}
	if len(e.taken) != 1 || e.taken[0] != "" {
		t.Errorf("the other sessions were told %q, want one takeover", e.taken)
	}
	if _, err := b.Save(e.ctx, e.player, saved.ID, play("d", "d", "d"), nil); err != nil {
		t.Fatalf("b's save: %v", err)
	}
	if _, err := a.Save(e.ctx, e.player, saved.ID, play("d", "d", "d", "d"), nil); !errors.Is(err, games.ErrTakenOver) {
		t.Fatalf("a's save after b took over: %v, want ErrTakenOver", err)
	}
	// c claims the game, then b (still thinking it owns its copy) is told
	// so; c's copy made on the claimed version is stored.
	c := e.writer("session-c")
	g, err := c.Claim(e.ctx, e.player, saved.ID)
	if err != nil || len(g.Moves) != 3 {
		t.Fatalf("c's claim: %d moves, %v", len(g.Moves), err)
	}
	if _, err := c.Save(e.ctx, e.player, saved.ID, play("d", "d", "d", "d"), nil); err != nil {
		t.Fatalf("c's save: %v", err)
	}
	// A writer that read the game at some version and another write came
	// since (as a racer's server that kept an old copy): stale.
	old := g
	if _, err := c.Save(e.ctx, e.player, saved.ID, play("d", "d", "d", "d", "d"), nil); err != nil {
		t.Fatal(err)
	}
	c.Read(old)
	if _, err := c.Save(e.ctx, e.player, saved.ID, play("d", "d", "d", "d", "d", "d"), nil); !errors.Is(err, games.ErrStale) {
		t.Fatalf("a save on an old copy: %v, want ErrStale", err)
	}
	stored, err := e.st.Game(e.ctx, saved.ID)
	if err != nil || len(stored.Moves) != 5 {
		t.Fatalf("the stored game: %d moves, %v; want the 5 of the last good save", len(stored.Moves), err)
	}
}

// TestSaveReplace: a new game beside an unfinished one of the same rules
// of another session needs the player's word, and the game replaced is
// abandoned, the session showing it told.
func TestSaveReplace(t *testing.T) {
	e := newEnv(t)
	a, b := e.writer("session-a"), e.writer("session-b")
	first, err := a.Save(e.ctx, e.player, 0, play("d"), nil)
	if err != nil {
		t.Fatal(err)
	}
	next := games.Play{Record: engine.Record{Rules: "classic", Deal: 7, Moves: []string{"d"}}}
	_, err = b.Save(e.ctx, e.player, 0, next, nil)
	var ue *games.UnfinishedError
	if !errors.As(err, &ue) || ue.Game.ID != first.ID {
		t.Fatalf("a new game beside another session's: %v, want an UnfinishedError naming game %d", err, first.ID)
	}
	next.Replace = first.ID
	if _, err := b.Save(e.ctx, e.player, 0, next, nil); err != nil {
		t.Fatalf("with the player's word: %v", err)
	}
	if old, _ := e.st.Game(e.ctx, first.ID); old.Status != store.StatusAbandoned {
		t.Errorf("the game replaced is %s, want abandoned", old.Status)
	}
	if len(e.taken) != 1 || e.taken[0] != games.ErrAbandoned.Error() {
		t.Errorf("the other sessions were told %q, want the abandon", e.taken)
	}
	if _, err := a.Save(e.ctx, e.player, first.ID, play("d", "d"), nil); !errors.Is(err, games.ErrAbandoned) || !errors.Is(err, games.ErrTakenOver) {
		t.Errorf("a's save of the game abandoned: %v, want ErrAbandoned and ErrTakenOver", err)
	}
}

// TestSaveSealsALoss: a lost position is recorded as lost at once, and
// the saves after it are practice: nothing more is stored.
func TestSaveSealsALoss(t *testing.T) {
	e := newEnv(t)
	w := e.writer("session-a")
	// A deal that drawing alone loses.
	var g *engine.Game
	for deal := uint64(1); deal < 500 && (g == nil || g.Status() != engine.Lost); deal++ {
		var err error
		if g, err = engine.NewNumbered(engine.Classic(), deal); err != nil {
			t.Fatal(err)
		}
		for g.Status() == engine.Playing {
			if g.Apply(engine.Move{Kind: engine.Draw}) != nil && g.Apply(engine.Move{Kind: engine.Redeal}) != nil {
				break
			}
		}
	}
	if g.Status() != engine.Lost {
		t.Fatal("no deal of 500 is lost by drawing alone")
	}
	lost := games.Play{Record: g.Record()}
	saved, err := w.Save(e.ctx, e.player, 0, lost, nil)
	if err != nil || saved.Status != store.StatusLost {
		t.Fatalf("the losing save: %+v, %v; want lost", saved, err)
	}
	if p, ok := lost.Playing(g); ok {
		t.Errorf("Playing says a lost position is being played: %+v", p)
	}
	undo := lost
	undo.Record.Moves = undo.Record.Moves[:len(undo.Record.Moves)-1]
	again, err := w.Save(e.ctx, e.player, saved.ID, undo, nil)
	if err != nil || !again.Practice || again.Status != store.StatusLost {
		t.Errorf("a save after the loss: %+v, %v; want practice, still lost", again, err)
	}
}
