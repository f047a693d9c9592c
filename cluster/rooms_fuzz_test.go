package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"
	"unicode"

	"pyramid/engine"
	"pyramid/lobby"
)

// FuzzRoomOp feeds the rooms whatever another server might publish on
// their topic: the op it decodes to is applied (or refused) without a
// panic, and leaves a room the rooms can show, within its limits, its
// names clean.
func FuzzRoomOp(f *testing.F) {
	at := time.UnixMilli(1_796_000_000_123)
	for _, op := range []lobby.RoomOp{
		{Kind: lobby.OpOpen, Inst: "x", Code: "ABCD", RoomID: "r1", Sid: "x/1", Who: &lobby.Entrant{ID: "id-ann", Name: "ann"},
			Cfg: &lobby.OpConfig{RulesID: "classic", Deal: 42, Verdict: engine.Winnable, Public: true, MaxPlayers: 4}},
		{Kind: lobby.OpJoin, Inst: "y", Code: "ABCD", Sid: "y/1", Who: &lobby.Entrant{ID: "id-bob", Name: "bob\x1b[31m"}},
		{Kind: lobby.OpStart, Inst: "x", Code: "ABCD", Target: "id-ann", At: at},
		{Kind: lobby.OpEnd, Inst: "x", Code: "ABCD", Round: 1, At: at, Results: []lobby.Placing{{Place: 1, ID: "id-ann", Name: "\u202eann"}}},
		{Kind: lobby.OpMute, Inst: "x", Code: "ABCD", Target: "id-bob", Muted: true},
		{Kind: lobby.OpRemove, Inst: "x", Code: "ABCD", Who: &lobby.Entrant{ID: "id-ann"}, Target: "id-bob", At: at},
		{Kind: lobby.OpChat, Inst: "y", Code: "ABCD", Target: "id-bob", Text: "hi", At: at},
		// A spectator's line names its author.
		{Kind: lobby.OpWatch, Inst: "y", Code: "ABCD", Target: "id-zed", Sid: "y/2"},
		{Kind: lobby.OpChat, Inst: "y", Code: "ABCD", Who: &lobby.Entrant{ID: "id-zed", Name: "zed\u202e\x1b[2J"}, Target: "id-zed", Text: "go", At: at},
		{Kind: lobby.OpMute, Inst: "x", Code: "ABCD", Who: &lobby.Entrant{ID: "id-ann"}, Target: "id-zed", Muted: true},
		{Kind: lobby.OpGone, Inst: "x", Gone: "y", At: at},
		{Kind: lobby.OpLapse, Inst: "x", Code: "ABCD", Target: "id-bob", Round: 1},
	} {
		body, err := json.Marshal(toWire(op))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	rs, err := NewRooms(context.Background(), RoomsConfig{LeaseTTL: time.Hour, RoomsConfig: lobby.RoomsConfig{Instance: "one"}})
	if err != nil {
		f.Fatal(err)
	}
	defer rs.Kill()
	var seq uint64
	f.Fuzz(func(t *testing.T, body []byte) {
		var m roomMsg
		if json.Unmarshal(body, &m) != nil {
			return
		}
		seq++
		op := m.op()
		op.Seq, op.Logged = seq, time.Now()
		_ = rs.Apply(op)
		h, ok := rs.Room(op.Code)
		if !ok {
			return
		}
		s := h.Snapshot()
		if len(s.Members) > lobby.MaxRacers || s.Spectators > lobby.MaxSpectators {
			t.Fatalf("room %s: %d members, %d spectators", s.Code, len(s.Members), s.Spectators)
		}
		names := []string{}
		for _, m := range s.Members {
			names = append(names, m.Name)
		}
		for _, p := range s.Results {
			names = append(names, p.Name)
		}
		for _, c := range s.Chat {
			names = append(names, c.From, c.Text)
		}
		for _, n := range names {
			for _, r := range n {
				if unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control) {
					t.Fatalf("room %s shows %q: a control character", s.Code, n)
				}
			}
		}
	})
}
