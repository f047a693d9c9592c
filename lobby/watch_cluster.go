package lobby

// Spectating across servers: a spectator on one server (the viewer's)
// watches a game played on another (the player's), read-only, as if it
// were played on its own.
//
// Each server reads the bus topic WatchTopic(instance) of its own; the
// servers talk over these topics, always in the player's server's terms
// (its session's ID):
//   - ask (viewer's → player's): watch the player called this name, for
//     this session of mine, on behalf of this player key (never one of
//     its own sessions). The player's server decides, as Watch does for
//     its own spectators: it refuses ("offline", "private", "full"), or
//     counts the spectator and answers ok with the session's ID; the
//     viewer's server waits for the answer (askTimeout at most);
//   - board (player's → viewer's): the game as the player's session
//     published it last, and how many watch it on every server; coalesced
//     per session and server, the newest winning, at most one per
//     boardEvery. A record too long for one event goes in parts. Boards
//     go out from a sender of their own, boardWorkers at a time, so that
//     answers and the other discrete events never wait behind boards and
//     a round of many watched games stays short; a board waits only for
//     the discrete events queued before it (the reply that makes its
//     spectator one comes first);
//   - ended (player's → viewer's): the session left, or no longer lets
//     others watch;
//   - unwatch (viewer's → player's): this spectator watches no more;
//   - private (player's → every other): the player (key) turned "Others
//     may watch me" on or off; the player's sessions there follow;
//   - stop (racer's → every other): the player (key) took a seat in a
//     race room; the player's sessions there stop watching (StopWatching);
//   - keep (viewer's → player's), twice a Heartbeat: these spectators still
//     watch. A spectator not kept for the presence TTL stops counting: so
//     the spectators of a server that died vanish within the TTL, and so
//     does one whose unwatch was lost. A kept spectator of a session the
//     player's server does not know is told ended.
//
// Every message about a session carries the version of the session's
// state on the player's server (one more at each board and end), so that
// the viewer's server never goes back to an older board. A viewer's
// server whose player's server vanished from presence (its TTL ran out,
// or it said bye) ends its spectators as if the player had left.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"pyramid/bus"
)

// ErrNoAnswer: the player's server did not answer a spectator in time.
var ErrNoAnswer = errors.New("that player's server did not answer; try again in a moment")

// ErrServerDown: the player's server is known not to answer (presence
// has not heard from it for two heartbeats, or it left the last ask
// unanswered and has not been heard from since): Watch says so at once,
// as "NAME's server is not answering", instead of waiting askTimeout.
var ErrServerDown = errors.New("server is not answering")

// Tuning of spectating across servers.
const (
	// askTimeout bounds how long Watch waits for the player's server.
	askTimeout = 5 * time.Second
	// boardEvery is the least time between two boards of one session
	// to one server: a burst of moves costs a few events, never one per
	// keystroke; the first after a quiet spell goes out at once.
	boardEvery = 100 * time.Millisecond
	// watchPublishTimeout bounds one publish of the sender.
	watchPublishTimeout = 5 * time.Second
	// boardPart is the most bytes of a record one board event carries.
	boardPart = bus.MaxBody - 500
	// keepBatch is the most spectators one keep event lists.
	keepBatch = 40
	// boardWorkers is how many boards a round publishes at once: a
	// round of N boards takes about N/boardWorkers publishes' time.
	boardWorkers = 8
)

// The kinds of watch events.
const (
	kindAsk     = "ask"
	kindReply   = "reply"
	kindBoard   = "board"
	kindEnded   = "ended"
	kindUnwatch = "unwatch"
	kindKeep    = "keep"
	kindPrivate = "private"
	kindStop    = "stop"
)

// The refusals an answer may carry, and the errors they stand for.
var refusals = map[string]error{
	"offline": ErrNotOnline,
	"private": ErrNotWatchable,
	"full":    ErrGameFull,
	"self":    ErrWatchSelf,
}

// WatchTopic is the bus topic of the watch events addressed to the
// server called instance.
func WatchTopic(instance string) string {
	topic := "lobby.watch." + instance
	if bus.Check(topic, bus.Message{}) != nil {
		h := fnv.New64a()
		h.Write([]byte(instance))
		topic = "lobby.watch.h" + strconv.FormatUint(h.Sum64(), 16)
	}
	return topic
}

