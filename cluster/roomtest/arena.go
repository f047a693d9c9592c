package roomtest

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/cluster"
	"pyramid/lobby"
)

// arenaScores is the arenas' scores as a store keeps them: each arena
// race scored once (by its key) with package arena's rules.
type arenaScores struct {
	lines  map[int64]map[string]arena.Line
	scored map[string]bool
}

// scoreArenaRace is the servers' OnArenaRace: what the store does, in
// memory.
func (e *roomsEnv) scoreArenaRace(res lobby.RaceResult) ([]lobby.ArenaStanding, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.arena
	if s.lines == nil {
		s.lines, s.scored = map[int64]map[string]arena.Line{}, map[string]bool{}
	}
	if s.lines[res.Arena] == nil {
		s.lines[res.Arena] = map[string]arena.Line{}
	}
	lines := s.lines[res.Arena]
	first := !s.scored[res.Key()]
	s.scored[res.Key()] = true
	var out []lobby.ArenaStanding
	ps := make([]arena.Placing, len(res.Placings))
	for i, p := range res.Placings {
		ps[i] = arena.Placing{Place: p.Place, Removed: p.Removed, Cleared: p.Cleared}
	}
	for i, p := range res.Placings {
		if first {
			g := arena.PlacingGame(len(res.Placings), ps, i)
			g.Berserk, g.Void = p.Berserk, res.Void || p.State == lobby.RacerLeft
			_, lines[p.ID] = arena.Score(lines[p.ID], g)
		}
		out = append(out, lobby.ArenaStanding{ID: p.ID, Line: lines[p.ID], Reached: res.Ended})
	}
	return out, nil
}

// arenaLine is a player's line as the test's store scored it.
func (e *roomsEnv) arenaLine(id int64, player string) arena.Line {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.arena.lines[id][player]
}

// friday is the arena of the scenarios: it runs from t0 for 30 minutes.
func friday() lobby.ArenaInfo {
	return lobby.ArenaInfo{ID: 7, Name: "Friday arena", RulesID: "classic", Start: t0, End: t0.Add(30 * time.Minute), GameTime: 4 * time.Minute}
}

// paired waits until the sink was told of a pairing in the arena, and
// returns the room's code (forgetting the posts).
func paired(t *testing.T, s *fakeSink) string {
	t.Helper()
	var code string
	eventually(t, "paired", func() bool {
		p, ok := hasPost[lobby.ArenaPaired](s)
		code = p.Code
		return ok
	})
	s.events()
	return code
}

// notPaired fails if the sink was told of a pairing.
func notPaired(t *testing.T, s *fakeSink, who string) {
	t.Helper()
	if p, ok := hasPost[lobby.ArenaPaired](s); ok {
		t.Fatalf("%s paired into %s", who, p.Code)
	}
}

// view returns the arena's view on a server for a player.
func view(t *testing.T, rs *cluster.Rooms, id int64, player string) lobby.ArenaView {
	t.Helper()
	v, ok := rs.ArenaView(id, player, lobby.DefaultArenaTop)
	if !ok {
		t.Fatalf("arena %d not known", id)
	}
	return v
}

