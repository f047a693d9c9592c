package arcade

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"pyramid/budget"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// Challenges: an asynchronous duel of two players on one hidden deal the
// server picked winnable. The offer, its answer and each side's game are
// the store's (store.Challenges); each side's game is a race game
// (store.KindRace) whose race key names the challenge
// (store.ChallengeRaceKey), so a player has one game of a challenge and
// it is practice, apart from their own games, as a race's is. The result
// is stored as a race of two under the same key (store.RecordRace), so it
// is rated by the races' one policy (rating.Decide: the pair limit,
// assisted play, a side that never moved) and counted in stats, top race
// and the rating history like any race. Nothing runs on a timer: a
// challenge is decided by the save that ends its second game, and one
// whose deadline passed by whichever server first looks at it
// (settleChallenge); the store's key and EndChallenge make a second
// decision a no-op.

// Errors of challenges, for the player as they are.
var (
	errChallengeSelf   = errors.New("you cannot challenge yourself")
	errChallengePlayed = errors.New("you played this challenge already: one attempt each")
	errChallengeTimeUp = errors.New("its 24 hours are over: no move counts any more")
)

// challengeRules is the rule set of a challenge from the words a player
// typed: Classic when none (offerChallenge refuses the daily's).
func challengeRules(spec string) (engine.Rules, error) {
	if spec == "" {
		spec = "classic"
	}
	return engine.ParseRules(spec)
}

// errChallengeDaily is why a challenge is never on the daily's rules:
// the daily is everybody's deal of the day.
var errChallengeDaily = errors.New("a challenge is on a deal of its own, not the daily: name a rule set such as classic or double")

// offerChallenge offers a challenge from player to the player named
// name, on a hidden deal the solver proves winnable, within the
// challenges' budget of w. The name is looked up as typed, never by look
// (store.Players.PlayerByName).
func (a *App) offerChallenge(ctx context.Context, w budget.Who, player, name string, r engine.Rules) (store.Challenge, error) {
	if r.Daily {
		return store.Challenge{}, errChallengeDaily
	}
	st := a.cfg.Store
	p, err := st.PlayerByName(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Challenge{}, fmt.Errorf("no player is named \"%s\"", keys.Clean(name, keys.MaxNameWidth))
	case err != nil:
		return store.Challenge{}, fmt.Errorf("challenge %s: %w", keys.Clean(name, keys.MaxNameWidth), err)
	case p.ID == player:
		return store.Challenge{}, errChallengeSelf
	case p.BannedAt(a.cfg.Now()):
		return store.Challenge{}, fmt.Errorf("%s is banned", keys.Clean(p.Name, keys.MaxNameWidth))
	}
	if err := a.budgets.Take(budget.ChallengeMade, w); err != nil {
		return store.Challenge{}, err
	}
	deal, _ := a.findDeal(ctx, r, 0, false)
	c, err := st.OfferChallenge(ctx, store.NewChallenge{Challenger: player, Challenged: p.ID, RulesID: r.ID(), DealNumber: deal})
	if err != nil {
		return store.Challenge{}, fmt.Errorf("offer the challenge: %w", err)
	}
	a.cfg.Logger.Info("challenge offered", "id", c.ID, "by", player, "to", p.ID, "rules", c.RulesID)
	a.tellChallenge(ctx, p.ID, offerWords(c))
	return c, nil
}

// offerWords tells the challenged player of an offer.
func offerWords(c store.Challenge) string {
	return fmt.Sprintf("%s challenges you (%s): challenge accept %d, or challenge decline %d",
		playerName(c.ChallengerName), rulesTitle(c.RulesID), c.ID, c.ID)
}

// tellChallenge tells the player's open sessions, on every server, what
// became of a challenge of theirs; one who is not connected reads it in
// challenges (and an offer at their next connection). A failure is
// logged by tellAccounts.
func (a *App) tellChallenge(ctx context.Context, player, text string) {
	_ = a.tellAccounts(ctx, cluster.AccountEvent{Kind: cluster.AccountNotice, Player: player, Text: text})
}

// resultWords tells one side of a challenge how it ended.
func resultWords(c store.Challenge, player string) string {
	switch {
	case c.State == store.ChallengeExpired:
		return fmt.Sprintf("challenge %d expired: nobody played it in time", c.ID)
	case c.Winner == "":
		return fmt.Sprintf("challenge %d is over: a tie (challenges says how it counted)", c.ID)
	case c.Winner == player:
		return fmt.Sprintf("challenge %d is over: you won (challenges says how it counted)", c.ID)
	}
	return fmt.Sprintf("challenge %d is over: you lost (challenges says how it counted)", c.ID)
}

