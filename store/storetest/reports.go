package storetest

import (
	"fmt"
	"testing"
	"time"

	"pyramid/store"
)

// testReports: reports come back newest first with the players' names;
// a reporter gets perDay reports in any 24 hours; bad reports are
// refused.
func testReports(t *testing.T, e *env) {
	ann, cat, dan := e.player("ann"), e.player("cat"), e.player("dan")
	report := func(by, of store.Player, why string) error {
		_, err := e.s.AddReport(e.ctx, store.Report{Reporter: by.ID, Reported: of.ID, Reason: why}, 2)
		e.clock.Advance(time.Hour)
		return err
	}
	wantErr(t, "first report", report(ann, cat, "rude in chat"), nil)
	wantErr(t, "second report", report(ann, dan, "cheating"), nil)
	wantErr(t, "third report in a day", report(ann, cat, "again"), store.ErrLimit)
	wantErr(t, "another reporter", report(dan, cat, "spam"), nil)
	e.clock.Advance(22 * time.Hour) // the first is now more than 24 hours old
	wantErr(t, "a report a day on", report(ann, cat, "still rude"), nil)

	got, err := e.s.Reports(e.ctx, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range got {
		lines = append(lines, r.ReporterName+">"+r.ReportedName+":"+r.Reason)
	}
	want := []string{"ann>cat:still rude", "dan>cat:spam", "ann>dan:cheating", "ann>cat:rude in chat"}
	if len(lines) != len(want) {
		t.Fatalf("Reports = %q, want %q", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Fatalf("Reports = %q, want %q", lines, want)
		}
	}
	if last := got[len(got)-1]; !last.At.Equal(start) || last.ID == 0 {
		t.Errorf("the first report = %+v, want at %v with an ID", last, start)
	}
	if two, _ := e.s.Reports(e.ctx, 2, false); len(two) != 2 || two[0].Reason != "still rude" {
		t.Errorf("limit 2 = %+v", two)
	}
	_, err = e.s.AddReport(e.ctx, store.Report{Reporter: ann.ID, Reported: cat.ID}, 5)
	wantErr(t, "a report without a reason", err, store.ErrInvalid)
}

// testReportClose: an admin closes a report: it leaves the open queue,
// stays in the whole list with when and by whom it was closed, and the
// audit log has it without naming the reported player; a report is
// closed once.
func testReportClose(t *testing.T, e *env) {
	admin, ann, cat := e.player("admin"), e.player("ann"), e.player("cat")
	first, err := e.s.AddReport(e.ctx, store.Report{Reporter: ann.ID, Reported: cat.ID, Reason: "rude"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.AddReport(e.ctx, store.Report{Reporter: ann.ID, Reported: cat.ID, Reason: "ruder"}, 5); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	wantErr(t, "close", e.s.CloseReport(e.ctx, first, admin.ID, "talked to cat"), nil)
	wantErr(t, "close again", e.s.CloseReport(e.ctx, first, admin.ID, ""), store.ErrClosed)
	wantErr(t, "close no report", e.s.CloseReport(e.ctx, first+100, admin.ID, ""), store.ErrNotFound)

	open, err := e.s.Reports(e.ctx, 0, false)
	if err != nil || len(open) != 1 || open[0].Reason != "ruder" || !open[0].Closed.IsZero() {
		t.Errorf("the open reports = %+v, %v; want the second", open, err)
	}
	all, err := e.s.Reports(e.ctx, 0, true)
	if err != nil || len(all) != 2 || all[1].ID != first || !all[1].Closed.Equal(e.clock.Now()) || all[1].ClosedBy != admin.ID ||
		all[1].ClosedByName != "admin" {
		t.Errorf("all the reports = %+v, %v; want both, the first closed now by the admin", all, err)
	}
	log, err := e.s.AuditLog(e.ctx, admin.ID, 0)
	if err != nil || len(log) != 1 || log[0].Action != store.AuditCloseReport || log[0].Target != "" ||
		log[0].Subject != fmt.Sprintf("report %d", first) || log[0].Reason != "talked to cat" {
		t.Errorf("the admin's audit log = %+v, %v; want the close", log, err)
	}
	if cats, _ := e.s.AuditLog(e.ctx, cat.ID, 0); len(cats) != 0 {
		t.Errorf("cat's audit log shows the report: %+v", cats)
	}
}