// remoteRef names a session of another server: the player's session that
// a spectator here watches, or a spectator there of a session here.
type remoteRef struct {
	instance string
	session  uint64
}

// remoteGame is, on the viewer's server, a session of another server
// that sessions here watch, as its server last sent it.
type remoteGame struct {
	name       string
	viewers    map[uint64]*Session
	board      Board
	spectators int
	ver        uint64
	// parts gathers a board sent in several events (of version partsVer).
	parts    [][]byte
	partsVer uint64
}

// watchMsg is the header of a watch event (the whole body but for a
// board, whose record part follows the header's line).
type watchMsg struct {
	From    string     `json:"f"`           // the sending server
	Req     string     `json:"q,omitempty"` // ask, reply: the question's ID
	Viewer  uint64     `json:"v,omitempty"` // ask, unwatch: the spectator's session on the viewer's server
	Player  string     `json:"p,omitempty"` // ask: the spectator's player key (empty for a guest); private, stop: the player's
	Name    string     `json:"n,omitempty"` // ask: whom to watch; reply, board: the player's name
	Session uint64     `json:"s,omitempty"` // the watched session on the player's server
	Ver     uint64     `json:"ver,omitempty"`
	N       int        `json:"c,omitempty"` // reply, board: how many watch
	Refused string     `json:"e,omitempty"` // reply: why not (a key of refusals)
	Reason  string     `json:"r,omitempty"` // ended, stop: why, in words fit for the player
	Daily   string     `json:"d,omitempty"` // board
	Part    int        `json:"i,omitempty"` // board: this part's index
	Parts   int        `json:"k,omitempty"` // board: how many parts
	Keep    []keepPair `json:"keep,omitempty"`
	Off     bool       `json:"o,omitempty"` // private: "Others may watch me" is off
}

// keepPair is a spectator a keep says still watches: its session on the
// viewer's server, and the session and name of the player it watches (a
// server restarted under the same name may give the session's ID to
// another player).
type keepPair struct {
	Viewer  uint64 `json:"v"`
	Session uint64 `json:"s"`
	Name    string `json:"n"`
}

// outMsg is a watch event the sender publishes.
type outMsg struct {
	to   string
	kind string
	msg  watchMsg
	rec  []byte // a board's record, in JSON
}

// ask is a Watch waiting for the player's server.
type ask struct {
	viewer *Session
	answer chan askAnswer // buffered: the reader never waits
}

// askAnswer is the player's server's answer.
type askAnswer struct {
	w   Watched
	err error
}

// watchNet is a lobby's spectating across servers. Its maps and queue
// are guarded by the lobby's mu.
type watchNet struct {
	b        bus.Bus
	instance string
	ttl      time.Duration // a remote spectator's life without a keep: the presence TTL less a sweep
	keep     time.Duration // how often this server keeps its spectators elsewhere: twice a heartbeat
	sweep    time.Duration // how often expired spectators are swept: a tenth of the TTL
	logf     func(format string, args ...any)

	nextReq uint64
	asks    map[string]*ask
	// unanswered is, by server, when an ask to it last went unanswered;
	// forgotten at its next event, here or on presence.
	unanswered map[string]time.Time
	games      map[remoteRef]*remoteGame // watched here, played elsewhere
	queue      []outMsg                  // discrete events to send, in order
	boards     map[remoteRef]outMsg      // the newest board or end for a server (instance) of a session here (session)
	// queued counts the discrete events queued so far, sent those
	// published (or given up on): a board queued after the nth waits
	// until sent reaches n.
	queued, sent uint64

	kick      chan struct{} // one token: there are discrete events to send
	boardKick chan struct{} // one token: there are boards to send
	sentKick  chan struct{} // one token: sent moved
	cancel    context.CancelFunc
	ended     chan struct{} // closed when both goroutines have ended
}