// challengeSide is one side of a challenge as its result is decided:
// what its stored game shows (the zero value for a side that did not
// start one).
type challengeSide struct {
	ID     string
	GameID int64
	// Moves and Removed count the game's moves and the pyramid cards it
	// removed; Cleared is set for a won game, Over for a game that ended
	// (won or lost).
	Moves, Removed int
	Cleared, Over  bool
	// Time is when the game cleared, counted on the clock from when it
	// was dealt (its first opening), else the play time of its last
	// removal. A race's clock never stops, and neither does a
	// challenge's: a player who saw the deal and closed the terminal to
	// solve it elsewhere finds that time counted.
	Time time.Duration
	// Assisted: its moves came faster than a person plays
	// (games.Assisted).
	Assisted bool
}

// sideOf reads one side's game: the zero side but its ID for none.
func sideOf(player string, g store.Game, has bool) challengeSide {
	s := challengeSide{ID: player}
	if !has {
		return s
	}
	s.GameID, s.Moves, s.Removed = g.ID, len(g.Moves), g.Removed
	s.Cleared, s.Over = g.Status == store.StatusWon, g.Status.Finished()
	s.Assisted = games.Assisted(g.Moves, g.MoveTimes)
	if s.Cleared {
		s.Time = max(g.Elapsed, g.Finished.Sub(g.Started))
		return s
	}
	for i := min(len(g.Moves), len(g.MoveTimes)) - 1; i >= 0; i-- {
		if m := g.Moves[i]; m != "d" && m != "r" {
			s.Time = g.MoveTimes[i]
			break
		}
	}
	return s
}

// played reports whether the side made a move.
func (s challengeSide) played() bool { return s.Moves > 0 }

// racer is the side as the races' ranking reads a racer
// (lobby.RankRacers): cleared with its finish time, stuck or still
// playing at the deadline with its last removal's, or left when it never
// moved.
func (s challengeSide) racer() lobby.Racer {
	r := lobby.Racer{ID: s.ID, LastRemoval: s.Time}
	r.Removed, r.Moves = s.Removed, s.Moves
	switch {
	case s.Cleared:
		r.State, r.Finish = lobby.RacerCleared, s.Time
	case !s.played():
		r.State = lobby.RacerLeft
	case s.Over:
		r.State = lobby.RacerStuck
	default:
		r.State = lobby.RacerPlaying
	}
	return r
}

// challengeResult decides a challenge between its two sides by the
// races' ranking (lobby.RankRacers): their placings (the race of two it
// is stored as) and the winner's ID, empty for a tie. ok is false when
// neither side played: no result. A side that did not play is placed
// last and never moved, so the races' policy counts the challenge for
// nobody's rating (rating.Decide: fewer than two racers moved), though
// the challenge is lost by that side. An assisted side keeps its place,
// and the challenge is unrated for it, as in a race.
func challengeResult(a, b challengeSide) (placings []store.RacePlacing, winner string, ok bool) {
	if !a.played() && !b.played() {
		return nil, "", false
	}
	place := map[string]int{}
	for _, p := range lobby.RankRacers([]lobby.Racer{a.racer(), b.racer()}) {
		place[p.ID] = p.Place
	}
	pa, pb := place[a.ID], place[b.ID]
	switch {
	case pa < pb:
		winner = a.ID
	case pb < pa:
		winner = b.ID
	}
	return []store.RacePlacing{placingOf(a, pa), placingOf(b, pb)}, winner, true
}

// placingOf is a side's placing in the race a challenge is stored as.
func placingOf(s challengeSide, place int) store.RacePlacing {
	p := store.RacePlacing{PlayerID: s.ID, Place: place, Cleared: s.Cleared, Removed: s.Removed, Moves: s.Moves,
		Time: s.Time, GameID: s.GameID, Assisted: s.Assisted}
	switch {
	case s.Cleared:
		p.Outcome = store.OutcomeCleared
	case !s.played():
		p.Outcome = store.OutcomeLeft
	case s.Over:
		p.Outcome = store.OutcomeStuck
	default:
		p.Outcome = store.OutcomeTimeUp
	}
	return p
}

