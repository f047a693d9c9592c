package main

import (
	"encoding/json"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// whoamiAs connects a new key with the SSH user name user, runs
// whoami --json and returns the display name the server gave the key.
func whoamiAs(t *testing.T, ts *testServer, user string) string {
	t.Helper()
	c, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig(user, sshtest.NewKey(t)))
	if err != nil {
		t.Fatalf("dial as %+q: %v", user, err)
	}
	defer c.Close()
	out, errOut, status := sshtest.Exec(t, c, "whoami --json")
	if status != 0 {
		t.Fatalf("whoami as %+q: exit %d, stderr %q", user, status, errOut)
	}
	var rep struct{ Name string }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("whoami as %+q: %v; output %q", user, err, out)
	}
	return rep.Name
}

// TestE2ENewKeyNames: a new key is named after its SSH user name only
// when that is a valid, free name that looks like no reserved name and no
// other player's; otherwise it gets a generated name (player-…). Names
// that render alike, or like the staff's, cannot be squatted by
// connecting with them.
func TestE2ENewKeyNames(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ts := startServer(t, be.url(t))
		if got := whoamiAs(t, ts, "alice"); got != "alice" {
			t.Fatalf("a free user name: named %q, want alice", got)
		}
		if got := whoamiAs(t, ts, "Zoë"); got != "Zoë" {
			t.Errorf("a free user name with an accent: named %q, want Zoë", got)
		}
		for _, user := range []string{
			"admin", "\u0430dmin", "ADMlN", "root", "\u0455ystem", "pyram\u0456d", "gu\u0435st-7QK2", // reserved
			"alice", "ALICE", "aIice", "a1ice", "\u0430lice", "alice\u034f", "alice\ufe00", "alice\U000e0100", // taken
			"zoe\u0308", // taken, decomposed
		} {
			if got := whoamiAs(t, ts, user); !strings.HasPrefix(got, "player-") {
				t.Errorf("user name %+q: named %q, want a generated player- name", user, got)
			}
		}
		if n := count(t, ts.db(t), `SELECT COUNT(*) FROM players WHERE name_skeleton = 'alice' OR name_folded_skeleton = 'alice'`); n != 1 {
			t.Errorf("%d players have a name like alice, want 1", n)
		}
	})
}
