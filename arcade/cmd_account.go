package arcade

import (
	"flag"
	"fmt"
	"time"
)

// renameTo changes a player's name, telling why a name is refused.
func (c *call) renameTo(id, name string) int {
	ctx, cancel := c.timeout()
	defer cancel()
	norm, err := c.account().Rename(ctx, id, name)
	if err != nil {
		return c.fail(err.Error())
	}
	fmt.Fprintf(c.stdout, "name: %s\n", norm)
	return 0
}

// account is the caller's account, shared with the menu's account screens.
func (c *call) account() *account {
	return c.a.account(c.player, c.s.Identity)
}

func (c *call) rename() int {
	args, code, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("name needs the new name (1–16 letters, digits, _ . -)")
	}
	return c.renameTo(c.player, args[0])
}

// linkValidity is how long a link code works.
const linkValidity = 15 * time.Minute

// link creates a code that links another key to this player.
func (c *call) link() int {
	if _, code, ok := c.flags(0, func(*flag.FlagSet) {}); !ok {
		return code
	}
	ctx, cancel := c.timeout()
	defer cancel()
	code, expires, err := c.account().LinkCode(ctx, c.player)
	if err != nil {
		return c.storeErr("link code", err)
	}
	fmt.Fprintf(c.stdout, "link code %s, valid until %s UTC.\nFrom the machine with the other key run:\n  %s link %s\nor connect with that key and choose Use a link code in its menu.\n",
		code, expires.UTC().Format("15:04"), c.a.cfg.Connect, code)
	return 0
}

// redeem links this session's key to the player of a code, through the
// account adapter the menu's Use a link code uses: one place for the
// words.
func (c *call) redeem() int {
	args, code, ok := c.flags(1, func(*flag.FlagSet) {})
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
		return c.fail(err.Error())
	}
	fmt.Fprintf(c.stdout, "this key now plays as %s: connect with %s to play as %s\n", name, c.a.cfg.Connect, name)
	return 0
}

// unlink removes one of the player's keys, never the session's own,
// through the account adapter: one place for the words.
func (c *call) unlink() int {
	args, code, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("unlink needs a key's fingerprint (whoami lists your keys)")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	fp, err := c.account().Unlink(ctx, c.player, args[0])
	if err != nil {
		return c.fail(err.Error())
	}
	fmt.Fprintf(c.stdout, "unlinked %s: that key no longer plays as %s\n", fp, c.name)
	return 0
}
