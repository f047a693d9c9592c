package lobby

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"pyramid/keys"
)

// Limits of room chat.
const (
	// MaxChatLen is the most characters in one chat line.
	MaxChatLen = 200
	// ChatBurst lines at most may be said per ChatWindow by one player.
	ChatBurst  = 3
	ChatWindow = 3 * time.Second
	// ChatHistory is how many of the last lines a room keeps for
	// newcomers and redraws.
	ChatHistory = 20
)

// Errors of room chat, meant for players as they are.
var (
	ErrChatEmpty   = errors.New("nothing to say")
	ErrChatTooLong = fmt.Errorf("a chat line has at most %d characters", MaxChatLen)
	ErrChatTooFast = fmt.Errorf("at most %d lines every %v, please", ChatBurst, ChatWindow)
	ErrMuted       = errors.New("the host muted you in this room")
)

// ChatLine is one line said in a room, posted to everybody in it.
type ChatLine struct {
	Code   string
	FromID string // player ID
	From   string // display name
	// Text is cleaned: no escape, control, format (bidi) or other
	// invisible characters, which are shown escaped (`\x1b`).
	Text string
	At   time.Time
	// Watching is set for a spectator's line (Room.SayWatching): the
	// author watches the room rather than races in it.
	Watching bool
}

// CleanChat is the chat line a player typed as the room shows it, or an
// error saying why it cannot be said: surrounding space trimmed, at most
// MaxChatLen characters, and every character that could reach a terminal as
// anything but itself escaped by keys.Clean.
func CleanChat(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return "", ErrChatEmpty
	case n > MaxChatLen:
		return "", ErrChatTooLong
	}
	// An escape is at most 10 cells (\UNNNNNNNN) for one character, so
	// nothing is cut.
	return keys.Clean(text, 10*MaxChatLen), nil
}

// chatLimiter holds the times of a player's last ChatBurst lines.
type chatLimiter struct {
	times [ChatBurst]time.Time
	next  int
}

// allow reports whether a line may be said at now, and counts it if so.
func (l *chatLimiter) allow(now time.Time) bool {
	oldest := l.times[l.next]
	if !oldest.IsZero() && now.Sub(oldest) < ChatWindow {
		return false
	}
	l.times[l.next] = now
	l.next = (l.next + 1) % ChatBurst
	return true
}

// SayWatching says a spectator's line in the room, for every member and
// spectator, under the rules of a member's (Say): the host's mute, and
// ChatBurst lines per ChatWindow. viewer is the spectator of this
// server's session (Watch): their name goes with the line, since a
// spectator's seat has none.
func (h *Room) SayWatching(viewer Entrant, text string) error {
	line, err := CleanChat(text)
	if err != nil {
		return err
	}
	rs := h.rs
	rs.mu.Lock()
	r := rs.rooms[h.code]
	err = rs.localWatcher(r, viewer.ID)
	if err == nil && r.isMuted(&viewer) {
		err = ErrMuted
	}
	at := rs.nowLocked()
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	// An op of a chat line with Who is a spectator's (chatAuthor).
	return rs.log.Do(RoomOp{Kind: OpChat, Code: h.code, Who: opEntrant(viewer), Target: viewer.ID, Text: line, At: at})
}

// localWatcher says whether the viewer watches room r (nil: closed)
// from a session of this server, with rs.mu held.
func (rs *Rooms) localWatcher(r *room, viewerID string) error {
	if r == nil || r.phase == PhaseClosed {
		return ErrRoomClosed
	}
	for _, w := range r.watchers {
		if w.id == viewerID && w.inst == rs.cfg.Instance {
			return nil
		}
	}
	return ErrNotMember
}

// chatAuthor is who says the line of a chat op: a member present in the
// room, or, for an op that names its author (Who, SayWatching), one of
// the room's spectators, named and placed as the op says, cleaned.
func (r *room) chatAuthor(m RoomOp) (Entrant, error) {
	if m.Who == nil {
		mb := r.member(m.Target)
		if mb == nil || !mb.present() {
			return Entrant{}, ErrNotMember
		}
		return mb.Entrant, nil
	}
	if w := r.watcher(m.Target); w != nil && m.Who.ID == m.Target {
		return Entrant{ID: w.id, Name: keys.Clean(m.Who.Name, keys.MaxNameWidth), Guest: m.Who.Guest, Addr: m.Who.Addr}, nil
	}
	return Entrant{}, ErrNotMember
}

// watcher is the room's spectator with this ID, or nil.
func (r *room) watcher(id string) *watcher {
	for _, w := range r.watchers {
		if w.id == id {
			return w
		}
	}
	return nil
}

// mutable reports whether the host may mute (muted) or unmute the player
// with this ID who is no member: a spectator of the room, or one muted
// already, who may be unmuted after they stopped watching.
func (r *room) mutable(id string, muted bool) bool {
	if !muted && r.muted[id] {
		return true
	}
	for _, w := range r.watchers {
		if w.id == id {
			return true
		}
	}
	return false
}
