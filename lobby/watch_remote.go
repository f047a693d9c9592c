package lobby

// Spectating across servers: a spectator on one server (the viewer's)
// watches a game played on another (the player's), read-only, as if it
// were played on its own. Package cluster carries the messages
// (WatchNet, HearWatch); the lobby decides, always in the player's
// server's terms (its session's ID):
//   - ask (viewer's → player's): watch the player called this name, for
//     this session of mine, on behalf of this player key (never one of
//     its own sessions). The player's server decides, as Watch does for
//     its own spectators: it refuses (ErrNotOnline, ErrNotWatchable,
//     ErrGameFull), or counts the spectator and answers with the
//     session's ID; the viewer's server waits for the answer
//     (AskTimeout at most);
//   - board (player's → viewer's): the game as the player's session
//     published it last, and how many watch it on every server; offered,
//     so the newest of a session for a server wins, and sent after the
//     answer that made its spectator one;
//   - ended (player's → viewer's): the session left, or no longer lets
//     others watch;
//   - unwatch (viewer's → player's): this spectator watches no more;
//   - private (player's → every other): the player (key) turned "Others
//     may watch me" on or off; the player's sessions there follow;
//   - stop (racer's → every other): the player (key) took a seat in a
//     race room; the player's sessions there stop watching (StopWatching);
//   - keep (viewer's → player's), twice a heartbeat: these spectators
//     still watch. A spectator not kept for its time to live stops
//     counting (SweepSpectators): so the spectators of a server that died
//     vanish within the presence TTL, and so does one whose unwatch was
//     lost. A kept spectator of a session the player's server does not
//     know is told ended.
//
// Every message about a session carries the version of the session's
// state on the player's server (one more at each board and end), so that
// the viewer's server never goes back to an older board. A viewer's
// server whose player's server vanished from presence (its TTL ran out,
// or it said bye) ends its spectators as if the player had left.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrNoAnswer: the player's server did not answer a spectator in time.
var ErrNoAnswer = errors.New("that player's server did not answer; try again in a moment")

// ErrServerDown: the player's server is known not to answer (presence
// has not heard from it for two heartbeats, or it left the last ask
// unanswered and has not been heard from since): Watch says so at once,
// as "NAME's server is not answering", instead of waiting AskTimeout.
var ErrServerDown = errors.New("server is not answering")

// AskTimeout bounds how long Watch waits for the player's server.
const AskTimeout = 5 * time.Second

// WatchKind is what a message of spectating across servers says.
type WatchKind uint8

// The messages of spectating across servers.
const (
	WatchAsk     WatchKind = iota + 1 // viewer's → player's: watch the player called Name
	WatchReply                        // player's → viewer's: the answer to an ask
	WatchBoard                        // player's → viewer's: the session's board
	WatchEnd                          // player's → viewer's: watching the session ended
	WatchUnwatch                      // viewer's → player's: a spectator watches no more
	WatchKeep                         // viewer's → player's: these spectators still watch
	WatchPrivate                      // player's → every other: the player's setting
	WatchStop                         // racer's → every other: the player took a seat
)

// WatchMsg is a message of spectating across servers. Each kind uses
// the fields its comments name; the others are zero.
type WatchMsg struct {
	Kind WatchKind
	// From is the server that sent it (set by the WatchNet on receipt);
	// To the server it goes to (set by the lobby when it sends).
	From, To string
	// Req names an ask (ask, reply).
	Req string
	// Viewer is the spectator's session on the viewer's server (ask,
	// reply, unwatch; ended: the one spectator it ends, 0 for all).
	Viewer uint64
	// Player is the spectator's player key (ask: empty for a guest), or
	// the player's (private, stop).
	Player string
	// Name is whom to watch (ask), or the player's name (reply, board).
	Name string
	// Session is the watched session on the player's server.
	Session uint64
	// Ver is the version of the session's state on the player's server
	// (reply, board, ended; 0 for an end that is no answer to a board).
	Ver uint64
	// Spectators is how many watch the session (reply, board).
	Spectators int
	// Refused is why an ask is refused (reply): ErrNotOnline,
	// ErrNotWatchable, ErrGameFull or ErrWatchSelf; nil for a yes.
	Refused error
	// Reason says why, in words fit for the player (ended, stop).
	Reason string
	// Board is the session's board (board).
	Board Board
	// Keep lists the spectators that still watch (keep).
	Keep []KeptSpectator
	// Private: the player's "Others may watch me" is off (private).
	Private bool
}

