package lobby

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pyramid/bus"
)

// TestBadCodeSaysTheLetters: `race ZZZZ` said "a room code is 4 letters,
// like CDFG" to a player who had typed four letters; the refusal names
// the letters codes are made of.
func TestBadCodeSaysTheLetters(t *testing.T) {
	for _, s := range []string{"ZZZZ", "AEIO", "CDF", "CDFGH"} {
		_, err := ParseCode(s)
		if err == nil || !strings.Contains(err.Error(), CodeAlphabet) || !strings.HasPrefix(err.Error(), "a room code is 4 letters of ") {
			t.Errorf("ParseCode(%q): %v, want a refusal naming the letters %s", s, err, CodeAlphabet)
		}
	}
}

// TestClusterPlayingRules: on two servers the daily board said "1 player
// is playing today's deal now" while two were (one on each): the count
// was of this server's sessions alone; it counts the cluster's, each
// player once.
func TestClusterPlayingRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.NewMemory(bus.MemoryOptions{})
		defer b.Close()
		one, two := joined(t, b, "one"), joined(t, b, "two")
		daily := Doing{What: Playing, Rules: "daily", Deal: 9}
		one.SetDoing(one.Join(Player{ID: "a", Name: "ann"}), daily)
		two.SetDoing(two.Join(Player{ID: "b", Name: "bob"}), daily)
		two.SetDoing(two.Join(Player{ID: "a", Name: "ann"}), daily) // ann's second session
		two.SetDoing(two.Join(Player{ID: "c", Name: "cat"}), Doing{What: Playing, Rules: "classic", Deal: 9})
		time.Sleep(clusterCfg.Every)
		synctest.Wait()
		if got1, got2 := one.PlayingRules("daily"), two.PlayingRules("daily"); got1 != 2 || got2 != 2 {
			t.Fatalf("playing the daily: %d on one, %d on two; want 2 on both", got1, got2)
		}
	})
}