// eventuallyView waits until the player's view of the arena on the
// server is as cond wants, and shows the last one it saw if it never is.
func eventuallyView(t *testing.T, what string, rs *cluster.Rooms, id int64, player string, cond func(lobby.ArenaView) bool) {
	t.Helper()
	var last lobby.ArenaView
	deadline := time.Now().Add(10 * time.Second)
	for last = view(t, rs, id, player); !cond(last); last = view(t, rs, id, player) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; the last view:\n%+v", what, last)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}

// members is the sorted player IDs of a room.
func members(s lobby.Snapshot) []string {
	var ids []string
	for _, m := range s.Members {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids
}

// testArena: players on two servers join an arena and are paired into
// one race by the holder; a racer goes berserk in the countdown; the
// race is scored and both servers show the standings; everybody is free
// again, and paired again with the last opponents split where they can
// be.
func testArena(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	a.TryLease()
	info := friday()
	sinks := joinAll(t, info, []*cluster.Rooms{a, b}, []string{"ann", "bob", "cat", "dan"})
	guest := pl("zed")
	guest.Guest = true
	_, err := a.JoinArena(info, guest, newSink(), lobby.ArenaStanding{})
	wantErr(t, "a guest joins", err, lobby.ErrArenaGuest)
	later := info
	later.ID, later.Start = 8, t0.Add(time.Hour)
	later.End = later.Start.Add(time.Hour)
	_, err = a.JoinArena(later, pl("ann"), sinks["ann"], lobby.ArenaStanding{})
	wantErr(t, "join before the start", err, lobby.ErrArenaNotYet)

	for _, rs := range []*cluster.Rooms{a, b} {
		eventually(t, "both know all four", func() bool { v, ok := rs.ArenaView(7, "", 10); return ok && v.Players == 4 })
	}
	a.TryLease()
	settle(t, a)
	notPaired(t, sinks["ann"], "ann, before the gather time,")

	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	code := paired(t, sinks["ann"])
	for _, name := range []string{"bob", "cat", "dan"} {
		if c := paired(t, sinks[name]); c != code {
			t.Fatalf("%s paired into %s, ann into %s", name, c, code)
		}
	}
	eventually(t, "b has the room", func() bool { _, ok := b.Room(code); return ok })
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	snap := hb.Snapshot()
	if snap.Phase != lobby.PhaseCountdown || snap.Arena.ID != 7 || !snap.Rated || snap.TimeLimit != 4*time.Minute || len(snap.Members) != 4 {
		t.Fatalf("the arena race on b: phase %v arena %+v rated %v limit %v members %d", snap.Phase, snap.Arena, snap.Rated, snap.TimeLimit, len(snap.Members))
	}
	if v := view(t, b, 7, "id-bob"); v.You.State != lobby.ArenaPlaying || v.You.Code != code || v.Playing != 4 || v.TopGame != code {
		t.Fatalf("bob's view while paired: %+v", v)
	}
	wantErr(t, "ann goes berserk", a.Berserk(code, "id-ann"), nil)
	eventually(t, "b sees ann berserk", func() bool { m, _ := hb.Snapshot().Member("id-ann"); return m.Berserk })

	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "both race", func() bool { return phaseOf(a, code) == lobby.PhaseRacing && phaseOf(b, code) == lobby.PhaseRacing })
	wantErr(t, "berserk once the race runs", b.Berserk(code, "id-bob"), lobby.ErrBerserkLate)
	report(t, ha, "ann", 28, lobby.RacerCleared)
	report(t, hb, "bob", 20, lobby.RacerStuck)
	report(t, ha, "cat", arena.PlayedCards, lobby.RacerStuck) // cat is on a: a's sessions report for a's racers
	report(t, hb, "dan", 10, lobby.RacerStuck)
	eventually(t, "the race is scored on b", func() bool { return view(t, b, 7, "id-bob").Top[0].Points > 0 })

	// ann: a win (2), a clear (1), berserk on a clear (1); bob second
	// (1); dan third (1); cat last (0).
	want := map[string]int{"id-ann": 4, "id-bob": 1, "id-dan": 1, "id-cat": 0}
	for _, rs := range []*cluster.Rooms{a, b} {
		eventuallyView(t, "the standings", rs, 7, "id-cat", func(v lobby.ArenaView) bool {
			if len(v.Top) != 4 || v.Top[0].ID != "id-ann" || v.Top[0].Rank != 1 {
				return false
			}
			for _, s := range v.Top {
				if s.Points != want[s.ID] || s.Games != 1 || s.State != lobby.ArenaFree {
					return false
				}
			}
			return v.Top[1].Rank == 2 && v.Top[2].Rank == 2 && v.You.ID == "id-cat" && v.You.Rank == 4
		})
	}
	if l := e.arenaLine(7, "id-ann"); l.Berserks != 1 || l.Streak != 1 {
		t.Errorf("ann's line as stored: %+v", l)
	}
	if _, ok := sinks["bob"].latest[lobby.ArenaKey(7)].(lobby.ArenaChanged); !ok {
		t.Error("bob's session was not told the arena changed")
	}

	// Paired again once they waited: four free make one race of four,
	// in a new room.
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	c1, c2 := paired(t, sinks["ann"]), paired(t, sinks["cat"])
	if c1 != c2 || c1 == code {
		t.Fatalf("ann in %s, cat in %s, after %s", c1, c2, code)
	}
	if got := members(mustRoom(t, a, c1).Snapshot()); !slices.Equal(got, []string{"id-ann", "id-bob", "id-cat", "id-dan"}) {
		t.Fatalf("the second race: %v", got)
	}
}

// testArenaAlone: a player alone waits AloneAfter, then plays a solo deal
// that scores as a race: a clear is a win.
func testArenaAlone(t *testing.T, e *roomsEnv) {
	a := e.one()
	a.TryLease()
	ann := newSink()
	_, err := a.JoinArena(friday(), pl("ann"), ann, lobby.ArenaStanding{})
	wantErr(t, "ann joins", err, nil)
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	settle(t, a)
	notPaired(t, ann, "ann alone before AloneAfter")
	e.clock.Advance(arena.AloneAfter)
	a.TryLease()
	code := paired(t, ann)
	h, _ := a.Room(code)
	if s := h.Snapshot(); len(s.Members) != 1 || s.Phase != lobby.PhaseCountdown {
		t.Fatalf("solo: %d members, phase %v", len(s.Members), s.Phase)
	}
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "racing", func() bool { return phaseOf(a, code) == lobby.PhaseRacing })
	report(t, h, "ann", 28, lobby.RacerCleared)
	eventually(t, "scored", func() bool { return view(t, a, 7, "id-ann").You.Points == arena.WinPoints+arena.ClearBonus })
	if v := view(t, a, 7, "id-ann"); v.You.Wins != 1 || v.You.Rank != 1 || v.You.State != lobby.ArenaFree {
		t.Errorf("ann after her solo: %+v", v.You)
	}
}

