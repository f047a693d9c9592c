package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/store"
)

// The arena tests, run as one entry of the suite.
func testArenas(t *testing.T, e *env) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"Events", testArenaEvents},
		{"Refused", testArenaRefused},
		{"List", testArenaList},
		{"ScheduleNext", testArenaScheduleNext},
		{"Scoring", testArenaScoring},
		{"ScoredOnce", testArenaScoredOnce},
		{"RaceRefused", testArenaRaceRefused},
		{"SharedRanks", testArenaSharedRanks},
		{"QuickLeave", testArenaQuickLeave},
		{"Trophies", testArenaTrophies},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One store for all: each subtest makes players of its own,
			// and reads only the arenas it made.
			sub := *e
			sub.t = t
			tt.fn(t, &sub)
		})
	}
}

// newArena is a one-off arena of classic rules by p, starting at the
// clock's now, for an hour.
func (e *env) newArena(p store.Player, name string) arena.Event {
	return arena.Event{Name: name, RulesID: "classic", Start: e.clock.Now(), Duration: time.Hour, CreatedBy: p.ID}
}

// createArena stores a and fails the test on an error.
func (e *env) createArena(a arena.Event) arena.Event {
	e.t.Helper()
	got, err := e.s.CreateArena(e.ctx, a)
	if err != nil {
		e.t.Fatalf("CreateArena(%+v): %v", a, err)
	}
	return got
}

// arenaNewRace is newRace with every racer but the first stuck: none
// left, so that each game counts unless a test says otherwise.
func (e *env) arenaNewRace(key string, players ...store.Player) store.NewRace {
	nr := e.newRace(key, players...)
	for i := 1; i < len(nr.Placings); i++ {
		nr.Placings[i].Outcome = store.OutcomeStuck
	}
	return nr
}

// sameEvent reports whether two events have the same settings (times
// compared as instants).
func sameEvent(a, b arena.Event) bool {
	as, bs := a.Start, b.Start
	a.Start, b.Start = time.Time{}, time.Time{}
	return a == b && as.Equal(bs)
}

// testArenaEvents: an arena created, read, changed while upcoming,
// refused changes once started, cancelled once.
func testArenaEvents(t *testing.T, e *env) {
	org := e.racer("organiser")
	want := e.newArena(org, "  Friday night  ")
	want.Start = e.clock.Now().Add(2 * time.Hour)
	want.GameTime = 3 * time.Minute
	got := e.createArena(want)
	want.ID, want.Name = got.ID, "Friday night"
	if got.ID == 0 || !sameEvent(got, want) {
		t.Fatalf("created %+v, want %+v", got, want)
	}
	if read, err := e.s.Arena(e.ctx, got.ID); err != nil || !sameEvent(read, want) {
		t.Fatalf("Arena(%d) = %+v, %v; want %+v", got.ID, read, err, want)
	}
	if _, err := e.s.Arena(e.ctx, got.ID+1000); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Arena(unknown) = %v, want ErrNotFound", err)
	}

	// Upcoming: every setting may change; the creator and ID stay.
	edit := want
	edit.Name, edit.RulesID, edit.Duration, edit.GameTime = "Saturday", "double", 90*time.Minute, 0
	edit.Start = want.Start.Add(24 * time.Hour)
	edit.Every = arena.Weekly
	edit.CreatedBy = "someone else"
	got, err := e.s.UpdateArena(e.ctx, edit)
	edit.CreatedBy, edit.Series = org.ID, want.ID // the first of its series now
	if err != nil || !sameEvent(got, edit) {
		t.Fatalf("UpdateArena = %+v, %v; want %+v", got, err, edit)
	}
	// Back to a one-off: no series.
	edit.Every = arena.Once
	if got, err = e.s.UpdateArena(e.ctx, edit); err != nil || got.Series != 0 || got.Every != arena.Once {
		t.Fatalf("UpdateArena to a one-off = %+v, %v", got, err)
	}
	edit.Series = 0
	if _, err := e.s.UpdateArena(e.ctx, arena.Event{ID: want.ID + 1000, Name: "x", RulesID: "classic",
		Start: e.clock.Now(), Duration: time.Hour}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("UpdateArena(unknown) = %v, want ErrNotFound", err)
	}

	// Once it started, no change; it may still be cancelled.
	e.clock.Advance(edit.Start.Sub(e.clock.Now()))
	late := edit
	late.Name = "too late"
	if _, err := e.s.UpdateArena(e.ctx, late); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("UpdateArena of a running arena = %v, want ErrClosed", err)
	}
	if got, err := e.s.Arena(e.ctx, want.ID); err != nil || !sameEvent(got, edit) {
		t.Fatalf("after a refused change: %+v, %v; want %+v", got, err, edit)
	}
	got, err = e.s.CancelArena(e.ctx, want.ID)
	if err != nil || !got.Cancelled || got.PhaseAt(e.clock.Now()) != arena.Cancelled {
		t.Fatalf("CancelArena = %+v, %v", got, err)
	}
	if _, err := e.s.CancelArena(e.ctx, want.ID); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("a second CancelArena = %v, want ErrClosed", err)
	}
	if _, err := e.s.CancelArena(e.ctx, want.ID+1000); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CancelArena(unknown) = %v, want ErrNotFound", err)
	}

	// A finished arena cannot be cancelled; an upcoming one cannot be
	// changed once cancelled.
	done := e.createArena(e.newArena(org, "done"))
	e.clock.Advance(done.Duration)
	if _, err := e.s.CancelArena(e.ctx, done.ID); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("CancelArena of a finished arena = %v, want ErrClosed", err)
	}
	up := e.newArena(org, "upcoming")
	up.Start = e.clock.Now().Add(time.Hour)
	up = e.createArena(up)
	if _, err := e.s.CancelArena(e.ctx, up.ID); err != nil {
		t.Fatalf("CancelArena of an upcoming arena: %v", err)
	}
	if _, err := e.s.UpdateArena(e.ctx, up); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("UpdateArena of a cancelled arena = %v, want ErrClosed", err)
	}
}

