package arcade

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/budget"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/keys"
	"pyramid/store"
	"pyramid/tui"
)

// account is one session's player's account in the store: tui.Account.
// The menu's account screens and the plain-text commands share it, and
// with it the words a player is told.
type account struct {
	st     store.Store
	now    func() time.Time
	log    *log.Logger // nil logs nothing
	player string      // the session's player, to mark their line on boards; empty when not resolved
	key    string      // the session's key fingerprint, which Redeem links
	// tell reaches the open sessions of a player on every server
	// (moderation.go): a new name, an unlinked key; nil tells no one.
	tell func(context.Context, cluster.AccountEvent) error
	// instance and session name the menu's session (zero for a
	// command), which shows its own changes.
	instance string
	session  uint64
	// budgets hold the names the session's player takes (renames), by
	// who: the session's address and account.
	budgets *budget.Budgets
	who     budget.Who
}

// told tells the player's open sessions of ev, if they can be told; a
// failure is logged where it happens (App.tellAccounts), and the change
// shows at their next connection all the same.
func (a *account) told(ctx context.Context, ev cluster.AccountEvent) {
	if a.tell != nil {
		ev.Instance, ev.Session = a.instance, a.session
		_ = a.tell(ctx, ev)
	}
}

// account returns the account adapter of a session of key, played by
// player.
func (a *App) account(player, key, addr string) *account {
	return &account{st: a.cfg.Store, now: a.cfg.Now, log: a.cfg.Logger, player: player, key: key, tell: a.tellAccounts,
		budgets: a.budgets, who: budget.Who{Addr: addr, Account: player}}
}

var _ tui.Account = (*account)(nil)

// Stats returns the player's figures for every rule set, most played first.
func (a *account) Stats(ctx context.Context, player string) ([]tui.RulesStats, error) {
	all, err := a.st.AllStats(ctx, player)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	out := make([]tui.RulesStats, 0, len(all))
	for _, s := range all {
		title := s.RulesID
		if r, err := engine.ParseRules(s.RulesID); err == nil {
			title = r.Title()
		}
		best := -1
		if s.DailyPlayed > 0 {
			best = s.BestDailyRemoved
		}
		out = append(out, a.withRecords(ctx, player, s, tui.RulesStats{
			RulesID: s.RulesID, Title: title, Played: s.Played, Won: s.Won,
			CurrentStreak: s.CurrentStreak, BestStreak: s.BestStreak, BestTime: s.BestTime,
			FewestMoves: s.FewestMoves, AvgRemoved: s.AvgRemoved, DailyPlayed: s.DailyPlayed,
			BestDaily: best, BestDailyTime: s.BestDailyTime,
		}))
	}
	slices.SortStableFunc(out, func(x, y tui.RulesStats) int { return cmp.Compare(y.Played, x.Played) })
	races, rules, err := raceFigures(ctx, a.st, player)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	for i, id := range rules {
		rr := races[i]
		rs := &tui.RaceStats{Rated: rr.Races, Wins: rr.Wins, Podiums: rr.Podiums, Unrated: rr.Unrated,
			Rating: rr.Rating, Provisional: rr.Provisional}
		for _, p := range rr.History {
			rs.History = append(rs.History, p.Rating)
		}
		j := slices.IndexFunc(out, func(s tui.RulesStats) bool { return s.RulesID == id })
		if j < 0 {
			// A rule set only raced: a line of its own, after those played.
			title := id
			if r, err := engine.ParseRules(id); err == nil {
				title = r.Title()
			}
			out = append(out, tui.RulesStats{RulesID: id, Title: title, BestDaily: -1})
			j = len(out) - 1
		}
		out[j].Race = rs
	}
	return out, nil
}

// Board returns a daily board, best first.
func (a *account) Board(ctx context.Context, rulesID, date string, limit int) ([]tui.BoardEntry, error) {
	board, err := a.st.Leaderboard(ctx, rulesID, date, limit)
	if err != nil {
		return nil, fmt.Errorf("daily board: %w", err)
	}
	now := a.now()
	champions, err := a.st.ArenaWinners(ctx, now.Add(-arenaWinMarked), now)
	if err != nil {
		return nil, fmt.Errorf("daily board: arena winners: %w", err)
	}
	out := make([]tui.BoardEntry, 0, len(board))
	for _, e := range board {
		_, champion := champions[e.PlayerID]
		out = append(out, tui.BoardEntry{Rank: e.Rank, Name: keys.Clean(e.PlayerName, keys.MaxNameWidth),
			Removed: e.Removed, Time: e.Elapsed, Won: e.Won, You: e.PlayerID == a.player, GameID: strconv.FormatInt(e.GameID, 10),
			Champion: champion})
	}
	return out, nil
}