// testArenaPauseAndLeave: a paused player is not paired; one who pauses
// during a race is paused when it ends; one who leaves during a race is
// away when it ends, keeps their points, and is paired again once back.
func testArenaPauseAndLeave(t *testing.T, e *roomsEnv) {
	a := e.one()
	a.TryLease()
	info := friday()
	sinks := map[string]*fakeSink{}
	for _, name := range []string{"ann", "bob", "cat"} {
		sinks[name] = newSink()
		_, err := a.JoinArena(info, pl(name), sinks[name], lobby.ArenaStanding{})
		wantErr(t, name+" joins", err, nil)
	}
	wantErr(t, "cat pauses", a.PauseArena(7, "id-cat", true), nil)
	wantErr(t, "a stranger pauses", a.PauseArena(7, "id-zed", true), lobby.ErrNotInArena)
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	code := paired(t, sinks["ann"])
	paired(t, sinks["bob"])
	notPaired(t, sinks["cat"], "cat, paused,")
	if v := view(t, a, 7, "id-cat"); v.You.State != lobby.ArenaPaused {
		t.Fatalf("cat: %v", v.You.State)
	}
	wantErr(t, "ann pauses during the race", a.PauseArena(7, "id-ann", true), nil)
	wantErr(t, "bob leaves during the race", a.LeaveArena(7, "id-bob", sinks["bob"]), nil)
	if v := view(t, a, 7, "id-ann"); v.You.State != lobby.ArenaPlaying {
		t.Fatalf("ann, paused in her race: %v", v.You.State)
	}
	h, _ := a.Room(code)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "racing", func() bool { return phaseOf(a, code) == lobby.PhaseRacing })
	report(t, h, "ann", 7, lobby.RacerStuck)
	report(t, h, "bob", 9, lobby.RacerStuck)
	eventually(t, "scored", func() bool { return view(t, a, 7, "id-bob").You.Games == 1 })
	v := view(t, a, 7, "id-ann")
	states := map[string]lobby.ArenaState{}
	for _, s := range v.Top {
		states[s.ID] = s.State
	}
	if states["id-ann"] != lobby.ArenaPaused || states["id-bob"] != lobby.ArenaAway || states["id-cat"] != lobby.ArenaPaused {
		t.Fatalf("after the race: %v", states)
	}
	wantErr(t, "cat resumes", a.PauseArena(7, "id-cat", false), nil)
	wantErr(t, "ann resumes", a.PauseArena(7, "id-ann", false), nil)
	bob2 := newSink()
	v, err := a.JoinArena(info, pl("bob"), bob2, lobby.ArenaStanding{})
	wantErr(t, "bob back", err, nil)
	if v.You.Points != 2 || v.You.Games != 1 || v.You.State != lobby.ArenaFree {
		t.Fatalf("bob back: %+v", v.You)
	}
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	c := paired(t, bob2)
	if got := members(mustRoom(t, a, c).Snapshot()); !slices.Equal(got, []string{"id-ann", "id-bob", "id-cat"}) {
		t.Fatalf("paired again: %v", got)
	}
}

