package lobby

// Presence across servers: each server of a cluster publishes its roster
// (who is connected to it and what each does) on one bus topic, and keeps
// the rosters of the others, so that Who on any server lists every
// server's players.
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
	"strconv"
	"time"

	"pyramid/bus"
)

// PresenceTopic is the bus topic of presence between servers.
const PresenceTopic = "lobby.presence"

// Defaults of ClusterConfig.
const (
	DefaultHeartbeat    = 5 * time.Second
	DefaultPresenceTTL  = 15 * time.Second
	DefaultChangesEvery = time.Second
)

// clusterPublishTimeout bounds one publish of presence.
const clusterPublishTimeout = 5 * time.Second

// ClusterConfig configures presence across servers.
type ClusterConfig struct {
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

// cluster is a lobby's presence across servers. Its maps are guarded by
// the lobby's mu; sent is the publishing loop's own.
type cluster struct {
	b        bus.Bus
	instance string
	cfg      ClusterConfig

	remote map[string]map[string]*remoteEntry // by server, by entry key

	poke   chan struct{} // one token: the local roster may have changed
	hello  chan struct{} // one token: a server said hello
	daily  chan struct{} // one token: results of the daily board wait in dailies
	ended  chan struct{} // closed when both goroutines have ended
	cancel context.CancelFunc

	// dailies are the daily boards (rules and date) this server recorded
	// a result of, not yet told to the others; guarded by the lobby's mu.
	dailies []wireDaily
}

// remoteEntry is another server's player as last heard of.
type remoteEntry struct {
	Presence
	changed time.Time
	expires time.Time
}

// wireEntry is one entry of a roster on the bus.
type wireEntry struct {
	Key     string    `json:"k"` // the player's ID, or "guest:" and the session for a guest
	ID      string    `json:"id,omitempty"`
	Name    string    `json:"n"`
	Guest   bool      `json:"g,omitempty"`
	What    Activity  `json:"w"`
	Rules   string    `json:"r,omitempty"`
	Deal    uint64    `json:"d,omitempty"`
	Custom  bool      `json:"c,omitempty"`
	Removed int       `json:"m,omitempty"`
	Done    bool      `json:"f,omitempty"` // Doing.Finished
	Room    string    `json:"o,omitempty"`
	Phase   RacePhase `json:"p,omitempty"` // Doing.Phase
	Watched string    `json:"x,omitempty"`
	Session uint64    `json:"s"`
	Joined  int64     `json:"j"` // Unix milliseconds
	Changed int64     `json:"t"` // Unix milliseconds
}

// presenceMsg is the body of a presence event.
type presenceMsg struct {
	Instance string      `json:"i"`
	Hello    bool        `json:"h,omitempty"`  // a server starting: answer with your whole roster
	Bye      bool        `json:"b,omitempty"`  // a server stopping: forget its players
	Up       []wireEntry `json:"u,omitempty"`  // entries new, changed or (heartbeat) alive
	Gone     []string    `json:"x,omitempty"`  // keys of entries gone
	Daily    []wireDaily `json:"dl,omitempty"` // daily boards with a new result
}

// wireDaily names a daily board with a new result.
type wireDaily struct {
	Rules string `json:"r"`
	Date  string `json:"d"`
}

// Cluster joins the lobby to the other servers on b: Who and Online count
// their players too, viewers of presence hear of their changes, and they
// hear of this server's. instance names this server on the bus (unique
// per running server). A lobby joins one cluster; Close says bye to the
// others and ends it.
func (l *Lobby) Cluster(ctx context.Context, b bus.Bus, instance string, cfg ClusterConfig) error {
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
		return fmt.Errorf("lobby: cluster: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	c := &cluster{b: b, instance: instance, cfg: cfg, remote: map[string]map[string]*remoteEntry{},
		poke: make(chan struct{}, 1), hello: make(chan struct{}, 1), daily: make(chan struct{}, 1), ended: make(chan struct{}), cancel: cancel}
	l.mu.Lock()
	if l.cluster != nil || l.closed {
		l.mu.Unlock()
		cancel()
		sub.Close()
		return errors.New("lobby: cluster: already joined, or closed")
	}
	l.cluster = c
	l.ver.Add(1) // a listing built before has no local part (roster)
	l.mu.Unlock()
	read, publish := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		l.readCluster(runCtx, c, sub)
	}()
	go func() {
		defer close(publish)
		l.publishCluster(runCtx, c)
	}()
	go func() {
		<-read
		<-publish
		close(c.ended)
	}()
	return nil
}

// pokeLocked tells the publishing loop that the local roster may have
// changed; called by changedLocked.
func (c *cluster) pokeLocked() {
	select {
	case c.poke <- struct{}{}:
	default:
	}
}

