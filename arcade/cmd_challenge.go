package arcade

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pyramid/budget"
	"pyramid/keys"
	"pyramid/store"
)

// challenge offers a challenge (challenge NAME [RULES]) or answers one
// (challenge accept|decline ID). Playing one (challenge ID) opens a
// screen: it needs ssh -t (command.opens).
func (c *call) challenge() int {
	args, code, ok := c.flags(2, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) == 0 {
		return c.usageErr("challenge needs a player's name (challenge NAME [RULES]), or accept ID / decline ID")
	}
	switch args[0] {
	case "accept", "decline":
		if len(args) != 2 {
			return c.usageErr(args[0] + " needs the challenge's number (challenges lists them)")
		}
		return c.answerChallenge(args[1], args[0] == "accept")
	}
	spec := ""
	if len(args) == 2 {
		spec = args[1]
	}
	r, err := challengeRules(spec)
	if err != nil {
		return c.usageErr(keys.Clean(err.Error(), 200))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	ch, err := c.a.offerChallenge(ctx, budget.Who{Addr: c.s.AddrKey(), Account: c.player}, c.player, args[0], r)
	if err != nil {
		return c.failErr("", err)
	}
	fmt.Fprintf(c.stdout, "challenge %d offered to %s: %s, a hidden deal the solver proves winnable\n",
		ch.ID, playerName(ch.ChallengedName), r.Title())
	fmt.Fprintf(c.stdout, "%s has until %s to accept; then each of you plays it once: ssh -t %s challenge %d\n",
		playerName(ch.ChallengedName), stamp(ch.Deadline), c.connectHost(), ch.ID)
	return 0
}

// connectHost is the words after ssh in the connect command ("-p 23234
// host"), for the lines that tell what to type.
func (c *call) connectHost() string {
	return strings.TrimSpace(strings.TrimPrefix(c.a.cfg.Connect, "ssh"))
}

// stamp is a time as the challenges' lines show it: UTC, to the minute.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// answerChallenge accepts or declines the challenge ref names.
func (c *call) answerChallenge(ref string, accept bool) int {
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil || id <= 0 {
		return c.usageErr(fmt.Sprintf("\"%s\" is no challenge number (challenges lists them)", word(ref)))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	ch, err := c.a.cfg.Store.AnswerChallenge(ctx, id, c.player, accept)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c.fail(fmt.Sprintf("challenge %d is no offer to you", id))
	case errors.Is(err, store.ErrClosed):
		return c.fail(fmt.Sprintf("challenge %d is no longer open to an answer (challenges says where it stands)", id))
	case err != nil:
		return c.storeErr("challenge", err)
	}
	if !accept {
		c.a.tellChallenge(ctx, ch.Challenger, fmt.Sprintf("%s declined your challenge %d", playerName(ch.ChallengedName), id))
		fmt.Fprintf(c.stdout, "declined challenge %d of %s\n", id, playerName(ch.ChallengerName))
		return 0
	}
	c.a.tellChallenge(ctx, ch.Challenger, fmt.Sprintf("%s accepted your challenge %d: play it once, until %s: challenge %d",
		playerName(ch.ChallengedName), id, stamp(ch.Deadline), id))
	fmt.Fprintf(c.stdout, "accepted challenge %d of %s: play it once, when you like, until %s: ssh -t %s challenge %d\n",
		id, playerName(ch.ChallengerName), stamp(ch.Deadline), c.connectHost(), id)
	return 0
}

// challengeJSON is one challenge of challenges --json. The deal is
// "hidden" until the challenge is over (lobby.DealShown).
type challengeJSON struct {
	ID           int64      `json:"id"`
	Challenger   string     `json:"challenger"`
	ChallengerID string     `json:"challenger_id"`
	Challenged   string     `json:"challenged"`
	ChallengedID string     `json:"challenged_id"`
	Rules        string     `json:"rules"`
	Deal         string     `json:"deal"`
	State        string     `json:"state"`
	Offered      time.Time  `json:"offered"`
	Accepted     *time.Time `json:"accepted,omitempty"`
	Deadline     time.Time  `json:"deadline"`
	Ended        *time.Time `json:"ended,omitempty"`
	// YourGame and TheirGame are the two sides' games (0: none yet);
	// TheirGame only once the challenge is over.
	YourGame  int64 `json:"your_game"`
	TheirGame int64 `json:"their_game"`
	// Result is "won", "lost" or "tie" for a finished challenge, as the
	// player sees it; RaceID the race it is stored as.
	Result string `json:"result,omitempty"`
	RaceID int64  `json:"race_id,omitempty"`
	// Counted is how the result counted for the player's rating, as
	// replay says it ("1500 → 1521? +21", "unrated: …").
	Counted string `json:"counted,omitempty"`
	// Next is what the player may do now, as a command.
	Next string `json:"next,omitempty"`
}

// challenges lists the player's open and recent challenges, each decided
// first if it is due.
func (c *call) challenges() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.playerChallenges(ctx, c.player)
	if err != nil {
		return c.storeErr("challenges", err)
	}
	out := make([]challengeJSON, 0, len(list))
	for _, ch := range list {
		mine := ch.ChallengerGame
		if ch.Challenged == c.player {
			mine = ch.ChallengedGame
		}
		var played store.Status // the player's game's end, while the other's is awaited
		if ch.State == store.ChallengeAccepted && mine != 0 {
			if g, err := c.a.cfg.Store.Game(ctx, mine); err == nil && g.Status.Finished() {
				played = g.Status
			}
		}
		j := c.challengeJSON(ch, played)
		if ch.RaceID != 0 {
			if race, err := c.a.cfg.Store.Race(ctx, ch.RaceID); err == nil {
				for i, p := range raceResults(race).Placings {
					if race.Placings[i].PlayerID == c.player {
						j.Counted = countedText(p)
					}
				}
			}
		}
		out = append(out, j)
	}
	if asJSON {
		return c.writeJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintf(c.stdout, "no challenges: offer one with challenge NAME [RULES]\n")
		return 0
	}
	for _, j := range out {
		line := fmt.Sprintf("%d  %s → %s  %s  %s", j.ID, j.Challenger, j.Challenged, rulesTitle(j.Rules), j.State)
		if j.Result != "" {
			line += ": you " + j.Result
			if j.Result == "tie" {
				line = strings.TrimSuffix(line, "you tie") + "a tie"
			}
		}
		if j.Deal != "hidden" {
			line += "  deal " + j.Deal
		}
		if j.Counted != "" {
			line += "  (" + j.Counted + ")"
		}
		fmt.Fprintln(c.stdout, line)
		if j.Next != "" {
			fmt.Fprintln(c.stdout, "    "+j.Next)
		}
	}
	return 0
}

