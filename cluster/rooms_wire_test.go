package cluster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pyramid/arena"
	"pyramid/bus"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/rating"
)

// TestProgressEventFits: a server's progress event of a full room, eight
// racers with the longest IDs and moves, each with a long line, fits in
// one event of the bus.
func TestProgressEventFits(t *testing.T) {
	line := make([]string, 400)
	for i := range line {
		line[i] = "10.10+9.10" // the longest move a double pyramid's notation has
	}
	p := lobby.ServerProgress{Inst: strings.Repeat("i", 24), Round: 99}
	for i := range lobby.MaxRacers {
		p.Racers = append(p.Racers, lobby.RacerReport{ID: fmt.Sprintf("SHA256:%043d~%d", i, i), Line: lobby.SummarizeLine(line),
			Progress:    lobby.Progress{Removed: 45, Moves: 400, Pass: 3, Board: 1<<45 - 1, State: lobby.RacerPlaying, GameID: 1 << 40},
			LastRemoval: time.Hour, Finish: time.Hour})
	}
	m := toWireProgress(p)
	m.T = time.Now().UnixMicro()
	body, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > bus.MaxBody {
		t.Fatalf("a full room's progress event is %d bytes, over the bus's %d", len(body), bus.MaxBody)
	}
	t.Logf("a full room's progress event: %d bytes of %d", len(body), bus.MaxBody)
}

