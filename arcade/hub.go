package arcade

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/lobby"
	"pyramid/tui"
)

// inbox is a session's lobby queue as the tui reads it (tui.Inbox): the
// lobby's events become the tui's messages, and nothing else happens as
// it is read. The lobby and its rooms post to the queue without ever
// waiting on the session.
type inbox struct {
	q *lobby.Queue
	// spoilers, when set, keeps today's daily from the session's
	// spectating (spoilers.go), and unwatch stops its watching.
	spoilers *spoilers
	unwatch  func()
}

var _ tui.Inbox = inbox{}

// Next waits for the next events the tui has messages for: one message,
// or a tui.InboxBatch of those that were waiting together, which the
// session handles in one update (one frame).
func (in inbox) Next(ctx context.Context) (tea.Msg, error) {
	var evs []lobby.Event
	for {
		var err error
		if evs, err = in.q.NextAll(ctx, evs[:0]); err != nil {
			return nil, fmt.Errorf("session inbox: %w", err)
		}
		var msgs tui.InboxBatch
		for _, ev := range evs {
			if w, ok := ev.(lobby.Watched); ok && in.spoilers != nil {
				ev = in.spoilers.watched(ctx, w, in.unwatch)
			}
			if msg, ok := message(ev); ok {
				msgs = append(msgs, msg)
			}
		}
		switch len(msgs) {
		case 0:
			continue
		case 1:
			return msgs[0], nil
		}
		return msgs, nil
	}
}

// Notify implements tui.Inbox: the session's queue calls ready when an
// event comes (the tui's command then reads it; an event the tui shows
// nothing for leaves that read waiting for the next one).
func (in inbox) Notify(ready func()) bool { return in.q.Notify(ready) }

// message is the tui's message for a lobby event; ok is false for events
// the tui does not show (yet).
func message(ev lobby.Event) (msg tea.Msg, ok bool) {
	switch ev := ev.(type) {
	case lobby.TakenOver:
		return tui.GameTakenMsg{ID: ev.GameID, Reason: ev.Reason}, true
	case lobby.Ended:
		// Banned, kicked or unlinked (moderation.go): the session saves
		// what it has and ends, saying why.
		return tui.ShutdownMsg{Text: ev.Text, Wait: endedWait}, true
	case lobby.Renamed:
		return tui.RenamedMsg{Name: ev.Name, Why: ev.Why}, true
	case lobby.Notice:
		return tui.NoticeMsg{Text: ev.Text}, true
	case lobby.PresenceChanged, lobby.Watched, lobby.WatchEnded, lobby.Spectators, lobby.DailyChanged:
		// Presence, spectating and the daily board (presence.go): the
		// tui takes the lobby's own values.
		return ev, true
	case lobby.RoomChanged, lobby.RacerProgress, lobby.CountdownStarted, lobby.RaceStarted, lobby.RaceEnded,
		lobby.ChatLine, lobby.HostPassed, lobby.SeatTakenOver, lobby.RoomClosed, lobby.Removed, lobby.Missed, lobby.RaceVoided, lobby.Forfeited:
		// A race room's events: the race screen reads them (tui/race.go).
		return tui.RaceEventMsg{Event: ev}, true
	case lobby.ArenaChanged, lobby.ArenaPaired, lobby.ArenaEnded, lobby.ArenaTakenOver:
		return tui.ArenaEventMsg{Event: ev}, true
	}
	return nil, false
}

// join puts a session of p in the lobby, for as long as ctx lasts.
func (a *App) join(ctx context.Context, p tui.Player) *lobby.Session {
	sess := a.lobby.Join(lobby.Player{ID: p.ID, Name: p.Name, Guest: p.Guest})
	context.AfterFunc(ctx, func() { a.lobby.Leave(sess) })
	return sess
}
