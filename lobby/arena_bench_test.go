package lobby

import (
	"fmt"
	"testing"
	"time"

	"pyramid/arena"
)

// arenaOfThousand is the rooms of one server with an arena of a thousand
// players, each with a session and a few games behind them.
func arenaOfThousand(b *testing.B) (*Rooms, *syncLog, ArenaInfo, []string) {
	clock := NewFakeClock(t0)
	rs, l := syncRooms(b, clock)
	info := ArenaInfo{ID: 1, Name: "bench", RulesID: "classic", Start: t0.Add(-time.Minute), End: t0.Add(time.Hour), GameTime: 4 * time.Minute}
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("SHA256:%04d", i)
		line := ArenaStanding{Line: arena.Line{Points: (i * 7919) % 37, Games: 1 + i%5, Wins: i % 3}, Reached: t0.Add(-time.Duration(i) * time.Second)}
		if _, err := rs.JoinArena(info, Entrant{ID: ids[i], Name: fmt.Sprintf("Player-%04d", i)}, newSink(), line); err != nil {
			b.Fatal(err)
		}
	}
	return rs, l, info, ids
}

// BenchmarkArenaViewsAfterScore: one player's score changes the
// standings, then each of the thousand players' screens asks for the
// arena as it sees it (every ArenaChanged does that), per op
// (go test -run '^$' -bench ArenaViews -benchmem ./lobby/).
func BenchmarkArenaViewsAfterScore(b *testing.B) {
	rs, l, info, ids := arenaOfThousand(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		id := ids[n%len(ids)]
		line := ArenaStanding{ID: id, Line: arena.Line{Points: 40 + n, Games: 10 + n}, Reached: t0.Add(time.Duration(n) * time.Second)}
		if err := l.log(RoomOp{Kind: OpArenaScore, Arena: &ArenaInfo{ID: info.ID}, Lines: []ArenaStanding{line}}); err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			if v, ok := rs.ArenaView(info.ID, id, DefaultArenaTop); !ok || v.You.ID != id {
				b.Fatal("no view")
			}
		}
	}
}

// BenchmarkArenaPairAll: the lease holder's pairing of a thousand free
// players (their races all ended together), per op.
func BenchmarkArenaPairAll(b *testing.B) {
	rs, _, _, _ := arenaOfThousand(b)
	at := t0.Add(time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		rs.mu.Lock()
		_, pairs := rs.arenaDuties(at)
		for _, ar := range rs.arenas {
			ar.inFlight = nil
		}
		rs.mu.Unlock()
		if len(pairs) != 1 || len(pairs[0].groups) != 250 {
			b.Fatalf("pairings %d, want one of 250 groups", len(pairs))
		}
	}
}

// slowLog is a syncLog whose Do takes delay more, as a bus's round trip
// does.
type slowLog struct {
	*syncLog
	delay time.Duration
}

func (l slowLog) Do(op RoomOp) error {
	time.Sleep(l.delay)
	return l.syncLog.Do(op)
}

// BenchmarkArenaPairing: the lease holder logs the 250 races of a
// thousand free players over a log whose every op takes a millisecond to
// come back applied, per op: how long the last group waits for its race.
func BenchmarkArenaPairing(b *testing.B) {
	clock := NewFakeClock(t0)
	l := &syncLog{inst: "a", clock: clock, once: map[string]bool{}}
	rs, err := NewRooms(RoomsConfig{Instance: "a", Clock: clock, Logf: b.Logf}, slowLog{l, time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	l.rs = rs
	rs.SetHolder(true)
	info := ArenaInfo{ID: 1, Name: "bench", RulesID: "classic", Start: t0.Add(-time.Minute), End: t0.Add(time.Hour), GameTime: 4 * time.Minute}
	for i := range 1000 {
		id := fmt.Sprintf("SHA256:%04d", i)
		if _, err := rs.JoinArena(info, Entrant{ID: id, Name: id}, newSink(), ArenaStanding{}); err != nil {
			b.Fatal(err)
		}
	}
	at := t0.Add(time.Minute)
	for b.Loop() {
		rs.mu.Lock()
		_, pairs := rs.arenaDuties(at)
		rs.mu.Unlock()
		if len(pairs) != 1 || len(pairs[0].groups) != 250 {
			b.Fatalf("pairings %d, want one of 250 groups", len(pairs))
		}
		rs.pairArena(pairs[0])
		b.StopTimer()
		rs.mu.Lock()
		for _, p := range rs.arenas[1].players {
			if p.state != ArenaPlaying {
				b.Fatalf("%s not paired: %s", p.ID, p.state)
			}
			p.state, p.code, p.last = ArenaFree, "", nil
		}
		for code := range rs.rooms {
			delete(rs.rooms, code)
			rs.byCode.Delete(code)
		}
		rs.mu.Unlock()
		b.StartTimer()
	}
}