// testArenaRefused: what arena.Event.Check refuses, the store refuses as
// ErrInvalid, with package arena's reason kept.
func testArenaRefused(t *testing.T, e *env) {
	org := e.racer("organiser")
	long := make([]rune, arena.MaxNameLen+1)
	for i := range long {
		long[i] = 'é'
	}
	tests := []struct {
		name   string
		edit   func(a *arena.Event)
		reason error // package arena's, or nil
	}{
		{"no name", func(a *arena.Event) { a.Name = "   " }, arena.ErrName},
		{"a name too long", func(a *arena.Event) { a.Name = string(long) }, arena.ErrName},
		{"no rules", func(a *arena.Event) { a.RulesID = "" }, arena.ErrRules},
		{"no duration", func(a *arena.Event) { a.Duration = 0 }, arena.ErrDuration},
		{"too short", func(a *arena.Event) { a.Duration = arena.MinDuration - time.Second }, arena.ErrDuration},
		{"too long", func(a *arena.Event) { a.Duration = arena.MaxDuration + time.Second }, arena.ErrDuration},
		{"a game too short", func(a *arena.Event) { a.GameTime = arena.MinGameTime / 2 }, arena.ErrGameTime},
		{"a game too long", func(a *arena.Event) { a.GameTime = arena.MaxGameTime + time.Minute }, arena.ErrGameTime},
		{"in the past", func(a *arena.Event) { a.Start = e.clock.Now().Add(-time.Hour) }, arena.ErrStart},
		{"an unknown recurrence", func(a *arena.Event) { a.Every = "month" }, nil},
		{"no creator", func(a *arena.Event) { a.CreatedBy = "" }, nil},
	}
	ok := e.createArena(e.newArena(org, "fine"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := e.newArena(org, "x")
			tt.edit(&a)
			_, err := e.s.CreateArena(e.ctx, a)
			wantErr(t, "CreateArena", err, store.ErrInvalid)
			if tt.reason != nil {
				wantErr(t, "CreateArena", err, tt.reason)
			}
			a.ID, a.CreatedBy = ok.ID, org.ID
			if tt.name != "no creator" {
				_, err = e.s.UpdateArena(e.ctx, a)
				// The first arena starts now: it is running, and
				// ErrClosed comes before the settings are looked at.
				wantErr(t, "UpdateArena", err, store.ErrClosed)
			}
		})
	}
	// Refused changes of an upcoming arena are ErrInvalid, and change
	// nothing.
	up := e.newArena(org, "later")
	up.Start = e.clock.Now().Add(time.Hour)
	up = e.createArena(up)
	bad := up
	bad.Duration = 0
	if _, err := e.s.UpdateArena(e.ctx, bad); !errors.Is(err, store.ErrInvalid) || !errors.Is(err, arena.ErrDuration) {
		t.Fatalf("UpdateArena with no duration = %v, want ErrInvalid", err)
	}
	if got, err := e.s.Arena(e.ctx, up.ID); err != nil || !sameEvent(got, up) {
		t.Fatalf("after a refused change: %+v, %v; want %+v", got, err, up)
	}
	n, err := e.s.ArenasCreated(e.ctx, org.ID, time.Time{})
	if err != nil || n != 2 {
		t.Fatalf("ArenasCreated after refusals = %d, %v; want 2", n, err)
	}
}