// testArenaIdle: a racer who makes no move in the race's first
// arena.FirstMoveTime forfeits it, on the holder's clock: out of the race
// (counted as left, and not let back in), told so, and paused in the
// arena for not playing, on every server; the other racer's race goes on
// and ends as soon as they are done, scored as a walkover; the idle
// player is not paired again until they resume.
func testArenaIdle(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	a.TryLease()
	info := friday()
	ann, bob := newSink(), newSink()
	_, err := a.JoinArena(info, pl("ann"), ann, lobby.ArenaStanding{})
	wantErr(t, "ann joins", err, nil)
	_, err = b.JoinArena(info, pl("bob"), bob, lobby.ArenaStanding{})
	wantErr(t, "bob joins", err, nil)
	eventually(t, "a knows both", func() bool { v, ok := a.ArenaView(7, "", 10); return ok && v.Players == 2 })
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	code := paired(t, ann)
	if c := paired(t, bob); c != code {
		t.Fatalf("bob in %s, ann in %s", c, code)
	}
	ha, hb := mustRoom(t, a, code), mustRoomEventually(t, b, code)
	countingDown(t, code, a, b)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "racing", func() bool { return phaseOf(a, code) == lobby.PhaseRacing && phaseOf(b, code) == lobby.PhaseRacing })
	report(t, ha, "ann", 4, lobby.RacerPlaying)

	// Not before the first-move time.
	e.clock.Advance(arena.FirstMoveTime - time.Second)
	a.TryLease()
	wantErr(t, "Sync", a.Sync(), nil)
	wantErr(t, "Sync", b.Sync(), nil)
	if m, _ := hb.Snapshot().Member("id-bob"); !m.Present {
		t.Fatalf("bob out of the race before the first-move time: %+v", m)
	}
	if _, ok := hasPost[lobby.Forfeited](bob); ok {
		t.Fatal("bob told he forfeited before the first-move time")
	}

	e.clock.Advance(time.Second)
	a.TryLease()
	eventually(t, "bob told he forfeited", func() bool {
		f, ok := hasPost[lobby.Forfeited](bob)
		return ok && f.Code == code && f.Arena == 7
	})
	if _, ok := hasPost[lobby.Forfeited](ann); ok {
		t.Error("ann, who moved, told she forfeited")
	}
	for _, rs := range []*cluster.Rooms{a, b} {
		eventually(t, "bob out of the race and paused for not moving", func() bool {
			h, ok := rs.Room(code)
			if !ok {
				return false
			}
			m, _ := h.Snapshot().Member("id-bob")
			v := view(t, rs, 7, "id-bob")
			return !m.Present && m.State == lobby.RacerLeft && v.You.State == lobby.ArenaPaused && v.You.Idle && v.You.Code == ""
		})
	}
	if phaseOf(a, code) != lobby.PhaseRacing {
		t.Fatalf("ann's race after bob forfeited: %v, want racing", phaseOf(a, code))
	}
	_, err = b.Join(hb, pl("bob"), bob)
	wantErr(t, "bob back into the race he forfeited", err, lobby.ErrForfeited)

	// ann clears: the race ends at once, not at its time limit; bob, who
	// left before playing, is no win for her: she scores a solo deal's
	// clear, and no streak.
	report(t, ha, "ann", 28, lobby.RacerCleared)
	eventually(t, "the race over", func() bool { return phaseOf(a, code) != lobby.PhaseRacing && phaseOf(b, code) != lobby.PhaseRacing })
	eventually(t, "scored", func() bool { return view(t, b, 7, "id-bob").You.Games == 1 })
	if l := e.arenaLine(7, "id-ann"); l.Points != arena.WinPoints+arena.ClearBonus || l.Wins != 1 || l.Streak != 0 {
		t.Errorf("ann after a walkover: %+v", l)
	}
	if l := e.arenaLine(7, "id-bob"); l.Points != 0 || l.Games != 1 {
		t.Errorf("bob after his forfeit: %+v", l)
	}
	if v := view(t, a, 7, "id-bob"); v.You.State != lobby.ArenaPaused || !v.You.Idle {
		t.Fatalf("bob once the race is over: %+v", v.You)
	}

	// bob is not paired while paused (ann, alone, gets a solo deal);
	// once he resumes, he is.
	e.clock.Advance(arena.AloneAfter)
	a.TryLease()
	solo := paired(t, ann)
	settle(t, a)
	notPaired(t, bob, "bob, paused for not moving,")
	if got := members(mustRoom(t, a, solo).Snapshot()); !slices.Equal(got, []string{"id-ann"}) {
		t.Fatalf("ann's solo deal: %v", got)
	}
	wantErr(t, "bob resumes", b.PauseArena(7, "id-bob", false), nil)
	eventually(t, "bob free", func() bool { v := view(t, a, 7, "id-bob"); return v.You.State == lobby.ArenaFree && !v.You.Idle })
	e.clock.Advance(arena.AloneAfter)
	a.TryLease()
	if got := members(mustRoomEventually(t, b, paired(t, bob)).Snapshot()); !slices.Equal(got, []string{"id-bob"}) {
		t.Fatalf("bob paired after he resumed: %v", got)
	}
}

