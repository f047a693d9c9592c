package lobby

import (
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
)

// TestFinishedNotPlaying: a player still at the table of a game that is
// over (Doing.Finished) shows as finished on every server of the cluster
// and is not counted among those playing its rules (the live daily
// board's "N playing now").
func TestFinishedNotPlaying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		daily := Doing{What: Playing, Rules: "daily", Deal: 9, Removed: 28}
		done := daily
		done.Finished = true
		one.SetDoing(one.Join(Player{ID: "a", Name: "ann"}), done)
		two.SetDoing(two.Join(Player{ID: "b", Name: "bob"}), daily)
		two.SetDoing(two.Join(Player{ID: "c", Name: "cat"}), done)
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		for _, l := range []*Lobby{one, two} {
			if n := l.PlayingRules("daily"); n != 1 {
				t.Errorf("PlayingRules(daily) = %d, want 1 (bob; ann and cat finished)", n)
			}
			for _, p := range l.Who() {
				if want := p.Name != "bob"; p.Finished != want || p.What != Playing {
					t.Errorf("%s: %+v, want playing, finished %v", p.Name, p.Doing, want)
				}
			}
		}
	})
}
