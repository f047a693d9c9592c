package arcade

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
	"pyramid/store"
)

// reportFixture is a fixture with three players, ann, bob and cat, two
// rated classic races between bob and cat (cat first in both) with their
// race games, and ann's report of cat.
type reportFixture struct {
	*fixture
	keys  map[string]gossh.Signer
	ids   map[string]string
	races []int64
	games map[string][]int64 // each player's race games, by race
}

func newReportFixture(t *testing.T) *reportFixture {
	t.Helper()
	f := &reportFixture{fixture: newFixture(t), keys: map[string]gossh.Signer{}, ids: map[string]string{}, games: map[string][]int64{}}
	ctx := context.Background()
	for _, name := range []string{"ann", "bob", "cat"} {
		k := sshtest.NewKey(t)
		p, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(k.PublicKey()), name)
		if err != nil {
			t.Fatal(err)
		}
		f.keys[name], f.ids[name] = k, p.ID
	}
	start := time.Now().Add(-time.Hour).UTC()
	for i := range 2 {
		nr := store.NewRace{Key: fmt.Sprint("race/", i), Code: "KDXW", RulesID: "classic", DealNumber: 42,
			Started: start.Add(time.Duration(i) * 10 * time.Minute), Ended: start.Add(time.Duration(i)*10*time.Minute + 5*time.Minute),
			Racers: 2, Rated: true}
		for place, name := range []string{"cat", "bob"} {
			g, err := f.st.CreateGame(ctx, store.NewGame{PlayerID: f.ids[name], RulesID: "classic", DealNumber: 42, Owner: "s",
				Kind: store.KindRace, Race: nr.Key})
			if err != nil {
				t.Fatal(err)
			}
			f.games[name] = append(f.games[name], g.ID)
			nr.Placings = append(nr.Placings, store.RacePlacing{PlayerID: f.ids[name], Place: place + 1, Removed: 20 - place,
				Moves: 30, GameID: g.ID, Outcome: store.OutcomeStuck})
		}
		id, err := f.st.RecordRace(ctx, nr)
		if err != nil {
			t.Fatal(err)
		}
		f.races = append(f.races, id)
	}
	if code, _, errOut := f.run(session(f.keys["ann"], "ann", "report", "cat", "too", "fast")); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	return f
}

// as runs a command as one of the fixture's players ("admin" for the
// admin).
func (f *reportFixture) as(who string, args ...string) (int, string, string) {
	key := f.keys[who]
	if who == "admin" {
		key = f.admin
	}
	return f.run(session(key, who, args...))
}

