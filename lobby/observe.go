package lobby

// Observers: what is not a session but follows the lobby's public news
// (the club's web page, package web). An observer is told, coalesced,
// what the viewers of presence and of the daily board are told, and when
// a race moved ratings; it is no player: it is in no listing and counts
// in no Online.

// observer is one observer's sink, by its number in the lobby.
type observer struct {
	id   uint64
	sink Sink
}

// Observe makes sink an observer of the lobby until stop is called: it
// gets PresenceChanged, coalesced as a viewer of presence gets it (at
// most one per PresenceEvery), at once with the number online now, and
// DailyChanged whenever a result of a daily board is recorded on any
// server of the cluster, and RatingsChanged when a race moved ratings
// (RatingsMoved). The lobby never waits on sink (Sink never blocks).
// Stopping twice is harmless.
func (l *Lobby) Observe(sink Sink) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextObserver++
	o := observer{id: l.nextObserver, sink: sink}
	if l.observers == nil {
		l.observers = map[uint64]observer{}
	}
	l.observers[o.id] = o
	sink.Coalesce(presenceKey, PresenceChanged{Online: l.onlineLocked()})
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.observers, o.id)
	}
}

// tellObserversLocked coalesces ev under key into every observer.
func (l *Lobby) tellObserversLocked(key string, ev Event) {
	for _, o := range l.observers {
		o.sink.Coalesce(key, ev)
	}
}

// RatingsChanged tells an observer that a stored race moved ratings in
// a rule set: its rating list may have changed. Coalesced per rule set.
type RatingsChanged struct {
	Rules string // the rule set's ID
}

// RatingsMoved tells the observers that a race of rulesID moved ratings
// (the rooms' RoomsConfig.OnRated, on every server of the cluster).
func (l *Lobby) RatingsMoved(rulesID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tellObserversLocked("ratings/"+rulesID, RatingsChanged{Rules: rulesID})
}
