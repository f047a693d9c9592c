package cluster

// Presence across servers: each server of a cluster publishes its roster
// (who is connected to it and what each does, lobby.Lobby.Roster) on one
// bus topic, and hands the others' to its lobby, so that Who on any
// server lists every server's players.
//
// The protocol is made of heartbeats with a time to live:
//   - every Heartbeat, a server publishes its whole roster (in as many
//     events as the bus's body limit needs): each entry lives TTL from
//     when a server hears it, so the players of a server that dies
//     without a word vanish from the others within TTL;
//   - between heartbeats, changes (joins, leaves, what a player does) go
//     out as a diff against what was last published, at most once per
//     Every: a burst of moves costs one event, never one per keystroke;
//   - a starting server says hello, and the others answer with their
//     whole roster at once instead of at their next heartbeat; a server
//     that stops says bye, and its players vanish at once.
//
// An event lost to a gap of the bus costs nothing lasting: the next
// heartbeat says the whole truth again.
//
// The same topic carries the results recorded on the daily board: a
// server tells the others of each (rules and date) at once, and their
// viewers of the board read it again (from the shared store), as for a
// result of their own server's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"pyramid/bus"
	"pyramid/lobby"
)

// PresenceTopic is the bus topic of presence between servers.
const PresenceTopic = "lobby.presence"

// Defaults of PresenceConfig.
const (
	DefaultHeartbeat    = 5 * time.Second
	DefaultPresenceTTL  = 15 * time.Second
	DefaultChangesEvery = time.Second
)

// presencePublishTimeout bounds one publish of presence.
const presencePublishTimeout = 5 * time.Second

// PresenceConfig configures presence across servers.
type PresenceConfig struct {
	// Heartbeat is how often the server publishes its whole roster
	// (DefaultHeartbeat when 0).
	Heartbeat time.Duration
	// TTL is how long another server's player stays listed without being
	// heard of again (DefaultPresenceTTL when 0; at least twice
	// Heartbeat, so that one lost heartbeat loses nobody).
	TTL time.Duration
	// Every is the least time between two publishes of changes
	// (DefaultChangesEvery when 0).
	Every time.Duration
	// Logf, when set, is told of failed publishes.
	Logf func(format string, args ...any)
}

// Presence is a lobby's presence across the servers of a cluster: it
// publishes the lobby's roster and the results of its daily board, and
// hands the other servers' to the lobby. It is the lobby's
// lobby.PresenceNet.
type Presence struct {
	l        *lobby.Lobby
	b        bus.Bus
	instance string
	cfg      PresenceConfig

	poke  chan struct{} // one token: the local roster may have changed
	hello chan struct{} // one token: a server said hello
	daily chan struct{} // one token: results of the daily board wait in dailies

	// dailies are the daily boards (rules and date) this server recorded
	// a result of, not yet told to the others.
	mu      sync.Mutex
	dailies []presenceDaily
	// heard is when each other server was last heard of (any presence
	// message but its bye), for Instances.
	heard map[string]time.Time

	cancel context.CancelFunc
	ended  chan struct{} // closed when both goroutines have ended
}

var _ lobby.PresenceNet = (*Presence)(nil)

// presenceEntry is one entry of a roster on the bus.
type presenceEntry struct {
	Key     string          `json:"k"` // the player's ID, or "guest:" and the session for a guest
	ID      string          `json:"id,omitempty"`
	Name    string          `json:"n"`
	Guest   bool            `json:"g,omitempty"`
	What    lobby.Activity  `json:"w"`
	Rules   string          `json:"r,omitempty"`
	Deal    uint64          `json:"d,omitempty"`
	Custom  bool            `json:"c,omitempty"`
	Hidden  bool            `json:"h,omitempty"`
	Removed int             `json:"m,omitempty"`
	Done    bool            `json:"f,omitempty"` // Doing.Finished
	Room    string          `json:"o,omitempty"`
	Private bool            `json:"v,omitempty"` // Doing.Private
	Phase   lobby.RacePhase `json:"p,omitempty"` // Doing.Phase
	Watched string          `json:"x,omitempty"`
	Session uint64          `json:"s"`
	Joined  int64           `json:"j"` // Unix milliseconds
	Changed int64           `json:"t"` // Unix milliseconds
}