// TestReportsListRacesAndGames: reports shows, with each report, the
// reported player's newest rated races (with their game and the void
// command to run) and games, in text and in JSON; an admin may replay
// those games; players may neither read the reports nor void.
func TestReportsListRacesAndGames(t *testing.T) {
	f := newReportFixture(t)
	code, out, errOut := f.as("admin", "reports")
	if code != 0 {
		t.Fatalf("reports: exit %d, %q", code, errOut)
	}
	for _, want := range []string{
		"ann reported cat: too fast",
		fmt.Sprintf("race %d · classic", f.races[1]),
		fmt.Sprintf("1st of 2, rated · game %d · void %d REASON", f.games["cat"][1], f.races[1]),
		fmt.Sprintf("race %d", f.races[0]),
		fmt.Sprintf("games: %d (classic race, playing)", f.games["cat"][1]),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("reports lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, fmt.Sprintf("race %d ", f.races[1])) > strings.Index(out, fmt.Sprintf("race %d ", f.races[0])) {
		t.Errorf("reports lists the races oldest first:\n%s", out)
	}

	_, out, _ = f.as("admin", "reports", "--json")
	var reps []struct {
		Player string `json:"player"`
		Races  []struct {
			ID      int64  `json:"id"`
			Rules   string `json:"rules"`
			Place   int    `json:"place"`
			Racers  int    `json:"racers"`
			Counted string `json:"counted"`
			GameID  int64  `json:"game_id"`
			Void    string `json:"void"`
		} `json:"races"`
		Games []struct {
			ID     int64  `json:"id"`
			Kind   string `json:"kind"`
			Status string `json:"status"`
		} `json:"games"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("reports --json: %v\n%s", err, out)
	}
	if len(reps) != 1 || reps[0].Player != "cat" || len(reps[0].Races) != 2 || len(reps[0].Games) != 2 {
		t.Fatalf("reports --json = %+v, want cat's report with 2 races and 2 games", reps)
	}
	r := reps[0].Races[0]
	if r.ID != f.races[1] || r.Rules != "classic" || r.Place != 1 || r.Racers != 2 || r.Counted != "rated" ||
		r.GameID != f.games["cat"][1] || r.Void != fmt.Sprintf("void %d REASON", f.races[1]) {
		t.Errorf("the newest race in reports --json = %+v", r)
	}
	if g := reps[0].Games[0]; g.ID != f.games["cat"][1] || g.Kind != "race" || g.Status != "playing" {
		t.Errorf("the newest game in reports --json = %+v", g)
	}

	// The admin replays the reported player's game; bob may not.
	if code, out, errOut := f.as("admin", "replay", fmt.Sprint(f.games["cat"][0])); code != 0 || !strings.Contains(out, "race: 1st of 2") {
		t.Errorf("the admin's replay of cat's race game: exit %d, %q %q", code, out, errOut)
	}
	if code, _, _ := f.as("bob", "replay", fmt.Sprint(f.games["cat"][0])); code == 0 {
		t.Errorf("bob replays cat's race game")
	}
	for _, args := range [][]string{{"reports"}, {"void", fmt.Sprint(f.races[0]), "spite"}} {
		if code, _, errOut := f.as("bob", args...); code != 1 || !strings.Contains(errOut, "is for the server's admins") {
			t.Errorf("bob runs %q: exit %d, %q; want refused", args, code, errOut)
		}
	}
	if race, _ := f.st.Race(context.Background(), f.races[0]); race.Unrated != "" {
		t.Errorf("a player's void changed the race: %+v", race)
	}
}

// raceStats is a player's classic race figures from stats --json.
func (f *reportFixture) raceStats(t *testing.T, who string) raceReport {
	t.Helper()
	_, out, errOut := f.as(who, "stats", "--json")
	var stats []statsReport
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatalf("stats --json: %v: %s %s", err, out, errOut)
	}
	for _, s := range stats {
		if s.Rules == "classic" && s.Race != nil {
			return *s.Race
		}
	}
	return raceReport{}
}

// TestVoid: an admin voids a race from the reports: it counts for nobody,
// the racers' ratings are computed again at once (stats shows them), the
// racers read it in their audit log, and bad IDs, a missing reason and a
// second void are refused with words that say why.
func TestVoid(t *testing.T) {
	f := newReportFixture(t)
	before := f.raceStats(t, "cat")
	if before.Races != 2 || before.Wins != 2 {
		t.Fatalf("cat's stats before the void: %+v", before)
	}
	voided := fmt.Sprint(f.races[0])
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"void"}, 2, "void needs the race's ID and why"},
		{[]string{"void", voided}, 2, "void needs the race's ID and why"},
		{[]string{"void", "x12", "why"}, 2, `bad race ID "x12": want a number`},
		{[]string{"void", "0", "why"}, 2, `bad race ID "0"`},
		{[]string{"void", "99999", "why"}, 1, "no race 99999 (reports lists"},
	} {
		if code, _, errOut := f.as("admin", tt.args...); code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, %q; want %d, %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}

	code, out, errOut := f.as("admin", "void", voided, "bob's", "second", "key")
	if code != 0 || !strings.Contains(out, "race "+voided+" voided: it counts for nobody now (bob's second key); 2 ratings computed again") ||
		!strings.Contains(out, "cat: 1") || !strings.Contains(out, "? in classic (1 rated race)") {
		t.Fatalf("void: exit %d, %q %q", code, out, errOut)
	}
	after := f.raceStats(t, "cat")
	if after.Races != 1 || after.Wins != 1 || after.Unrated != 1 || after.Rating >= before.Rating || len(after.History) != 1 {
		t.Errorf("cat's stats after the void: %+v, want one rated race won, one unrated, a lower rating than %v",
			after, before.Rating)
	}
	if code, _, errOut := f.as("admin", "void", voided, "again"); code != 1 || !strings.Contains(errOut, "race "+voided+" is void already") {
		t.Errorf("a second void: exit %d, %q", code, errOut)
	}
	if _, out, _ := f.as("cat", "audit"); !strings.Contains(out, "void") || !strings.Contains(out, "race "+voided) ||
		!strings.Contains(out, "bob's second key") {
		t.Errorf("cat's audit log lacks the void:\n%s", out)
	}
	if _, out, _ := f.as("cat", "replay", fmt.Sprint(f.games["cat"][0])); !strings.Contains(out, "unrated: voided by an admin") {
		t.Errorf("the replay of cat's game of the voided race:\n%s", out)
	}
	// The voided race is no longer among those the reports offer to void.
	if _, out, _ := f.as("admin", "reports"); strings.Contains(out, "void "+voided+" ") {
		t.Errorf("reports still offers the voided race:\n%s", out)
	}
}

// TestNameHeldAfterRename: a name given up is held a few seconds for its
// player, whose sessions may show it still: another player is told to
// try again in so many seconds, and the player may take it back.
func TestNameHeldAfterRename(t *testing.T) {
	f := newFixture(t)
	ann, bob := sshtest.NewKey(t), sshtest.NewKey(t)
	f.run(session(ann, "ann", "whoami"))
	f.run(session(bob, "bob", "whoami"))
	if code, _, errOut := f.run(session(ann, "ann", "name", "annie")); code != 0 {
		t.Fatalf("ann renames: %q", errOut)
	}
	code, out, errOut := f.run(session(bob, "bob", "name", "ann"))
	if code != 1 || out != "" || !strings.Contains(errOut, "the name ann was just freed; try again in 10 seconds") {
		t.Errorf("bob takes ann's old name: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := f.run(session(ann, "annie", "name", "ann")); code != 0 || !strings.Contains(out, "ann") {
		t.Errorf("ann takes her name back: exit %d, %q %q", code, out, errOut)
	}
}

// TestCloseReport: an admin closes a report by its number: it leaves the
// queue, reports --all still lists it with who closed it and when; a
// report is closed once, and bad numbers are refused with words that
// say why; players may not close reports.
func TestCloseReport(t *testing.T) {
	f := newReportFixture(t)
	_, out, _ := f.as("admin", "reports", "--json")
	var reps []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 {
		t.Fatalf("reports --json: %v\n%s", err, out)
	}
	id := fmt.Sprint(reps[0].ID)
	if _, out, _ := f.as("admin", "reports"); !strings.HasPrefix(out, "#"+id+" ") {
		t.Errorf("reports does not number the report #%s:\n%s", id, out)
	}
	for _, tt := range []struct {
		who  string
		args []string
		code int
		want string
	}{
		{"bob", []string{"close-report", id}, 1, "is for the server's admins"},
		{"admin", []string{"close-report"}, 2, "close-report needs the report's number"},
		{"admin", []string{"close-report", "x"}, 2, `bad report number "x"`},
		{"admin", []string{"close-report", "999"}, 1, "no report #999"},
		{"admin", []string{"close-report", "#" + id, "talked", "to", "cat"}, 0, "report #" + id + " closed"},
		{"admin", []string{"close-report", id}, 1, "report #" + id + " is closed already"},
	} {
		if code, out, errOut := f.as(tt.who, tt.args...); code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%s %q: exit %d, %q %q; want %d, %q", tt.who, tt.args, code, out, errOut, tt.code, tt.want)
		}
	}
	admin, err := f.st.PlayerByKey(context.Background(), gossh.FingerprintSHA256(f.admin.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if _, out, _ := f.as("admin", "reports"); !strings.Contains(out, "no open reports") {
		t.Errorf("reports after the close:\n%s", out)
	}
	if _, out, _ := f.as("admin", "reports", "--all"); !strings.Contains(out, "too fast (closed ") || !strings.Contains(out, " by "+admin.Name+")") {
		t.Errorf("reports --all after the close:\n%s", out)
	}
	_, out, _ = f.as("admin", "reports", "--all", "--json")
	var closed []struct {
		Closed   *time.Time `json:"closed"`
		ClosedBy string     `json:"closed_by"`
	}
	if err := json.Unmarshal([]byte(out), &closed); err != nil || len(closed) != 1 || closed[0].Closed == nil || closed[0].ClosedBy != admin.Name {
		t.Errorf("reports --all --json = %+v, %v", closed, err)
	}
	if _, out, _ := f.as("admin", "audit"); !strings.Contains(out, "close-report") || !strings.Contains(out, "report "+id+" · talked to cat") {
		t.Errorf("the audit log lacks the close:\n%s", out)
	}
}
