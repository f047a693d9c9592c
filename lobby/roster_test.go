package lobby

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestWhoShared: readers share one listing while nothing changes; a
// change makes a new one, shown at once, and leaves the old one as it
// was.
func TestWhoShared(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "Ann"})
	l.Join(Player{ID: "b", Name: "bob"})
	l.Join(Player{Name: "guest", Guest: true})
	first, again := l.Who(), l.Who()
	if &first[0] != &again[0] {
		t.Fatal("two reads with no change between built two listings")
	}
	l.SetDoing(ann, Doing{What: Playing, Rules: "classic", Deal: 42})
	after := l.Who()
	if &after[0] == &first[0] || after[0].What != Playing {
		t.Fatalf("after a change: %+v (shared with the old listing: %v)", after[0], &after[0] == &first[0])
	}
	if first[0].What != AtMenu || names(first) != "Ann:menu bob:menu guest:menu " {
		t.Fatalf("the old listing changed: %q", names(first))
	}
	// Told again what it does (its server and its tui both tell each
	// move): no change, the same listing.
	l.SetDoing(ann, Doing{What: Playing, Rules: "classic", Deal: 42})
	if again := l.Who(); &again[0] != &after[0] {
		t.Fatal("the same Doing told twice built a new listing")
	}
}

// TestListedUntilFlush: Listed is what the viewers were last told of,
// until the next flush tells them of more; Who shows every change at
// once.
func TestListedUntilFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		defer l.Close()
		v := l.Join(Player{ID: "v", Name: "viewer"}) // flushed at once
		l.WatchPresence(v, true)
		l.Listed()                                  // what the viewer reads when told
		ann := l.Join(Player{ID: "a", Name: "ann"}) // waits for the flush
		if got, want := names(l.Listed()), "viewer:menu "; got != want {
			t.Fatalf("Listed before the flush = %q, want %q", got, want)
		}
		if got, want := names(l.Who()), "ann:menu viewer:menu "; got != want {
			t.Fatalf("Who = %q, want %q", got, want)
		}
		time.Sleep(PresenceEvery)
		synctest.Wait()
		if got, want := names(l.Listed()), "ann:menu viewer:menu "; got != want {
			t.Fatalf("Listed after the flush = %q, want %q", got, want)
		}
		listed := l.Listed()
		l.SetDoing(ann, Doing{What: Playing, Rules: "classic", Deal: 1})
		if again := l.Listed(); &again[0] != &listed[0] {
			t.Fatal("a change before the next flush built the viewers a new listing")
		}
	})
}

// TestSetDoingStormWakesOncePerFlush: two hundred racers moving every
// 10 ms wake each viewer at most once per PresenceEvery, and every
// viewer told of a flush reads the same listing, however many moves
// came meanwhile.
func TestSetDoingStormWakesOncePerFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		defer l.Close()
		const viewers, racers, moves = 20, 200, 200 // 2 s of moves
		var racing []*Session
		for i := range racers {
			racing = append(racing, l.Join(Player{ID: fmt.Sprintf("r%d", i), Name: fmt.Sprintf("racer%d", i)}))
		}
		time.Sleep(PresenceEvery) // the joins' flush
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		woken := make([][]time.Time, viewers)
		lists := make([][]*Presence, viewers)
		for i := range viewers {
			v := l.Join(Player{ID: fmt.Sprintf("v%d", i), Name: fmt.Sprintf("viewer%d", i)})
			l.WatchPresence(v, true)
			wg.Go(func() {
				for {
					ev, err := v.Queue().Next(ctx)
					if err != nil {
						return
					}
					if _, ok := ev.(PresenceChanged); ok {
						woken[i] = append(woken[i], time.Now())
						lists[i] = append(lists[i], &l.Listed()[0])
					}
				}
			})
		}
		time.Sleep(PresenceEvery)
		synctest.Wait()
		start := time.Now()
		for m := range moves {
			for _, r := range racing {
				l.SetDoing(r, Doing{What: Racing, Rules: "classic", Deal: 7, Room: "ABCD", Removed: m})
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(PresenceEvery)
		synctest.Wait()
		cancel()
		wg.Wait()
		limit := int(moves*10*time.Millisecond/PresenceEvery) + 2
		shared := map[time.Time]*Presence{} // by when viewers were woken
		for i := range viewers {
			n := 0
			for j, at := range woken[i] {
				if at.Before(start) {
					continue
				}
				n++
				if j > 0 && at.Sub(woken[i][j-1]) < PresenceEvery {
					t.Errorf("viewer %d: woken %v after the last time, want at least %v", i, at.Sub(woken[i][j-1]), PresenceEvery)
				}
			}
			if n > limit || n < limit-3 {
				t.Errorf("viewer %d: woken %d times by %d moves of %d racers, want about %d", i, n, moves, racers, limit)
			}
			for j, at := range woken[i] {
				if at.Before(start) {
					continue
				}
				if first, ok := shared[at]; !ok {
					shared[at] = lists[i][j]
				} else if first != lists[i][j] {
					t.Errorf("viewer %d: woken at %v: a listing of its own, not the one the others share", i, at.Sub(start))
				}
			}
		}
		for _, p := range l.Listed() {
			if p.What == Racing && p.Removed != moves-1 {
				t.Fatalf("after the last flush: %s shows %d removed, want %d", p.Name, p.Removed, moves-1)
			}
		}
	})
}
