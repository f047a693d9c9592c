package storetest

import (
	"strings"
	"testing"
	"time"

	"pyramid/store"
)

// testKeyDetails: a key's type and last use are noted when it connects
// (the time at most once a minute), its owner labels it, and nobody
// else can.
func testKeyDetails(t *testing.T, e *env) {
	ann, bob := e.player("ann"), e.player("bob")
	key := "SHA256:ann-key"
	keyOf := func() store.Key {
		t.Helper()
		ks, err := e.s.Keys(e.ctx, ann.ID)
		if err != nil || len(ks) != 1 {
			t.Fatalf("Keys = %+v, %v", ks, err)
		}
		return ks[0]
	}
	if k := keyOf(); k.Type != "" || k.Label != "" || !k.LastUsed.IsZero() {
		t.Errorf("a new key = %+v, want no type, label or use yet", k)
	}
	wantErr(t, "touch", e.s.TouchKey(e.ctx, key, "ssh-ed25519"), nil)
	if k := keyOf(); k.Type != "ssh-ed25519" || !k.LastUsed.Equal(start) {
		t.Errorf("after a use = %+v, want ssh-ed25519 used at %v", k, start)
	}
	e.clock.Advance(30 * time.Second)
	wantErr(t, "touch again", e.s.TouchKey(e.ctx, key, "ssh-ed25519"), nil)
	if k := keyOf(); !k.LastUsed.Equal(start) {
		t.Errorf("a use 30 s later wrote %v, want the first use kept", k.LastUsed)
	}
	e.clock.Advance(31 * time.Second)
	wantErr(t, "touch a minute on", e.s.TouchKey(e.ctx, key, "ssh-ed25519"), nil)
	if k := keyOf(); !k.LastUsed.Equal(start.Add(61 * time.Second)) {
		t.Errorf("a use a minute on = %v, want it written", k.LastUsed)
	}
	wantErr(t, "touch an unknown key", e.s.TouchKey(e.ctx, "SHA256:nobody", "ssh-rsa"), nil)

	wantErr(t, "label", e.s.LabelKey(e.ctx, ann.ID, key, "laptop"), nil)
	if k := keyOf(); k.Label != "laptop" {
		t.Errorf("label = %q, want laptop", k.Label)
	}
	wantErr(t, "label another's key", e.s.LabelKey(e.ctx, bob.ID, key, "mine"), store.ErrNotFound)
	wantErr(t, "label a huge label", e.s.LabelKey(e.ctx, ann.ID, key, strings.Repeat("x", store.MaxKeyLabel+1)), store.ErrInvalid)
	wantErr(t, "clear the label", e.s.LabelKey(e.ctx, ann.ID, key, ""), nil)
	if k := keyOf(); k.Label != "" {
		t.Errorf("label after clearing = %q", k.Label)
	}
}