// presenceMsg is the body of a presence event.
type presenceMsg struct {
	Instance string          `json:"i"`
	Hello    bool            `json:"h,omitempty"`  // a server starting: answer with your whole roster
	Bye      bool            `json:"b,omitempty"`  // a server stopping: forget its players
	Up       []presenceEntry `json:"u,omitempty"`  // entries new, changed or (heartbeat) alive
	Gone     []string        `json:"x,omitempty"`  // keys of entries gone
	Daily    []presenceDaily `json:"dl,omitempty"` // daily boards with a new result
}

// presenceDaily names a daily board with a new result.
type presenceDaily struct {
	Rules string `json:"r"`
	Date  string `json:"d"`
}

// JoinPresence joins l to the other servers on b: Who and Online count
// their players too, viewers of presence hear of their changes, and they
// hear of this server's. instance names this server on the bus (unique
// per running server). A lobby joins one cluster; Close says bye to the
// others and ends it.
func JoinPresence(ctx context.Context, l *lobby.Lobby, b bus.Bus, instance string, cfg PresenceConfig) (*Presence, error) {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultPresenceTTL
	}
	cfg.TTL = max(cfg.TTL, 2*cfg.Heartbeat)
	if cfg.Every <= 0 {
		cfg.Every = DefaultChangesEvery
	}
	sub, err := b.Subscribe(ctx, PresenceTopic, bus.Latest)
	if err != nil {
		return nil, fmt.Errorf("cluster: presence: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	p := &Presence{l: l, b: b, instance: instance, cfg: cfg,
		poke: make(chan struct{}, 1), hello: make(chan struct{}, 1), daily: make(chan struct{}, 1),
		cancel: cancel, ended: make(chan struct{})}
	if err := l.AttachPresence(p, lobby.RemoteConfig{TTL: cfg.TTL, Heartbeat: cfg.Heartbeat}); err != nil {
		cancel()
		sub.Close()
		return nil, fmt.Errorf("cluster: presence: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.read(runCtx, sub) })
	wg.Go(func() { p.publish(runCtx) })
	go func() {
		wg.Wait()
		close(p.ended)
	}()
	return p, nil
}

// Close says bye to the other servers and ends presence across servers.
// Call it after the lobby's Close, so that the other servers' last word
// of this one's players is that they left. Closing twice is harmless.
func (p *Presence) Close() {
	p.cancel()
	<-p.ended
}

// RosterChanged tells the publishing loop that the local roster may have
// changed (lobby.PresenceNet).
func (p *Presence) RosterChanged() { putToken(p.poke) }

// DailyFinished queues a result of this server's on a daily board for
// the others (lobby.PresenceNet).
func (p *Presence) DailyFinished(rulesID, date string) {
	d := presenceDaily{Rules: rulesID, Date: date}
	p.mu.Lock()
	if !slices.Contains(p.dailies, d) {
		p.dailies = append(p.dailies, d)
	}
	p.mu.Unlock()
	putToken(p.daily)
}

// putToken puts the token in a one-token channel, if it is not there.
func putToken(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// read hands the other servers' presence events to the lobby until ctx
// ends.
func (p *Presence) read(ctx context.Context, sub bus.Subscription) {
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, bus.ErrGap) {
			continue // the next heartbeats repair it
		}
		if err != nil {
			return
		}
		var m presenceMsg
		if json.Unmarshal(ev.Body, &m) != nil || m.Instance == "" || m.Instance == p.instance {
			continue
		}
		if m.Hello {
			putToken(p.hello)
		}
		p.hear(m.Instance, m.Bye)
		switch {
		case m.Bye:
			p.l.ForgetServer(m.Instance)
		case len(m.Up) > 0 || len(m.Gone) > 0:
			up := make([]lobby.RosterEntry, len(m.Up))
			for i, w := range m.Up {
				up[i] = w.entry()
			}
			p.l.HearRoster(m.Instance, up, m.Gone)
		}
		for _, d := range m.Daily {
			p.l.HearDaily(d.Rules, d.Date)
		}
	}
}

// hear notes that instance spoke now, or said bye.
func (p *Presence) hear(instance string, bye bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if bye {
		delete(p.heard, instance)
		return
	}
	if p.heard == nil {
		p.heard = map[string]time.Time{}
	}
	p.heard[instance] = time.Now()
}

// Instances names the servers of the cluster that are up as far as this
// one knows, itself first, then the others sorted: those heard of within
// the presence's time to live that did not say bye (each says its
// roster at every heartbeat, players or none).
func (p *Presence) Instances() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	var others []string
	for inst, at := range p.heard {
		if now.Sub(at) < p.cfg.TTL {
			others = append(others, inst)
		} else {
			delete(p.heard, inst)
		}
	}
	slices.Sort(others)
	return append([]string{p.instance}, others...)
}

