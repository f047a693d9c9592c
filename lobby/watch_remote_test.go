package lobby

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeWatchNet is a WatchNet that notes what the lobby sends, offers and
// asks, in order; answer, when set, answers an ask (as the player's
// server would, through HearWatch).
type fakeWatchNet struct {
	mu     sync.Mutex
	out    []WatchMsg // sent and offered
	offers []bool     // out[i] was offered
	asks   []WatchMsg
	answer func(ask WatchMsg)
}

func (n *fakeWatchNet) Send(m WatchMsg) { n.note(m, false) }

func (n *fakeWatchNet) Offer(m WatchMsg) { n.note(m, true) }

func (n *fakeWatchNet) note(m WatchMsg, offer bool) {
	n.mu.Lock()
	n.out, n.offers = append(n.out, m), append(n.offers, offer)
	n.mu.Unlock()
}

func (n *fakeWatchNet) Ask(_ context.Context, m WatchMsg) error {
	n.mu.Lock()
	n.asks = append(n.asks, m)
	answer := n.answer
	n.mu.Unlock()
	if answer != nil {
		answer(m)
	}
	return nil
}

// take returns what the lobby sent and offered since the last take.
func (n *fakeWatchNet) take() (out []WatchMsg, offers []bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	out, offers = n.out, n.offers
	n.out, n.offers = nil, nil
	return out, offers
}

// asked is how many asks the lobby sent.
func (n *fakeWatchNet) asked() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.asks)
}

// remoteWatchLobby is a lobby with fake nets attached for presence and
// spectating; spectators elsewhere live ttl without a keep.
func remoteWatchLobby(t *testing.T, ttl time.Duration) (*Lobby, *fakeWatchNet) {
	t.Helper()
	l, _ := remoteLobby(t)
	n := &fakeWatchNet{}
	if err := l.AttachWatch(n, ttl); err != nil {
		t.Fatal(err)
	}
	return l, n
}

// TestWatchRemoteAnswers: the player's server answers another server's
// ask as Watch would, sends the reply before the board it offers, and
// offers each board and the end to every server that watches.
func TestWatchRemoteAnswers(t *testing.T) {
	l, n := remoteWatchLobby(t, time.Minute)
	ann := l.Join(Player{ID: "a", Name: "ann"})
	shy := l.Join(Player{ID: "s", Name: "shy"})
	l.SetWatchable(shy, false)
	l.Publish(ann, board("d"))
	n.take()

	tests := []struct {
		name, watch, player string
		want                error
	}{
		{"nobody of that name", "carol", "b", ErrNotOnline},
		{"the setting off", "shy", "b", ErrNotWatchable},
		{"one's own player here", "ann", "a", ErrNotOnline},
		{"a player here, any case", "ANN", "b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l.HearWatch(WatchMsg{Kind: WatchAsk, From: "two", Req: "9.1", Viewer: 9, Player: tt.player, Name: tt.watch})
			out, offers := n.take()
			if len(out) == 0 || out[0].Kind != WatchReply || out[0].To != "two" || out[0].Req != "9.1" || !errors.Is(out[0].Refused, tt.want) {
				t.Fatalf("sent %+v, want first a reply to two refused with %v", out, tt.want)
			}
			if tt.want != nil {
				return
			}
			if r := out[0]; r.Session != ann.ID() || r.Name != "ann" || r.Spectators != 1 {
				t.Fatalf("the reply: %+v, want ann's session, 1 watching", r)
			}
			if len(out) != 2 || !offers[1] || out[1].Kind != WatchBoard || out[1].To != "two" || out[1].Ver <= out[0].Ver || len(out[1].Board.Record.Moves) != 1 {
				t.Fatalf("after the reply: %+v, want ann's board offered to two, of a later version", out[1:])
			}
		})
	}
	if n := l.SpectatorsOf(ann); n != 1 {
		t.Fatalf("ann has %d spectators, want the other server's 1", n)
	}
	l.Leave(ann)
	out, offers := n.take()
	if len(out) != 1 || !offers[0] || out[0].Kind != WatchEnd || out[0].Reason != "ann left" {
		t.Fatalf("after ann left: %+v, want her end offered", out)
	}
}

// TestWatchRemoteViewer: a spectator here of another server's game gets
// its boards, never an older one after a newer, and is told when it ends.
func TestWatchRemoteViewer(t *testing.T) {
	l, n := remoteWatchLobby(t, time.Minute)
	bob := l.Join(Player{ID: "b", Name: "bob"})
	l.HearRoster("one", []RosterEntry{remoteEntryOf(Player{ID: "a", Name: "ann"}, 4, Doing{What: Playing}, time.Now())}, nil)
	n.answer = func(ask WatchMsg) {
		if ask.To != "one" || ask.Name != "ann" || ask.Viewer != bob.ID() || ask.Player != "b" {
			t.Errorf("asked %+v, want one to let bob watch ann", ask)
		}
		l.HearWatch(WatchMsg{Kind: WatchReply, From: "one", Req: ask.Req, Viewer: ask.Viewer, Session: 4, Name: "ann", Ver: 2, Spectators: 1})
	}
	w, err := l.Watch(bob, "ann")
	if err != nil || w.Name != "ann" || w.Spectators != 1 {
		t.Fatalf("Watch: %+v, %v; want ann, 1 watching", w, err)
	}
	events(t, bob)
	l.HearWatch(WatchMsg{Kind: WatchBoard, From: "one", Session: 4, Ver: 4, Spectators: 2, Board: board("d", "d")})
	l.HearWatch(WatchMsg{Kind: WatchBoard, From: "one", Session: 4, Ver: 3, Spectators: 1, Board: board("d")})
	if got, ok := lastOf[Watched](events(t, bob)); !ok || len(got.Board.Record.Moves) != 2 || got.Spectators != 2 {
		t.Fatalf("bob shows %+v, want the newer board", got)
	}
	l.HearWatch(WatchMsg{Kind: WatchEnd, From: "one", Session: 4, Ver: 5})
	if e, ok := lastOf[WatchEnded](events(t, bob)); !ok || e.Reason != "ann left" {
		t.Fatalf("bob got %+v, want told ann left", e)
	}
}

