package storetest

import (
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

	got, err := e.s.Reports(e.ctx, 0)
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
	if two, _ := e.s.Reports(e.ctx, 2); len(two) != 2 || two[0].Reason != "still rude" {
		t.Errorf("limit 2 = %+v", two)
	}
	_, err = e.s.AddReport(e.ctx, store.Report{Reporter: ann.ID, Reported: cat.ID}, 5)
	wantErr(t, "a report without a reason", err, store.ErrInvalid)
}