// mustRoom returns the open room with this code on the server.
func mustRoom(t *testing.T, rs *cluster.Rooms, code string) *lobby.Room {
	t.Helper()
	h, ok := rs.Room(code)
	if !ok {
		t.Fatalf("no room %s", code)
	}
	return h
}

// testArenaServerDies: the players of a server that died are away; their
// points stay; one comes back on another server and is paired again.
func testArenaServerDies(t *testing.T, e *roomsEnv) {
	holder, b := e.server("holder"), e.server("b")
	holder.TryLease()
	info := friday()
	ann, bob, cat := newSink(), newSink(), newSink()
	for _, j := range []struct {
		rs   *cluster.Rooms
		name string
		sink *fakeSink
	}{{holder, "ann", ann}, {b, "bob", bob}, {b, "cat", cat}} {
		_, err := j.rs.JoinArena(info, pl(j.name), j.sink, lobby.ArenaStanding{Line: arena.Line{Points: 6, Games: 3}})
		wantErr(t, j.name+" joins", err, nil)
	}
	eventually(t, "the holder knows all three", func() bool { v, ok := holder.ArenaView(7, "", 10); return ok && v.Players == 3 })
	b.Kill()
	e.lease.Expire(cluster.InstanceLease("b"))
	holder.TryLease()
	eventually(t, "bob and cat away", func() bool {
		v := view(t, holder, 7, "id-ann")
		n := 0
		for _, s := range v.Top {
			if s.State == lobby.ArenaAway {
				n++
			}
		}
		return n == 2
	})
	e.clock.Advance(arena.GatherTime)
	holder.TryLease()
	settle(t, holder)
	notPaired(t, ann, "ann, with the others away,")
	bob2 := newSink()
	v, err := holder.JoinArena(info, pl("bob"), bob2, lobby.ArenaStanding{})
	wantErr(t, "bob back on the holder", err, nil)
	if v.You.Points != 6 || v.You.Games != 3 {
		t.Fatalf("bob's line back: %+v", v.You)
	}
	e.clock.Advance(arena.GatherTime)
	holder.TryLease()
	c := paired(t, bob2)
	if got := members(mustRoom(t, holder, c).Snapshot()); !slices.Equal(got, []string{"id-ann", "id-bob"}) {
		t.Fatalf("paired: %v", got)
	}
}

