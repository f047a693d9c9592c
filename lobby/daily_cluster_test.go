package lobby

import (
	"testing"
	"testing/synctest"

	"pyramid/bus"
)

// TestClusterDailyFinished: a daily result recorded on one server
// reloads the daily boards viewed on the others (seen over SSH with two
// instances: the board on one never showed a finish on the other), once
// per result, and a server does not hear its own news twice.
func TestClusterDailyFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		here := one.Join(Player{ID: "a", Name: "ann"})
		there := two.Join(Player{ID: "b", Name: "bob"})
		one.WatchDaily(here, true)
		two.WatchDaily(there, true)
		synctest.Wait()
		drain(t, here.Queue())
		drain(t, there.Queue())
		one.DailyFinished("daily", "2026-12-01")
		synctest.Wait()
		want := DailyChanged{Rules: "daily", Date: "2026-12-01"}
		for name, s := range map[string]*Session{"this server's viewer": here, "the other server's viewer": there} {
			evs := drain(t, s.Queue())
			n := 0
			for _, ev := range evs {
				if ev == Event(want) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s got %d DailyChanged (%v), want 1", name, n, evs)
			}
		}
	})
}
