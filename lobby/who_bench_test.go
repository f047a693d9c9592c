package lobby

import (
	"fmt"
	"testing"
)

// BenchmarkWho: the listing of a thousand players, as each Lobby viewer
// reads it on a change (go test -run '^$' -bench Who -benchmem ./lobby/).
func BenchmarkWho(b *testing.B) {
	l := New(Config{})
	defer l.Close()
	for i := range 1000 {
		l.Join(Player{ID: fmt.Sprintf("SHA256:%04d", i), Name: fmt.Sprintf("Player-%04d", (i*7919)%1000)})
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(l.Who()) != 1000 {
			b.Fatal("not a thousand")
		}
	}
}
