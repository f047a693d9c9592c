package web

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The live streams' knobs.
const (
	// clientQueue is how many messages wait for one viewer before it is
	// dropped: a viewer that stops reading is cut, never waited on.
	clientQueue = 16
	// writeWait bounds each write to a viewer: a viewer whose connection
	// takes no more (its TCP window full) is cut.
	writeWait = 10 * time.Second
	// keepAlive is how often an idle stream gets a comment, so that
	// balancers and proxies keep it open and a dead viewer is found.
	keepAlive = 25 * time.Second
	// fanOutSlice viewers of a topic get a message at once, fanOutGap
	// before the next slice: 1,000 viewers get it within 100 ms, and the
	// SSH sessions' goroutines run between the slices. (300 players in
	// an arena on 2 shared cores: their own keys' p99 80 ms without
	// viewers, 218 ms with 1,000 viewers all woken at once.)
	fanOutSlice = 50
	fanOutGap   = 5 * time.Millisecond
)

// hub fans the live messages out to the viewers of each topic ("front",
// "arena/ID"). A message is encoded once, whatever the number of
// viewers; each viewer has a bounded queue and is dropped when it is
// full. The newest message of each event name of a topic is kept, and a
// new viewer gets those first: it starts from what is true now, whatever
// happened between its page load and its stream.
type hub struct {
	mu     sync.Mutex
	topics map[string]*topic
	closed bool
}

// topic is one topic's viewers and its newest message per event name.
type topic struct {
	clients map[*client]struct{}
	last    map[string][]byte
	order   []string // event names in the order first seen
}

// client is one viewer's stream.
type client struct {
	ch   chan []byte
	gone chan struct{} // closed when the hub drops it (or closes)
	once sync.Once
}

func (c *client) drop() { c.once.Do(func() { close(c.gone) }) }

func newHub() *hub { return &hub{topics: map[string]*topic{}} }

// subscribe adds a viewer of name; it gets the topic's newest messages
// first. ok is false once the hub is closed.
func (h *hub) subscribe(name string) (c *client, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	t := h.topicLocked(name)
	c = &client{ch: make(chan []byte, clientQueue), gone: make(chan struct{})}
	for _, ev := range t.order {
		c.ch <- t.last[ev] // fits: a topic has fewer event names than clientQueue
	}
	t.clients[c] = struct{}{}
	return c, true
}

func (h *hub) topicLocked(name string) *topic {
	t := h.topics[name]
	if t == nil {
		t = &topic{clients: map[*client]struct{}{}, last: map[string][]byte{}}
		h.topics[name] = t
	}
	return t
}

// unsubscribe removes a viewer; it reports how many viewers the topic
// has left.
func (h *hub) unsubscribe(name string, c *client) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[name]
	if t == nil {
		return 0
	}
	delete(t.clients, c)
	return len(t.clients)
}

// viewers is how many view name.
func (h *hub) viewers(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[name]; t != nil {
		return len(t.clients)
	}
	return 0
}

// event is one live event of a topic: its name and its data.
type event struct{ name, data string }

// publish sends the event called ev with data to every viewer of name
// (publishAll).
func (h *hub) publish(name, ev, data string) {
	h.publishAll(name, []event{{ev, data}})
}

// publishAll sends the events to every viewer of topic name, in one
// message (one write to each viewer, whatever the number of events), and
// keeps each for the next viewers. An event whose data is its last one's
// is sent to nobody: an arena's page is rendered after every change of
// the arena, most of which (a racer's move below the top game) change
// neither its standings nor its top game. A viewer whose queue is full
// is dropped.
//
// The viewers get the message fanOutSlice at a time, fanOutGap apart:
// each viewer's stream is a goroutine that wakes to write, and a
// thousand of them woken at once on a small server made the players'
// own keys wait behind them (see fanOutSlice). It never blocks on a
// viewer; it takes the time of the slices' gaps, so a topic's events
// are published from a goroutine of the site's, never a room's or a
// bus's.
func (h *hub) publishAll(name string, events []event) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	t := h.topicLocked(name)
	var msg []byte
	for _, ev := range events {
		enc := encodeEvent(ev.name, ev.data)
		last, ok := t.last[ev.name]
		if ok && bytes.Equal(last, enc) {
			continue
		}
		if !ok {
			t.order = append(t.order, ev.name)
		}
		t.last[ev.name] = enc
		msg = append(msg, enc...)
	}
	if msg == nil {
		h.mu.Unlock()
		return
	}
	clients := make([]*client, 0, len(t.clients))
	for c := range t.clients {
		clients = append(clients, c)
	}
	h.mu.Unlock()
	// A viewer who comes now gets the events from t.last, and is not in
	// clients: it gets them once.
	for start := 0; start < len(clients); start += fanOutSlice {
		if start > 0 {
			time.Sleep(fanOutGap)
		}
		var full []*client
		for _, c := range clients[start:min(start+fanOutSlice, len(clients))] {
			select {
			case c.ch <- msg:
			default:
				full = append(full, c)
			}
		}
		if len(full) > 0 {
			h.mu.Lock()
			for _, c := range full {
				delete(t.clients, c)
				c.drop()
			}
			h.mu.Unlock()
		}
	}
}

// forget drops a topic's kept messages (an arena nobody watches).
func (h *hub) forget(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[name]; t != nil && len(t.clients) == 0 {
		delete(h.topics, name)
	}
}

// close ends every stream.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, t := range h.topics {
		for c := range t.clients {
			c.drop()
		}
	}
	h.topics = map[string]*topic{}
}

// encodeEvent writes one Server-Sent Event: its name and its data, one
// "data:" line per line.
func encodeEvent(event, data string) []byte {
	var b bytes.Buffer
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteByte('\n')
	for line := range strings.SplitSeq(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// stream serves the viewer's side of topic name until the viewer goes,
// is dropped, or the site closes. onJoin, when set, is called once the
// viewer is subscribed; onLeave, when set, is told how many viewers the
// topic has left.
func (s *Site) stream(w http.ResponseWriter, r *http.Request, name string, onJoin func(), onLeave func(left int)) {
	c, ok := s.hub.subscribe(name)
	if !ok {
		http.Error(w, "The site is shutting down.", http.StatusServiceUnavailable)
		return
	}
	if onJoin != nil {
		onJoin()
	}
	defer func() {
		left := s.hub.unsubscribe(name, c)
		if onLeave != nil {
			onLeave(left)
		}
	}()
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeWait))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// A reconnecting browser waits this long (ms) rather than its default.
	if !write([]byte("retry: 2000\n\n")) {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case msg := <-c.ch:
			if !write(msg) {
				return
			}
		case <-tick.C:
			if !write([]byte(": keep-alive\n\n")) {
				return
			}
		case <-c.gone:
			return
		case <-r.Context().Done():
			return
		}
	}
}