// KeptSpectator is a spectator a keep says still watches: its session on
// the viewer's server, and the session and name of the player it
// watches (a server restarted under the same name may give the session's
// ID to another player).
type KeptSpectator struct {
	Viewer, Session uint64
	Name            string
}

// WatchNet carries the messages of spectating across servers (package
// cluster does it over a bus). The lobby calls Send and Offer with its
// lock held: they queue the message and return, never waiting nor
// calling the lobby; it calls Ask without.
type WatchNet interface {
	// Send queues m for m.To, after every message sent or offered
	// before it.
	Send(m WatchMsg)
	// Offer queues m, a board or an end of a session of this server,
	// for m.To: a newer offer of the same session to the same server
	// replaces one not sent yet, and an offer goes out after the
	// messages sent before it.
	Offer(m WatchMsg)
	// Ask sends m, an ask, at once, and reports whether it went out
	// (within ctx).
	Ask(ctx context.Context, m WatchMsg) error
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

// remoteWatch is a lobby's spectating across servers, guarded by the
// lobby's mu.
type remoteWatch struct {
	net WatchNet
	ttl time.Duration // a remote spectator's life without a keep

	nextReq uint64
	asks    map[string]*ask
	// unanswered is, by server, when an ask to it last went unanswered;
	// forgotten at its next message, here or on presence.
	unanswered map[string]time.Time
	games      map[remoteRef]*remoteGame // watched here, played elsewhere
}

// AttachWatch lets the lobby's sessions watch the players of the other
// servers, and theirs watch its own, through n: Watch finds a player of
// another server through presence (AttachPresence, which must come
// first) and asks that server; n tells the lobby of what the others say
// (HearWatch) and keeps the lobby's spectators elsewhere alive
// (KeepSpectators, SweepSpectators). A spectator on another server
// counts for ttl after its server last said it still watches. A lobby
// has one WatchNet.
func (l *Lobby) AttachWatch(n WatchNet, ttl time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.peers == nil:
		return errors.New("lobby: watch across servers: attach presence first")
	case l.remoteWatch != nil || l.closed:
		return errors.New("lobby: watch across servers: attached already, or closed")
	case ttl <= 0:
		return errors.New("lobby: watch across servers: a spectator's time to live is needed")
	}
	l.remoteWatch = &remoteWatch{net: n, ttl: ttl,
		asks: map[string]*ask{}, unanswered: map[string]time.Time{}, games: map[remoteRef]*remoteGame{}}
	return nil
}