// TestWireRoundTrip: every kind of op, and a server's progress, come off
// the bus as they went on (times to the millisecond, as the wire keeps
// them).
func TestWireRoundTrip(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_123)
	ops := []lobby.RoomOp{
		{Kind: lobby.OpHello, Inst: "one"},
		{Kind: lobby.OpGone, Inst: "one", Gone: "two", At: at},
		{Kind: lobby.OpOpen, Inst: "one", Code: "ABCD", RoomID: "r1", Sid: "one/1", Who: &lobby.Entrant{ID: "id-ann", Name: "ann", Guest: true},
			Cfg: &lobby.OpConfig{RulesID: "classic", Deal: 42, Verdict: engine.Winnable, Public: true, TimeLimit: 5 * time.Minute, MaxPlayers: 4, Rated: true}},
		{Kind: lobby.OpJoin, Inst: "two", Code: "ABCD", Sid: "two/3", Who: &lobby.Entrant{ID: "id-bob", Name: "bob", Addr: "203.0.113.7"}},
		{Kind: lobby.OpRemove, Inst: "one", Code: "ABCD", Who: &lobby.Entrant{ID: "id-ann"}, Target: "id-bob", At: at},
		{Kind: lobby.OpLeave, Inst: "two", Code: "ABCD", Target: "id-bob", Sid: "two/3"},
		{Kind: lobby.OpReady, Inst: "two", Code: "ABCD", Target: "id-bob", Ready: true},
		{Kind: lobby.OpStart, Inst: "one", Code: "ABCD", Target: "id-ann", At: at},
		{Kind: lobby.OpEnd, Inst: "one", Code: "ABCD", Round: 2, At: at, Results: []lobby.Placing{
			{Place: 1, ID: "id-ann", Name: "ann", GameID: 7, State: lobby.RacerCleared, Removed: 28, Moves: 40, Time: 95 * time.Second},
			{Place: 2, ID: "id-bob", Name: "bob", Guest: true, State: lobby.RacerLeft, Removed: 3, Moves: 5}}},
		{Kind: lobby.OpRematch, Inst: "one", Code: "ABCD", Target: "id-ann", Cfg: &lobby.OpConfig{Deal: 43, Verdict: engine.Unknown, Rated: true}},
		{Kind: lobby.OpChat, Inst: "two", Code: "ABCD", Target: "id-bob", Text: "gg", At: at},
		{Kind: lobby.OpChat, Inst: "two", Code: "ABCD", Who: &lobby.Entrant{ID: "viewer", Name: "zed", Guest: true}, Target: "viewer", Text: "go ann", At: at},
		{Kind: lobby.OpMute, Inst: "one", Code: "ABCD", Who: &lobby.Entrant{ID: "id-ann"}, Target: "id-bob", Muted: true},
		{Kind: lobby.OpWatch, Inst: "two", Code: "ABCD", Target: "viewer", Sid: "two/9"},
		{Kind: lobby.OpUnwatch, Inst: "two", Code: "ABCD", Target: "viewer", Sid: "two/9"},
		{Kind: lobby.OpClose, Inst: "one", Code: "ABCD", Text: "an admin closed it"},
		{Kind: lobby.OpLapse, Inst: "one", Code: "ABCD", Target: "id-bob", Round: 2, At: at},
		{Kind: lobby.OpRated, Inst: "one", Code: "ABCD", Round: 2, Ratings: []lobby.RatingChange{
			{ID: "id-ann", Standing: rating.Rated, Before: 1512.25, After: 1527.5, Provisional: true},
			{ID: "id-bob", Standing: rating.Unrated, Reason: rating.ReasonAssisted},
			{ID: "id-cat", Standing: rating.Aborted, Reason: rating.ReasonNeverMoved}}},
		{Kind: lobby.OpArenaJoin, Inst: "two", Sid: "two/4", Who: &lobby.Entrant{ID: "id-bob", Name: "bob", Addr: "203.0.113.7"}, At: at,
			Arena: &lobby.ArenaInfo{ID: 7, Name: "Friday arena", RulesID: "classic", Start: at, End: at.Add(45 * time.Minute), GameTime: 4 * time.Minute},
			Lines: []lobby.ArenaStanding{{ID: "id-bob", Line: arena.Line{Points: 9, Streak: 2, Games: 4, Wins: 3, Berserks: 1}, Reached: at}}},
		{Kind: lobby.OpArenaPause, Inst: "two", Arena: &lobby.ArenaInfo{ID: 7}, Target: "id-bob", Pause: true, At: at},
		{Kind: lobby.OpArenaLeave, Inst: "two", Sid: "two/4", Arena: &lobby.ArenaInfo{ID: 7}, Target: "id-bob", At: at},
		{Kind: lobby.OpArenaPair, Inst: "one", Code: "WXYZ", RoomID: "r9", Arena: &lobby.ArenaInfo{ID: 7}, Players: []string{"id-ann", "id-bob"}, At: at,
			Cfg: &lobby.OpConfig{RulesID: "classic", Deal: 44, Verdict: engine.Winnable, TimeLimit: 4 * time.Minute, MaxPlayers: 2, Rated: true}},
		{Kind: lobby.OpBerserk, Inst: "one", Code: "WXYZ", Target: "id-ann"},
		{Kind: lobby.OpArenaDone, Inst: "two", Code: "WXYZ", Round: 1, Arena: &lobby.ArenaInfo{ID: 7}, Target: "id-bob", At: at,
			Racer: &lobby.RacerReport{ID: "id-bob", Progress: lobby.Progress{Removed: 7, Moves: 12, Pass: 3, Board: 5, State: lobby.RacerStuck, GameID: 10},
				LastRemoval: 90 * time.Second, Finish: 2 * time.Minute}},
		{Kind: lobby.OpArenaForfeit, Inst: "one", Code: "WXYZ", Round: 1, Target: "id-bob", Arena: &lobby.ArenaInfo{ID: 7}, At: at},
		{Kind: lobby.OpEnd, Inst: "one", Code: "WXYZ", Round: 1, At: at, Results: []lobby.Placing{
			{Place: 1, ID: "id-ann", Name: "ann", GameID: 8, State: lobby.RacerCleared, Removed: 28, Moves: 33, Time: time.Minute, Berserk: true}}},
		{Kind: lobby.OpArenaScore, Inst: "one", Arena: &lobby.ArenaInfo{ID: 7}, Lines: []lobby.ArenaStanding{
			{ID: "id-ann", Line: arena.Line{Points: 4, Streak: 1, Games: 1, Wins: 1, Berserks: 1}, Reached: at},
			{ID: "id-bob", Line: arena.Line{Games: 5}}}},
		{Kind: lobby.OpArenaEnd, Inst: "one", Arena: &lobby.ArenaInfo{ID: 7}, At: at},
	}
	for _, op := range ops {
		t.Run(string(op.Kind), func(t *testing.T) {
			body, err := json.Marshal(toWire(op))
			if err != nil {
				t.Fatal(err)
			}
			var m roomMsg
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			if got := m.op(); !reflect.DeepEqual(got, op) {
				t.Errorf("came off the bus as\n%+v\nwent on as\n%+v", got, op)
			}
		})
	}
	p := lobby.ServerProgress{Inst: "two", Round: 3, Racers: []lobby.RacerReport{
		{ID: "id-bob", Line: lobby.SummarizeLine([]string{"d", "7.1+7.2"}), Progress: lobby.Progress{Removed: 2, Moves: 2, Pass: 1,
			Board: 3, State: lobby.RacerPlaying, GameID: 9}, LastRemoval: 1500 * time.Millisecond},
		{ID: "id-cat", Progress: lobby.Progress{Removed: 28, Moves: 30, State: lobby.RacerCleared}, Finish: time.Minute},
	}}
	body, err := json.Marshal(toWireProgress(p))
	if err != nil {
		t.Fatal(err)
	}
	var m progressMsg
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if got := m.progress(); !reflect.DeepEqual(got, p) {
		t.Errorf("progress came off the bus as\n%+v\nwent on as\n%+v", got, p)
	}
}