// closeCluster says bye and ends the cluster's goroutines; Close calls it
// without the lobby's mu.
func (l *Lobby) closeCluster() {
	l.mu.Lock()
	c := l.cluster
	l.mu.Unlock()
	if c == nil {
		return
	}
	c.cancel()
	<-c.ended
}

// readCluster applies the other servers' presence events until ctx ends.
func (l *Lobby) readCluster(ctx context.Context, c *cluster, sub bus.Subscription) {
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
		if json.Unmarshal(ev.Body, &m) != nil || m.Instance == "" || m.Instance == c.instance {
			continue
		}
		if m.Hello {
			select {
			case c.hello <- struct{}{}:
			default:
			}
		}
		l.mu.Lock()
		if c.applyLocked(m, l.now()) {
			l.changedLocked()
		}
		for _, d := range m.Daily {
			l.dailyChangedLocked(d.Rules, d.Date)
		}
		l.mu.Unlock()
	}
}

// dailyLocked queues a result of this server's on a daily board for the
// others; called by DailyFinished.
func (c *cluster) dailyLocked(rulesID, date string) {
	d := wireDaily{Rules: rulesID, Date: date}
	if !slices.Contains(c.dailies, d) {
		c.dailies = append(c.dailies, d)
	}
	select {
	case c.daily <- struct{}{}:
	default:
	}
}

// publishDailies tells the other servers of the daily boards with new
// results. A failed publish is only logged: the boards' viewers see the
// result at their next reload.
func (c *cluster) publishDailies(l *Lobby) {
	l.mu.Lock()
	m := presenceMsg{Instance: c.instance, Daily: c.dailies}
	c.dailies = nil
	l.mu.Unlock()
	if len(m.Daily) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterPublishTimeout)
	defer cancel()
	body, err := json.Marshal(m)
	if err == nil {
		_, err = c.b.Publish(ctx, PresenceTopic, bus.Message{Kind: "daily", Body: body})
	}
	if err != nil {
		c.logf("lobby: cluster: publish a daily result: %v", err)
	}
}

// applyLocked applies one server's message; it reports whether the
// listing changed.
func (c *cluster) applyLocked(m presenceMsg, now time.Time) bool {
	if m.Bye {
		_, had := c.remote[m.Instance]
		delete(c.remote, m.Instance)
		return had
	}
	entries := c.remote[m.Instance]
	if entries == nil {
		entries = map[string]*remoteEntry{}
		c.remote[m.Instance] = entries
	}
	changed := false
	for _, key := range m.Gone {
		if _, ok := entries[key]; ok {
			delete(entries, key)
			changed = true
		}
	}
	for _, w := range m.Up {
		e := &remoteEntry{Presence: w.presence(m.Instance), changed: time.UnixMilli(w.Changed), expires: now.Add(c.cfg.TTL)}
		if old, ok := entries[w.Key]; !ok || old.Presence != e.Presence {
			changed = true
		}
		entries[w.Key] = e
	}
	if len(entries) == 0 {
		delete(c.remote, m.Instance)
	}
	return changed
}

// sweepLocked forgets the entries whose time to live ran out; it reports
// whether there were any.
func (c *cluster) sweepLocked(now time.Time) bool {
	swept := false
	for inst, entries := range c.remote {
		for key, e := range entries {
			if !now.Before(e.expires) {
				delete(entries, key)
				swept = true
			}
		}
		if len(entries) == 0 {
			delete(c.remote, inst)
		}
	}
	return swept
}

// publishCluster publishes this server's roster: a hello first, then
// every Heartbeat the whole roster and, between, its changes at most
// once per Every; at the end a bye.
func (l *Lobby) publishCluster(ctx context.Context, c *cluster) {
	sent := map[string]wireEntry{}
	c.publishRoster(l, sent, presenceMsg{Instance: c.instance, Hello: true}, true)
	heartbeat := time.NewTicker(c.cfg.Heartbeat)
	defer heartbeat.Stop()
	var changes <-chan time.Time // armed while changes wait for Every to pass
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			c.bye()
			return
		case <-heartbeat.C:
			l.mu.Lock()
			if c.sweepLocked(l.now()) {
				l.changedLocked()
			}
			l.mu.Unlock()
			c.publishRoster(l, sent, presenceMsg{Instance: c.instance}, true)
			last = time.Now()
		case <-c.hello:
			c.publishRoster(l, sent, presenceMsg{Instance: c.instance}, true)
			last = time.Now()
		case <-c.daily:
			c.publishDailies(l)
		case <-c.poke:
			if changes != nil {
				continue
			}
			if wait := c.cfg.Every - time.Since(last); wait > 0 {
				changes = time.After(wait)
				continue
			}
			c.publishRoster(l, sent, presenceMsg{Instance: c.instance}, false)
			last = time.Now()
		case <-changes:
			changes = nil
			c.publishRoster(l, sent, presenceMsg{Instance: c.instance}, false)
			last = time.Now()
		}
	}
}

