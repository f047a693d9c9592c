// Package lobby holds the shared live state of the arcade: who is
// connected and what each is doing, race rooms, spectators, room chat and
// the live daily board. It knows nothing of terminals or SSH: sessions
// reach it through a Sink each, and it never waits on a session. The
// servers of a cluster share it too: package cluster carries the race
// rooms' log, presence, takeovers and spectating between them, over a
// bus, through interfaces the lobby declares (RoomLog, PresenceNet,
// TakeoverNet, WatchNet; room_log.go, remote.go, watch_remote.go); the
// lobby decides and keeps what they said. The race rooms (Rooms, rooms.go)
// are one state machine for one server and a cluster alike, over a log in
// memory on a server alone.
package lobby

// Event is one thing that happened that a session may show: its game taken
// over, a race starting, a racer's progress, a chat line. Events are small
// values, never pointers into shared state, so a session may keep one as
// long as it likes.
type Event any

// Sink is one session's receiving end as the lobby and its rooms see it.
// Neither method ever blocks: a session that stops reading loses events,
// it never delays the sender or the other sessions (tea.Program.Send
// blocks, so nothing here may call it).
type Sink interface {
	// Post queues a discrete event (taken over, race started, a chat
	// line). It reports false when the queue is full and the event was
	// dropped; the caller decides when such a session is dropped.
	Post(ev Event) bool
	// Coalesce stores a snapshot under key, replacing one with the same
	// key that the session has not read yet: the newest wins, so progress
	// never piles up behind a slow reader.
	Coalesce(key string, ev Event)
}
