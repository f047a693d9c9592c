package lobby

import (
	"sync"
	"time"
)

// fakeSink records what a room sends it, and refuses posts when told to.
type fakeSink struct {
	mu      sync.Mutex
	posts   []Event
	latest  map[string]Event
	refuse  bool
	refused int
}

func newSink() *fakeSink { return &fakeSink{latest: make(map[string]Event)} }

func (s *fakeSink) Post(ev Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		s.refused++
		return false
	}
	s.posts = append(s.posts, ev)
	return true
}

func (s *fakeSink) Coalesce(key string, ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest[key] = ev
}

// racer returns the latest progress of a racer.
func (s *fakeSink) racer(code, id string) (Racer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.latest[RacerKey(code, id)].(RacerProgress)
	return ev.Racer, ok
}

// t0 is where the tests' clocks start.
var t0 = time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