// WatchAcross lets the lobby's sessions watch the players of the other
// servers on b, and theirs watch its own: Watch finds a player of
// another server through presence (Cluster, which must be joined first,
// with the same bus and instance) and asks that server. Close ends it.
func (l *Lobby) WatchAcross(ctx context.Context, b bus.Bus, instance string) error {
	l.mu.Lock()
	c := l.cluster
	l.mu.Unlock()
	if c == nil {
		return errors.New("lobby: watch across servers: join the cluster first")
	}
	sub, err := b.Subscribe(ctx, WatchTopic(instance), bus.Latest)
	if err != nil {
		return fmt.Errorf("lobby: watch across servers: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	// A spectator lives the TTL less one sweep from its last keep, so
	// that the sweep forgets it within the TTL; keeps come twice a
	// heartbeat, so that two lost ones lose nobody.
	sweep := max(c.cfg.TTL/10, time.Millisecond)
	n := &watchNet{b: b, instance: instance, ttl: c.cfg.TTL - sweep, keep: max(c.cfg.Heartbeat/2, time.Millisecond), sweep: sweep,
		logf: c.logf, asks: map[string]*ask{}, unanswered: map[string]time.Time{}, games: map[remoteRef]*remoteGame{}, boards: map[remoteRef]outMsg{},
		kick: make(chan struct{}, 1), boardKick: make(chan struct{}, 1), sentKick: make(chan struct{}, 1),
		cancel: cancel, ended: make(chan struct{})}
	l.mu.Lock()
	if l.watchNet != nil || l.closed {
		l.mu.Unlock()
		cancel()
		sub.Close()
		return errors.New("lobby: watch across servers: already, or closed")
	}
	l.watchNet = n
	l.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { l.readWatch(runCtx, n, sub) })
	wg.Go(func() { l.sendWatch(runCtx, n) })
	wg.Go(func() { l.sendBoards(runCtx, n) })
	go func() {
		wg.Wait()
		close(n.ended)
	}()
	return nil
}

// closeWatchNet ends spectating across servers, once what is queued is
// sent (the ends of this server's spectators, above all); Close calls it
// without the lobby's mu.
func (l *Lobby) closeWatchNet() {
	l.mu.Lock()
	n := l.watchNet
	l.mu.Unlock()
	if n == nil {
		return
	}
	n.cancel()
	<-n.ended
}

// sendLocked queues a discrete event (publish says whom from).
func (n *watchNet) sendLocked(m outMsg) {
	n.queue = append(n.queue, m)
	n.queued++
	poke(n.kick)
}

// kickBoardsLocked tells the board sender that boards wait.
func (n *watchNet) kickBoardsLocked() { poke(n.boardKick) }

// poke puts the token in a one-token channel, if it is not there.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// remoteCandidateLocked reports whether viewer should watch the player
// called name on another server, and on which: when nobody here is called
// so (local is nil), or the one here is not at a game and one there is.
func (l *Lobby) remoteCandidateLocked(viewer *Session, name string, local *Session) (string, bool) {
	if l.watchNet == nil || local != nil && local.doing.What == Playing {
		return "", false
	}
	at, playing := l.findRemoteLocked(viewer, name)
	if at == "" || local != nil && !playing {
		return "", false
	}
	return at, true
}

// findRemoteLocked is the server of the other servers' best session of
// the player called name that viewer may watch (not one of its own
// player's): one at a game, else the one that changed last; playing
// tells whether it is at a game. Empty when there is none.
func (l *Lobby) findRemoteLocked(viewer *Session, name string) (instance string, playing bool) {
	c := l.cluster
	name = strings.TrimSpace(name)
	if c == nil || name == "" {
		return "", false
	}
	now := l.now()
	self := playerKey(viewer.player)
	var best *remoteEntry
	for inst, entries := range c.remote {
		for _, e := range entries {
			if !now.Before(e.expires) || !strings.EqualFold(e.Name, name) || self != "" && playerKey(e.Player) == self {
				continue
			}
			if bp, ep := best != nil && best.What == Playing, e.What == Playing; best == nil || ep && !bp ||
				ep == bp && (e.changed.After(best.changed) || e.changed.Equal(best.changed) && inst > instance) {
				best, instance = e, inst
			}
		}
	}
	if best == nil {
		return "", false
	}
	return instance, best.What == Playing
}

// liveLocked reports whether presence still lists players of the server
// called instance.
func (c *cluster) liveLocked(instance string, now time.Time) bool {
	for _, e := range c.remote[instance] {
		if now.Before(e.expires) {
			return true
		}
	}
	return false
}

// heardLocked is when presence last heard of players of the server
// called instance (each entry lives TTL from then).
func (c *cluster) heardLocked(instance string) (time.Time, bool) {
	var last time.Time
	for _, e := range c.remote[instance] {
		if e.expires.After(last) {
			last = e.expires
		}
	}
	if last.IsZero() {
		return time.Time{}, false
	}
	return last.Add(-c.cfg.TTL), true
}

// downLocked reports whether the server called instance is known not to
// answer: presence missed two of its heartbeats in a row (a live server
// sends one every Heartbeat, so one late never counts), or an ask to it
// went unanswered and nothing was heard of it since.
func (l *Lobby) downLocked(n *watchNet, instance string) bool {
	c := l.cluster
	if c == nil {
		return false
	}
	heard, ok := c.heardLocked(instance)
	if !ok {
		return false
	}
	if l.now().Sub(heard) > 2*c.cfg.Heartbeat {
		return true
	}
	since, ok := n.unanswered[instance]
	return ok && !heard.After(since)
}

// watchRemote asks the server at to make viewer a spectator of the player
// called name there, and waits for its answer (askTimeout at most); a
// server known not to answer is not asked (ErrServerDown).
func (l *Lobby) watchRemote(viewer *Session, name, at string) (Watched, error) {
	name = strings.TrimSpace(name)
	l.mu.Lock()
	n := l.watchNet
	if viewer.gone {
		l.mu.Unlock()
		return Watched{}, ErrClosed
	}
	if l.downLocked(n, at) {
		l.mu.Unlock()
		return Watched{}, fmt.Errorf("%s's %w", name, ErrServerDown)
	}
	if r := viewer.remote; r != nil && r.instance == at {
		if g := n.games[*r]; g != nil && strings.EqualFold(g.name, name) {
			l.mu.Unlock()
			return g.watched(), nil
		}
	}
	n.nextReq++
	req := strconv.FormatUint(viewer.id, 10) + "." + strconv.FormatUint(n.nextReq, 10)
	a := &ask{viewer: viewer, answer: make(chan askAnswer, 1)}
	n.asks[req] = a
	m := watchMsg{From: n.instance, Req: req, Viewer: viewer.id, Player: playerKey(viewer.player), Name: name}
	l.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	err := n.publish(ctx, outMsg{to: at, kind: kindAsk, msg: m})
	if err == nil {
		select {
		case ans := <-a.answer:
			return ans.w, ans.err
		case <-ctx.Done():
		}
	} else {
		n.logf("lobby: ask %s to watch %s: %v", at, name, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(n.asks, req)
	select {
	case ans := <-a.answer: // it came while the lock was free
		return ans.w, ans.err
	default:
	}
	if err == nil {
		n.unanswered[at] = l.now()
	}
	return Watched{}, ErrNoAnswer
}

// watched is what a spectator of g shows.
func (g *remoteGame) watched() Watched {
	return Watched{Name: g.name, Board: g.board, Spectators: g.spectators}
}

// unwatchRemoteLocked stops viewer watching a game of another server,
// and tells that server.
func (l *Lobby) unwatchRemoteLocked(viewer *Session) {
	r := viewer.remote
	if r == nil {
		return
	}
	viewer.remote = nil
	n := l.watchNet
	if g := n.games[*r]; g != nil {
		delete(g.viewers, viewer.id)
		if len(g.viewers) == 0 {
			delete(n.games, *r)
		}
	}
	n.sendLocked(outMsg{to: r.instance, kind: kindUnwatch, msg: watchMsg{Viewer: viewer.id, Session: r.session}})
}

// offerRemoteLocked queues s's board for each server that watches it.
func (l *Lobby) offerRemoteLocked(s *Session) {
	n := l.watchNet
	if n == nil || len(s.remoteSpecs) == 0 {
		return
	}
	s.watchVer++
	var rec []byte
	if s.board.Playing() {
		rec, _ = json.Marshal(s.board.Record) // a Record always encodes
	}
	m := watchMsg{Session: s.id, Name: s.player.Name, Ver: s.watchVer, N: s.watchersLocked(), Daily: s.board.Daily}
	for ref := range s.remoteSpecs {
		n.boards[remoteRef{ref.instance, s.id}] = outMsg{to: ref.instance, kind: kindBoard, msg: m, rec: rec}
	}
	n.kickBoardsLocked()
}

// endRemoteSpectatorsLocked tells the servers that watch s that watching
// ended, and why.
func (l *Lobby) endRemoteSpectatorsLocked(s *Session, reason string) {
	n := l.watchNet
	if n == nil || len(s.remoteSpecs) == 0 {
		return
	}
	s.watchVer++
	m := watchMsg{Session: s.id, Ver: s.watchVer, Reason: reason}
	for ref := range s.remoteSpecs {
		n.boards[remoteRef{ref.instance, s.id}] = outMsg{to: ref.instance, kind: kindEnded, msg: m}
	}
	s.remoteSpecs = nil
	n.kickBoardsLocked()
}

// readWatch handles the watch events addressed to this server until ctx
// ends. A gap costs nothing lasting: keeps and TTLs repair who watches,
// and the next board says the whole game.
func (l *Lobby) readWatch(ctx context.Context, n *watchNet, sub bus.Subscription) {
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, bus.ErrGap) {
			continue
		}
		if err != nil {
			return
		}
		m, rec, ok := decodeWatch(ev.Body)
		if !ok || m.From == "" || m.From == n.instance {
			continue
		}
		l.mu.Lock()
		delete(n.unanswered, m.From)
		switch ev.Kind {
		case kindAsk:
			l.answerLocked(n, m)
		case kindReply:
			l.replyLocked(n, m)
		case kindBoard:
			l.boardLocked(n, m, rec)
		case kindEnded:
			l.endedLocked(n, m)
		case kindUnwatch:
			l.remoteUnwatchLocked(m)
		case kindKeep:
			l.keepLocked(n, m)
		case kindPrivate:
			l.applyWatchableLocked(m.Player, !m.Off)
		case kindStop:
			l.applyStopWatchingLocked(m.Player, m.Reason)
		}
		l.mu.Unlock()
	}
}

// answerLocked answers another server's ask, as Watch would.
func (l *Lobby) answerLocked(n *watchNet, m watchMsg) {
	reply := watchMsg{Req: m.Req, Viewer: m.Viewer}
	ref := remoteRef{m.From, m.Viewer}
	target := l.findByNameLocked(m.Name, m.Player, nil)
	switch {
	case target == nil:
		reply.Refused = "offline"
	case target.private:
		reply.Refused = "private"
	case target.remoteSpecs[ref].IsZero() && target.watchersLocked() >= MaxSpectators:
		reply.Refused = "full"
	}
	if reply.Refused != "" {
		n.sendLocked(outMsg{to: m.From, kind: kindReply, msg: reply})
		return
	}
	if target.remoteSpecs == nil {
		target.remoteSpecs = map[remoteRef]time.Time{}
	}
	target.remoteSpecs[ref] = l.now().Add(n.ttl)
	target.watchVer++
	reply.Session, reply.Name, reply.N, reply.Ver = target.id, target.player.Name, target.watchersLocked(), target.watchVer
	n.sendLocked(outMsg{to: m.From, kind: kindReply, msg: reply})
	// The player and every spectator hear of the new count, the new
	// spectator gets the board (queued after the reply).
	l.tellSpectatorsLocked(target)
}

// replyLocked hands the player's server's answer to the Watch waiting for
// it, having made the spectator one of the game's (here, under the lock,
// so that no board can come before).
func (l *Lobby) replyLocked(n *watchNet, m watchMsg) {
	a := n.asks[m.Req]
	if a == nil { // the asker gave up waiting
		if m.Refused == "" {
			n.sendLocked(outMsg{to: m.From, kind: kindUnwatch, msg: watchMsg{Viewer: m.Viewer, Session: m.Session}})
		}
		return
	}
	delete(n.asks, m.Req)
	if m.Refused != "" {
		err := refusals[m.Refused]
		if err == nil {
			err = ErrNotOnline
		}
		a.answer <- askAnswer{err: err}
		return
	}
	v, ref := a.viewer, remoteRef{m.From, m.Session}
	if v.gone {
		n.sendLocked(outMsg{to: m.From, kind: kindUnwatch, msg: watchMsg{Viewer: v.id, Session: m.Session}})
		a.answer <- askAnswer{err: ErrClosed}
		return
	}
	if v.remote == nil || *v.remote != ref {
		l.unwatchLocked(v) // what it watched before
	}
	g := n.games[ref]
	if g == nil {
		g = &remoteGame{viewers: map[uint64]*Session{}}
		n.games[ref] = g
	}
	g.name = m.Name
	if m.Ver > g.ver {
		g.ver, g.spectators = m.Ver, m.N
	}
	g.viewers[v.id] = v
	v.remote = &ref
	a.answer <- askAnswer{w: g.watched()}
}

// boardLocked shows a board of another server's game to its spectators
// here.
func (l *Lobby) boardLocked(n *watchNet, m watchMsg, rec []byte) {
	g := n.games[remoteRef{m.From, m.Session}]
	if g == nil || m.Ver <= g.ver {
		return
	}
	if m.Parts > 1 {
		if m.Part < 0 || m.Part >= m.Parts || m.Parts > bus.MaxBody {
			return
		}
		if g.partsVer != m.Ver || len(g.parts) != m.Parts {
			g.parts, g.partsVer = make([][]byte, m.Parts), m.Ver
		}
		g.parts[m.Part] = rec
		for _, p := range g.parts {
			if p == nil {
				return
			}
		}
		rec, g.parts = bytes.Join(g.parts, nil), nil
	}
	var b Board
	if len(rec) > 0 {
		if json.Unmarshal(rec, &b.Record) != nil {
			return
		}
		b.Daily = m.Daily
	}
	g.board, g.spectators, g.ver = b, m.N, m.Ver
	if m.Name != "" {
		g.name = m.Name
	}
	w := g.watched()
	var stuck []*Session
	for _, v := range g.viewers {
		v.queue.Coalesce(watchedKey, w)
		if since, full := v.queue.FullSince(); full && l.now().Sub(since) >= DropAfter {
			stuck = append(stuck, v)
		}
	}
	for _, v := range stuck {
		l.removeLocked(v)
	}
}

// endedLocked ends the spectators here of another server's game (one of
// them when the event names it).
func (l *Lobby) endedLocked(n *watchNet, m watchMsg) {
	ref := remoteRef{m.From, m.Session}
	g := n.games[ref]
	if g == nil || m.Ver != 0 && m.Ver <= g.ver {
		return
	}
	reason := m.Reason
	if reason == "" {
		reason = g.name + " left"
	}
	l.endGameLocked(n, ref, g, m.Viewer, reason)
}

// endGameLocked ends the spectators here of g (only viewer, unless 0).
func (l *Lobby) endGameLocked(n *watchNet, ref remoteRef, g *remoteGame, viewer uint64, reason string) {
	for id, v := range g.viewers {
		if viewer != 0 && id != viewer {
			continue
		}
		delete(g.viewers, id)
		v.remote = nil
		l.postLocked(v, WatchEnded{Name: g.name, Reason: reason})
	}
	if len(g.viewers) == 0 {
		delete(n.games, ref)
	}
}

// remoteUnwatchLocked forgets a spectator on another server.
func (l *Lobby) remoteUnwatchLocked(m watchMsg) {
	s := l.sessions[m.Session]
	ref := remoteRef{m.From, m.Viewer}
	if s == nil {
		return
	}
	if _, ok := s.remoteSpecs[ref]; !ok {
		return
	}
	delete(s.remoteSpecs, ref)
	l.forgetBoardIfUnwatchedLocked(s)
	l.tellSpectatorsLocked(s)
}

// keepLocked keeps the spectators another server says still watch; one
// this server forgot (its keeps were lost for the TTL) counts again if it
// may, or is told watching ended.
func (l *Lobby) keepLocked(n *watchNet, m watchMsg) {
	now := l.now()
	for _, k := range m.Keep {
		ref := remoteRef{m.From, k.Viewer}
		s := l.sessions[k.Session]
		if s == nil || !strings.EqualFold(s.player.Name, k.Name) {
			n.sendLocked(outMsg{to: m.From, kind: kindEnded, msg: watchMsg{Session: k.Session, Viewer: k.Viewer}})
			continue
		}
		if _, ok := s.remoteSpecs[ref]; ok {
			s.remoteSpecs[ref] = now.Add(n.ttl)
			continue
		}
		if s.private || s.watchersLocked() >= MaxSpectators {
			reason := s.player.Name + " no longer lets others watch"
			if !s.private {
				reason = s.player.Name + "'s game has as many spectators as it can take"
			}
			n.sendLocked(outMsg{to: m.From, kind: kindEnded, msg: watchMsg{Session: k.Session, Viewer: k.Viewer, Reason: reason}})
			continue
		}
		if s.remoteSpecs == nil {
			s.remoteSpecs = map[remoteRef]time.Time{}
		}
		s.remoteSpecs[ref] = now.Add(n.ttl)
		l.tellSpectatorsLocked(s)
	}
}

// tellWatchableLocked tells the other servers that the player key let
// others watch (on) or not.
func (l *Lobby) tellWatchableLocked(key string, on bool) {
	l.tellPlayerLocked(kindPrivate, watchMsg{Player: key, Off: !on})
}

// tellStopWatchingLocked tells the other servers that the player key
// took a seat in a race room: its sessions there stop watching.
func (l *Lobby) tellStopWatchingLocked(key, reason string) {
	l.tellPlayerLocked(kindStop, watchMsg{Player: key, Reason: reason})
}

// tellPlayerLocked sends m, news of the player m.Player, to every live
// server; a guest (no key) is nobody's elsewhere.
func (l *Lobby) tellPlayerLocked(kind string, m watchMsg) {
	n, c := l.watchNet, l.cluster
	if n == nil || c == nil || m.Player == "" {
		return
	}
	now := l.now()
	for inst := range c.remote {
		if c.liveLocked(inst, now) {
			n.sendLocked(outMsg{to: inst, kind: kind, msg: m})
		}
	}
}

// keepsLocked queues this server's keeps: to each server, the spectators
// here of its games.
func (l *Lobby) keepsLocked(n *watchNet) {
	by := map[string][]keepPair{}
	for ref, g := range n.games {
		for id := range g.viewers {
			by[ref.instance] = append(by[ref.instance], keepPair{Viewer: id, Session: ref.session, Name: g.name})
		}
	}
	for inst, pairs := range by {
		for len(pairs) > 0 {
			k := min(len(pairs), keepBatch)
			n.sendLocked(outMsg{to: inst, kind: kindKeep, msg: watchMsg{Keep: pairs[:k]}})
			pairs = pairs[k:]
		}
	}
}

// sweepLocked forgets the spectators of this server's games that were
// not kept for the TTL, and ends the spectators here of the games of
// servers that presence no longer lists.
func (l *Lobby) sweepLocked(n *watchNet) {
	now := l.now()
	for _, s := range l.sessions {
		if len(s.remoteSpecs) == 0 {
			continue
		}
		swept := false
		for ref, exp := range s.remoteSpecs {
			if !now.Before(exp) {
				delete(s.remoteSpecs, ref)
				swept = true
			}
		}
		if swept {
			l.forgetBoardIfUnwatchedLocked(s)
			l.tellSpectatorsLocked(s)
		}
	}
	for ref, g := range n.games {
		if l.cluster == nil || !l.cluster.liveLocked(ref.instance, now) {
			l.endGameLocked(n, ref, g, 0, g.name+" left")
		}
	}
}

// sendWatch publishes the queued discrete watch events, at once and in
// order. It keeps and sweeps on its tickers, and at the end sends what is
// queued (for a short while at most).
func (l *Lobby) sendWatch(ctx context.Context, n *watchNet) {
	keep, sweep := time.NewTicker(n.keep), time.NewTicker(n.sweep)
	defer keep.Stop()
	defer sweep.Stop()
	for {
		final := false
		select {
		case <-ctx.Done():
			final = true
		case <-n.kick:
		case <-keep.C:
			l.mu.Lock()
			l.keepsLocked(n)
			l.mu.Unlock()
		case <-sweep.C:
			l.mu.Lock()
			l.sweepLocked(n)
			l.mu.Unlock()
		}
		l.mu.Lock()
		out, upto := n.queue, n.queued
		n.queue = nil
		l.mu.Unlock()
		base, cancel := roundContext(final)
		for _, m := range out {
			n.publishLogged(base, m)
		}
		cancel()
		l.mu.Lock()
		n.sent = upto
		l.mu.Unlock()
		poke(n.sentKick)
		if final {
			return
		}
	}
}

// sendBoards publishes the queued boards and ends: those of a session to
// a server at most once per boardEvery, the newest winning, boardWorkers
// at a time, each round once the discrete events queued before it went
// out. At the end it sends what is queued (for a short while at most).
func (l *Lobby) sendBoards(ctx context.Context, n *watchNet) {
	var wait <-chan time.Time // armed while boards wait for boardEvery to pass
	var last time.Time        // when boards were last taken
	for {
		final := false
		select {
		case <-ctx.Done():
			final = true
		case <-n.boardKick:
		case <-wait:
			wait = nil
		}
		l.mu.Lock()
		if len(n.boards) == 0 {
			l.mu.Unlock()
			if final {
				return
			}
			continue
		}
		if d := boardEvery - time.Since(last); d > 0 && !final {
			if wait == nil {
				wait = time.After(d)
			}
			l.mu.Unlock()
			continue
		}
		out := make([]outMsg, 0, len(n.boards))
		for _, m := range n.boards {
			out = append(out, m)
		}
		clear(n.boards)
		last = time.Now()
		after := n.queued
		l.mu.Unlock()
		for !final && !l.sentUpTo(n, after) {
			select {
			case <-ctx.Done():
				final = true
			case <-n.sentKick:
			}
		}
		base, cancel := roundContext(final)
		sem := make(chan struct{}, boardWorkers)
		var wg sync.WaitGroup
		for _, m := range out {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				n.publishLogged(base, m)
			})
		}
		wg.Wait()
		cancel()
		if final {
			return
		}
	}
}