// testArenaEnds: a race paired near the end is cut to it; no race is
// paired in the arena's last minute; at the end, once its races are over,
// the arena ends for everybody, and nobody may join.
func testArenaEnds(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	a.TryLease()
	info := friday()
	// They join near the end: the holder pairs them GatherTime after.
	e.clock.Advance(28 * time.Minute)
	ann, bob := newSink(), newSink()
	_, err := a.JoinArena(info, pl("ann"), ann, lobby.ArenaStanding{})
	wantErr(t, "ann joins", err, nil)
	_, err = b.JoinArena(info, pl("bob"), bob, lobby.ArenaStanding{})
	wantErr(t, "bob joins", err, nil)
	eventually(t, "a knows both", func() bool { v, ok := a.ArenaView(7, "", 10); return ok && v.Players == 2 })
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	code := paired(t, ann)
	h := mustRoom(t, a, code)
	if got, want := h.Snapshot().TimeLimit, info.End.Sub(e.clock.Now().Add(lobby.CountdownTime)); got != want {
		t.Fatalf("time limit %v, want %v (to the end)", got, want)
	}
	hb := mustRoomEventually(t, b, code)
	countingDown(t, code, a, b)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "racing", func() bool { return phaseOf(a, code) == lobby.PhaseRacing && phaseOf(b, code) == lobby.PhaseRacing })
	// The race ends in the arena's last minute.
	e.clock.Advance(time.Minute)
	report(t, h, "ann", 9, lobby.RacerStuck)
	report(t, hb, "bob", 7, lobby.RacerStuck)
	eventually(t, "scored", func() bool { return view(t, a, 7, "id-ann").You.Games == 1 })
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	settle(t, a)
	notPaired(t, ann, "ann, in the last minute,")
	e.clock.Advance(time.Minute)
	// The holder ends the arena in its duties once its last race is
	// stored, which it does beside the log's reader: duties that came
	// before that end it at the next ones, as a running server's next
	// turn of its lease does.
	eventually(t, "bob told of the end", func() bool {
		a.TryLease()
		_, ok := hasPost[lobby.ArenaEnded](bob)
		return ok
	})
	if v := view(t, b, 7, "id-bob"); !v.Over || v.You.Points != 0 || v.Top[0].ID != "id-ann" || v.Top[0].Points != arena.WinPoints {
		t.Fatalf("bob's view at the end: over %v, %+v, top %+v", v.Over, v.You, v.Top)
	}
	_, err = b.JoinArena(info, pl("cat"), newSink(), lobby.ArenaStanding{})
	wantErr(t, "cat joins after the end", err, lobby.ErrArenaOver)
}

// mustRoomEventually waits for the server to know the room.
func mustRoomEventually(t *testing.T, rs *cluster.Rooms, code string) *lobby.Room {
	t.Helper()
	eventually(t, "the room "+code, func() bool { _, ok := rs.Room(code); return ok })
	return mustRoom(t, rs, code)
}

// settle waits until the server paired whatever its last duties found to
// pair, and applied the pairings: what is not paired then was not.
func settle(t *testing.T, rs *cluster.Rooms) {
	t.Helper()
	eventually(t, "the pairing done", func() bool { return !rs.Pairing() })
	wantErr(t, "Sync", rs.Sync(), nil)
}

