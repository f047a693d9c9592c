package budget_test

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/budget"
)

// clock is a fake clock the tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newBudgets(t *testing.T, limits map[budget.Kind]budget.Limit) (*budget.Budgets, *clock) {
	t.Helper()
	c := &clock{now: time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC)}
	b, err := budget.New(budget.Config{Limits: limits, Now: c.Now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b, c
}

func TestTakeBurstThenRate(t *testing.T) {
	b, c := newBudgets(t, map[budget.Kind]budget.Limit{budget.WrongCode: {N: 10, Per: 10 * time.Second}})
	guest := budget.Who{Addr: "203.0.113.7"}
	for i := range 10 {
		if err := b.Take(budget.WrongCode, guest); err != nil {
			t.Fatalf("take %d of the burst: %v", i+1, err)
		}
	}
	err := b.Take(budget.WrongCode, guest)
	var r *budget.Refusal
	if !errors.As(err, &r) || !errors.Is(err, budget.ErrRefused) {
		t.Fatalf("the 11th at once: got %v, want a Refusal", err)
	}
	if !r.ByAddr || r.Kind != budget.WrongCode || r.Wait != time.Second {
		t.Errorf("refusal: got %+v, want by address, wrong codes, a second's wait", *r)
	}
	if got, want := err.Error(), "too many wrong room codes from your address: try again in a second"; got != want {
		t.Errorf("message: got %q, want %q", got, want)
	}
	// One a second after the burst: 30 in 30 seconds, and no more.
	allowed := 0
	for range 300 {
		c.advance(100 * time.Millisecond)
		if b.Take(budget.WrongCode, guest) == nil {
			allowed++
		}
	}
	if allowed != 30 {
		t.Errorf("in 30 s after the burst: got %d allowed, want 30", allowed)
	}
	// Another address has its own budget.
	if err := b.Take(budget.WrongCode, budget.Who{Addr: "203.0.113.8"}); err != nil {
		t.Errorf("another address: %v", err)
	}
}

func TestAccountAndAddress(t *testing.T) {
	b, _ := newBudgets(t, map[budget.Kind]budget.Limit{budget.RoomMade: {N: 2, Per: time.Minute}})
	// One account from two addresses: the account's budget holds.
	if err := b.Take(budget.RoomMade, budget.Who{Addr: "a", Account: "ann"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Take(budget.RoomMade, budget.Who{Addr: "b", Account: "ann"}); err != nil {
		t.Fatal(err)
	}
	err := b.Take(budget.RoomMade, budget.Who{Addr: "c", Account: "ann"})
	var r *budget.Refusal
	if !errors.As(err, &r) || r.ByAddr {
		t.Fatalf("ann's third room from a third address: got %v, want refused by account", err)
	}
	if !strings.Contains(err.Error(), "your account") {
		t.Errorf("message %q does not say whose", err)
	}
	// A refusal spends nothing: address c still has its two.
	for i := range 2 {
		if err := b.Take(budget.RoomMade, budget.Who{Addr: "c"}); err != nil {
			t.Fatalf("guest %d from c: %v", i, err)
		}
	}
	// Guests and accounts from one address share its budget.
	if err := b.Take(budget.RoomMade, budget.Who{Addr: "c", Account: "bob"}); err == nil {
		t.Fatal("bob from c after two guests: allowed, want refused by address")
	}
}

func TestCheckSpendsNothing(t *testing.T) {
	b, c := newBudgets(t, map[budget.Kind]budget.Limit{budget.WrongCode: {N: 1, Per: time.Minute}})
	w := budget.Who{Addr: "a"}
	for range 3 {
		if err := b.Check(budget.WrongCode, w); err != nil {
			t.Fatalf("check: %v", err)
		}
	}
	_ = b.Take(budget.WrongCode, w)
	if err := b.Check(budget.WrongCode, w); !errors.Is(err, budget.ErrRefused) {
		t.Fatalf("check after the budget is spent: got %v, want refused", err)
	}
	c.advance(time.Minute)
	if err := b.Check(budget.WrongCode, w); err != nil {
		t.Fatalf("check a minute later: %v", err)
	}
	st := b.Stats()[budget.WrongCode]
	if st.Allowed != 1 || st.Refused != 1 {
		t.Errorf("stats: got %+v, want the one Take allowed and the one Check refused", st)
	}
}

func TestHoldSeats(t *testing.T) {
	b, _ := newBudgets(t, map[budget.Kind]budget.Limit{budget.SpectatorSeat: {N: 2}})
	w := budget.Who{Addr: "a"}
	r1, err := b.Hold(budget.SpectatorSeat, w, "room1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Hold(budget.SpectatorSeat, w, "room1"); err != nil {
		t.Fatal(err)
	}
	_, err = b.Hold(budget.SpectatorSeat, w, "room1")
	if !errors.Is(err, budget.ErrRefused) || !strings.Contains(err.Error(), "leave one first") {
		t.Fatalf("a third seat: got %v, want refused", err)
	}
	if _, err := b.Hold(budget.SpectatorSeat, w, "room2"); err != nil {
		t.Fatalf("another room: %v", err)
	}
	r1()
	r1() // once only
	if _, err := b.Hold(budget.SpectatorSeat, w, "room1"); err != nil {
		t.Fatalf("after one left: %v", err)
	}
	if _, err := b.Hold(budget.SpectatorSeat, w, "room1"); err == nil {
		t.Fatal("a release twice gave two seats back")
	}
	if err := b.Take(budget.SpectatorSeat, w); err == nil {
		t.Error("Take of a held kind: want an error")
	}
}

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in   string
		want budget.Limit
		ok   bool
	}{
		{"10/1m", budget.Limit{N: 10, Per: time.Minute}, true},
		{" 5/24h ", budget.Limit{N: 5, Per: 24 * time.Hour}, true},
		{"5", budget.Limit{N: 5}, true},
		{"0/1m", budget.Limit{}, false},
		{"x/1m", budget.Limit{}, false},
		{"3/soon", budget.Limit{}, false},
		{"3/0s", budget.Limit{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := budget.ParseLimit(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("ParseLimit(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
	if _, err := budget.New(budget.Config{Limits: map[budget.Kind]budget.Limit{budget.ChatLine: {N: 5}}}); err == nil {
		t.Error("a rate kind without a duration: want an error")
	}
	if _, err := budget.New(budget.Config{Limits: map[budget.Kind]budget.Limit{budget.SpectatorSeat: {N: 5, Per: time.Second}}}); err == nil {
		t.Error("seats as a rate: want an error")
	}
}

func TestRefusalsFitALine(t *testing.T) {
	for _, k := range budget.Kinds() {
		for _, wait := range []time.Duration{time.Second, 59 * time.Second, 10 * time.Minute, 23 * time.Hour} {
			msg := (&budget.Refusal{Kind: k, ByAddr: false, Wait: wait}).Error()
			if len(msg) > 70 {
				t.Errorf("%s: %q is %d long, want at most 70 (80 with a prefix)", k, msg, len(msg))
			}
		}
	}
}

func TestRefusalLogIsBounded(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := log.New(lockedWriter{&mu, &buf})
	b, err := budget.New(budget.Config{Logger: logger, LogInterval: time.Hour,
		Limits: map[budget.Kind]budget.Limit{budget.WrongCode: {N: 1, Per: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for range 1000 {
		_ = b.Take(budget.WrongCode, budget.Who{Addr: "203.0.113.7"})
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(buf.String(), "budget refused"); n != 1 {
		t.Errorf("999 refusals of one address: got %d log lines, want 1 until the summary\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "203.0.113.7") || !strings.Contains(buf.String(), "wrong_code") {
		t.Errorf("log %q does not name the address and the kind", buf.String())
	}
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}