// roundContext is the base of a round of publishes: each has its own
// watchPublishTimeout (a round may take longer than one), but the final
// round, at the end, all of them a second.
func roundContext(final bool) (context.Context, context.CancelFunc) {
	if final {
		return context.WithTimeout(context.Background(), time.Second)
	}
	return context.Background(), func() {}
}

// publishLogged publishes m within watchPublishTimeout of base, and logs
// a failure: a lost watch event costs nothing lasting (keeps, TTLs and
// the next board repair it).
func (n *watchNet) publishLogged(base context.Context, m outMsg) {
	ctx, cancel := context.WithTimeout(base, watchPublishTimeout)
	defer cancel()
	if err := n.publish(ctx, m); err != nil {
		n.logf("lobby: send %s to %s: %v", m.kind, m.to, err)
	}
}

// sentUpTo reports whether the first k discrete events went out.
func (l *Lobby) sentUpTo(n *watchNet, k uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return n.sent >= k
}

// publish publishes one watch event on its server's topic: a board whose
// record is too long for one event, in parts.
func (n *watchNet) publish(ctx context.Context, m outMsg) error {
	m.msg.From = n.instance
	parts := [][]byte{m.rec}
	if len(m.rec) > boardPart {
		parts = nil
		for rec := m.rec; len(rec) > 0; {
			k := min(len(rec), boardPart)
			parts, rec = append(parts, rec[:k]), rec[k:]
		}
	}
	for i, part := range parts {
		h := m.msg
		if len(parts) > 1 {
			h.Part, h.Parts = i, len(parts)
		}
		head, err := json.Marshal(h)
		if err != nil {
			return fmt.Errorf("encode %s: %w", m.kind, err)
		}
		body := head
		if len(part) > 0 {
			body = append(append(head, '\n'), part...)
		}
		if _, err := n.b.Publish(ctx, WatchTopic(m.to), bus.Message{Kind: m.kind, Body: body}); err != nil {
			return err
		}
	}
	return nil
}

// decodeWatch splits a watch event's body into its header and a board's
// record.
func decodeWatch(body []byte) (watchMsg, []byte, bool) {
	head, rec, _ := bytes.Cut(body, []byte{'\n'})
	var m watchMsg
	if json.Unmarshal(head, &m) != nil {
		return watchMsg{}, nil, false
	}
	return m, rec, true
}
