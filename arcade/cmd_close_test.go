package arcade

import (
	"context"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/tui"
)

// TestCloseRoom: an admin closes a room by its code; its members are told
// the reason, cleaned; others may not, and a wrong code is told plainly.
func TestCloseRoom(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	gus, gusSess := f.racer(t, "gus", true)
	seat, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: 5, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	if _, err := gus.Join(ctx, code); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		s        func() []string
		admin    bool
		wantCode int
		wantErr  string
	}{
		{"not an admin", func() []string { return []string{"close-room", code} }, false, 1, "for the server's admins"},
		{"no code", func() []string { return []string{"close-room"} }, true, 2, "needs a room code"},
		{"a bad code", func() []string { return []string{"close-room", "AEIO"} }, true, 1, "a room code is"},
		{"no such room", func() []string { return []string{"close-room", "CCCCCC"} }, true, 1, "there is no room CCCCCC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := f.admin
			if !tc.admin {
				key = sshtest.NewKey(t)
			}
			status, _, errOut := f.run(session(key, "someone", tc.s()...))
			if status != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d, %q", status, errOut, tc.wantCode, tc.wantErr)
			}
		})
	}
	if _, ok := f.app.rooms.Room(code); !ok {
		t.Fatal("the room closed on a refused command")
	}

	status, out, errOut := f.run(session(f.admin, "root", "close-room", strings.ToLower(code), "too", "rowdy\x1b[2J"))
	if status != 0 || !strings.Contains(out, "room "+code+" closed") {
		t.Fatalf("close-room: exit %d, %q %q", status, out, errOut)
	}
	if _, ok := f.app.rooms.Room(code); ok {
		t.Error("the room is still open")
	}
	// The audit log has it, with the admin and the reason, cleaned.
	if log, err := f.st.AuditLog(ctx, "", 0); err != nil || len(log) != 1 || log[0].Action != store.AuditCloseRoom ||
		log[0].Subject != code || log[0].Reason != `too rowdy\x1b[2J` || log[0].Actor == "" {
		t.Errorf("the audit log = %+v, %v; want the close of %s by the admin", log, err, code)
	}
	// gus is told, in clean words.
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		ev, err := gusSess.Queue().Next(qctx)
		if err != nil {
			t.Fatalf("gus was not told the room closed: %v", err)
		}
		if rc, ok := ev.(lobby.RoomClosed); ok {
			if rc.Code != code || !strings.HasPrefix(rc.Reason, "closed by an admin: too rowdy") || strings.ContainsRune(rc.Reason, '\x1b') {
				t.Errorf("gus told %+v", rc)
			}
			break
		}
	}
	// The host may open another room at once.
	if _, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: 6, HasDeal: true}); err != nil {
		t.Errorf("a new room after the close: %v", err)
	}
}
