package cluster

// Spectating across servers, on the bus (the rules are the lobby's: see
// lobby.WatchMsg and lobby/watch_remote.go). Each server reads the bus
// topic WatchTopic(instance) of its own, and publishes a message to a
// server on that server's topic:
//   - the lobby's discrete messages (asks aside, which go out at once)
//     go out in the order the lobby sent them;
//   - boards and ends of a session are offered: coalesced per session
//     and server, the newest winning, at most one per watchBoardEvery.
//     They go out from a sender of their own, watchBoardWorkers at a
//     time, so that answers and the other discrete messages never wait
//     behind boards and a round of many watched games stays short; a
//     board waits only for the discrete messages sent before it (the
//     reply that makes its spectator one comes first);
//   - a board's record too long for one event goes in parts, a keep of
//     many spectators in several events;
//   - twice a heartbeat the lobby keeps its spectators elsewhere
//     (lobby.Lobby.KeepSpectators), and ten times a TTL it sweeps those
//     not kept (lobby.Lobby.SweepSpectators).
//
// A lost event costs nothing lasting: keeps and TTLs repair who watches,
// and the next board says the whole game.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"pyramid/bus"
	"pyramid/lobby"
)

// Tuning of spectating across servers.
const (
	// watchBoardEvery is the least time between two boards of one
	// session to one server: a burst of moves costs a few events, never
	// one per keystroke; the first after a quiet spell goes out at once.
	watchBoardEvery = 100 * time.Millisecond
	// watchPublishTimeout bounds one publish of the senders.
	watchPublishTimeout = 5 * time.Second
	// watchBoardPart is the most bytes of a record one board event
	// carries.
	watchBoardPart = bus.MaxBody - 500
	// watchKeepBatch is the most spectators one keep event lists.
	watchKeepBatch = 40
	// watchBoardWorkers is how many boards a round publishes at once: a
	// round of N boards takes about N/watchBoardWorkers publishes' time.
	watchBoardWorkers = 8
)

// watchKinds are the bus kinds of the lobby's messages.
var watchKinds = map[lobby.WatchKind]string{
	lobby.WatchAsk:     "ask",
	lobby.WatchReply:   "reply",
	lobby.WatchBoard:   "board",
	lobby.WatchEnd:     "ended",
	lobby.WatchUnwatch: "unwatch",
	lobby.WatchKeep:    "keep",
	lobby.WatchPrivate: "private",
	lobby.WatchStop:    "stop",
}

// watchKindOf is the lobby's message of a bus kind.
var watchKindOf = func() map[string]lobby.WatchKind {
	out := make(map[string]lobby.WatchKind, len(watchKinds))
	for k, v := range watchKinds {
		out[v] = k
	}
	return out
}()

