package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// frontTopic is the topic of the front page's live events: "online" (the
// number online), "daily" (today's daily board) and "races" (the race
// ratings of every rule set), as HTML.
const frontTopic = "front"

// startLobbyFeed observes the lobby and turns what it hears into the
// front page's live events: one render per change, for every viewer.
func (s *Site) startLobbyFeed() {
	q := lobby.NewQueue(0, s.cfg.Now)
	s.stopObserve = s.cfg.Arcade.Observe(q)
	s.wg.Go(func() {
		defer q.Close()
		told := -1 // the count the viewers have: presence changes that keep it cost them nothing
		for {
			ev, err := q.Next(s.ctx)
			if err != nil {
				return
			}
			switch ev := ev.(type) {
			case lobby.PresenceChanged:
				if ev.Online != told {
					told = ev.Online
					s.hub.publish(frontTopic, "online", strconv.Itoa(ev.Online))
				}
			case lobby.DailyChanged:
				if ev.Date == s.cfg.Now().UTC().Format(time.DateOnly) && ev.Rules == "daily" {
					s.publishDaily()
				}
			case lobby.RatingsChanged:
				s.publishRatings(ev.Rules)
			}
		}
	})
}

// publishDaily reads today's daily board once and sends it to the front
// page's viewers; the cached front page reads it again too.
func (s *Site) publishDaily() {
	ctx, cancel := context.WithTimeout(s.ctx, loadTimeout)
	defer cancel()
	board, err := s.loadDaily(ctx)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.cfg.Logger.Warn("web: daily board", "err", err)
		}
		return
	}
	s.front.mu.Lock()
	if !s.front.at.IsZero() {
		s.front.daily = board
	}
	s.front.mu.Unlock()
	html, err := s.fragment("daily", board)
	if err != nil {
		s.cfg.Logger.Error("web: daily board", "err", err)
		return
	}
	s.hub.publish(frontTopic, "daily", html)
}

// publishRatings reads the rating list of rulesID once, when a race
// moved ratings in it, and sends the front page's rating lists to its
// viewers. A rule set the front page does not list, or a front page
// nobody loaded yet, costs nothing.
func (s *Site) publishRatings(rulesID string) {
	idx := slices.IndexFunc(raceRules(), func(r engine.Rules) bool { return r.ID() == rulesID })
	if idx < 0 {
		return
	}
	s.front.mu.Lock()
	loaded := !s.front.at.IsZero()
	s.front.mu.Unlock()
	if !loaded {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, loadTimeout)
	defer cancel()
	board, err := s.loadRatings(ctx, raceRules()[idx])
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.cfg.Logger.Warn("web: race ratings", "err", err)
		}
		return
	}
	s.front.mu.Lock()
	races := slices.Clone(s.front.races)
	if idx < len(races) {
		races[idx] = board
	}
	s.front.races = races
	s.front.mu.Unlock()
	html, err := s.fragment("races", races)
	if err != nil {
		s.cfg.Logger.Error("web: race ratings", "err", err)
		return
	}
	s.hub.publish(frontTopic, "races", html)
}

// frontEvents is the front page's live stream.
func (s *Site) frontEvents(w http.ResponseWriter, r *http.Request) {
	s.stream(w, r, frontTopic, nil, nil)
}
