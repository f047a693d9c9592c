package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"pyramid/lobby"
)

// databaseWords are what a player must never read: the database's
// address, its user and name, the driver's and the store's words.
var databaseWords = []string{"127.0.0.1", "database=", "user=", "failed to connect", "store:", "SQLSTATE", "dial tcp", "connection refused",
	"lobby.rooms", "EOF"}

// connectError is the error pgx gives when PostgreSQL is down: a real
// one, from a connection to a port of this machine nobody listens on.
func connectError(t *testing.T) error {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, "postgres://pyramid@"+addr+"/pyramid_test?sslmode=disable&connect_timeout=2")
	if err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a closed port")
	}
	return err
}

// plainErr is a store's sentinel as tui sees it (store.ErrUnavailable).
type plainErr struct{}

func (plainErr) Error() string { return "the database is unreachable for now" }
func (plainErr) Plain() string { return "the database is unreachable for now" }

// outageErrors are the errors a store or a bus returns while PostgreSQL
// is down, as they reach the tui: wrapped in their context, marked by
// the store (a PlainError in the chain) or not.
func outageErrors(t *testing.T) map[string]error {
	ce := connectError(t)
	return map[string]error{
		"connect":        fmt.Errorf("store: save game 12: %w", ce),
		"connect marked": fmt.Errorf("resume: store: save game 12: %w (%w)", plainErr{}, ce),
		"shutdown": fmt.Errorf("store: game 12: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01",
			Message: "terminating connection due to administrator command"}),
		"publish": fmt.Errorf("cluster: room KMTX: publish on \"lobby.rooms\": %w", ce),
		"dropped": fmt.Errorf("cluster: room KMTX: publish on \"lobby.rooms\": %w", io.ErrUnexpectedEOF),
	}
}

func wantNoDatabase(t *testing.T, screen string) {
	t.Helper()
	for _, w := range databaseWords {
		if strings.Contains(screen, w) {
			t.Errorf("the player reads %q:\n%s", w, screen)
		}
	}
}

// TestReasonHidesTheDatabase: an error of the store or the bus while
// PostgreSQL is down reads as plain words on every screen that shows a
// failure: the table's save, a race's move, a race's join, the games
// loaded at the start.
func TestReasonHidesTheDatabase(t *testing.T) {
	for name, err := range outageErrors(t) {
		t.Run(name, func(t *testing.T) {
			if got := Reason(err); got == err.Error() {
				t.Fatalf("Reason shows the error as is: %q", got)
			}
			wantNoDatabase(t, Reason(err))

			t.Run("table", func(t *testing.T) {
				store := &fakeGames{}
				h := newHarness(t, Deps{Args: []string{"classic", "42"}, Games: store, Player: testPlayer, Width: 80, Height: 24, Unicode: true})
				h.keys("d")
				store.fail = err
				h.keys("d")
				h.wantScreen("not saved: ", "1 move")
				wantNoDatabase(t, h.screen())
			})
			t.Run("race move", func(t *testing.T) {
				h, f := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
				f.playErr = err
				h.keys("d")
				h.wantScreen("not saved: ")
				wantNoDatabase(t, h.screen())
			})
			t.Run("race join", func(t *testing.T) {
				f := &fakeRaces{seat: RaceSeat{Snapshot: raceRoom(2, lobby.PhaseWaiting)}, joinErr: err}
				h := newHarness(t, Deps{Races: f, Args: []string{"race", "KMTX"}, Width: 80, Height: 24, Unicode: true})
				wantNoDatabase(t, h.screen())
			})
			t.Run("games at the start", func(t *testing.T) {
				h := newHarness(t, Deps{Games: &failingGames{err: err}, Player: testPlayer, Width: 80, Height: 24, Unicode: true})
				h.wantScreen("could not load your games")
				wantNoDatabase(t, h.screen())
			})
		})
	}
	if got, want := Reason(fmt.Errorf("x: %w", plainErr{})), (plainErr{}).Plain(); got != want {
		t.Errorf("a marked error reads %q, want %q", got, want)
	}
	if got, want := Reason(errors.New("disk full")), "disk full"; got != want {
		t.Errorf("an error of ours reads %q, want %q", got, want)
	}
}

// failingGames is a Games whose every listing fails with err.
type failingGames struct {
	fakeGames
	err error
}

func (f *failingGames) Unfinished(ctx context.Context, player string) ([]SavedGame, error) {
	return nil, f.err
}

// TestRaceVoidedShown: a racer reads that the race will not count once a
// server of the race reports its outage of the database.
func TestRaceVoidedShown(t *testing.T) {
	h, _ := raceHarness(t, raceRoom(3, lobby.PhaseRacing), 80, 24)
	h.send(RaceEventMsg{Event: lobby.RaceVoided{Code: "KMTX", Round: 1, Outage: 20*time.Second + 300*time.Millisecond}})
	h.wantScreen("this race will not count: the database was out of reach for 20s")
}