// settleChallenge decides c if it is due and returns it as it stands:
// an offer past its deadline expires; an accepted challenge is decided
// once both games are over, or at its deadline with the games as they
// are then (a side that did not play loses; neither played: it expires).
// Any server may do it, at once with another: the result is stored under
// the challenge's race key (stored once) and EndChallenge closes it once.
func (a *App) settleChallenge(ctx context.Context, c store.Challenge) (store.Challenge, error) {
	if !c.State.Open() {
		return c, nil
	}
	st := a.cfg.Store
	now := a.cfg.Now()
	due := !now.Before(c.Deadline)
	if c.State == store.ChallengeOffered {
		if !due {
			return c, nil
		}
		return a.endChallenge(ctx, c, store.ChallengeExpired, 0, "")
	}
	sides := [2]challengeSide{}
	for i, id := range [2]string{c.Challenger, c.Challenged} {
		g, err := st.RaceGame(ctx, id, store.ChallengeRaceKey(c.ID))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return c, fmt.Errorf("challenge %d: %w", c.ID, err)
		}
		sides[i] = sideOf(id, g, err == nil)
	}
	if !due && !(sides[0].Over && sides[1].Over) {
		return c, nil
	}
	placings, winner, ok := challengeResult(sides[0], sides[1])
	if !ok {
		return a.endChallenge(ctx, c, store.ChallengeExpired, 0, "")
	}
	ended := now
	if due {
		ended = c.Deadline
	}
	// Another server's clock may run a little behind the one that
	// took the answer.
	ended = later(ended, c.Accepted)
	raceID, err := st.RecordRace(ctx, store.NewRace{Key: store.ChallengeRaceKey(c.ID), Code: "challenge", RulesID: c.RulesID,
		DealNumber: c.DealNumber, Started: c.Accepted, Ended: ended, Racers: 2, Rated: true, Verdict: engine.Winnable,
		Placings: placings})
	if err != nil {
		return c, fmt.Errorf("challenge %d: %w", c.ID, err)
	}
	// A game still open at the deadline ends with the challenge.
	w := a.newWriter(nil)
	for _, s := range sides {
		if s.GameID != 0 && !s.Over {
			if err := w.Abandon(ctx, s.ID, s.GameID); err != nil {
				a.cfg.Logger.Warn("challenge game not finished", "challenge", c.ID, "game", s.GameID, "err", err)
			}
		}
	}
	return a.endChallenge(ctx, c, store.ChallengeFinished, raceID, winner)
}

// endChallenge closes c; closed already (another server decided it
// meanwhile) is no error: the stored challenge is the answer.
func (a *App) endChallenge(ctx context.Context, c store.Challenge, state store.ChallengeState, raceID int64, winner string) (store.Challenge, error) {
	ended, err := a.cfg.Store.EndChallenge(ctx, c.ID, state, raceID, winner)
	if err != nil && !errors.Is(err, store.ErrClosed) {
		return c, fmt.Errorf("challenge %d: %w", c.ID, err)
	}
	if err == nil {
		// Only the server that ended it tells the two sides.
		a.cfg.Logger.Info("challenge ended", "id", c.ID, "state", state, "race", raceID, "winner", winner)
		for _, p := range []string{ended.Challenger, ended.Challenged} {
			a.tellChallenge(ctx, p, resultWords(ended, p))
		}
	}
	return ended, nil
}

// recentChallenges is how long a challenge that ended stays in the
// player's list.
const recentChallenges = 7 * 24 * time.Hour

// maxChallengesListed is the most challenges challenges lists.
const maxChallengesListed = 30