// publishDailies tells the other servers of the daily boards with new
// results. A failed publish is only logged: the boards' viewers see the
// result at their next reload.
func (p *Presence) publishDailies() {
	p.mu.Lock()
	m := presenceMsg{Instance: p.instance, Daily: p.dailies}
	p.dailies = nil
	p.mu.Unlock()
	if len(m.Daily) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), presencePublishTimeout)
	defer cancel()
	body, err := json.Marshal(m)
	if err == nil {
		_, err = p.b.Publish(ctx, PresenceTopic, bus.Message{Kind: "daily", Body: body})
	}
	if err != nil {
		p.logf("cluster: presence: publish a daily result: %v", err)
	}
}

// publish publishes this server's roster: a hello first, then every
// Heartbeat the whole roster and, between, its changes at most once per
// Every; at the end a bye. At each heartbeat the lobby forgets the other
// servers' players whose time to live ran out.
func (p *Presence) publish(ctx context.Context) {
	sent := map[string]presenceEntry{}
	p.publishRoster(sent, presenceMsg{Instance: p.instance, Hello: true}, true)
	heartbeat := time.NewTicker(p.cfg.Heartbeat)
	defer heartbeat.Stop()
	var changes <-chan time.Time // armed while changes wait for Every to pass
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			p.bye()
			return
		case <-heartbeat.C:
			p.l.SweepRoster()
			p.publishRoster(sent, presenceMsg{Instance: p.instance}, true)
			last = time.Now()
		case <-p.hello:
			p.publishRoster(sent, presenceMsg{Instance: p.instance}, true)
			last = time.Now()
		case <-p.daily:
			p.publishDailies()
		case <-p.poke:
			if changes != nil {
				continue
			}
			if wait := p.cfg.Every - time.Since(last); wait > 0 {
				changes = time.After(wait)
				continue
			}
			p.publishRoster(sent, presenceMsg{Instance: p.instance}, false)
			last = time.Now()
		case <-changes:
			changes = nil
			p.publishRoster(sent, presenceMsg{Instance: p.instance}, false)
			last = time.Now()
		}
	}
}

// bye tells the other servers that this one's players are gone.
func (p *Presence) bye() {
	ctx, cancel := context.WithTimeout(context.Background(), presencePublishTimeout)
	defer cancel()
	body, _ := json.Marshal(presenceMsg{Instance: p.instance, Bye: true})
	if _, err := p.b.Publish(ctx, PresenceTopic, bus.Message{Kind: "bye", Body: body}); err != nil {
		p.logf("cluster: presence: say bye: %v", err)
	}
}

// publishRoster publishes the local roster: all of it (full) or what
// changed since sent, which it updates once published.
func (p *Presence) publishRoster(sent map[string]presenceEntry, m presenceMsg, full bool) {
	now := p.roster()
	for key, w := range now {
		if old, ok := sent[key]; full || !ok || old != w {
			m.Up = append(m.Up, w)
		}
	}
	for key := range sent {
		if _, ok := now[key]; !ok {
			m.Gone = append(m.Gone, key)
		}
	}
	// A heartbeat goes out even with no player to list: it tells the
	// others this server is up (Instances).
	if !m.Hello && !full && len(m.Up) == 0 && len(m.Gone) == 0 {
		return // nothing to say between heartbeats
	}
	ctx, cancel := context.WithTimeout(context.Background(), presencePublishTimeout)
	defer cancel()
	if err := p.publishParts(ctx, m.split()); err != nil {
		// Not marked sent: the next change or heartbeat tries again.
		p.logf("cluster: presence: publish: %v", err)
		return
	}
	clear(sent)
	for key, w := range now {
		sent[key] = w
	}
}

