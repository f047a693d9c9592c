package cluster

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
)

// TestPresenceInstances: each server lists the servers up, itself first,
// players or none; one that says bye leaves the list at once, and one
// that goes silent (killed) leaves it after the time to live.
func TestPresenceInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		cut := &presenceCuttable{Bus: b}
		one := presenceJoin(t, b, "one")
		two := presenceJoin(t, b, "two")
		presenceJoin(t, cut, "three")
		time.Sleep(presenceCfg.Heartbeat) // no player anywhere: the heartbeats alone tell
		synctest.Wait()
		list := func(s presenceServer) string { return strings.Join(s.presence.Instances(), " ") }
		if got, want := list(one), "one three two"; got != want {
			t.Fatalf("one lists %q, want %q", got, want)
		}
		if got, want := list(two), "two one three"; got != want {
			t.Fatalf("two lists %q, want %q", got, want)
		}
		two.close()
		synctest.Wait()
		if got, want := list(one), "one three"; got != want {
			t.Fatalf("after two's bye one lists %q, want %q", got, want)
		}
		cut.kill()
		time.Sleep(presenceCfg.TTL + presenceCfg.Heartbeat)
		synctest.Wait()
		if got, want := list(one), "one"; got != want {
			t.Fatalf("after three went silent one lists %q, want %q", got, want)
		}
	})
}
