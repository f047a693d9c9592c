package storetest

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

// testChallenges: an offer, its answer, each side's one game, the end
// decided once, and the listing of open and recent challenges.
func testChallenges(t *testing.T, e *env) {
	alice, bob, carol := e.player("alice"), e.player("bob"), e.player("carol")
	if _, err := e.s.OfferChallenge(e.ctx, store.NewChallenge{Challenger: alice.ID, Challenged: alice.ID, RulesID: "classic", DealNumber: 7}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a challenge of oneself: %v, want ErrInvalid", err)
	}
	c, err := e.s.OfferChallenge(e.ctx, store.NewChallenge{Challenger: alice.ID, Challenged: bob.ID, RulesID: "classic", DealNumber: 1 << 40})
	if err != nil {
		t.Fatalf("OfferChallenge: %v", err)
	}
	if c.State != store.ChallengeOffered || c.DealNumber != 1<<40 || c.ChallengerName != "alice" || c.ChallengedName != "bob" ||
		!c.Offered.Equal(start) || !c.Deadline.Equal(start.Add(store.ChallengeTime)) || !c.Accepted.IsZero() || !c.Ended.IsZero() {
		t.Fatalf("offered: got %+v", c)
	}
	if err := e.s.SetChallengeGame(e.ctx, c.ID, alice.ID, 5); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("a game of an offer not yet accepted: %v, want ErrClosed", err)
	}
	if _, err := e.s.AnswerChallenge(e.ctx, c.ID, alice.ID, true); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the challenger's answer: %v, want ErrNotFound", err)
	}
	e.clock.Advance(time.Hour)
	c, err = e.s.AnswerChallenge(e.ctx, c.ID, bob.ID, true)
	if err != nil || c.State != store.ChallengeAccepted || !c.Accepted.Equal(start.Add(time.Hour)) ||
		!c.Deadline.Equal(start.Add(time.Hour+store.ChallengeTime)) {
		t.Fatalf("accepted: got %+v, %v", c, err)
	}
	if _, err := e.s.AnswerChallenge(e.ctx, c.ID, bob.ID, false); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("a second answer: %v, want ErrClosed", err)
	}

	ga := e.game(alice, "classic", 1<<40)
	gb := e.game(bob, "classic", 1<<40)
	for _, tt := range []struct {
		player string
		game   int64
		want   error
	}{
		{alice.ID, ga.ID, nil},
		{alice.ID, ga.ID, nil}, // again: the same game
		{alice.ID, gb.ID, store.ErrExists},
		{carol.ID, gb.ID, store.ErrNotFound},
		{bob.ID, gb.ID, nil},
	} {
		if err := e.s.SetChallengeGame(e.ctx, c.ID, tt.player, tt.game); !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Fatalf("SetChallengeGame(%s, %d) = %v, want %v", tt.player, tt.game, err, tt.want)
		}
	}
	if c, err = e.s.Challenge(e.ctx, c.ID); err != nil || c.ChallengerGame != ga.ID || c.ChallengedGame != gb.ID {
		t.Fatalf("games: got %+v, %v", c, err)
	}

	// Two servers end it at once: one ends it, the other is told.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.s.EndChallenge(e.ctx, c.ID, store.ChallengeFinished, 9, bob.ID)
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), store.ErrClosed) {
		t.Fatalf("two ends: %v", errs)
	}
	c, err = e.s.Challenge(e.ctx, c.ID)
	if err != nil || c.State != store.ChallengeFinished || c.RaceID != 9 || c.Winner != bob.ID || !c.Ended.Equal(start.Add(time.Hour)) {
		t.Fatalf("finished: got %+v, %v", c, err)
	}
	if err := e.s.SetChallengeGame(e.ctx, c.ID, carol.ID, 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a game of someone else's: %v", err)
	}

	// An offer declined, one expired, one still open.
	d, _ := e.s.OfferChallenge(e.ctx, store.NewChallenge{Challenger: bob.ID, Challenged: alice.ID, RulesID: "classic", DealNumber: 3})
	if d, err = e.s.AnswerChallenge(e.ctx, d.ID, alice.ID, false); err != nil || d.State != store.ChallengeDeclined || d.Ended.IsZero() {
		t.Fatalf("declined: got %+v, %v", d, err)
	}
	x, _ := e.s.OfferChallenge(e.ctx, store.NewChallenge{Challenger: carol.ID, Challenged: alice.ID, RulesID: "double", DealNumber: 4})
	e.clock.Advance(store.ChallengeTime)
	if _, err := e.s.AnswerChallenge(e.ctx, x.ID, alice.ID, true); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("an answer past the deadline: %v, want ErrClosed", err)
	}
	if x, err = e.s.EndChallenge(e.ctx, x.ID, store.ChallengeExpired, 0, ""); err != nil || x.State != store.ChallengeExpired {
		t.Fatalf("expired: got %+v, %v", x, err)
	}
	o, _ := e.s.OfferChallenge(e.ctx, store.NewChallenge{Challenger: carol.ID, Challenged: bob.ID, RulesID: "classic", DealNumber: 5})

	ids := func(cs []store.Challenge) []int64 {
		var out []int64
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	list, err := e.s.PlayerChallenges(e.ctx, alice.ID, time.Time{}, 10)
	if got, want := ids(list), []int64{x.ID, d.ID, c.ID}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("alice's challenges: got %v, %v; want %v", got, err, want)
	}
	// Since the last hour: only what ended in it, and what is open.
	list, err = e.s.PlayerChallenges(e.ctx, bob.ID, e.clock.Now().Add(-time.Hour), 10)
	if got, want := ids(list), []int64{o.ID}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("bob's recent challenges: got %v, %v; want %v", got, err, want)
	}
	if _, err := e.s.Challenge(e.ctx, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Challenge(unknown) = %v, want ErrNotFound", err)
	}
}