// publishParts publishes the parts of a roster: in one batch where the
// bus can (one commit), and volatile where it can, since a roster lost
// in a crash of the database costs nothing lasting (the next heartbeat
// says the whole truth again, and a part never waits for the disk nor
// makes the other servers' commits wait for it).
func (p *Presence) publishParts(ctx context.Context, parts []presenceMsg) error {
	posts := make([]bus.Post, 0, len(parts))
	for _, part := range parts {
		body, err := json.Marshal(part)
		if err != nil {
			return fmt.Errorf("encode a roster: %w", err)
		}
		posts = append(posts, bus.Post{Topic: PresenceTopic, Message: bus.Message{Kind: "presence", Body: body}})
	}
	switch b := p.b.(type) {
	case bus.VolatileBatcher:
		_, err := b.PublishVolatile(ctx, posts)
		return err
	case bus.Batcher:
		_, err := b.PublishBatch(ctx, posts)
		return err
	}
	for _, post := range posts {
		if _, err := p.b.Publish(ctx, post.Topic, post.Message); err != nil {
			return err
		}
	}
	return nil
}

// split cuts a message into messages whose bodies fit the bus: the keys
// gone and the entries up alike (a thousand players leaving at once make
// a list of keys many times the limit).
func (m presenceMsg) split() []presenceMsg {
	const room = bus.MaxBody - 200 // for the message's own fields
	var out []presenceMsg
	cur := presenceMsg{Instance: m.Instance, Hello: m.Hello}
	size := 0
	// fit starts a new message unless n more bytes fit the current one.
	fit := func(n int) {
		if size+n > room && (len(cur.Up) > 0 || len(cur.Gone) > 0) {
			out = append(out, cur)
			cur, size = presenceMsg{Instance: m.Instance}, 0
		}
		size += n
	}
	for _, key := range m.Gone {
		b, _ := json.Marshal(key)
		fit(len(b) + 1)
		cur.Gone = append(cur.Gone, key)
	}
	for _, w := range m.Up {
		b, _ := json.Marshal(w)
		fit(len(b) + 1)
		cur.Up = append(cur.Up, w)
	}
	return append(out, cur)
}

// roster is the lobby's roster as the bus carries it, by key.
func (p *Presence) roster() map[string]presenceEntry {
	entries := p.l.Roster()
	out := make(map[string]presenceEntry, len(entries))
	for _, e := range entries {
		out[e.Key] = presenceEntry{Key: e.Key, ID: e.ID, Name: e.Name, Guest: e.Guest,
			What: e.What, Rules: e.Rules, Deal: e.Deal, Custom: e.Custom, Hidden: e.Hidden, Removed: e.Removed, Done: e.Finished,
			Room: e.Room, Private: e.Private, Phase: e.Phase, Watched: e.Watched, Session: e.Session, Joined: e.Joined.UnixMilli(), Changed: e.Changed.UnixMilli()}
	}
	return out
}

// entry is the entry as the lobby takes it.
func (w presenceEntry) entry() lobby.RosterEntry {
	return lobby.RosterEntry{
		Key: w.Key,
		Presence: lobby.Presence{
			Player: lobby.Player{ID: w.ID, Name: w.Name, Guest: w.Guest},
			Doing: lobby.Doing{What: w.What, Rules: w.Rules, Deal: w.Deal, Custom: w.Custom, Hidden: w.Hidden, Removed: w.Removed, Finished: w.Done,
				Room: w.Room, Private: w.Private, Phase: w.Phase, Watched: w.Watched},
			Session: w.Session,
			Joined:  time.UnixMilli(w.Joined),
		},
		Changed: time.UnixMilli(w.Changed),
	}
}

func (p *Presence) logf(format string, args ...any) {
	if p.cfg.Logf != nil {
		p.cfg.Logf(format, args...)
	}
}