// watchRefusals are the refusals an answer may carry, and the lobby's
// errors they stand for.
var watchRefusals = map[string]error{
	"offline": lobby.ErrNotOnline,
	"private": lobby.ErrNotWatchable,
	"full":    lobby.ErrGameFull,
	"self":    lobby.ErrWatchSelf,
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

// watchMsg is the header of a watch event (the whole body but for a
// board, whose record part follows the header's line).
type watchMsg struct {
	From    string          `json:"f"`           // the sending server
	Req     string          `json:"q,omitempty"` // ask, reply: the question's ID
	Viewer  uint64          `json:"v,omitempty"` // ask, unwatch: the spectator's session on the viewer's server
	Player  string          `json:"p,omitempty"` // ask: the spectator's player key (empty for a guest); private, stop: the player's
	Name    string          `json:"n,omitempty"` // ask: whom to watch; reply, board: the player's name
	Session uint64          `json:"s,omitempty"` // the watched session on the player's server
	Ver     uint64          `json:"ver,omitempty"`
	N       int             `json:"c,omitempty"`  // reply, board: how many watch
	Refused string          `json:"e,omitempty"`  // reply: why not (a key of watchRefusals)
	Reason  string          `json:"r,omitempty"`  // ended, stop: why, in words fit for the player
	Daily   string          `json:"d,omitempty"`  // board
	Chosen  bool            `json:"ch,omitempty"` // board: lobby.Board.Chosen
	Part    int             `json:"i,omitempty"`  // board: this part's index
	Parts   int             `json:"k,omitempty"`  // board: how many parts
	Keep    []watchKeepPair `json:"keep,omitempty"`
	Off     bool            `json:"o,omitempty"` // private: "Others may watch me" is off
}

// watchKeepPair is a spectator a keep says still watches.
type watchKeepPair struct {
	Viewer  uint64 `json:"v"`
	Session uint64 `json:"s"`
	Name    string `json:"n"`
}

// watchBoardKey names the boards offered of one session to one server.
type watchBoardKey struct {
	server  string
	session uint64
}

// Spectating is a lobby's spectating across the servers of a cluster: it
// carries the lobby's messages to the other servers and theirs to the
// lobby. It is the lobby's lobby.WatchNet.
type Spectating struct {
	l        *lobby.Lobby
	b        bus.Bus
	instance string
	keep     time.Duration // how often the lobby keeps its spectators elsewhere: twice a heartbeat
	sweep    time.Duration // how often the lobby sweeps spectators not kept: a tenth of the TTL
	partsTTL time.Duration // how long the parts of a board wait for the others: the TTL
	logf     func(format string, args ...any)

	// The queue of discrete messages and the boards offered. queued
	// counts the discrete messages queued so far, sent those published
	// (or given up on): a board taken after the nth waits until sent
	// reaches n.
	mu           sync.Mutex
	queue        []lobby.WatchMsg
	boards       map[watchBoardKey]lobby.WatchMsg
	queued, sent uint64

	kick      chan struct{} // one token: there are discrete messages to send
	boardKick chan struct{} // one token: there are boards to send
	sentKick  chan struct{} // one token: sent moved
	cancel    context.CancelFunc
	ended     chan struct{} // closed when the goroutines have ended
}

var _ lobby.WatchNet = (*Spectating)(nil)

// JoinSpectating lets the sessions of p's lobby watch the players of the
// other servers of p's cluster, and theirs watch its own, on p's bus
// and under p's name. Close ends it.
func JoinSpectating(ctx context.Context, p *Presence) (*Spectating, error) {
	sub, err := p.b.Subscribe(ctx, WatchTopic(p.instance), bus.Latest)
	if err != nil {
		return nil, fmt.Errorf("cluster: watch across servers: %w", err)
	}
	// A spectator lives the TTL less one sweep from its last keep, so
	// that the sweep forgets it within the TTL; keeps come twice a
	// heartbeat, so that two lost ones lose nobody.
	sweep := max(p.cfg.TTL/10, time.Millisecond)
	runCtx, cancel := context.WithCancel(context.Background())
	s := &Spectating{l: p.l, b: p.b, instance: p.instance,
		keep: max(p.cfg.Heartbeat/2, time.Millisecond), sweep: sweep, partsTTL: p.cfg.TTL, logf: p.logf,
		boards: map[watchBoardKey]lobby.WatchMsg{},
		kick:   make(chan struct{}, 1), boardKick: make(chan struct{}, 1), sentKick: make(chan struct{}, 1),
		cancel: cancel, ended: make(chan struct{})}
	if err := p.l.AttachWatch(s, p.cfg.TTL-sweep); err != nil {
		cancel()
		sub.Close()
		return nil, fmt.Errorf("cluster: watch across servers: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.read(runCtx, sub) })
	wg.Go(func() { s.sendMessages(runCtx) })
	wg.Go(func() { s.sendBoards(runCtx) })
	go func() {
		wg.Wait()
		close(s.ended)
	}()
	return s, nil
}

// Close ends spectating across servers, once what is queued is sent (the
// ends of the lobby's spectators, above all): call it after the lobby's
// Close, and before the Presence's. Closing twice is harmless.
func (s *Spectating) Close() {
	s.cancel()
	<-s.ended
}

// Send queues a discrete message (lobby.WatchNet).
func (s *Spectating) Send(m lobby.WatchMsg) {
	s.mu.Lock()
	s.queue = append(s.queue, m)
	s.queued++
	s.mu.Unlock()
	putToken(s.kick)
}

// Offer queues a board or an end of a session, the newest winning
// (lobby.WatchNet).
func (s *Spectating) Offer(m lobby.WatchMsg) {
	s.mu.Lock()
	s.boards[watchBoardKey{m.To, m.Session}] = m
	s.mu.Unlock()
	putToken(s.boardKick)
}

// Ask publishes an ask at once (lobby.WatchNet).
func (s *Spectating) Ask(ctx context.Context, m lobby.WatchMsg) error {
	if err := s.publish(ctx, m); err != nil {
		s.logf("cluster: ask %s to watch %s: %v", m.To, m.Name, err)
		return fmt.Errorf("cluster: ask %s: %w", m.To, err)
	}
	return nil
}

// read hands the watch events addressed to this server to the lobby
// until ctx ends, a board in parts once it has them all. A gap costs
// nothing lasting: keeps and TTLs repair who watches, and the next board
// says the whole game.
func (s *Spectating) read(ctx context.Context, sub bus.Subscription) {
	defer sub.Close()
	parts := watchPartials{}
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, bus.ErrGap) {
			continue
		}
		if err != nil {
			return
		}
		h, rec, ok := decodeWatch(ev.Body)
		kind, known := watchKindOf[ev.Kind]
		if !ok || !known || h.From == "" || h.From == s.instance {
			continue
		}
		switch {
		case kind == lobby.WatchBoard && h.Parts > 1:
			if rec, ok = parts.add(h, rec, time.Now(), s.partsTTL); !ok {
				continue
			}
		case kind == lobby.WatchEnd:
			delete(parts, watchBoardKey{h.From, h.Session})
		}
		if m, ok := h.message(kind, rec); ok {
			s.l.HearWatch(m)
		}
	}
}

// watchPartials gathers the boards sent in several events, by session
// and server.
type watchPartials map[watchBoardKey]*watchPartial

// watchPartial is a board of one version in parts.
type watchPartial struct {
	ver     uint64
	parts   [][]byte
	started time.Time
}

// add keeps one part of a board and returns the board's record once it
// has every part. The parts of a board that did not come whole within
// ttl are forgotten.
func (ps watchPartials) add(h watchMsg, rec []byte, now time.Time, ttl time.Duration) ([]byte, bool) {
	if h.Part < 0 || h.Part >= h.Parts || h.Parts > bus.MaxBody {
		return nil, false
	}
	for key, p := range ps {
		if now.Sub(p.started) > ttl {
			delete(ps, key)
		}
	}
	key := watchBoardKey{h.From, h.Session}
	p := ps[key]
	if p == nil || p.ver != h.Ver || len(p.parts) != h.Parts {
		p = &watchPartial{ver: h.Ver, parts: make([][]byte, h.Parts), started: now}
		ps[key] = p
	}
	p.parts[h.Part] = rec
	for _, part := range p.parts {
		if part == nil {
			return nil, false
		}
	}
	delete(ps, key)
	return bytes.Join(p.parts, nil), true
}

// message is the event as the lobby takes it; false for a board whose
// record does not decode.
func (h watchMsg) message(kind lobby.WatchKind, rec []byte) (lobby.WatchMsg, bool) {
	m := lobby.WatchMsg{Kind: kind, From: h.From, Req: h.Req, Viewer: h.Viewer, Player: h.Player, Name: h.Name,
		Session: h.Session, Ver: h.Ver, Spectators: h.N, Reason: h.Reason, Private: h.Off}
	if h.Refused != "" {
		m.Refused = watchRefusals[h.Refused]
		if m.Refused == nil {
			m.Refused = lobby.ErrNotOnline
		}
	}
	for _, k := range h.Keep {
		m.Keep = append(m.Keep, lobby.KeptSpectator{Viewer: k.Viewer, Session: k.Session, Name: k.Name})
	}
	if kind == lobby.WatchBoard && len(rec) > 0 {
		if json.Unmarshal(rec, &m.Board.Record) != nil {
			return lobby.WatchMsg{}, false
		}
		m.Board.Daily, m.Board.Chosen = h.Daily, h.Chosen
	}
	return m, true
}

// refusalKey is the key of watchRefusals of a refusal; empty for none.
func refusalKey(err error) string {
	if err == nil {
		return ""
	}
	for key, e := range watchRefusals {
		if errors.Is(err, e) {
			return key
		}
	}
	return "offline"
}

// sendMessages publishes the queued discrete messages, at once and in
// order. It has the lobby keep and sweep its spectators on its tickers,
// and at the end sends what is queued (for a short while at most).
func (s *Spectating) sendMessages(ctx context.Context) {
	keep, sweep := time.NewTicker(s.keep), time.NewTicker(s.sweep)
	defer keep.Stop()
	defer sweep.Stop()
	for {
		final := false
		select {
		case <-ctx.Done():
			final = true
		case <-s.kick:
		case <-keep.C:
			s.l.KeepSpectators()
		case <-sweep.C:
			s.l.SweepSpectators()
		}
		s.mu.Lock()
		out, upto := s.queue, s.queued
		s.queue = nil
		s.mu.Unlock()
		base, cancel := watchRound(final)
		for _, m := range out {
			s.publishLogged(base, m)
		}
		cancel()
		s.mu.Lock()
		s.sent = upto
		s.mu.Unlock()
		putToken(s.sentKick)
		if final {
			return
		}
	}
}

// sendBoards publishes the offered boards and ends: those of a session
// to a server at most once per watchBoardEvery, the newest winning,
// watchBoardWorkers at a time, each round once the discrete messages
// queued before it went out. At the end it sends what is offered (for a
// short while at most).
func (s *Spectating) sendBoards(ctx context.Context) {
	var wait <-chan time.Time // armed while boards wait for watchBoardEvery to pass
	var last time.Time        // when boards were last taken
	for {
		final := false
		select {
		case <-ctx.Done():
			final = true
		case <-s.boardKick:
		case <-wait:
			wait = nil
		}
		s.mu.Lock()
		if len(s.boards) == 0 {
			s.mu.Unlock()
			if final {
				return
			}
			continue
		}
		if d := watchBoardEvery - time.Since(last); d > 0 && !final {
			if wait == nil {
				wait = time.After(d)
			}
			s.mu.Unlock()
			continue
		}
		out := make([]lobby.WatchMsg, 0, len(s.boards))
		for _, m := range s.boards {
			out = append(out, m)
		}
		clear(s.boards)
		last = time.Now()
		after := s.queued
		s.mu.Unlock()
		for !final && !s.sentUpTo(after) {
			select {
			case <-ctx.Done():
				final = true
			case <-s.sentKick:
			}
		}
		base, cancel := watchRound(final)
		sem := make(chan struct{}, watchBoardWorkers)
		var wg sync.WaitGroup
		for _, m := range out {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				s.publishLogged(base, m)
			})
		}
		wg.Wait()
		cancel()
		if final {
			return
		}
	}
}

