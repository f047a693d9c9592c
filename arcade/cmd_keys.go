package arcade

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"pyramid/keys"
	"pyramid/store"
)

// maxKeyLabel is the widest label of a key, in cells.
const maxKeyLabel = 24

// keyDetails is whoami's line of a key: its type, label, when it was
// added and last used, and whether it is the session's.
func keyDetails(k keyReport) string {
	var parts []string
	if k.Label != "" {
		parts = append(parts, "\""+k.Label+"\"")
	}
	if k.Type != "" {
		parts = append(parts, strings.TrimPrefix(k.Type, "ssh-"))
	}
	parts = append(parts, "added "+k.Added.Format(time.DateOnly))
	if k.LastUsed != nil {
		parts = append(parts, "last used "+k.LastUsed.Format("2006-01-02 15:04")+" UTC")
	}
	if k.This {
		parts = append(parts, "this session")
	}
	return strings.Join(parts, " · ")
}

// label names one of the player's keys (label FINGERPRINT NAME…), or
// clears its label (label FINGERPRINT).
func (c *call) label() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) == 0 {
		return c.usageErr("label needs a key's fingerprint (whoami lists your keys) and a name for it")
	}
	fp := args[0]
	if !strings.HasPrefix(fp, fingerprintPrefix) {
		fp = fingerprintPrefix + fp
	}
	text := strings.Join(args[1:], " ")
	if clean := keys.Clean(text, maxKeyLabel); clean != text {
		return c.fail(fmt.Sprintf("a key's label is at most %d characters wide, without control characters: \"%s\" is not one", maxKeyLabel, word(text)))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	err := c.a.cfg.Store.LabelKey(ctx, c.player, fp, text)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c.fail(unlinkNotYours)
	case err != nil:
		return c.storeErr("label", err)
	}
	if text == "" {
		fmt.Fprintf(c.stdout, "%s has no label now\n", fp)
	} else {
		fmt.Fprintf(c.stdout, "%s is \"%s\" now\n", fp, text)
	}
	return 0
}

// touchKey notes the session's key's use and type, for the player's key
// list; a failure only leaves the list a little behind.
func (a *App) touchKey(ctx context.Context, fingerprint, keyType string) {
	if err := a.cfg.Store.TouchKey(ctx, fingerprint, keyType); err != nil {
		a.cfg.Logger.Warn("key use not noted", "key", fingerprint, "err", err)
	}
}
