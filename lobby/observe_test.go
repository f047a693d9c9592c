package lobby

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestLobbyObserve: an observer hears the number online at once and after
// joins and leaves (coalesced), hears the daily boards' results, is
// itself nobody online, and hears nothing once stopped.
func TestLobbyObserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Config{})
		defer l.Close()
		q := NewQueue(0, nil)
		stop := l.Observe(q)
		next := func() Event {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ev, err := q.Next(ctx)
			if err != nil {
				t.Fatalf("observer heard nothing: %v", err)
			}
			return ev
		}
		if ev, ok := next().(PresenceChanged); !ok || ev.Online != 0 {
			t.Fatalf("first event: got %#v, want PresenceChanged{Online: 0}", ev)
		}
		if l.Online() != 0 || len(l.Who()) != 0 {
			t.Fatalf("an observer counts online: Online %d, Who %v", l.Online(), l.Who())
		}
		a := l.Join(Player{ID: "SHA256:a", Name: "alice"})
		l.Join(Player{Name: "guest", Guest: true})
		time.Sleep(PresenceEvery) // the bubble's clock: the flush is due
		synctest.Wait()
		if ev, ok := next().(PresenceChanged); !ok || ev.Online != 2 {
			t.Fatalf("after two joins: got %#v, want PresenceChanged{Online: 2}", ev)
		}
		if n := q.Len(); n != 0 {
			t.Fatalf("two joins left %d more events, want them coalesced into one", n)
		}
		l.DailyFinished("daily", "2026-12-05")
		if ev, ok := next().(DailyChanged); !ok || ev != (DailyChanged{Rules: "daily", Date: "2026-12-05"}) {
			t.Fatalf("after a daily result: got %#v, want DailyChanged", ev)
		}
		l.RatingsMoved("classic")
		if ev, ok := next().(RatingsChanged); !ok || ev.Rules != "classic" {
			t.Fatalf("after a race moved ratings: got %#v, want RatingsChanged{classic}", ev)
		}
		stop()
		stop()
		l.Leave(a)
		time.Sleep(PresenceEvery)
		synctest.Wait()
		l.DailyFinished("daily", "2026-12-05")
		l.RatingsMoved("classic")
		if n := q.Len(); n != 0 {
			t.Fatalf("a stopped observer got %d events, want none", n)
		}
	})
}