// testArenaList: Arenas lists those not cancelled that end at since or
// later, by start; ArenasCreated counts a creator's, cancelled too.
func testArenaList(t *testing.T, e *env) {
	org, other := e.racer("organiser"), e.racer("other")
	mine := func(list []arena.Event) []int64 {
		var ids []int64
		for _, a := range list {
			if a.CreatedBy == org.ID || a.CreatedBy == other.ID {
				ids = append(ids, a.ID)
			}
		}
		return ids
	}
	at := func(d time.Duration, who store.Player, name string) arena.Event {
		a := e.newArena(who, name)
		a.Start = e.clock.Now().Add(d)
		return e.createArena(a)
	}
	t0 := e.clock.Now()
	now := at(0, org, "now")
	later := at(3*time.Hour, other, "later")
	soon := at(time.Hour, org, "soon")
	gone := at(2*time.Hour, org, "cancelled")
	if _, err := e.s.CancelArena(e.ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	list, err := e.s.Arenas(e.ctx, t0, 100)
	if got, want := mine(list), []int64{now.ID, soon.ID, later.ID}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Arenas = %v, %v; want %v", got, err, want)
	}
	// The first ends in an hour: since past its end leaves it off.
	e.clock.Advance(90 * time.Minute)
	list, err = e.s.Arenas(e.ctx, e.clock.Now(), 100)
	if got, want := mine(list), []int64{soon.ID, later.ID}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Arenas since %v = %v, %v; want %v", e.clock.Now(), got, err, want)
	}
	list, err = e.s.Arenas(e.ctx, now.End(), 100)
	if got, want := mine(list), []int64{now.ID, soon.ID, later.ID}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Arenas since the first one's end = %v, %v; want %v", got, err, want)
	}
	for _, tt := range []struct {
		who   store.Player
		since time.Time
		want  int
	}{
		{org, t0, 3},
		{other, t0, 1},
		{org, t0.Add(time.Minute), 0},
		{e.racer("nobody"), time.Time{}, 0},
	} {
		if n, err := e.s.ArenasCreated(e.ctx, tt.who.ID, tt.since); err != nil || n != tt.want {
			t.Errorf("ArenasCreated(%s, %v) = %d, %v; want %d", tt.who.Name, tt.since, n, err, tt.want)
		}
	}
}

// testArenaScheduleNext: the next occurrence of a recurring arena is
// stored once, whoever asks and however often.
func testArenaScheduleNext(t *testing.T, e *env) {
	org := e.racer("organiser")
	daily := e.newArena(org, "daily")
	daily.Every = arena.Daily
	daily = e.createArena(daily)
	if daily.Series != daily.ID {
		t.Fatalf("the first of a series: %+v, want Series %d", daily, daily.ID)
	}
	want, _ := daily.Next()
	next, err := e.s.ScheduleNextArena(e.ctx, daily.ID)
	want.ID = next.ID
	if err != nil || next.ID == daily.ID || !sameEvent(next, want) || !next.Start.Equal(daily.Start.Add(24*time.Hour)) {
		t.Fatalf("ScheduleNextArena = %+v, %v; want %+v", next, err, want)
	}
	again, err := e.s.ScheduleNextArena(e.ctx, daily.ID)
	if err != nil || again.ID != next.ID {
		t.Fatalf("a second ScheduleNextArena = %+v, %v; want arena %d", again, err, next.ID)
	}
	// The occurrence after the next, asked for by two servers at once.
	var wg sync.WaitGroup
	got := make([]arena.Event, 2)
	errs := make([]error, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = e.s.ScheduleNextArena(e.ctx, next.ID)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil || got[0].ID != got[1].ID || got[0].Series != daily.ID ||
		!got[0].Start.Equal(daily.Start.Add(48*time.Hour)) {
		t.Fatalf("two ScheduleNextArena at once = %+v, %v", got, errs)
	}
	list, err := e.s.Arenas(e.ctx, daily.Start, 100)
	var series []int64
	for _, a := range list {
		if a.Series == daily.ID {
			series = append(series, a.ID)
		}
	}
	if err != nil || !slices.Equal(series, []int64{daily.ID, next.ID, got[0].ID}) {
		t.Fatalf("the series: %v, %v; want %v", series, err, []int64{daily.ID, next.ID, got[0].ID})
	}
	// An occurrence moved by an edit is still the next one.
	moved := got[0]
	moved.Start = moved.Start.Add(time.Hour)
	if _, err := e.s.UpdateArena(e.ctx, moved); err != nil {
		t.Fatalf("moving an occurrence: %v", err)
	}
	if n, err := e.s.ScheduleNextArena(e.ctx, next.ID); err != nil || n.ID != moved.ID {
		t.Fatalf("ScheduleNextArena after a move = %+v, %v; want arena %d", n, err, moved.ID)
	}
	// An occurrence may not be moved onto another's start.
	clash := got[0]
	clash.Start = next.Start
	if _, err := e.s.UpdateArena(e.ctx, clash); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("moving an occurrence onto another = %v, want ErrInvalid", err)
	}

	weekly := e.newArena(org, "weekly")
	weekly.Every = arena.Weekly
	weekly = e.createArena(weekly)
	if n, err := e.s.ScheduleNextArena(e.ctx, weekly.ID); err != nil || !n.Start.Equal(weekly.Start.Add(7*24*time.Hour)) ||
		n.Series != weekly.ID {
		t.Fatalf("the week after: %+v, %v", n, err)
	}

	once := e.createArena(e.newArena(org, "once"))
	if _, err := e.s.ScheduleNextArena(e.ctx, once.ID); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("ScheduleNextArena of a one-off = %v, want ErrInvalid", err)
	}
	stopped := e.newArena(org, "stopped")
	stopped.Every = arena.Daily
	stopped = e.createArena(stopped)
	if _, err := e.s.CancelArena(e.ctx, stopped.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.ScheduleNextArena(e.ctx, stopped.ID); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("ScheduleNextArena of a cancelled arena = %v, want ErrInvalid", err)
	}
	if _, err := e.s.ScheduleNextArena(e.ctx, stopped.ID+1000); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ScheduleNextArena(unknown) = %v, want ErrNotFound", err)
	}
}

