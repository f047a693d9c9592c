package arcade

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"
)

// nameReport is name's and link CODE's --json output: the name the
// player now has.
type nameReport struct {
	Name string `json:"name"`
}

// renameTo changes a player's name, telling why a name is refused.
func (c *call) renameTo(id, name string, asJSON bool) int {
	ctx, cancel := c.timeout()
	defer cancel()
	norm, err := c.account().Rename(ctx, id, name)
	if err != nil {
		return c.failErr("", err)
	}
	if asJSON {
		return c.writeJSON(nameReport{Name: norm})
	}
	fmt.Fprintf(c.stdout, "name: %s\n", norm)
	return 0
}

// account is the caller's account, shared with the menu's account screens.
func (c *call) account() *account {
	return c.a.account(c.player, c.s.Identity, c.s.AddrKey())
}

func (c *call) rename() int {
	var asJSON bool
	args, code, ok := c.flags(1, jsonFlag(&asJSON))
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("name needs the new name (1–16 letters, digits, _ . -)")
	}
	return c.renameTo(c.player, args[0], asJSON)
}

// linkReport is link's --json output.
type linkReport struct {
	Code    string    `json:"code"`
	Expires time.Time `json:"expires"`
	// Command is what to run with the other key.
	Command string `json:"command"`
}

// linkValidity is how long a link code works.
const linkValidity = 15 * time.Minute

// link creates a code that links another key to this player.
func (c *call) link() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	ctx, cancel := c.timeout()
	defer cancel()
	code, expires, err := c.account().LinkCode(ctx, c.player)
	if err != nil {
		return c.storeErr("link code", err)
	}
	if asJSON {
		return c.writeJSON(linkReport{Code: code, Expires: expires.UTC(), Command: c.a.cfg.Connect + " link " + code})
	}
	fmt.Fprintf(c.stdout, "link code %s, valid until %s UTC.\nFrom the machine with the other key run:\n  %s link %s\nor connect with that key and choose Use a link code in its menu.\n",
		code, expires.UTC().Format("15:04"), c.a.cfg.Connect, code)
	return 0
}

// redeem links this session's key to the player of a code, through the
// account adapter the menu's Use a link code uses: one place for the
// words.
func (c *call) redeem() int {
	var asJSON bool
	args, code, ok := c.flags(1, jsonFlag(&asJSON))
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("link takes one code")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	name, err := c.account().Redeem(ctx, args[0])
	if err != nil {
		return c.failErr("", err)
	}
	if asJSON {
		return c.writeJSON(nameReport{Name: name})
	}
	fmt.Fprintf(c.stdout, "this key now plays as %s: connect with %s to play as %s\n", name, c.a.cfg.Connect, name)
	return 0
}

// unlink removes one of the player's keys, never the session's own,
// through the account adapter: one place for the words. A key linked
// before the session's own is removed only with --yes: it is likely the
// player's main machine, and a mistyped or pasted fingerprint should not
// cut it off.
func (c *call) unlink() int {
	var yes bool
	args, code, ok := c.flags(1, func(fs *flag.FlagSet) {
		fs.BoolVar(&yes, "yes", false, "remove a key linked before the one you are using")
	})
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("unlink needs a key's fingerprint (whoami lists your keys)")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	if !yes {
		if fp, added, older := c.olderKey(ctx, args[0]); older {
			return c.fail(fmt.Sprintf("%s was linked before the key you are using (on %s): its open sessions would end and it would play as a new player. To remove it all the same: unlink %s --yes",
				fp, added.UTC().Format(time.DateOnly), fp))
		}
	}
	fp, err := c.account().Unlink(ctx, c.player, args[0])
	if err != nil {
		return c.failErr("", err)
	}
	fmt.Fprintf(c.stdout, "unlinked %s: that key no longer plays as %s\n", fp, c.name)
	return 0
}

// olderKey reports whether fingerprint (the "SHA256:" may be left off)
// is one of the player's keys (fp, in full), linked before the
// session's own, and when. A key that is not theirs is not older: Unlink
// says why it is refused.
func (c *call) olderKey(ctx context.Context, fingerprint string) (fp string, added time.Time, older bool) {
	fp = fingerprint
	if !strings.HasPrefix(fp, fingerprintPrefix) {
		fp = fingerprintPrefix + fp
	}
	ks, err := c.a.cfg.Store.Keys(ctx, c.player)
	if err != nil {
		return "", time.Time{}, false // Unlink meets the same failure and says so
	}
	var own, target time.Time
	found := false
	for _, k := range ks {
		switch k.Fingerprint {
		case c.s.Identity:
			own = k.Added
		case fp:
			target, found = k.Added, true
		}
	}
	return fp, target, found && !own.IsZero() && target.Before(own)
}
