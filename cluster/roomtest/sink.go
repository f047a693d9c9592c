package roomtest

import (
	"pyramid/lobby"
	"sync"
	"time"
)

// fakeSink records what a room sends it, and refuses posts when told to.
type fakeSink struct {
	mu      sync.Mutex
	posts   []lobby.Event
	latest  map[string]lobby.Event
	refuse  bool
	refused int
}

func newSink() *fakeSink { return &fakeSink{latest: make(map[string]lobby.Event)} }

func (s *fakeSink) Post(ev lobby.Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		s.refused++
		return false
	}
	s.posts = append(s.posts, ev)
	return true
}

func (s *fakeSink) Coalesce(key string, ev lobby.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest[key] = ev
}

func (s *fakeSink) setRefuse(b bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = b
}

// events returns the posted events and forgets them.
func (s *fakeSink) events() []lobby.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := s.posts
	s.posts = nil
	return ev
}

// room returns the latest RoomChanged snapshot.
func (s *fakeSink) room(code string) (lobby.Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.latest[lobby.RoomKey(code)].(lobby.RoomChanged)
	return ev.Snapshot, ok
}

// racer returns the latest progress of a racer.
func (s *fakeSink) racer(code, id string) (lobby.Racer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.latest[lobby.RacerKey(code, id)].(lobby.RacerProgress)
	return ev.Racer, ok
}

// hasPost reports whether an event of the same type as want was posted
// (and keeps the posts).
func hasPost[T any](s *fakeSink) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range s.posts {
		if t, ok := ev.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// t0 is where the tests' clocks start.
var t0 = time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