// watchRound is the base of a round of publishes: each has its own
// watchPublishTimeout (a round may take longer than one), but the final
// round, at the end, all of them a second.
func watchRound(final bool) (context.Context, context.CancelFunc) {
	if final {
		return context.WithTimeout(context.Background(), time.Second)
	}
	return context.Background(), func() {}
}

// publishLogged publishes m within watchPublishTimeout of base, and logs
// a failure: a lost watch event costs nothing lasting (keeps, TTLs and
// the next board repair it).
func (s *Spectating) publishLogged(base context.Context, m lobby.WatchMsg) {
	ctx, cancel := context.WithTimeout(base, watchPublishTimeout)
	defer cancel()
	if err := s.publish(ctx, m); err != nil {
		s.logf("cluster: send %s to %s: %v", watchKinds[m.Kind], m.To, err)
	}
}

// sentUpTo reports whether the first k discrete messages went out.
func (s *Spectating) sentUpTo(k uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent >= k
}

// publish publishes one message on its server's topic: a board whose
// record is too long for one event in parts, a keep of many spectators
// in several events.
func (s *Spectating) publish(ctx context.Context, m lobby.WatchMsg) error {
	kind, ok := watchKinds[m.Kind]
	if !ok {
		return fmt.Errorf("a watch message of unknown kind %d", m.Kind)
	}
	h := watchMsg{From: s.instance, Req: m.Req, Viewer: m.Viewer, Player: m.Player, Name: m.Name, Session: m.Session,
		Ver: m.Ver, N: m.Spectators, Refused: refusalKey(m.Refused), Reason: m.Reason, Daily: m.Board.Daily, Chosen: m.Board.Chosen, Off: m.Private}
	topic := WatchTopic(m.To)
	if m.Kind == lobby.WatchKeep {
		for keep := m.Keep; len(keep) > 0; {
			k := min(len(keep), watchKeepBatch)
			h.Keep = h.Keep[:0]
			for _, kept := range keep[:k] {
				h.Keep = append(h.Keep, watchKeepPair{Viewer: kept.Viewer, Session: kept.Session, Name: kept.Name})
			}
			keep = keep[k:]
			if err := s.publishPart(ctx, topic, kind, h, nil); err != nil {
				return err
			}
		}
		return nil
	}
	var rec []byte
	if m.Kind == lobby.WatchBoard && m.Board.Playing() {
		var err error
		if rec, err = json.Marshal(m.Board.Record); err != nil {
			return fmt.Errorf("encode %s: %w", kind, err)
		}
	}
	parts := [][]byte{rec}
	if len(rec) > watchBoardPart {
		parts = nil
		for len(rec) > 0 {
			k := min(len(rec), watchBoardPart)
			parts, rec = append(parts, rec[:k]), rec[k:]
		}
	}
	for i, part := range parts {
		if len(parts) > 1 {
			h.Part, h.Parts = i, len(parts)
		}
		if err := s.publishPart(ctx, topic, kind, h, part); err != nil {
			return err
		}
	}
	return nil
}

// publishPart publishes one event: the header h and, for a board, a part
// of its record on the line after it.
func (s *Spectating) publishPart(ctx context.Context, topic, kind string, h watchMsg, part []byte) error {
	head, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode %s: %w", kind, err)
	}
	body := head
	if len(part) > 0 {
		body = append(append(head, '\n'), part...)
	}
	_, err = s.b.Publish(ctx, topic, bus.Message{Kind: kind, Body: body})
	return err
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
