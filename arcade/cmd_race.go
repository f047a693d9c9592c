package arcade

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/rating"
	"pyramid/share"
	"pyramid/store"
)

// roomReport is one line of rooms --json: a public race room.
type roomReport struct {
	Code       string    `json:"code"`
	Rules      string    `json:"rules"`
	RulesTitle string    `json:"rules_title"`
	Phase      string    `json:"phase"`
	Players    int       `json:"players"`
	MaxPlayers int       `json:"max_players"`
	Spectators int       `json:"spectators"`
	Rated      bool      `json:"rated"` // false: the host chose the deal, the race changes no rating
	Host       string    `json:"host"`
	TimeLimitS int       `json:"time_limit_s"`
	Created    time.Time `json:"created"`
}

// rooms lists the public race rooms (the "rooms" command). Guests may ask;
// it needs no store.
func (c *call) rooms() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	list := c.a.rooms.Public()
	reps := make([]roomReport, 0, len(list))
	for _, r := range list {
		reps = append(reps, roomReport{Code: r.Code, Rules: keys.Clean(r.RulesID, 60), RulesTitle: keys.Clean(r.RulesTitle, 60),
			Phase: r.Phase.String(), Players: r.Players, MaxPlayers: r.MaxPlayers, Spectators: r.Spectators, Rated: r.Rated,
			Host: playerName(r.Host), TimeLimitS: r.TimeLimitS, Created: r.Created.UTC()})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	if len(reps) == 0 {
		fmt.Fprintf(c.stdout, "no public rooms right now: start one with ssh -t … race new --public, or quick match with ssh -t … race\n")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "room\trules\tphase\tplayers\thost\ttime limit\trated")
	for _, r := range reps {
		rated := "yes"
		if !r.Rated {
			rated = "no: chosen deal"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", r.Code, r.RulesTitle, r.Phase, r.Players, r.MaxPlayers, r.Host,
			duration(time.Duration(r.TimeLimitS)*time.Second), rated)
	}
	_ = tw.Flush()
	fmt.Fprintln(c.stdout, "join with ssh -t … race CODE")
	return 0
}

// ratingReport is one line of top race --json. Rating is on the display
// scale (around 1500); Ordinal, Mu and Sigma are the model's.
type ratingReport struct {
	Rank      int     `json:"rank"`
	Name      string  `json:"name"`
	Rating    float64 `json:"rating"`
	Ordinal   float64 `json:"ordinal"`
	Mu        float64 `json:"mu"`
	Sigma     float64 `json:"sigma"`
	Races     int     `json:"races"`
	Wins      int     `json:"wins"`
	Opponents int     `json:"opponents"`
	You       bool    `json:"you,omitempty"`
	// ArenaWinner: the player won an arena in the last 7 days.
	ArenaWinner bool `json:"arena_winner,omitempty"`
}

