package arcade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/storetest"
	"pyramid/tui"

	"github.com/charmbracelet/log"
)

// databaseWords are what a player must never read: the database's
// address, its user and name, the driver's and the store's words.
var databaseWords = []string{"127.0.0.1", "database=", "user=", "failed to connect", "store:", "SQLSTATE", "dial tcp",
	"connection refused", "EOF", "pyramid_test"}

// TestOutageCommands: with the database out of reach (a proxy in front
// of PostgreSQL, cut), every command that needs the store fails in plain
// words, with none of the driver's.
func TestOutageCommands(t *testing.T) {
	base := storetest.PostgresSchemaURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := storetest.NewProxy(t, u.Host)
	f := newFixtureDB(t, proxy.Via(t, base))
	alice := sshtest.NewKey(t)
	if code, _, errOut := f.run(session(alice, "alice", "whoami")); code != 0 {
		t.Fatalf("whoami before the outage: exit %d, %s", code, errOut)
	}
	proxy.Cut()
	for _, args := range [][]string{
		{"whoami"}, {"stats"}, {"stats", "--json"}, {"games"}, {"top"}, {"top", "daily"}, {"top", "race"}, {"replay", "1"},
		{"name", "alice2"}, {"link"}, {"link", "ABCD-EFGH"}, {"who"}, {"rooms"}, {"share", "1"},
	} {
		code, out, errOut := f.run(session(alice, "alice", args...))
		text := out + errOut
		t.Logf("%s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(text))
		for _, w := range databaseWords {
			if strings.Contains(text, w) {
				t.Errorf("%s: the player reads %q:\n%s", strings.Join(args, " "), w, text)
			}
		}
	}
}

// flakyStore is a store whose CreateGame cannot reach the database while
// down.
type flakyStore struct {
	store.Store
	down atomic.Bool
}

func (s *flakyStore) CreateGame(ctx context.Context, ng store.NewGame) (store.Game, error) {
	if s.down.Load() {
		return store.Game{}, fmt.Errorf("store: create game: %w (%w)", store.ErrUnavailable,
			&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")})
	}
	return s.Store.CreateGame(ctx, ng)
}

// TestRaceGameMadeAfterAnOutage: a racer whose race game could not be
// made at the countdown (the database out of reach) has their first move
// refused, in plain words, as any move the store does not have; once the
// database is back their next move makes the game, and every move after
// it is stored. It was made never: the race ran on with their game
// unstored.
func TestRaceGameMadeAfterAnOutage(t *testing.T) {
	f := newFixture(t)
	flaky := &flakyStore{Store: f.st}
	f.app = New(Config{Store: flaky, Logger: log.New(&bytes.Buffer{}), Connect: "ssh -p 23234 test"})
	t.Cleanup(f.app.Close)
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	flaky.down.Store(true)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: 42, HasDeal: true}, ann, bob)
	ctx := context.Background()
	rec := engine.Record{Rules: engine.Classic().ID(), Deal: 42, Moves: []string{"d"}}
	_, err := ann.Play(ctx, code, 1, 1, rec)
	if err == nil {
		t.Fatal("a move acknowledged with no game to store it in")
	}
	if why := tui.Reason(err); why != "the database is unreachable for now" {
		t.Errorf("ann reads %q", why)
	}
	if m, _ := room.Snapshot().Member(ann.me.ID); m.Moves != 0 {
		t.Errorf("ann's panel shows %d moves, want the refused one taken back", m.Moves)
	}
	flaky.down.Store(false)
	for i, moves := range [][]string{{"d"}, {"d", "d"}} {
		rec.Moves = moves
		if _, err := ann.Play(ctx, code, 1, 2+i, rec); err != nil {
			t.Fatalf("ann's move once back: %v", err)
		}
	}
	g, err := f.st.RaceGame(ctx, ann.me.ID, room.Snapshot().RaceKey())
	if err != nil || len(g.Moves) != 2 {
		t.Fatalf("ann's race game: %+v, %v; want her 2 moves stored", g.Moves, err)
	}
}