// testArenaFreeWhenDone: a racer whose own game is over (cleared or
// stuck) is free for the next pairing at once, while the others of
// their race race on: two such racers of two races are paired together;
// the races they left end and are scored as ever, by how their games
// ended even when their server's progress comes after the pairing, and
// the new race is not touched by the old ones' ends.
func testArenaFreeWhenDone(t *testing.T, e *roomsEnv) {
	a := e.server("a")
	// b's progress comes late: what the holder, a, knows of how its
	// racers' games ended is what the ops tell.
	e.slowProgress = make(chan struct{})
	b := e.server("b")
	t.Cleanup(func() { close(e.slowProgress) })
	a.TryLease()
	info := friday()
	names := []string{"ann", "bob", "cat", "dan", "eve"}
	sinks := joinAll(t, info, []*cluster.Rooms{a, b}, names)
	eventually(t, "a knows all five", func() bool { v, ok := a.ArenaView(7, "", 10); return ok && v.Players == 5 })
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	codes := map[string]string{}
	for _, name := range names {
		codes[name] = paired(t, sinks[name])
	}
	// Five with no game yet, in the order of their IDs: ann, bob, cat
	// race together, dan and eve together.
	first, second := codes["ann"], codes["dan"]
	if codes["bob"] != first || codes["cat"] != first || codes["eve"] != second || first == second {
		t.Fatalf("the races: %v", codes)
	}
	countingDown(t, first, a, b)
	countingDown(t, second, a, b)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "both races run", func() bool {
		return phaseOf(a, first) == lobby.PhaseRacing && phaseOf(b, second) == lobby.PhaseRacing
	})
	r1a, r2a, r2b := mustRoom(t, a, first), mustRoom(t, a, second), mustRoom(t, b, second)
	report(t, r1a, "ann", 28, lobby.RacerCleared)
	report(t, r2b, "dan", 7, lobby.RacerStuck) // dan is on b
	for _, rs := range []*cluster.Rooms{a, b} {
		eventually(t, "ann and dan free, the others racing", func() bool {
			v := view(t, rs, 7, "")
			free := 0
			for _, s := range v.Top {
				if s.State == lobby.ArenaFree {
					free++
				}
			}
			return free == 2 && v.Playing == 3
		})
	}
	if phaseOf(a, first) != lobby.PhaseRacing || phaseOf(a, second) != lobby.PhaseRacing {
		t.Fatal("a race ended while racers of it race")
	}
	// The top game names only those still racing in it.
	if v := view(t, a, 7, ""); len(v.TopNames) == 0 || slices.Contains(v.TopNames, "ann") || slices.Contains(v.TopNames, "dan") {
		t.Errorf("the top game %s names %q", v.TopGame, v.TopNames)
	}
	e.clock.Advance(arena.GatherTime)
	a.TryLease()
	third := paired(t, sinks["ann"])
	if c := paired(t, sinks["dan"]); c != third || third == first || third == second {
		t.Fatalf("ann in %s, dan in %s, after %s and %s", third, c, first, second)
	}
	notPaired(t, sinks["bob"], "bob, racing,")
	countingDown(t, third, a, b)

	// The first races end as their last racers finish; ann and dan race
	// on in the third, their scores counted.
	e.clock.Advance(lobby.CountdownTime)
	report(t, mustRoom(t, b, first), "bob", 10, lobby.RacerStuck)
	report(t, r1a, "cat", 3, lobby.RacerStuck)
	report(t, r2a, "eve", 9, lobby.RacerStuck)
	eventually(t, "the first two races are scored", func() bool {
		return e.arenaLine(7, "id-ann").Games == 1 && e.arenaLine(7, "id-dan").Games == 1 && e.arenaLine(7, "id-eve").Games == 1
	})
	if l := e.arenaLine(7, "id-ann"); l.Points != 3 || l.Wins != 1 {
		t.Errorf("ann's line: %+v, want a win and a clear (3 points)", l)
	}
	if l := e.arenaLine(7, "id-eve"); l.Wins != 1 {
		t.Errorf("eve's line: %+v, want a win over dan (9 cards to his 7)", l)
	}
	for i, rs := range []*cluster.Rooms{a, b} {
		seen := ""
		eventually(t, "ann and dan play the third race", func() bool {
			seen = fmt.Sprintf("on %c: third room %s in phase %s; ", 'a'+i, third, phaseOf(rs, third))
			ok := phaseOf(rs, third) == lobby.PhaseRacing
			for _, who := range []string{"id-ann", "id-dan"} {
				v := view(t, rs, 7, who)
				seen += fmt.Sprintf("%s %s in %s; ", who, v.You.State, v.You.Code)
				ok = ok && v.You.State == lobby.ArenaPlaying && v.You.Code == third
			}
			return ok
		}, func() string { return seen })
	}
}

