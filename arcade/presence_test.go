package arcade

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// TestPresenceWatchable: "Others may watch me" is on by default, kept in
// the store when switched, read back by the next session, and refuses
// spectators at once.
func TestPresenceWatchable(t *testing.T) {
	f := newRecordsFixture(t)
	acct := f.app.account(f.player, "", "")
	if !f.app.watchable(f.ctx, acct, f.player) {
		t.Fatal("watchable is off by default, want on")
	}
	l := f.app.lobby
	me := l.Join(lobby.Player{ID: f.player, Name: "ann"})
	bob := l.Join(lobby.Player{ID: "bob", Name: "bob"})
	p := &presence{lobby: l, rooms: f.app.rooms.Rooms, self: me, acct: acct, player: f.player}
	if on, err := p.Watchable(f.ctx); !on || err != nil {
		t.Fatalf("Watchable: %v, %v; want on", on, err)
	}
	if err := p.SetWatchable(f.ctx, false); err != nil {
		t.Fatal(err)
	}
	if stored, _ := f.st.Settings(f.ctx, f.player); stored[store.SettingWatchable] != "off" {
		t.Fatalf("stored settings %v, want watchable off", stored)
	}
	if f.app.watchable(f.ctx, acct, f.player) {
		t.Fatal("the next session reads watchable on")
	}
	if _, err := l.Watch(bob, "ann"); !errors.Is(err, lobby.ErrNotWatchable) {
		t.Fatalf("watching ann: %v, want ErrNotWatchable", err)
	}
	if err := p.SetWatchable(f.ctx, true); err != nil {
		t.Fatal(err)
	}
	if stored, _ := f.st.Settings(f.ctx, f.player); len(stored) != 0 {
		t.Fatalf("stored settings %v, want none (on is the default)", stored)
	}
	if _, err := l.Watch(bob, "ann"); err != nil {
		t.Fatalf("watching ann: %v", err)
	}
	if rooms := p.PublicRooms(); len(rooms) != 0 {
		t.Fatalf("PublicRooms: %v, want none", rooms)
	}
}

// TestDailyFinishedTellsTheBoard: a finished daily game tells the
// viewers of the daily board at once; a game still going does not.
func TestDailyFinishedTellsTheBoard(t *testing.T) {
	f := newRecordsFixture(t)
	l := f.app.lobby
	self := l.Join(lobby.Player{ID: f.player, Name: "ann"})
	viewer := l.Join(lobby.Player{ID: "bob", Name: "bob"})
	l.WatchDaily(viewer, true)
	f.g = f.app.sessionGames(f.player, f.app.newWriterAs(self, f.g.w.Owner()))
	day := "2026-03-01"
	rec := engine.Record{Rules: "daily", Deal: 7, Moves: []string{"d"}}
	first := f.save(tui.SavedGame{Record: rec, Daily: day, Status: tui.StatusPlaying})
	if n := viewer.Queue().Len(); n != 0 {
		t.Fatalf("a daily game still going told the board (%d events)", n)
	}
	f.save(tui.SavedGame{ID: first.ID, Record: rec, Daily: day, Status: tui.StatusAbandoned})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := viewer.Queue().Next(ctx)
	if err != nil || ev != (lobby.DailyChanged{Rules: "daily", Date: day}) {
		t.Fatalf("the board's viewer got %v, %v; want DailyChanged daily %s", ev, err, day)
	}
}

// TestWhoRacePhase: who said "racing in room X" of a racer in the room's
// waiting room or at its results; it now says where the room stands, and
// who --json keeps doing "racing" with the room and adds the phase.
func TestWhoRacePhase(t *testing.T) {
	f := newFixture(t)
	l := f.app.lobby
	for _, p := range []struct {
		name  string
		phase lobby.RacePhase
	}{{"ann", lobby.RaceWaiting}, {"bob", lobby.RaceRunning}, {"cat", lobby.RaceResults}, {"dan", ""}} {
		s := l.Join(lobby.Player{ID: "SHA256:" + p.name, Name: p.name})
		l.SetDoing(s, lobby.Doing{What: lobby.Racing, Rules: "classic", Deal: 9, Room: "ABCD", Phase: p.phase})
	}
	code, out, _ := f.run(session(nil, "guest", "who", "--json"))
	for _, want := range []string{
		`"name": "ann",
    "doing": "racing",
    "phase": "waiting",`,
		`"name": "bob",
    "doing": "racing",
    "phase": "racing",`,
		`"name": "cat",
    "doing": "racing",
    "phase": "results",`,
		`"name": "dan",
    "doing": "racing",
    "phase": "racing",`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("who --json: exit %d, want\n%s\nin:\n%s", code, want, out)
		}
	}
	code, out, _ = f.run(session(nil, "guest", "who"))
	for _, want := range []string{"waiting in room ABCD · Classic · deal 9\n", "racing in room ABCD · Classic · deal 9 · 0/28 removed",
		"at the results of room ABCD · Classic · deal 9 · 0/28 removed"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("who: exit %d, want %q in:\n%s", code, want, out)
		}
	}
}