// remoteCandidateLocked reports whether viewer should watch the player
// called name on another server, and on which: when nobody here is called
// so (local is nil), or the one here is not at a game and one there is.
func (l *Lobby) remoteCandidateLocked(viewer *Session, name string, local *Session) (string, bool) {
	if l.remoteWatch == nil || local != nil && local.doing.What == Playing {
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
	c := l.peers
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
func (c *peers) liveLocked(instance string, now time.Time) bool {
	for _, e := range c.remote[instance] {
		if now.Before(e.expires) {
			return true
		}
	}
	return false
}

// heardLocked is when presence last heard of players of the server
// called instance (each entry lives TTL from then).
func (c *peers) heardLocked(instance string) (time.Time, bool) {
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
func (l *Lobby) downLocked(w *remoteWatch, instance string) bool {
	c := l.peers
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
	since, ok := w.unanswered[instance]
	return ok && !heard.After(since)
}

// watchRemote asks the server at to make viewer a spectator of the player
// called name there, and waits for its answer (AskTimeout at most); a
// server known not to answer is not asked (ErrServerDown).
func (l *Lobby) watchRemote(viewer *Session, name, at string) (Watched, error) {
	name = strings.TrimSpace(name)
	l.mu.Lock()
	w := l.remoteWatch
	if viewer.gone {
		l.mu.Unlock()
		return Watched{}, ErrClosed
	}
	if l.downLocked(w, at) {
		l.mu.Unlock()
		return Watched{}, fmt.Errorf("%s's %w", name, ErrServerDown)
	}
	if r := viewer.remote; r != nil && r.instance == at {
		if g := w.games[*r]; g != nil && strings.EqualFold(g.name, name) {
			l.mu.Unlock()
			return g.watched(), nil
		}
	}
	w.nextReq++
	req := strconv.FormatUint(viewer.id, 10) + "." + strconv.FormatUint(w.nextReq, 10)
	a := &ask{viewer: viewer, answer: make(chan askAnswer, 1)}
	w.asks[req] = a
	m := WatchMsg{Kind: WatchAsk, To: at, Req: req, Viewer: viewer.id, Player: playerKey(viewer.player), Name: name}
	l.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), AskTimeout)
	defer cancel()
	err := w.net.Ask(ctx, m)
	if err == nil {
		select {
		case ans := <-a.answer:
			return ans.w, ans.err
		case <-ctx.Done():
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(w.asks, req)
	select {
	case ans := <-a.answer: // it came while the lock was free
		return ans.w, ans.err
	default:
	}
	if err == nil {
		w.unanswered[at] = l.now()
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
	w := l.remoteWatch
	if g := w.games[*r]; g != nil {
		delete(g.viewers, viewer.id)
		if len(g.viewers) == 0 {
			delete(w.games, *r)
		}
	}
	w.net.Send(WatchMsg{Kind: WatchUnwatch, To: r.instance, Viewer: viewer.id, Session: r.session})
}

// offerRemoteLocked offers s's board to each server that watches it.
func (l *Lobby) offerRemoteLocked(s *Session) {
	w := l.remoteWatch
	if w == nil || len(s.remoteSpecs) == 0 {
		return
	}
	s.watchVer++
	m := WatchMsg{Kind: WatchBoard, Session: s.id, Name: s.player.Name, Ver: s.watchVer, Spectators: s.watchersLocked(), Board: s.board}
	for ref := range s.remoteSpecs {
		m.To = ref.instance
		w.net.Offer(m)
	}
}

// endRemoteSpectatorsLocked tells the servers that watch s that watching
// ended, and why.
func (l *Lobby) endRemoteSpectatorsLocked(s *Session, reason string) {
	w := l.remoteWatch
	if w == nil || len(s.remoteSpecs) == 0 {
		return
	}
	s.watchVer++
	m := WatchMsg{Kind: WatchEnd, Session: s.id, Ver: s.watchVer, Reason: reason}
	for ref := range s.remoteSpecs {
		m.To = ref.instance
		w.net.Offer(m)
	}
	s.remoteSpecs = nil
}

// HearWatch takes a message of another server's (m.From) about
// spectating: an ask it answers, an answer to a Watch waiting here, a
// board or an end it shows the spectators here, or news of spectators
// and players there.
func (l *Lobby) HearWatch(m WatchMsg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.remoteWatch
	if w == nil || m.From == "" {
		return
	}
	delete(w.unanswered, m.From)
	switch m.Kind {
	case WatchAsk:
		l.answerLocked(w, m)
	case WatchReply:
		l.replyLocked(w, m)
	case WatchBoard:
		l.boardLocked(w, m)
	case WatchEnd:
		l.endedLocked(w, m)
	case WatchUnwatch:
		l.remoteUnwatchLocked(m)
	case WatchKeep:
		l.keepLocked(w, m)
	case WatchPrivate:
		l.applyWatchableLocked(m.Player, !m.Private)
	case WatchStop:
		l.applyStopWatchingLocked(m.Player, m.Reason)
	}
}

// answerLocked answers another server's ask, as Watch would.
func (l *Lobby) answerLocked(w *remoteWatch, m WatchMsg) {
	reply := WatchMsg{Kind: WatchReply, To: m.From, Req: m.Req, Viewer: m.Viewer}
	ref := remoteRef{m.From, m.Viewer}
	target := l.findByNameLocked(m.Name, m.Player, nil)
	switch {
	case target == nil:
		reply.Refused = ErrNotOnline
	case target.private:
		reply.Refused = ErrNotWatchable
	case target.remoteSpecs[ref].IsZero() && target.watchersLocked() >= MaxSpectators:
		reply.Refused = ErrGameFull
	}
	if reply.Refused != nil {
		w.net.Send(reply)
		return
	}
	if target.remoteSpecs == nil {
		target.remoteSpecs = map[remoteRef]time.Time{}
	}
	target.remoteSpecs[ref] = l.now().Add(w.ttl)
	target.watchVer++
	reply.Session, reply.Name, reply.Spectators, reply.Ver = target.id, target.player.Name, target.watchersLocked(), target.watchVer
	w.net.Send(reply)
	// The player and every spectator hear of the new count, the new
	// spectator gets the board (offered after the reply).
	l.tellSpectatorsLocked(target)
}

// replyLocked hands the player's server's answer to the Watch waiting for
// it, having made the spectator one of the game's (here, under the lock,
// so that no board can come before).
func (l *Lobby) replyLocked(w *remoteWatch, m WatchMsg) {
	a := w.asks[m.Req]
	if a == nil { // the asker gave up waiting
		if m.Refused == nil {
			w.net.Send(WatchMsg{Kind: WatchUnwatch, To: m.From, Viewer: m.Viewer, Session: m.Session})
		}
		return
	}
	delete(w.asks, m.Req)
	if m.Refused != nil {
		a.answer <- askAnswer{err: m.Refused}
		return
	}
	v, ref := a.viewer, remoteRef{m.From, m.Session}
	if v.gone {
		w.net.Send(WatchMsg{Kind: WatchUnwatch, To: m.From, Viewer: v.id, Session: m.Session})
		a.answer <- askAnswer{err: ErrClosed}
		return
	}
	if v.remote == nil || *v.remote != ref {
		l.unwatchLocked(v) // what it watched before
	}
	g := w.games[ref]
	if g == nil {
		g = &remoteGame{viewers: map[uint64]*Session{}}
		w.games[ref] = g
	}
	g.name = m.Name
	if m.Ver > g.ver {
		g.ver, g.spectators = m.Ver, m.Spectators
	}
	g.viewers[v.id] = v
	v.remote = &ref
	a.answer <- askAnswer{w: g.watched()}
}

// boardLocked shows a board of another server's game to its spectators
// here.
func (l *Lobby) boardLocked(w *remoteWatch, m WatchMsg) {
	g := w.games[remoteRef{m.From, m.Session}]
	if g == nil || m.Ver <= g.ver {
		return
	}
	g.board, g.spectators, g.ver = m.Board, m.Spectators, m.Ver
	if m.Name != "" {
		g.name = m.Name
	}
	shown := g.watched()
	var stuck []*Session
	for _, v := range g.viewers {
		v.queue.Coalesce(watchedKey, shown)
		if since, full := v.queue.FullSince(); full && l.now().Sub(since) >= DropAfter {
			stuck = append(stuck, v)
		}
	}
	for _, v := range stuck {
		l.removeLocked(v)
	}
}

// endedLocked ends the spectators here of another server's game (one of
// them when the message names it).
func (l *Lobby) endedLocked(w *remoteWatch, m WatchMsg) {
	ref := remoteRef{m.From, m.Session}
	g := w.games[ref]
	if g == nil || m.Ver != 0 && m.Ver <= g.ver {
		return
	}
	reason := m.Reason
	if reason == "" {
		reason = g.name + " left"
	}
	l.endGameLocked(w, ref, g, m.Viewer, reason)
}

// endGameLocked ends the spectators here of g (only viewer, unless 0).
func (l *Lobby) endGameLocked(w *remoteWatch, ref remoteRef, g *remoteGame, viewer uint64, reason string) {
	for id, v := range g.viewers {
		if viewer != 0 && id != viewer {
			continue
		}
		delete(g.viewers, id)
		v.remote = nil
		l.postLocked(v, WatchEnded{Name: g.name, Reason: reason})
	}
	if len(g.viewers) == 0 {
		delete(w.games, ref)
	}
}

// remoteUnwatchLocked forgets a spectator on another server.
func (l *Lobby) remoteUnwatchLocked(m WatchMsg) {
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
func (l *Lobby) keepLocked(w *remoteWatch, m WatchMsg) {
	now := l.now()
	for _, k := range m.Keep {
		ref := remoteRef{m.From, k.Viewer}
		s := l.sessions[k.Session]
		if s == nil || !strings.EqualFold(s.player.Name, k.Name) {
			w.net.Send(WatchMsg{Kind: WatchEnd, To: m.From, Session: k.Session, Viewer: k.Viewer})
			continue
		}
		if _, ok := s.remoteSpecs[ref]; ok {
			s.remoteSpecs[ref] = now.Add(w.ttl)
			continue
		}
		if s.private || s.watchersLocked() >= MaxSpectators {
			reason := s.player.Name + " no longer lets others watch"
			if !s.private {
				reason = s.player.Name + "'s game has as many spectators as it can take"
			}
			w.net.Send(WatchMsg{Kind: WatchEnd, To: m.From, Session: k.Session, Viewer: k.Viewer, Reason: reason})
			continue
		}
		if s.remoteSpecs == nil {
			s.remoteSpecs = map[remoteRef]time.Time{}
		}
		s.remoteSpecs[ref] = now.Add(w.ttl)
		l.tellSpectatorsLocked(s)
	}
}

// tellWatchableLocked tells the other servers that the player key let
// others watch (on) or not.
func (l *Lobby) tellWatchableLocked(key string, on bool) {
	l.tellPlayerLocked(WatchMsg{Kind: WatchPrivate, Player: key, Private: !on})
}

// tellStopWatchingLocked tells the other servers that the player key
// took a seat in a race room: its sessions there stop watching.
func (l *Lobby) tellStopWatchingLocked(key, reason string) {
	l.tellPlayerLocked(WatchMsg{Kind: WatchStop, Player: key, Reason: reason})
}

// tellPlayerLocked sends m, news of the player m.Player, to every live
// server; a guest (no key) is nobody's elsewhere.
func (l *Lobby) tellPlayerLocked(m WatchMsg) {
	w, c := l.remoteWatch, l.peers
	if w == nil || c == nil || m.Player == "" {
		return
	}
	now := l.now()
	for inst := range c.remote {
		if c.liveLocked(inst, now) {
			m.To = inst
			w.net.Send(m)
		}
	}
}

// KeepSpectators tells each other server which of its games sessions
// here still watch (a keep each), so that it keeps counting them; the
// WatchNet calls it twice a heartbeat.
func (l *Lobby) KeepSpectators() {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.remoteWatch
	if w == nil {
		return
	}
	by := map[string][]KeptSpectator{}
	for ref, g := range w.games {
		for id := range g.viewers {
			by[ref.instance] = append(by[ref.instance], KeptSpectator{Viewer: id, Session: ref.session, Name: g.name})
		}
	}
	for inst, kept := range by {
		w.net.Send(WatchMsg{Kind: WatchKeep, To: inst, Keep: kept})
	}
}

// SweepSpectators forgets the spectators of this server's games that
// were not kept for their time to live, and ends the spectators here of
// the games of servers that presence no longer lists.
func (l *Lobby) SweepSpectators() {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.remoteWatch
	if w == nil {
		return
	}
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
	for ref, g := range w.games {
		if l.peers == nil || !l.peers.liveLocked(ref.instance, now) {
			l.endGameLocked(w, ref, g, 0, g.name+" left")
		}
	}
}
