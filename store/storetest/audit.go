package storetest

import (
	"strings"
	"testing"
	"time"

	"pyramid/store"
)

// testAuditLog: entries come back newest first with the players' names
// as they are now; a player's read has what they did and what concerns
// them, nobody else's; a limit keeps the newest; bad entries are refused.
func testAuditLog(t *testing.T, e *env) {
	admin, cat, dan := e.player("ann"), e.player("cat"), e.player("dan")
	add := func(en store.AuditEntry) {
		t.Helper()
		if _, err := e.s.AddAudit(e.ctx, en); err != nil {
			t.Fatalf("AddAudit(%+v): %v", en, err)
		}
		e.clock.Advance(time.Minute)
	}
	add(store.AuditEntry{Actor: cat.ID, Action: store.AuditLink, Target: cat.ID, Subject: "SHA256:laptop"})
	add(store.AuditEntry{Actor: admin.ID, Action: store.AuditBan, Target: cat.ID, Subject: "until 13:01 UTC", Reason: "cheating"})
	add(store.AuditEntry{Actor: admin.ID, Action: store.AuditCloseRoom, Subject: "KMTX", Reason: "spam"})
	add(store.AuditEntry{Actor: admin.ID, Action: store.AuditKick, Target: dan.ID})
	wantErr(t, "rename", e.s.RenamePlayer(e.ctx, cat.ID, "kitty"), nil)

	all, err := e.s.AuditLog(e.ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range all {
		got = append(got, en.ActorName+" "+en.Action+" "+en.TargetName+" "+en.Subject+" "+en.Reason)
	}
	want := []string{"ann kick dan  ", "ann close-room  KMTX spam", "ann ban kitty until 13:01 UTC cheating", "kitty link kitty SHA256:laptop "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("AuditLog = %q, want %q", got, want)
	}
	if first := all[len(all)-1]; !first.At.Equal(start) || first.ID == 0 || first.Actor != cat.ID || first.Target != cat.ID {
		t.Errorf("the first entry = %+v, want at %v with its IDs", first, start)
	}

	mine, err := e.s.AuditLog(e.ctx, cat.ID, 0)
	if err != nil || len(mine) != 2 || mine[0].Action != store.AuditBan || mine[1].Action != store.AuditLink {
		t.Errorf("cat's entries = %+v, %v; want the ban and the link", mine, err)
	}
	if dans, _ := e.s.AuditLog(e.ctx, dan.ID, 0); len(dans) != 1 || dans[0].Action != store.AuditKick {
		t.Errorf("dan's entries = %+v, want the kick only", dans)
	}
	if admins, _ := e.s.AuditLog(e.ctx, admin.ID, 0); len(admins) != 3 {
		t.Errorf("the admin's entries = %d, want the 3 they did", len(admins))
	}
	if newest, _ := e.s.AuditLog(e.ctx, "", 2); len(newest) != 2 || newest[0].Action != store.AuditKick {
		t.Errorf("limit 2 = %+v, want the 2 newest", newest)
	}

	_, err = e.s.AddAudit(e.ctx, store.AuditEntry{Actor: admin.ID})
	wantErr(t, "an entry without an action", err, store.ErrInvalid)
	_, err = e.s.AddAudit(e.ctx, store.AuditEntry{Action: store.AuditBan, Reason: strings.Repeat("x", 5000)})
	wantErr(t, "an entry with a huge reason", err, store.ErrInvalid)
}