// topRace lists the settled race ratings of a rule set (top race
// [RULES]), highest first: provisional ratings are left off.
func (c *call) topRace(args []string, asJSON bool) int {
	r := engine.Classic()
	if len(args) > 1 {
		return c.usageErr(fmt.Sprintf("unexpected argument \"%s\"", word(args[1])))
	}
	if len(args) == 1 {
		var err error
		if r, err = engine.ParseRules(args[0]); err != nil {
			return c.usageErr(err.Error())
		}
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.cfg.Store.TopRatings(ctx, r.ID(), 20)
	if err != nil {
		return c.storeErr("top race", err)
	}
	reps := make([]ratingReport, 0, len(list))
	var winners map[string]store.Trophy
	if len(list) > 0 {
		winners = c.arenaWinners(ctx)
	}
	for _, e := range list {
		_, won := winners[e.PlayerID]
		reps = append(reps, ratingReport{Rank: e.Rank, Name: playerName(e.PlayerName), Rating: round2(e.Display),
			Ordinal: round2(e.Ordinal), Mu: round2(e.Mu), Sigma: round2(e.Sigma), Races: e.Races, Wins: e.Wins,
			Opponents: e.Opponents, You: e.PlayerID == c.player, ArenaWinner: won})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	fmt.Fprintf(c.stdout, "%s (%s): race ratings\n", r.Title(), r.Spec())
	defer c.ownProvisional(ctx, r.ID())
	if len(reps) == 0 {
		fmt.Fprintf(c.stdout, "no settled rating yet: a rating shows here after %d rated races against %d different opponents\n",
			rating.ProvisionalRaces, rating.ProvisionalOpponents)
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\trating\traces\twins")
	marks := false
	for _, e := range reps {
		marks = marks || e.ArenaWinner
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\n", e.Rank, marked(e.Name, e.ArenaWinner), displayText(e.Rating, false), e.Races, e.Wins)
	}
	_ = tw.Flush()
	c.winnerLegend(marks)
	fmt.Fprintf(c.stdout, "(ratings with fewer than %d rated races or %d opponents are provisional and not listed)\n",
		rating.ProvisionalRaces, rating.ProvisionalOpponents)
	return 0
}

// ownProvisional tells a player whose rating in the rules is still
// provisional where it stands: it is on no list yet.
func (c *call) ownProvisional(ctx context.Context, rulesID string) {
	if c.player == "" {
		return
	}
	rec, err := c.a.cfg.Store.RaceRecord(ctx, c.player, rulesID)
	if err != nil || rec.Rating.Races == 0 || !rec.Rating.Provisional {
		return
	}
	fmt.Fprintf(c.stdout, "your rating: %s, provisional: %d of %d rated races, %d of %d different opponents\n",
		displayText(rec.Rating.Display, true), rec.Rating.Races, rating.ProvisionalRaces, rec.Rating.Opponents,
		rating.ProvisionalOpponents)
}

// round2 rounds a rating to two decimals for printing; a rating that
// rounds to zero is 0, never -0.
func round2(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	if v == 0 {
		return 0
	}
	return v
}

// displayText is a display rating as the text tables show it: a whole
// number, with "?" while provisional.
func displayText(x float64, provisional bool) string {
	s := strconv.Itoa(int(math.Round(x)))
	if provisional {
		s += "?"
	}
	return s
}

// raceReport is a rule set's race figures in stats --json, as the races'
// policy counted them (docs/races.md, "What counts"): races, wins and podiums of
// the races rated for the player, the rating on the display scale
// (provisional while shown with "?") and its history, and apart the
// races that did not count for them.
type raceReport struct {
	Races       int           `json:"races"`
	Wins        int           `json:"wins"`
	Podiums     int           `json:"podiums"`
	Rating      float64       `json:"rating"`
	Provisional bool          `json:"provisional"`
	Opponents   int           `json:"opponents"`
	Mu          float64       `json:"mu"`
	Sigma       float64       `json:"sigma"`
	Unrated     int           `json:"unrated"`
	History     []ratingPoint `json:"history,omitempty"`
}

// ratingPoint is the player's rating after one rated race.
type ratingPoint struct {
	At     time.Time `json:"at"`
	Rating float64   `json:"rating"`
}

// RatingHistoryLen is how many of a rule set's last rated races stats
// and the Stats screen show the rating history of.
const RatingHistoryLen = 60

// raceFigures is the player's race figures per rule set, with the
// rating history of each rule set they were rated in.
func raceFigures(ctx context.Context, st store.Store, player string) ([]raceReport, []string, error) {
	recs, err := st.RaceRecords(ctx, player)
	if err != nil {
		return nil, nil, fmt.Errorf("race records: %w", err)
	}
	var reps []raceReport
	var rules []string
	for _, rr := range recs {
		if rr.Races == 0 && rr.Unrated == 0 {
			continue
		}
		rep := raceReport{Races: rr.Races, Wins: rr.Wins, Podiums: rr.Podiums, Unrated: rr.Unrated}
		if rr.Races > 0 {
			rep.Rating, rep.Provisional, rep.Opponents = round2(rr.Rating.Display), rr.Rating.Provisional, rr.Rating.Opponents
			rep.Mu, rep.Sigma = round2(rr.Rating.Mu), round2(rr.Rating.Sigma)
			hist, err := st.RatingHistory(ctx, player, rr.RulesID, RatingHistoryLen)
			if err != nil {
				return nil, nil, fmt.Errorf("rating history: %w", err)
			}
			for _, p := range hist {
				rep.History = append(rep.History, ratingPoint{At: p.At.UTC(), Rating: round2(p.Rating.Display)})
			}
		}
		reps = append(reps, rep)
		rules = append(rules, rr.RulesID)
	}
	return reps, rules, nil
}

// addRaceRecords puts the player's race figures beside their game
// records: on the line of the rule set, or on a line of its own for a
// rule set only raced.
func (c *call) addRaceRecords(reps []statsReport, only string) ([]statsReport, error) {
	ctx, cancel := c.timeout()
	defer cancel()
	races, rules, err := raceFigures(ctx, c.a.cfg.Store, c.player)
	if err != nil {
		return reps, err
	}
	for i, id := range rules {
		if only != "" && id != only {
			continue
		}
		rep := &races[i]
		found := false
		for j := range reps {
			if reps[j].Rules == id {
				reps[j].Race, found = rep, true
			}
		}
		if !found {
			reps = append(reps, statsReport{Rules: id, Race: rep})
		}
	}
	return reps, nil
}

// printRaceRecords prints the race figures of stats' text output.
func (c *call) printRaceRecords(reps []statsReport) {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	header, provisional := false, false
	for _, r := range reps {
		if r.Race == nil {
			continue
		}
		if !header {
			fmt.Fprintln(c.stdout)
			fmt.Fprintln(tw, "races\trated\twins\tpodiums\trating\tunrated")
			header = true
		}
		rt := "-"
		if r.Race.Races > 0 {
			rt = displayText(r.Race.Rating, r.Race.Provisional)
			provisional = provisional || r.Race.Provisional
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\n", rulesSpec(r.Rules), r.Race.Races, r.Race.Wins, r.Race.Podiums, rt, r.Race.Unrated)
	}
	_ = tw.Flush()
	if provisional {
		fmt.Fprintf(c.stdout, "(? a provisional rating: fewer than %d rated races or %d different opponents)\n",
			rating.ProvisionalRaces, rating.ProvisionalOpponents)
	}
}

// raceResultsReport is a stored race's results in replay --json: each
// placing, and how the race counted for the racer (docs/races.md, "What counts"):
// counted is "rated", "unrated" or "no race", why says why not in words
// ("moves faster than play"), the ratings are on the display scale.
type raceResultsReport struct {
	Rules    string          `json:"rules"`
	Racers   int             `json:"racers"`
	Rated    bool            `json:"rated"`
	Placings []placingReport `json:"placings"`
}

// placingReport is one placing of a raceResultsReport.
type placingReport struct {
	Place        int     `json:"place"`
	Name         string  `json:"name"`
	GameID       int64   `json:"game_id,omitempty"`
	Outcome      string  `json:"outcome,omitempty"`
	Removed      int     `json:"removed"`
	Moves        int     `json:"moves"`
	TimeMS       int64   `json:"time_ms"`
	Assisted     bool    `json:"assisted,omitempty"`
	Counted      string  `json:"counted"`
	Reason       string  `json:"reason,omitempty"`
	Why          string  `json:"why,omitempty"`
	Win          bool    `json:"win,omitempty"`
	Podium       bool    `json:"podium,omitempty"`
	RatingBefore float64 `json:"rating_before,omitempty"`
	RatingAfter  float64 `json:"rating_after,omitempty"`
	Provisional  bool    `json:"provisional,omitempty"`
}

// countedWord is how a race counted for a racer, as the results say it.
func countedWord(s rating.Standing) string {
	switch s {
	case rating.Rated:
		return "rated"
	case rating.Unrated:
		return "unrated"
	}
	return "no race"
}

// raceResults is a stored race as replay shows it.
func raceResults(race store.Race) *raceResultsReport {
	rep := &raceResultsReport{Rules: race.RulesID, Racers: max(race.Racers, len(race.Placings)), Rated: race.Rated}
	for _, p := range race.Placings {
		pr := placingReport{Place: p.Place, Name: playerName(p.PlayerName), GameID: p.GameID, Outcome: string(p.Outcome),
			Removed: p.Removed, Moves: p.Moves, TimeMS: p.Time.Milliseconds(), Assisted: p.Assisted,
			Counted: countedWord(p.Standing), Reason: string(p.Reason), Win: p.Win, Podium: p.Podium}
		if p.Reason != rating.ReasonNone {
			pr.Why = p.Reason.Words()
		}
		if p.Standing == rating.Rated {
			pr.RatingBefore, pr.RatingAfter, pr.Provisional = round2(p.Before.Display), round2(p.Rating.Display), p.Rating.Provisional
		}
		rep.Placings = append(rep.Placings, pr)
	}
	return rep
}

// printRaceResults ends replay's text of a race game with the player's
// line of the race: "race: 2nd of 3 · 1500 → 1521? +21", or why it did
// not count.
func (c *call) printRaceResults(rep *raceResultsReport, gameID int64) {
	if rep == nil {
		return
	}
	for _, p := range rep.Placings {
		if p.GameID != gameID {
			continue
		}
		fmt.Fprintln(c.stdout, "race: "+share.Ordinal(p.Place)+" of "+strconv.Itoa(rep.Racers)+" · "+countedText(p))
	}
}

// countedText is how a race counted for a racer, in words: "1500 →
// 1521? +21", or "unrated: " and why.
func countedText(p placingReport) string {
	if p.Counted == "rated" {
		before, after := int(math.Round(p.RatingBefore)), int(math.Round(p.RatingAfter))
		return fmt.Sprintf("%d → %s %+d", before, displayText(p.RatingAfter, p.Provisional), after-before)
	}
	return p.Counted + ": " + p.Why
}