// Rename changes the player's display name.
func (a *account) Rename(ctx context.Context, player, name string) (string, error) {
	norm, err := keys.NormalizeName(name)
	if err != nil {
		return "", err
	}
	if player == a.player && a.budgets != nil {
		// A player's own names are spent from the budget (an admin's
		// renames are not): names cannot be squatted in bulk.
		if err := a.budgets.Take(budget.NameTaken, a.who); err != nil {
			return "", err
		}
	}
	before, _ := a.st.Player(ctx, player) // for the audit log: the name it had
	var held *store.NameHeldError
	switch err := a.st.RenamePlayer(ctx, player, norm); {
	case errors.As(err, &held):
		// Another player gave it up a moment ago: some screens may show
		// it as theirs still.
		return "", fmt.Errorf("the name %s was just freed; try again in %s", norm, plural(int(math.Ceil(held.Left.Seconds())), "second"))
	case errors.Is(err, store.ErrNameTaken):
		// Taken as such (the case fold), or only look-alike (the
		// skeleton): say which.
		if p, err := a.st.PlayerByName(ctx, norm); err == nil && p.ID != player {
			return "", fmt.Errorf("the name %s is taken", norm)
		}
		return "", fmt.Errorf("the name %s is taken: it looks too much like another player's name", norm)
	case err != nil:
		if a.log != nil {
			a.log.Error("rename failed", "player", player, "err", err)
		}
		return "", &refusal{words: "the server could not change the name now, try again", cause: err}
	}
	// The player's open sessions show it, and who lists it, everywhere;
	// should the bus fail, they show it from their next connection.
	ev := cluster.AccountEvent{Kind: cluster.AccountRename, Player: player, Name: norm}
	if player != a.player {
		ev.Text = "an admin renamed you"
	}
	a.told(ctx, ev)
	action := store.AuditName
	if player != a.player {
		action = store.AuditRename // an admin's
	}
	audit(ctx, a.st, a.log, store.AuditEntry{Actor: a.player, Action: action, Target: player, Subject: before.Name + " → " + norm})
	return norm, nil
}

// LinkCode makes a one-time code that links another key to the player.
func (a *account) LinkCode(ctx context.Context, player string) (string, time.Time, error) {
	code := keys.NewLinkCode(nil)
	expires := a.now().Add(linkValidity)
	if err := a.st.CreateLinkCode(ctx, player, code, expires); err != nil {
		return "", time.Time{}, fmt.Errorf("link code: %w", err)
	}
	return keys.FormatLinkCode(code), expires, nil
}

// refusal is an error told to the player in words of its own; errors.Is
// still finds its cause.
type refusal struct {
	words string
	cause error
}

var _ tui.PlainError = (*refusal)(nil)

func (r *refusal) Error() string { return r.words }
func (r *refusal) Unwrap() error { return r.cause }

// Plain is what the player reads: the words, never the cause's.
func (r *refusal) Plain() string { return r.words }

// Why a link code is refused, in the words the menu and the link command
// both use.
const (
	notACode    = "that is not a link code: 8 letters and digits, like ABCD-EFGH"
	noSuchCode  = "no such link code (a code works once): ask for a new one"
	codeExpired = "that link code has expired: ask for a new one"
	keyInUse    = "this key already belongs to a player with games of their own"
	linkBanned  = "the player of that code, or of this key, is banned from this server"
	linkFailed  = "the server could not link this key now, try again"
	noKey       = "only a session with an SSH key can use a link code"
)

