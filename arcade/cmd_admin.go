package arcade

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/store"
)

// maxCloseReason is the widest reason close-room passes on, in cells.
const maxCloseReason = 120

// closeRoom closes a race room (close-room CODE [REASON]): a race that
// runs is abandoned, unstored, and everybody in the room is told the
// reason, cleaned like a chat line.
func (c *call) closeRoom() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) == 0 {
		return c.usageErr("close-room needs a room code")
	}
	roomCode, err := lobby.ParseCode(args[0])
	if err != nil {
		return c.failErr("", err)
	}
	reason := "closed by an admin"
	why := keys.Clean(strings.Join(args[1:], " "), maxCloseReason)
	if why != "" {
		reason += ": " + why
	}
	if err := c.a.rooms.Close(roomCode, reason); err != nil {
		if errors.Is(err, lobby.ErrNoRoom) {
			return c.failErr("", err)
		}
		return c.failErr("close-room: ", err)
	}
	c.a.cfg.Logger.Info("admin close room", "by", c.s.Identity, "room", roomCode)
	fmt.Fprintf(c.stdout, "room %s closed (%s)\n", roomCode, reason)
	c.audited(store.AuditEntry{Action: store.AuditCloseRoom, Subject: string(roomCode), Reason: why})
	return 0
}

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
	return c.renameTo(p.ID, args[1], false)
}