// bye tells the other servers that this one's players are gone.
func (c *cluster) bye() {
	ctx, cancel := context.WithTimeout(context.Background(), clusterPublishTimeout)
	defer cancel()
	body, _ := json.Marshal(presenceMsg{Instance: c.instance, Bye: true})
	if _, err := c.b.Publish(ctx, PresenceTopic, bus.Message{Kind: "bye", Body: body}); err != nil {
		c.logf("lobby: cluster: say bye: %v", err)
	}
}

// publishRoster publishes the local roster: all of it (full) or what
// changed since sent, which it updates once published.
func (c *cluster) publishRoster(l *Lobby, sent map[string]wireEntry, m presenceMsg, full bool) {
	now := l.roster()
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
	if !m.Hello && len(m.Up) == 0 && len(m.Gone) == 0 {
		return // nothing to say, not even to a heartbeat: the others hold no entry of ours
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterPublishTimeout)
	defer cancel()
	if err := c.publishParts(ctx, m.split()); err != nil {
		// Not marked sent: the next change or heartbeat tries again.
		c.logf("lobby: cluster: publish presence: %v", err)
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
func (c *cluster) publishParts(ctx context.Context, parts []presenceMsg) error {
	posts := make([]bus.Post, 0, len(parts))
	for _, part := range parts {
		body, err := json.Marshal(part)
		if err != nil {
			return err
		}
		posts = append(posts, bus.Post{Topic: PresenceTopic, Message: bus.Message{Kind: "presence", Body: body}})
	}
	switch b := c.b.(type) {
	case bus.VolatileBatcher:
		_, err := b.PublishVolatile(ctx, posts)
		return err
	case bus.Batcher:
		_, err := b.PublishBatch(ctx, posts)
		return err
	}
	for _, post := range posts {
		if _, err := c.b.Publish(ctx, post.Topic, post.Message); err != nil {
			return err
		}
	}
	return nil
}

// split cuts a message into messages whose bodies fit the bus.
func (m presenceMsg) split() []presenceMsg {
	const room = bus.MaxBody - 200 // for the message's own fields
	var out []presenceMsg
	cur := presenceMsg{Instance: m.Instance, Hello: m.Hello, Gone: m.Gone}
	size := 0
	for _, key := range m.Gone {
		size += len(key) + 3
	}
	for _, w := range m.Up {
		b, _ := json.Marshal(w)
		if size+len(b)+1 > room && (len(cur.Up) > 0 || len(cur.Gone) > 0) {
			out = append(out, cur)
			cur, size = presenceMsg{Instance: m.Instance}, 0
		}
		cur.Up = append(cur.Up, w)
		size += len(b) + 1
	}
	return append(out, cur)
}

// roster is this server's players as the bus carries them, by key: the
// local part of the shared listing (Who), built outside the lobby's lock.
func (l *Lobby) roster() map[string]wireEntry {
	r := l.rosterAtLeast(l.ver.Load())
	out := make(map[string]wireEntry, len(r.local))
	for _, e := range r.local {
		p := e.Presence
		key := p.ID
		if key == "" || p.Guest {
			key = "guest:" + strconv.FormatUint(p.Session, 10)
		}
		out[key] = wireEntry{Key: key, ID: p.ID, Name: p.Name, Guest: p.Guest,
			What: p.What, Rules: p.Rules, Deal: p.Deal, Custom: p.Custom, Removed: p.Removed, Done: p.Finished,
			Room: p.Room, Phase: p.Phase, Watched: p.Watched, Session: p.Session, Joined: p.Joined.UnixMilli(), Changed: e.changed.UnixMilli()}
	}
	return out
}

// presence is the entry as Who lists it.
func (w wireEntry) presence(instance string) Presence {
	return Presence{
		Player: Player{ID: w.ID, Name: w.Name, Guest: w.Guest},
		Doing: Doing{What: w.What, Rules: w.Rules, Deal: w.Deal, Custom: w.Custom, Removed: w.Removed, Finished: w.Done,
			Room: w.Room, Phase: w.Phase, Watched: w.Watched},
		Session:  w.Session,
		Joined:   time.UnixMilli(w.Joined),
		Instance: instance,
	}
}

// remoteOnlineLocked is how many players of other servers Who lists that
// this server's do not.
func (l *Lobby) remoteOnlineLocked() int {
	c := l.cluster
	if c == nil {
		return 0
	}
	now := l.now()
	n := 0
	seen := map[string]bool{}
	for _, entries := range c.remote {
		for _, e := range entries {
			if !now.Before(e.expires) {
				continue
			}
			key := playerKey(e.Player)
			if key == "" {
				n++
				continue
			}
			if seen[key] || l.byPlayer[key] != nil {
				continue
			}
			seen[key] = true
			n++
		}
	}
	return n
}

func (c *cluster) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}
