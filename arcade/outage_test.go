package arcade

import (
	"net/url"
	"strings"
	"testing"

	"pyramid/server/sshtest"
	"pyramid/store/storetest"
)

// databaseWords are what a player must never read: the database's
// address, its user and name, the driver's and the store's words.
var databaseWords = []string{"127.0.0.1", "database=", "user=", "failed to connect", "store:", "SQLSTATE", "dial tcp",
	"connection refused", "EOF", "pyramid_test"}

// TestOutageCommands: with the database out of reach (a proxy in front
// of PostgreSQL, cut), every command that needs the store fails in plain
// words, with none of the driver's (issue 29, finding 4).
func TestOutageCommands(t *testing.T) {
	base := storetest.PostgresSchemaURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := storetest.NewProxy(t, u.Host)
	f := newFixtureDB(t, proxy.Via(t, base))
	alice := sshtest.NewKey(t)
	if code, _, errOut := f.run(session(alice, "alice", "whoami")); code != 0 {
		t.Fatalf("whoami before the outage: exit %d, %s", code, errOut)
	}
	proxy.Cut()
	for _, args := range [][]string{
		{"whoami"}, {"stats"}, {"stats", "--json"}, {"games"}, {"top"}, {"top", "daily"}, {"top", "race"}, {"replay", "1"},
		{"name", "alice2"}, {"link"}, {"link", "ABCD-EFGH"}, {"who"}, {"rooms"}, {"share", "1"},
	} {
		code, out, errOut := f.run(session(alice, "alice", args...))
		text := out + errOut
		t.Logf("%s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(text))
		for _, w := range databaseWords {
			if strings.Contains(text, w) {
				t.Errorf("%s: the player reads %q:\n%s", strings.Join(args, " "), w, text)
			}
		}
	}
}
