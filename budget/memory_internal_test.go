package budget

import (
	"strconv"
	"testing"
	"time"
)

// TestBoundedKeys: an attacker with many addresses (IPv6 gives plenty)
// cannot grow the budgets past MaxKeys; the idle ones are forgotten
// first, and the newest are kept.
func TestBoundedKeys(t *testing.T) {
	now := time.Unix(0, 0)
	b, err := New(Config{Now: func() time.Time { return now }, MaxKeys: 100,
		Limits: map[Kind]Limit{WrongCode: {N: 1, Per: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10_000 {
		_ = b.Take(WrongCode, Who{Addr: "2001:db8:" + strconv.Itoa(i) + "::/64"})
		if n := len(b.buckets); n > 100 {
			t.Fatalf("after %d addresses: %d budgets kept, want at most 100", i+1, n)
		}
	}
	if err := b.Take(WrongCode, Who{Addr: "2001:db8:9999::/64"}); err == nil {
		t.Error("the newest address was forgotten at once")
	}
	// An hour on, every budget is full again: all are forgotten at the
	// next one past the bound.
	now = now.Add(time.Hour)
	for i := range 100 {
		_ = b.Take(WrongCode, Who{Addr: "198.51.100." + strconv.Itoa(i)})
	}
	if n := len(b.buckets); n > 100 {
		t.Errorf("%d budgets kept, want at most 100", n)
	}
}
