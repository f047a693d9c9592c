package arcade

import (
	"flag"
	"fmt"

	"pyramid/store"
)

// target finds the player an admin command names.
func (c *call) target(name string) (store.Player, bool) {
	ctx, cancel := c.timeout()
	defer cancel()
	p, err := c.a.cfg.Store.PlayerByName(ctx, name)
	if err != nil {
		c.storeErr(fmt.Sprintf("player \"%s\"", word(name)), err)
		return store.Player{}, false
	}
	return p, true
}

// ban bans (ban NAME) or unbans (unban NAME) a player.
func (c *call) ban() int {
	args, code, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr(c.s.Args[0] + " needs a player's name")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	banned := c.s.Args[0] == "ban"
	ctx, cancel := c.timeout()
	defer cancel()
	if err := c.a.cfg.Store.SetBanned(ctx, p.ID, banned); err != nil {
		return c.storeErr("ban", err)
	}
	c.a.cfg.Logger.Info("admin", "by", c.s.Identity, "banned", banned, "player", p.ID)
	state := "no longer banned"
	if banned {
		state = "banned"
	}
	fmt.Fprintf(c.stdout, "%s is %s\n", playerName(p.Name), state)
	return 0
}

// adminRename renames another player.
func (c *call) adminRename() int {
	args, code, ok := c.flags(2, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) != 2 {
		return c.usageErr("rename needs the player's name and the new one")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	c.a.cfg.Logger.Info("admin rename", "by", c.s.Identity, "player", p.ID)
	return c.renameTo(p.ID, args[1])
}