// TestWatchRemoteDownServer: an ask left unanswered makes the server
// known not to answer, until presence hears from it again; a server
// presence missed two heartbeats of is not asked at all.
func TestWatchRemoteDownServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, n := remoteWatchLobby(t, time.Minute)
		bob := l.Join(Player{ID: "b", Name: "bob"})
		fay := remoteEntryOf(Player{ID: "f", Name: "fay"}, 4, Doing{What: Playing}, time.Now())
		l.HearRoster("four", []RosterEntry{fay}, nil)
		start := time.Now()
		if _, err := l.Watch(bob, "fay"); !errors.Is(err, ErrNoAnswer) || time.Since(start) != AskTimeout {
			t.Fatalf("an unanswered ask: %v after %s, want ErrNoAnswer after AskTimeout", err, time.Since(start))
		}
		if _, err := l.Watch(bob, "fay"); !errors.Is(err, ErrServerDown) || err.Error() != "fay's server is not answering" || n.asked() != 1 {
			t.Fatalf("right after: %v, %d asks; want fay's server is not answering, without an ask", err, n.asked())
		}
		time.Sleep(time.Second)
		l.HearRoster("four", []RosterEntry{fay}, nil)
		if _, err := l.Watch(bob, "fay"); !errors.Is(err, ErrNoAnswer) || n.asked() != 2 {
			t.Fatalf("once heard from: %v, %d asks; want asked again", err, n.asked())
		}
		time.Sleep(time.Second)
		l.HearRoster("four", []RosterEntry{fay}, nil)
		time.Sleep(2*remoteCfg.Heartbeat + time.Second)
		if _, err := l.Watch(bob, "fay"); !errors.Is(err, ErrServerDown) || n.asked() != 2 {
			t.Fatalf("two heartbeats missed: %v, %d asks; want ErrServerDown, without an ask", err, n.asked())
		}
	})
}

// TestWatchRemoteKeeps: a spectator on another server counts while its
// server keeps it, and stops counting once not kept for its time to
// live; a spectator here of a server presence no longer lists is told
// the game ended.
func TestWatchRemoteKeeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 10 * time.Second
		l, n := remoteWatchLobby(t, ttl)
		ann := l.Join(Player{ID: "a", Name: "ann"})
		l.HearWatch(WatchMsg{Kind: WatchAsk, From: "two", Req: "9.1", Viewer: 9, Player: "b", Name: "ann"})
		time.Sleep(ttl / 2)
		l.HearWatch(WatchMsg{Kind: WatchKeep, From: "two", Keep: []KeptSpectator{{Viewer: 9, Session: ann.ID(), Name: "ann"}}})
		time.Sleep(ttl / 2)
		l.SweepSpectators()
		if n := l.SpectatorsOf(ann); n != 1 {
			t.Fatalf("a kept spectator: ann has %d spectators, want 1", n)
		}
		time.Sleep(ttl / 2)
		l.SweepSpectators()
		if n := l.SpectatorsOf(ann); n != 0 {
			t.Fatalf("a spectator not kept for its TTL: ann has %d spectators, want 0", n)
		}

		// This server keeps its spectator of one's game, until one is
		// no longer listed.
		bob := l.Join(Player{ID: "b", Name: "bob"})
		l.HearRoster("one", []RosterEntry{remoteEntryOf(Player{ID: "c", Name: "cat"}, 4, Doing{What: Playing}, time.Now())}, nil)
		n.answer = func(ask WatchMsg) {
			l.HearWatch(WatchMsg{Kind: WatchReply, From: "one", Req: ask.Req, Viewer: ask.Viewer, Session: 4, Name: "cat", Ver: 1, Spectators: 1})
		}
		if _, err := l.Watch(bob, "cat"); err != nil {
			t.Fatal(err)
		}
		n.take()
		l.KeepSpectators()
		out, _ := n.take()
		if len(out) != 1 || out[0].Kind != WatchKeep || out[0].To != "one" || len(out[0].Keep) != 1 || out[0].Keep[0] != (KeptSpectator{Viewer: bob.ID(), Session: 4, Name: "cat"}) {
			t.Fatalf("the keeps: %+v, want bob's of cat's session to one", out)
		}
		events(t, bob)
		time.Sleep(remoteCfg.TTL)
		l.SweepSpectators()
		if e, ok := lastOf[WatchEnded](events(t, bob)); !ok || e.Reason != "cat left" {
			t.Fatalf("bob got %+v once one was no longer listed, want told cat left", e)
		}
	})
}