// arenaModel keeps the standings an arena should have, from the races
// given to it, by package arena's own scoring: what the store's answers
// are checked against.
type arenaModel struct {
	lines map[string]store.ArenaLine
	games map[string][]store.ArenaGame
}

func newArenaModel() *arenaModel {
	return &arenaModel{lines: map[string]store.ArenaLine{}, games: map[string][]store.ArenaGame{}}
}

// score adds the race (stored as raceID) with these berserk players.
func (m *arenaModel) score(raceID int64, nr store.NewRace, berserk ...string) {
	for _, p := range nr.Placings {
		g := gameOf(nr, p, berserk)
		l := m.lines[p.PlayerID]
		double := l.OnStreak() && !g.Void
		points, after := arena.Score(l.Line, g)
		if points > 0 || l.Games == 0 {
			l.Reached = nr.Ended
		}
		l.PlayerID, l.Line = p.PlayerID, after
		m.lines[p.PlayerID] = l
		m.games[p.PlayerID] = append(m.games[p.PlayerID], store.ArenaGame{RaceID: raceID, Points: points,
			Streak: double, Racers: g.Racers, Place: g.Place, Cleared: g.Cleared, Berserk: g.Berserk, Void: g.Void,
			At: nr.Ended})
	}
}

// gameOf is the arena game placing p of race nr is, by the rules the
// store's doc comment gives.
func gameOf(nr store.NewRace, p store.RacePlacing, berserk []string) arena.Game {
	ps := make([]arena.Placing, len(nr.Placings))
	me := 0
	for i, o := range nr.Placings {
		ps[i] = arena.Placing{Place: o.Place, Removed: o.Removed, Cleared: o.Cleared}
		if o.PlayerID == p.PlayerID {
			me = i
		}
	}
	g := arena.PlacingGame(nr.Racers, ps, me)
	g.Berserk = slices.Contains(berserk, p.PlayerID)
	g.Void = p.Assisted || p.Outcome == store.OutcomeLeft || nr.Void || !nr.Rated
	return g
}

