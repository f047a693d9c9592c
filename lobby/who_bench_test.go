package lobby

import (
	"fmt"
	"testing"
)

// thousand is a lobby of a thousand players.
func thousand(b *testing.B) (*Lobby, []*Session) {
	l := New(Config{})
	b.Cleanup(l.Close)
	var all []*Session
	for i := range 1000 {
		all = append(all, l.Join(Player{ID: fmt.Sprintf("SHA256:%04d", i), Name: fmt.Sprintf("Player-%04d", (i*7919)%1000)}))
	}
	return l, all
}

// BenchmarkWho: the listing of a thousand players, read again with no
// change between (go test -run '^$' -bench Who -benchmem ./lobby/).
func BenchmarkWho(b *testing.B) {
	l, _ := thousand(b)
	b.ReportAllocs()
	for b.Loop() {
		if len(l.Who()) != 1000 {
			b.Fatal("not a thousand")
		}
	}
}

// BenchmarkWhoChanged: a move, then the listing of a thousand players:
// every read builds one.
func BenchmarkWhoChanged(b *testing.B) {
	l, all := thousand(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		l.SetDoing(all[n%len(all)], Doing{What: Racing, Rules: "classic", Deal: 7, Room: "ABCD", Removed: n})
		if len(l.Who()) != 1000 {
			b.Fatal("not a thousand")
		}
	}
}

// BenchmarkListedUnderMoves: what a Lobby viewer reads between two
// flushes while the players move: one shared listing.
func BenchmarkListedUnderMoves(b *testing.B) {
	l, all := thousand(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		l.SetDoing(all[n%len(all)], Doing{What: Racing, Rules: "classic", Deal: 7, Room: "ABCD", Removed: n})
		if len(l.Listed()) != 1000 {
			b.Fatal("not a thousand")
		}
	}
}