// challengeJSON is one challenge as the player sees it; played is how
// the player's own game ended while the other's is awaited, or "".
func (c *call) challengeJSON(ch store.Challenge, played store.Status) challengeJSON {
	me, them := ch.ChallengerGame, ch.ChallengedGame
	other := ch.ChallengedName
	if ch.Challenged == c.player {
		me, them, other = them, me, ch.ChallengerName
	}
	j := challengeJSON{ID: ch.ID, Challenger: playerName(ch.ChallengerName), ChallengerID: ch.Challenger,
		Challenged: playerName(ch.ChallengedName), ChallengedID: ch.Challenged, Rules: ch.RulesID, Deal: "hidden",
		State: string(ch.State), Offered: ch.Offered.UTC(), Deadline: ch.Deadline.UTC(), YourGame: me}
	if !ch.Accepted.IsZero() {
		t := ch.Accepted.UTC()
		j.Accepted = &t
	}
	if !ch.State.Open() {
		t := ch.Ended.UTC()
		j.Ended = &t
		j.Deal = strconv.FormatUint(ch.DealNumber, 10)
		j.TheirGame = them
	}
	host := c.connectHost()
	switch {
	case ch.State == store.ChallengeOffered && ch.Challenged == c.player:
		j.Next = fmt.Sprintf("accept: challenge accept %d · decline: challenge decline %d (by %s)", ch.ID, ch.ID, stamp(ch.Deadline))
	case ch.State == store.ChallengeOffered:
		j.Next = fmt.Sprintf("waiting for %s to accept (by %s)", playerName(other), stamp(ch.Deadline))
	case ch.State == store.ChallengeAccepted && played != "":
		j.Next = fmt.Sprintf("you played it (%s): the result comes once %s has played, by %s", played, playerName(other), stamp(ch.Deadline))
	case ch.State == store.ChallengeAccepted && me == 0:
		j.Next = fmt.Sprintf("play it once: ssh -t %s challenge %d (by %s)", host, ch.ID, stamp(ch.Deadline))
	case ch.State == store.ChallengeAccepted:
		j.Next = fmt.Sprintf("your game %d: back to it with ssh -t %s challenge %d, or wait for %s (by %s)",
			me, host, ch.ID, playerName(other), stamp(ch.Deadline))
	case ch.State == store.ChallengeFinished && them != 0:
		j.Next = fmt.Sprintf("race %s's play as a ghost: ssh -t %s race ghost %d", playerName(other), host, them)
	}
	if ch.State == store.ChallengeFinished {
		switch ch.Winner {
		case "":
			j.Result = "tie"
		case c.player:
			j.Result = "won"
		default:
			j.Result = "lost"
		}
		j.RaceID = ch.RaceID
	}
	return j
}
