package pgbus

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"pyramid/bus"
	"pyramid/store/storetest"
)

// TestDataNotifications: the events another server publishes reach this
// one's subscriptions from their notifications, without a read of the
// table, and a batch is one commit; an event announced the short way only
// (a server of an earlier version) is read from the table.
func TestDataNotifications(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	one, two := open(t, u, Options{}), open(t, u, Options{})
	ctx := ctxFor(t)
	const topics, rounds = 8, 10
	subs := make([]bus.Subscription, topics)
	for i := range subs {
		s, err := two.Subscribe(ctx, fmt.Sprint("room.", i), bus.Latest)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		subs[i] = s
	}
	before1, before2 := one.Stats(), two.Stats()
	for r := range rounds {
		posts := make([]bus.Post, topics)
		for i := range posts {
			posts[i] = bus.Post{Topic: fmt.Sprint("room.", i), Message: bus.Message{Kind: "progress", Body: fmt.Appendf(nil, "%d/%d", r, i)}}
		}
		if _, err := one.PublishBatch(ctx, posts); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range subs {
		for r, ev := range readN(t, s, rounds) {
			if want := fmt.Sprintf("%d/%d", r, i); string(ev.Body) != want || ev.Seq != uint64(r+1) || ev.Kind != "progress" || ev.At.IsZero() {
				t.Fatalf("topic %d event %d: #%d %q %q at %v, want #%d %q", i, r, ev.Seq, ev.Kind, ev.Body, ev.At, r+1, want)
			}
		}
	}
	got1, got2 := one.Stats(), two.Stats()
	tests := []struct {
		name      string
		got, want int64
	}{
		{"commits of the publisher", got1.Commits - before1.Commits, rounds},
		{"events of the publisher", got1.Published - before1.Published, rounds * topics},
		{"reads of the table by the subscriber", got2.Reads - before2.Reads, 0},
		{"events delivered from their data", got2.Delivered - before2.Delivered, rounds * topics},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %d, want %d", tt.got, tt.want)
			}
		})
	}

	// An earlier version's publish: the row and the short notification.
	if _, err := one.pool.Exec(ctx, `WITH s AS (
		INSERT INTO bus_topics AS t (topic, seq) VALUES ('room.0', 1) ON CONFLICT (topic) DO UPDATE SET seq = t.seq + 1 RETURNING seq
	) INSERT INTO bus_events (topic, seq, id, kind, body) SELECT 'room.0', s.seq, 'old', 'progress', 'old'::bytea FROM s`); err != nil {
		t.Fatal(err)
	}
	if _, err := one.pool.Exec(ctx, `SELECT pg_notify($1, '11 room.0')`, one.channel); err != nil {
		t.Fatal(err)
	}
	if ev := readN(t, subs[0], 1)[0]; ev.Seq != rounds+1 || string(ev.Body) != "old" {
		t.Fatalf("the short way: #%d %q, want #%d \"old\"", ev.Seq, ev.Body, rounds+1)
	}
	if reads := two.Stats().Reads - got2.Reads; reads != 1 {
		t.Errorf("an event announced the short way: %d reads, want 1", reads)
	}
}

func TestParseData(t *testing.T) {
	ev := bus.Event{Topic: "lobby.room.AB", Seq: 7, ID: "id 1", Kind: "", Body: []byte{0, 1, ' ', 0xff}}
	tests := []struct {
		name    string
		payload string
		ok      bool
	}{
		{"an event", "7 lobby.room.AB 1700000000123456" + dataTail(ev), true},
		{"the short form", "7 lobby.room.AB", false},
		{"a bad time", "7 lobby.room.AB x" + dataTail(ev), false},
		{"sequence 0", "0 lobby.room.AB 1" + dataTail(ev), false},
		{"bad base64", "7 t 1 !! a a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseData(tt.payload)
			if ok != tt.ok {
				t.Fatalf("parseData(%q) ok = %v, want %v", tt.payload, ok, tt.ok)
			}
			if ok && (got.Topic != ev.Topic || got.Seq != ev.Seq || got.ID != ev.ID || got.Kind != ev.Kind ||
				string(got.Body) != string(ev.Body) || got.At.UnixMicro() != 1700000000123456) {
				t.Errorf("parseData = %+v, want %+v", got, ev)
			}
		})
	}
}

// TestDataNotificationLimit: the largest event fits a notification
// (PostgreSQL's limit is 8000 bytes).
func TestDataNotificationLimit(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	one, two := open(t, u, Options{}), open(t, u, Options{})
	ctx := ctxFor(t)
	topic := strings.Repeat("t", bus.MaxTopicLen)
	s, err := two.Subscribe(ctx, topic, bus.Latest)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := bus.Message{ID: strings.Repeat("i", bus.MaxIDLen), Kind: strings.Repeat("k", bus.MaxKindLen), Body: bytes.Repeat([]byte{0xff}, bus.MaxBody)}
	if _, err := one.Publish(ctx, topic, m); err != nil {
		t.Fatalf("the largest event: %v", err)
	}
	if ev := readN(t, s, 1)[0]; !bytes.Equal(ev.Body, m.Body) || ev.ID != m.ID {
		t.Fatalf("the largest event read back: ID %q, %d bytes", ev.ID, len(ev.Body))
	}
	if two.Stats().Reads != 0 {
		t.Errorf("the largest event was read from the table, want it from its notification")
	}
}