// standings is the model's standings: by points, fewer games, earlier
// reached, player ID; equal points, games and reached share a rank.
func (m *arenaModel) standings() []store.ArenaLine {
	var out []store.ArenaLine
	for _, l := range m.lines {
		out = append(out, l)
	}
	better := func(a, b store.ArenaLine) int {
		return cmp.Or(cmp.Compare(b.Points, a.Points), cmp.Compare(a.Games, b.Games), a.Reached.Compare(b.Reached))
	}
	slices.SortFunc(out, func(a, b store.ArenaLine) int {
		return cmp.Or(better(a, b), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	for i := range out {
		out[i].Rank = i + 1
		if i > 0 && better(out[i-1], out[i]) == 0 {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out
}

// line is the model's line of a player, with their rank.
func (m *arenaModel) line(id string) store.ArenaLine {
	for _, l := range m.standings() {
		if l.PlayerID == id {
			return l
		}
	}
	return store.ArenaLine{PlayerID: id}
}

// sameLine compares a stored line with the model's, names aside.
func sameLine(got, want store.ArenaLine) bool {
	return got.PlayerID == want.PlayerID && got.Rank == want.Rank && got.Line == want.Line && got.Reached.Equal(want.Reached)
}

// checkLines fails unless the lines are the model's for the same
// players, unranked (RecordArenaRace's).
func (m *arenaModel) checkLines(t *testing.T, what string, got []store.ArenaLine) {
	t.Helper()
	for _, l := range got {
		want := m.line(l.PlayerID)
		want.Rank = 0
		if !sameLine(l, want) {
			t.Errorf("%s: %s's line %+v, want %+v", what, l.PlayerName, l, want)
		}
	}
}

// checkStandings fails unless the store's standings are the model's.
func (m *arenaModel) checkStandings(t *testing.T, e *env, arenaID int64) {
	t.Helper()
	got, err := e.s.ArenaStandings(e.ctx, arenaID, 0)
	want := m.standings()
	if err != nil || len(got) != len(want) {
		t.Fatalf("ArenaStandings = %+v, %v; want %+v", got, err, want)
	}
	for i := range want {
		if !sameLine(got[i], want[i]) {
			t.Errorf("standings line %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

// arenaRace records nr with RecordRace and scores it in the arena,
// checking the lines returned against the model, which it updates.
func (e *env) arenaRace(m *arenaModel, arenaID int64, nr store.NewRace, berserk ...string) int64 {
	e.t.Helper()
	id, err := e.s.RecordRace(e.ctx, nr)
	if err != nil {
		e.t.Fatalf("RecordRace %s: %v", nr.Key, err)
	}
	lines, err := e.s.RecordArenaRace(e.ctx, arenaID, id, berserk)
	if err != nil {
		e.t.Fatalf("RecordArenaRace %s: %v", nr.Key, err)
	}
	m.score(id, nr, berserk...)
	if len(lines) != len(nr.Placings) {
		e.t.Fatalf("RecordArenaRace %s returned %d lines for %d placings", nr.Key, len(lines), len(nr.Placings))
	}
	m.checkLines(e.t, "RecordArenaRace "+nr.Key, lines)
	return id
}

// testArenaScoring: a sequence of races among four players, with a
// streak, a shared first place, an assisted racer, one who left, a void
// race, a solo deal and berserk, scored as package arena says.
func testArenaScoring(t *testing.T, e *env) {
	a, b, c, d := e.racer("alice"), e.racer("bob"), e.racer("carol"), e.racer("dave")
	ev := e.createArena(e.newArena(e.racer("organiser"), "scoring"))
	m := newArenaModel()
	race := func(key string, players ...store.Player) store.NewRace {
		nr := e.arenaNewRace(key, players...)
		e.clock.Advance(6 * time.Minute)
		return nr
	}

	// alice wins and clears, bob second, carol last.
	e.arenaRace(m, ev.ID, race("r1", a, b, c))
	// alice wins again: her streak starts after this one.
	e.arenaRace(m, ev.ID, race("r2", a, b))
	if l, _ := e.s.ArenaPlayer(e.ctx, ev.ID, a.ID); !l.OnStreak() || l.Points != 2*(arena.WinPoints+arena.ClearBonus) {
		t.Fatalf("alice after two clears won: %+v", l)
	}
	// On her streak, berserk: doubled, plus the berserk bonus; dave was
	// assisted (third: nothing anyway) and carol second.
	r3 := race("r3", a, c, d)
	r3.Placings[2].Assisted = true
	e.arenaRace(m, ev.ID, r3, a.ID)
	if l, _ := e.s.ArenaPlayer(e.ctx, ev.ID, a.ID); l.Points != 4*(arena.WinPoints+arena.ClearBonus)+arena.BerserkBonus {
		t.Fatalf("alice after a berserk clear on a streak: %+v", l)
	}
	// alice and bob share first place (neither cleared: a place point
	// each, alice's doubled), which ends alice's streak; carol left (void) though last; a
	// guest took the fourth place.
	r4 := race("r4", a, b, c)
	r4.Racers = 4
	r4.Placings[0].Cleared, r4.Placings[0].Outcome = false, store.OutcomeTimeUp
	r4.Placings[1].Place = 1
	r4.Placings[2].Place, r4.Placings[2].Outcome = 3, store.OutcomeLeft
	e.arenaRace(m, ev.ID, r4, b.ID)
	if l, _ := e.s.ArenaPlayer(e.ctx, ev.ID, a.ID); l.Streak != 0 || l.Games != 4 {
		t.Fatalf("alice after a shared first place: %+v", l)
	}
	// A void race (a racer's server was lost) scores nothing for anybody,
	// and still counts as a game.
	r5 := race("r5", b, c, d)
	r5.Void = true
	e.arenaRace(m, ev.ID, r5)
	// A chosen deal counts for nobody either.
	r6 := race("r6", c, b)
	r6.Rated = false
	e.arenaRace(m, ev.ID, r6)
	// dave alone gets a solo deal: a clear is a win.
	e.arenaRace(m, ev.ID, race("r7", d))
	// carol wins a race of two, berserk, without clearing: no bonus.
	r8 := race("r8", c, d)
	r8.Placings[0].Cleared, r8.Placings[0].Outcome = false, store.OutcomeStuck
	e.arenaRace(m, ev.ID, r8, c.ID)

	m.checkStandings(t, e, ev.ID)
	for _, p := range []store.Player{a, b, c, d} {
		l, err := e.s.ArenaPlayer(e.ctx, ev.ID, p.ID)
		if want := m.line(p.ID); err != nil || !sameLine(l, want) || l.PlayerName != p.Name {
			t.Errorf("ArenaPlayer(%s) = %+v, %v; want %+v", p.Name, l, err, want)
		}
		games, err := e.s.ArenaGames(e.ctx, ev.ID, p.ID)
		want := m.games[p.ID]
		if err != nil || len(games) != len(want) {
			t.Fatalf("ArenaGames(%s) = %+v, %v; want %+v", p.Name, games, err, want)
		}
		for i := range want {
			g, w := games[i], want[i]
			g.At, w.At = time.Time{}, time.Time{}
			if g != w || !games[i].At.Equal(want[i].At) {
				t.Errorf("%s's game %d: %+v, want %+v", p.Name, i+1, games[i], want[i])
			}
		}
	}
	// Which games counted double: alice's third and fourth (on her
	// streak, whether won or not), nobody else's.
	for _, p := range []store.Player{a, b, c, d} {
		games, _ := e.s.ArenaGames(e.ctx, ev.ID, p.ID)
		for i, g := range games {
			if want := p.ID == a.ID && (i == 2 || i == 3); g.Streak != want {
				t.Errorf("%s's game %d counted double: %v, want %v", p.Name, i+1, g.Streak, want)
			}
		}
	}
	// Somebody with no game has no line.
	if l, err := e.s.ArenaPlayer(e.ctx, ev.ID, e.racer("eve").ID); err != nil || l.Rank != 0 || l.Games != 0 {
		t.Errorf("ArenaPlayer(nobody) = %+v, %v", l, err)
	}
	// The standings cut to two.
	if top, err := e.s.ArenaStandings(e.ctx, ev.ID, 2); err != nil || len(top) != 2 || top[0].PlayerID != a.ID {
		t.Errorf("ArenaStandings(2) = %+v, %v", top, err)
	}
}

// testArenaScoredOnce: a race scored again, or by two servers at once,
// scores once.
func testArenaScoredOnce(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	ev := e.createArena(e.newArena(e.racer("organiser"), "once"))
	m := newArenaModel()
	first := e.arenaRace(m, ev.ID, e.arenaNewRace("r1", a, b, c))
	e.clock.Advance(6 * time.Minute)
	lines, err := e.s.RecordArenaRace(e.ctx, ev.ID, first, []string{a.ID})
	if err != nil || len(lines) != 3 {
		t.Fatalf("scoring a race again: %+v, %v", lines, err)
	}
	m.checkLines(t, "scoring a race again", lines)
	m.checkStandings(t, e, ev.ID)

	nr := e.arenaNewRace("r2", b, a)
	id, err := e.s.RecordRace(e.ctx, nr)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]store.ArenaLine, 2)
	errs := make([]error, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = e.s.RecordArenaRace(e.ctx, ev.ID, id, nil)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("two RecordArenaRace at once: %v", err)
	}
	m.score(id, nr)
	for i := range got {
		m.checkLines(t, fmt.Sprintf("RecordArenaRace %d of two", i+1), got[i])
	}
	m.checkStandings(t, e, ev.ID)
	if games, _ := e.s.ArenaGames(e.ctx, ev.ID, b.ID); len(games) != 2 {
		t.Errorf("bob's games after a race scored twice at once: %+v", games)
	}

	// Two races that share carol, scored at once by two servers: neither
	// loses the other's points, in whichever order they were scored.
	d, f := e.racer("dave"), e.racer("frank")
	x, y := e.arenaNewRace("x", c, d), e.arenaNewRace("y", f, c)
	var ids [2]int64
	for i, nr := range []store.NewRace{x, y} {
		if ids[i], err = e.s.RecordRace(e.ctx, nr); err != nil {
			t.Fatal(err)
		}
	}
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.s.RecordArenaRace(e.ctx, ev.ID, ids[i], nil)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("two races sharing a player scored at once: %v", err)
	}
	before := m.line(c.ID).Line
	carols := func(nr store.NewRace) arena.Game {
		i := slices.IndexFunc(nr.Placings, func(p store.RacePlacing) bool { return p.PlayerID == c.ID })
		return gameOf(nr, nr.Placings[i], nil)
	}
	_, xy := arena.Score(before, carols(x))
	_, xy = arena.Score(xy, carols(y))
	_, yx := arena.Score(before, carols(y))
	_, yx = arena.Score(yx, carols(x))
	line, err := e.s.ArenaPlayer(e.ctx, ev.ID, c.ID)
	if err != nil || line.Line != xy && line.Line != yx {
		t.Errorf("carol after two races at once: %+v, %v; want %+v or %+v", line, err, xy, yx)
	}
}

// testArenaRaceRefused: a race is scored in one arena, of its rules, not
// in a cancelled one; unknown arenas and races are not found.
func testArenaRaceRefused(t *testing.T, e *env) {
	a, b := e.racer("alice"), e.racer("bob")
	org := e.racer("organiser")
	ev := e.createArena(e.newArena(org, "one"))
	other := e.createArena(e.newArena(org, "other"))
	m := newArenaModel()
	id := e.arenaRace(m, ev.ID, e.arenaNewRace("r1", a, b))
	if _, err := e.s.RecordArenaRace(e.ctx, other.ID, id, nil); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a race scored in a second arena: %v, want ErrInvalid", err)
	}
	double := e.arenaNewRace("double", a, b)
	double.RulesID = "double"
	did, err := e.s.RecordRace(e.ctx, double)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.RecordArenaRace(e.ctx, other.ID, did, nil); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a race of other rules: %v, want ErrInvalid", err)
	}
	if _, err := e.s.RecordArenaRace(e.ctx, other.ID+1000, id, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown arena: %v, want ErrNotFound", err)
	}
	if _, err := e.s.RecordArenaRace(e.ctx, other.ID, id+1000, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown race: %v, want ErrNotFound", err)
	}
	if _, err := e.s.CancelArena(e.ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	late, err := e.s.RecordRace(e.ctx, e.arenaNewRace("r2", a, b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.RecordArenaRace(e.ctx, other.ID, late, nil); !errors.Is(err, store.ErrClosed) {
		t.Errorf("a race in a cancelled arena: %v, want ErrClosed", err)
	}
	if st, err := e.s.ArenaStandings(e.ctx, other.ID, 0); err != nil || len(st) != 0 {
		t.Errorf("standings of the arena that refused every race: %+v, %v", st, err)
	}
	m.checkStandings(t, e, ev.ID)
}

// testArenaSharedRanks: equal points, games and time share a rank, and
// the tie-breaks apply in order.
func testArenaSharedRanks(t *testing.T, e *env) {
	a, b, c, d := e.racer("alice"), e.racer("bob"), e.racer("carol"), e.racer("dave")
	ev := e.createArena(e.newArena(e.racer("organiser"), "ties"))
	m := newArenaModel()
	// bob and carol share first of two without clearing: a point each,
	// reached at once.
	tie := e.arenaNewRace("tie", b, c)
	tie.Placings[0].Cleared, tie.Placings[0].Outcome = false, store.OutcomeTimeUp
	tie.Placings[1].Place = 1
	e.arenaRace(m, ev.ID, tie)
	e.clock.Advance(6 * time.Minute)
	// alice and dave: alice second of three with a guest last: a point,
	// reached later than bob's and carol's.
	late := e.arenaNewRace("late", d, a)
	late.Racers = 3
	e.arenaRace(m, ev.ID, late)
	m.checkStandings(t, e, ev.ID)
	got, _ := e.s.ArenaStandings(e.ctx, ev.ID, 0)
	if len(got) != 4 || got[0].PlayerID != d.ID || got[1].Rank != 2 || got[2].Rank != 2 || got[3].PlayerID != a.ID || got[3].Rank != 4 {
		t.Errorf("standings %+v: want dave, bob and carol sharing second, alice fourth", got)
	}
}

// testArenaQuickLeave: racers who quit before removing PlayedCards
// (left, forfeited, gave up, played nothing) are not counted as beaten:
// a win over them alone scores as a solo deal and extends no streak; in a
// bigger race the others are placed among those who played; a racer who
// left after playing is beaten as before.
func testArenaQuickLeave(t *testing.T, e *env) {
	a, alt, c, d := e.racer("alice"), e.racer("alice2"), e.racer("carol"), e.racer("dave")
	ev := e.createArena(e.newArena(e.racer("organiser"), "quick"))
	m := newArenaModel()
	race := func(key string, players ...store.Player) store.NewRace {
		nr := e.arenaNewRace(key, players...)
		e.clock.Advance(6 * time.Minute)
		return nr
	}
	line := func(p store.Player) arena.Line {
		t.Helper()
		l, err := e.s.ArenaPlayer(e.ctx, ev.ID, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		return l.Line
	}
	clear := arena.WinPoints + arena.ClearBonus

	// alice's second key leaves at once, then gives up after two cards,
	// then plays nothing until the time is up: three cleared walkovers,
	// 3 points each as solo deals, and no streak.
	for i, quit := range []struct {
		outcome store.Outcome
		removed int
	}{{store.OutcomeLeft, 0}, {store.OutcomeStuck, 2}, {store.OutcomeTimeUp, arena.PlayedCards - 1}} {
		nr := race(fmt.Sprintf("farm%d", i), a, alt)
		nr.Placings[1].Outcome, nr.Placings[1].Removed = quit.outcome, quit.removed
		e.arenaRace(m, ev.ID, nr)
	}
	if l := line(a); l.Points != 3*clear || l.Wins != 3 || l.Streak != 0 || l.Games != 3 {
		t.Fatalf("alice after three walkovers: %+v, want %d points, three wins, no streak", l, 3*clear)
	}
	if l := line(alt); l.Points != 0 || l.Games != 3 {
		t.Fatalf("alice's second key: %+v", l)
	}
	games, err := e.s.ArenaGames(e.ctx, ev.ID, a.ID)
	if err != nil || len(games) != 3 || games[0].Racers != 1 || games[0].Place != 1 || games[0].Points != clear {
		t.Fatalf("alice's games: %+v, %v; want solo games of %d points", games, err, clear)
	}

	// Real wins start a streak; a walkover between them neither extends
	// nor ends it: the third real win is the first doubled.
	e.arenaRace(m, ev.ID, race("real1", a, c))
	nr := race("farm3", a, alt)
	nr.Placings[1].Outcome, nr.Placings[1].Removed = store.OutcomeLeft, 0
	e.arenaRace(m, ev.ID, nr)
	if l := line(a); l.Streak != 1 {
		t.Fatalf("alice's streak after a win and a walkover: %+v, want 1", l)
	}
	e.arenaRace(m, ev.ID, race("real2", a, c))
	if l := line(a); l.Streak != 2 || !l.OnStreak() {
		t.Fatalf("alice after two real wins: %+v", l)
	}

	// Three racers, the second key quitting in third place: dave, second,
	// is last of the two who played: nothing (second of three was a
	// point); alice's win counts, on her streak.
	before := line(d)
	nr = race("three", a, d, alt)
	nr.Placings[2].Outcome, nr.Placings[2].Removed = store.OutcomeLeft, 1
	e.arenaRace(m, ev.ID, nr)
	if l := line(d); l.Points != before.Points || l.Games != before.Games+1 {
		t.Errorf("dave, second of three with a quitter: %+v after %+v, want no point", l, before)
	}
	if l := line(a); l.Streak != 3 {
		t.Errorf("alice's streak after a win over dave: %+v", l)
	}

	// carol leaves after playing: she is beaten, and dave's win is one.
	nr = race("played", d, c)
	nr.Placings[0].Cleared, nr.Placings[0].Outcome = false, store.OutcomeStuck
	nr.Placings[1].Outcome, nr.Placings[1].Removed = store.OutcomeLeft, arena.PlayedCards
	before = line(d)
	e.arenaRace(m, ev.ID, nr)
	if l := line(d); l.Points != before.Points+arena.WinPoints || l.Streak != 1 {
		t.Errorf("dave after beating carol, who left having played: %+v after %+v", l, before)
	}
	m.checkStandings(t, e, ev.ID)
}

// testArenaTrophies: the top three of finished arenas, newest first; the
// winners of those that finished in a window.
func testArenaTrophies(t *testing.T, e *env) {
	a, b, c, d := e.racer("alice"), e.racer("bob"), e.racer("carol"), e.racer("dave")
	org := e.racer("organiser")
	first := e.createArena(e.newArena(org, "first"))
	m1 := newArenaModel()
	e.arenaRace(m1, first.ID, e.arenaNewRace("first", a, b, c, d))
	e.clock.Advance(10 * time.Minute)
	second := e.newArena(org, "second")
	second.Duration = 30 * time.Minute
	second = e.createArena(second)
	m2 := newArenaModel()
	e.arenaRace(m2, second.ID, e.arenaNewRace("second", b, a, c))
	gone := e.createArena(e.newArena(org, "cancelled"))
	e.arenaRace(newArenaModel(), gone.ID, e.arenaNewRace("gone", c, a))
	if _, err := e.s.CancelArena(e.ctx, gone.ID); err != nil {
		t.Fatal(err)
	}

	// Nothing has finished yet.
	if tr, err := e.s.Trophies(e.ctx, a.ID, e.clock.Now(), 10); err != nil || len(tr) != 0 {
		t.Fatalf("trophies before any arena finished: %+v, %v", tr, err)
	}
	// The other subtests' arenas share the store: only these players'
	// wins are looked at.
	ours := func(w map[string]store.Trophy) map[string]store.Trophy {
		out := map[string]store.Trophy{}
		for _, p := range []store.Player{a, b, c, d} {
			if tr, ok := w[p.ID]; ok {
				out[p.ID] = tr
			}
		}
		return out
	}
	if w, err := e.s.ArenaWinners(e.ctx, start, e.clock.Now()); err != nil || len(ours(w)) != 0 {
		t.Fatalf("winners before any arena finished: %+v, %v", w, err)
	}

	// The second finishes first.
	e.clock.Advance(second.End().Sub(e.clock.Now()))
	trophy := func(ev arena.Event, m *arenaModel, id string) store.Trophy {
		l := m.line(id)
		return store.Trophy{ArenaID: ev.ID, Name: ev.Name, RulesID: ev.RulesID, Ended: ev.End(), Rank: l.Rank,
			Points: l.Points, Players: len(m.lines)}
	}
	same := func(got, want []store.Trophy) bool {
		return slices.EqualFunc(got, want, func(g, w store.Trophy) bool {
			ge, we := g.Ended, w.Ended
			g.Ended, w.Ended = time.Time{}, time.Time{}
			return g == w && ge.Equal(we)
		})
	}
	tr, err := e.s.Trophies(e.ctx, a.ID, e.clock.Now(), 10)
	if want := []store.Trophy{trophy(second, m2, a.ID)}; err != nil || !same(tr, want) {
		t.Fatalf("alice's trophies once the second finished: %+v, %v; want %+v", tr, err, want)
	}
	w, err := e.s.ArenaWinners(e.ctx, start, e.clock.Now())
	if w = ours(w); err != nil || len(w) != 1 || !same([]store.Trophy{w[b.ID]}, []store.Trophy{trophy(second, m2, b.ID)}) {
		t.Fatalf("winners once the second finished: %+v, %v", w, err)
	}

	e.clock.Advance(first.End().Sub(e.clock.Now()))
	for _, tt := range []struct {
		who  store.Player
		want []store.Trophy
	}{
		{a, []store.Trophy{trophy(first, m1, a.ID), trophy(second, m2, a.ID)}},
		{b, []store.Trophy{trophy(first, m1, b.ID), trophy(second, m2, b.ID)}},
		{c, []store.Trophy{trophy(first, m1, c.ID)}},
		// dave was fourth and last: no trophy.
		{d, nil},
	} {
		tr, err := e.s.Trophies(e.ctx, tt.who.ID, e.clock.Now(), 10)
		if err != nil || !same(tr, tt.want) {
			t.Errorf("%s's trophies: %+v, %v; want %+v", tt.who.Name, tr, err, tt.want)
		}
	}
	if tr, err := e.s.Trophies(e.ctx, a.ID, e.clock.Now(), 1); err != nil || len(tr) != 1 || tr[0].ArenaID != first.ID {
		t.Errorf("alice's newest trophy: %+v, %v", tr, err)
	}
	w, err = e.s.ArenaWinners(e.ctx, start, e.clock.Now())
	if w = ours(w); err != nil || len(w) != 2 || w[a.ID].ArenaID != first.ID || w[b.ID].ArenaID != second.ID {
		t.Errorf("winners of both: %+v, %v", w, err)
	}
	// Since after the second's end: only the first's winner.
	w, err = e.s.ArenaWinners(e.ctx, second.End().Add(time.Millisecond), e.clock.Now())
	if w = ours(w); err != nil || len(w) != 1 || w[a.ID].ArenaID != first.ID {
		t.Errorf("winners since the second's end: %+v, %v", w, err)
	}
}