// playerChallenges lists the player's open and recent challenges, each
// decided first if it is due.
func (a *App) playerChallenges(ctx context.Context, player string) ([]store.Challenge, error) {
	list, err := a.cfg.Store.PlayerChallenges(ctx, player, a.cfg.Now().Add(-recentChallenges), maxChallengesListed)
	if err != nil {
		return nil, err
	}
	for i, c := range list {
		if list[i], err = a.settleChallenge(ctx, c); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// challengeNote is what the menu's notice line tells a player at
// connection of the challenges offered to them that wait for their
// answer; empty for none.
func (a *App) challengeNote(ctx context.Context, player string) string {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	list, err := a.playerChallenges(ctx, player)
	if err != nil {
		logHidden(a.cfg.Logger, "challenges not read", err, "player", player)
		return ""
	}
	var offers []store.Challenge
	for _, c := range list {
		if c.State == store.ChallengeOffered && c.Challenged == player {
			offers = append(offers, c)
		}
	}
	switch len(offers) {
	case 0:
		return ""
	case 1:
		return offerWords(offers[0])
	}
	return fmt.Sprintf("%d challenges wait for your answer: see challenges", len(offers))
}

// challengeGames is one session's way to play its challenges
// (tui.Challenges): the player's one game of each, stored as it is
// played through the session's writer.
type challengeGames struct {
	a      *App
	player string
	w      *games.Writer
	// addr is the session's address key: whose budget an offer spends,
	// with the account's.
	addr string

	mu sync.Mutex
	// games are the challenges of the games Open gave this session, by
	// game ID.
	games map[int64]store.Challenge
}

// of returns the challenge whose game id is, when Open gave it to this
// session; a nil receiver has none.
func (cg *challengeGames) of(id int64) (store.Challenge, bool) {
	if cg == nil {
		return store.Challenge{}, false
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	c, ok := cg.games[id]
	return c, ok
}

// decide decides the challenge id if it is due, once the session's game
// of it ended: the two sides are told at once when it was the last one
// to play. It returns the challenge as it stands after, false on a
// failure, which is logged: whoever looks next decides it.
func (cg *challengeGames) decide(ctx context.Context, id int64) (store.Challenge, bool) {
	c, err := cg.a.cfg.Store.Challenge(ctx, id)
	if err == nil {
		c, err = cg.a.settleChallenge(ctx, c)
	}
	if err != nil {
		cg.a.cfg.Logger.Warn("challenge not decided", "challenge", id, "err", err)
		return store.Challenge{}, false
	}
	return c, true
}

var _ tui.Challenges = (*challengeGames)(nil)

// Open returns the player's game of the challenge ref names, claimed for
// the session: a new game at the first opening, the same one after, and
// a refusal once it is over (one attempt each) or the challenge is not
// open for play.
func (cg *challengeGames) Open(ctx context.Context, ref string) (tui.SavedGame, error) {
	st := cg.a.cfg.Store
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil || id <= 0 {
		return tui.SavedGame{}, fmt.Errorf("challenge takes the challenge's number (challenges lists them), not %q", keys.Clean(ref, 20))
	}
	c, err := st.Challenge(ctx, id)
	if err == nil {
		c, err = cg.a.settleChallenge(ctx, c)
	}
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && c.Challenger != cg.player && c.Challenged != cg.player:
		return tui.SavedGame{}, fmt.Errorf("challenge %d is not one of yours", id)
	case err != nil:
		return tui.SavedGame{}, err
	}
	key := store.ChallengeRaceKey(id)
	g, err := st.RaceGame(ctx, cg.player, key)
	switch {
	case err == nil && g.Status.Finished():
		return tui.SavedGame{}, errChallengePlayed
	case c.State == store.ChallengeOffered:
		return tui.SavedGame{}, fmt.Errorf("challenge %d waits for %s to accept it", id, playerName(c.ChallengedName))
	case c.State != store.ChallengeAccepted:
		return tui.SavedGame{}, fmt.Errorf("challenge %d is %s", id, c.State)
	case errors.Is(err, store.ErrNotFound):
		g, err = cg.w.Create(ctx, store.NewGame{PlayerID: cg.player, RulesID: c.RulesID, DealNumber: c.DealNumber,
			Practice: true, Kind: store.KindRace, Race: key})
		if errors.Is(err, store.ErrExists) { // another session of theirs, at once
			g, err = st.RaceGame(ctx, cg.player, key)
		}
	}
	if err != nil {
		return tui.SavedGame{}, fmt.Errorf("your game of challenge %d: %w", id, err)
	}
	if err := st.SetChallengeGame(ctx, id, cg.player, g.ID); err != nil {
		return tui.SavedGame{}, fmt.Errorf("your game of challenge %d: %w", id, err)
	}
	if g, err = cg.w.TakeOver(ctx, cg.player, g.ID); err != nil {
		return tui.SavedGame{}, fmt.Errorf("your game of challenge %d: %w", id, err)
	}
	cg.mu.Lock()
	if cg.games == nil {
		cg.games = map[int64]store.Challenge{}
	}
	cg.games[g.ID] = c
	cg.mu.Unlock()
	return savedGame(g), nil
}

// opponentsGame reports whether sg is the game of player's opponent in a
// challenge that is over: its ghost is theirs to race, and its deal to
// see, once neither side can play the deal any more.
func (a *App) opponentsGame(ctx context.Context, player string, sg store.Game) bool {
	id, ok := store.ChallengeOfRaceKey(sg.Race)
	if !ok || player == "" || sg.Kind != store.KindRace {
		return false
	}
	c, err := a.cfg.Store.Challenge(ctx, id)
	if err != nil {
		logHidden(a.cfg.Logger, "challenge not read", err, "challenge", id)
		return false
	}
	sides := c.Challenger == player && sg.PlayerID == c.Challenged || c.Challenged == player && sg.PlayerID == c.Challenger
	return sides && !c.State.Open()
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// Offer challenges the player called name to a deal of r, as
// challenge NAME RULES does.
func (cg *challengeGames) Offer(ctx context.Context, name string, r engine.Rules) (string, error) {
	c, err := cg.a.offerChallenge(ctx, budget.Who{Addr: cg.addr, Account: cg.player}, cg.player, name, r)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("challenge %d offered to %s (%s) until %s", c.ID, playerName(c.ChallengedName), r.Title(), stamp(c.Deadline)), nil
}