// testArenaPairsOnTime: the holder pairs free players GatherTime after
// the first of them became free, on the arenas' own timers, without
// waiting for its next duties (no TryLease here after the first): at
// the start, and again after their race.
func testArenaPairsOnTime(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	a.TryLease()
	info := friday()
	names := []string{"ann", "bob", "cat", "dan"}
	sinks := joinAll(t, info, []*cluster.Rooms{a, b}, names)
	eventually(t, "the holder knows all four", func() bool { v, ok := a.ArenaView(7, "", 10); return ok && v.Players == 4 })

	e.clock.Advance(arena.GatherTime - time.Millisecond)
	settle(t, a)
	notPaired(t, sinks["ann"], "ann, a moment before the gather time,")
	e.clock.Advance(time.Millisecond)
	code := paired(t, sinks["ann"])
	for _, name := range names[1:] {
		if c := paired(t, sinks[name]); c != code {
			t.Fatalf("%s paired into %s, ann into %s", name, c, code)
		}
	}

	ha, hb := mustRoom(t, a, code), mustRoomEventually(t, b, code)
	countingDown(t, code, a, b)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "both race", func() bool { return phaseOf(a, code) == lobby.PhaseRacing && phaseOf(b, code) == lobby.PhaseRacing })
	report(t, ha, "ann", 28, lobby.RacerCleared)
	report(t, hb, "bob", 20, lobby.RacerStuck)
	report(t, ha, "cat", 3, lobby.RacerStuck)
	report(t, hb, "dan", 10, lobby.RacerStuck)
	eventually(t, "all four free on the holder", func() bool {
		v := view(t, a, 7, "")
		if len(v.Top) != 4 {
			return false
		}
		for _, s := range v.Top {
			if s.State != lobby.ArenaFree {
				return false
			}
		}
		return true
	})
	e.clock.Advance(arena.GatherTime - time.Millisecond)
	settle(t, a)
	notPaired(t, sinks["cat"], "cat, a moment before the gather time after the race,")
	e.clock.Advance(time.Millisecond)
	again := paired(t, sinks["cat"])
	if again == code {
		t.Fatalf("paired again into the same room %s", code)
	}
	if got := members(mustRoom(t, a, again).Snapshot()); !slices.Equal(got, []string{"id-ann", "id-bob", "id-cat", "id-dan"}) {
		t.Fatalf("the second race: %v", got)
	}
}

// testConcurrentVerdicts: many ops of one server waited for at once each
// get their own verdict, whichever order the log applies them in.
func testConcurrentVerdicts(t *testing.T, e *roomsEnv) {
	a := e.one()
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				errs[i] = a.Sync()
			} else {
				errs[i] = a.Berserk("ZZZZ", "id-ann") // no such room
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if i%2 == 0 {
			wantErr(t, "a sync among others", err, nil)
		} else {
			wantErr(t, "berserk in no room among others", err, lobby.ErrNoRoom)
		}
	}
}

// joinAll has the players called names join the arena, each on the next
// of servers in turn, and returns their sessions' sinks by name.
func joinAll(t *testing.T, info lobby.ArenaInfo, servers []*cluster.Rooms, names []string) map[string]*fakeSink {
	t.Helper()
	sinks := make(map[string]*fakeSink, len(names))
	for i, name := range names {
		sinks[name] = newSink()
		_, err := servers[i%len(servers)].JoinArena(info, pl(name), sinks[name], lobby.ArenaStanding{})
		wantErr(t, name+" joins", err, nil)
	}
	return sinks
}