// Redeem links the session's key to the player of a link code, as typed
// (keys.NormalizeLinkCode reads it), and returns that player's name. The
// store moves a key that already has a player only when that player has
// nothing else, and then drops it. A code of the key's own player links
// nothing new: the store leaves the code for another key, and it is
// refused here, so that the menu does not end the session for nothing.
func (a *account) Redeem(ctx context.Context, code string) (string, error) {
	if a.key == "" {
		return "", &refusal{words: noKey}
	}
	norm, ok := keys.NormalizeLinkCode(code)
	if !ok {
		return "", &refusal{words: notACode}
	}
	// Who the key plays as before, to tell a code of its own player
	// (which the store leaves unused) from a link.
	before := a.player
	if cur, err := a.st.PlayerByKey(ctx, a.key); err == nil {
		before = cur.ID
	}
	p, err := a.st.RedeemLinkCode(ctx, norm, a.key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", &refusal{words: noSuchCode, cause: err}
	case errors.Is(err, store.ErrExpired):
		return "", &refusal{words: codeExpired, cause: err}
	case errors.Is(err, store.ErrKeyInUse):
		return "", &refusal{words: keyInUse, cause: err}
	case errors.Is(err, store.ErrBanned):
		return "", &refusal{words: linkBanned, cause: err}
	case err != nil:
		// The store's words are for the log, not for the player.
		if a.log != nil {
			a.log.Error("link code failed", "key", a.key, "err", err)
		}
		return "", &refusal{words: linkFailed, cause: err}
	}
	name := keys.Clean(p.Name, keys.MaxNameWidth)
	if before != "" && p.ID == before {
		return "", &refusal{words: "that code is your own: this key plays as " + name + " already"}
	}
	if a.log != nil {
		a.log.Info("key linked", "key", a.key, "player", p.ID)
	}
	audit(ctx, a.st, a.log, store.AuditEntry{Actor: p.ID, Action: store.AuditLink, Target: p.ID, Subject: a.key})
	return name, nil
}

// Keys lists the player's keys, oldest first, the session's own marked.
func (a *account) Keys(ctx context.Context, player string) ([]tui.KeyInfo, error) {
	ks, err := a.st.Keys(ctx, player)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	out := make([]tui.KeyInfo, 0, len(ks))
	for _, k := range ks {
		out = append(out, tui.KeyInfo{Fingerprint: k.Fingerprint, Added: k.Added, This: k.Fingerprint == a.key,
			Type: k.Type, Label: keys.Clean(k.Label, maxKeyLabel), LastUsed: k.LastUsed})
	}
	return out, nil
}

// NameRefusal says why a display name cannot be one, as the name
// command does (keys.NameRefusal), or "" for one that can.
func (a *account) NameRefusal(name string) string { return keys.NameRefusal(name) }

// Why a key is not unlinked, in the words the unlink command (and a menu's
// key list) uses.
const (
	unlinkOwnKey   = "that is the key of this session: connect with another of your keys to unlink it"
	unlinkNotYours = "that is not one of your keys (whoami lists them)"
	unlinkFailed   = "the server could not unlink the key now, try again"
)

// shortKey is a fingerprint cut to what tells a player's keys apart on a
// line of a screen.
func shortKey(fp string) string {
	if len(fp) <= len(fingerprintPrefix)+12 {
		return fp
	}
	return fp[:len(fingerprintPrefix)+12] + "…"
}

// fingerprintPrefix starts every key fingerprint the server shows.
const fingerprintPrefix = "SHA256:"

// Unlink removes one of the player's keys, by fingerprint (the "SHA256:"
// may be left off), and returns it in full. The session's own key is
// refused: the player would lock themself out of the session they are in.
func (a *account) Unlink(ctx context.Context, player, fingerprint string) (string, error) {
	fp := fingerprint
	if !strings.HasPrefix(fp, fingerprintPrefix) {
		fp = fingerprintPrefix + fp
	}
	if fp == a.key {
		return "", &refusal{words: unlinkOwnKey}
	}
	switch err := a.st.UnlinkKey(ctx, player, fp); {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrLastKey):
		// The last key is the session's own, so ErrLastKey cannot
		// happen; were it another's, it would not be this player's.
		return "", &refusal{words: unlinkNotYours, cause: err}
	case err != nil:
		if a.log != nil {
			a.log.Error("unlink failed", "key", fp, "player", player, "err", err)
		}
		return "", &refusal{words: unlinkFailed, cause: err}
	}
	if a.log != nil {
		a.log.Info("key unlinked", "by", a.key, "key", fp, "player", player)
	}
	audit(ctx, a.st, a.log, store.AuditEntry{Actor: player, Action: store.AuditUnlink, Target: player, Subject: fp})
	// The unlinked key's sessions end at once, wherever they are; the
	// account's others are told.
	a.told(ctx, cluster.AccountEvent{Kind: cluster.AccountEnd, Player: player, Key: fp,
		Text: "this key (" + fp + ") was unlinked from your account in another session"})
	a.told(ctx, cluster.AccountEvent{Kind: cluster.AccountNotice, Player: player, Key: fp, Except: true,
		Text: "your key " + shortKey(fp) + " was unlinked: its sessions are closed"})
	return fp, nil
}
