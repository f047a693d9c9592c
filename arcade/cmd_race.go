package arcade

import (
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"pyramid/engine"
	"pyramid/keys"
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

// ratingReport is one line of top race --json.
type ratingReport struct {
	Rank    int     `json:"rank"`
	Name    string  `json:"name"`
	Ordinal float64 `json:"ordinal"`
	Mu      float64 `json:"mu"`
	Sigma   float64 `json:"sigma"`
	Races   int     `json:"races"`
	Wins    int     `json:"wins"`
	You     bool    `json:"you,omitempty"`
}

// topRace lists the race ratings of a rule set (top race [RULES]):
// ordinal μ−3σ, highest first.
func (c *call) topRace(args []string, asJSON bool) int {
	r := engine.Classic()
	if len(args) > 1 {
		return c.usageErr(fmt.Sprintf("unexpected argument \"%s\"", word(args[1])))
	}
	if len(args) == 1 {
		var err error
		if r, err = engine.ParseRules(args[0]); err != nil {
			return c.fail(err.Error())
		}
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.cfg.Store.TopRatings(ctx, r.ID(), 20)
	if err != nil {
		return c.storeErr("top race", err)
	}
	reps := make([]ratingReport, 0, len(list))
	for _, e := range list {
		reps = append(reps, ratingReport{Rank: e.Rank, Name: playerName(e.PlayerName), Ordinal: round2(e.Ordinal),
			Mu: round2(e.Mu), Sigma: round2(e.Sigma), Races: e.Races, Wins: e.Wins, You: e.PlayerID == c.player})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	fmt.Fprintf(c.stdout, "%s (%s): race ratings (μ−3σ)\n", r.Title(), r.ID())
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "no rated races yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\trating\traces\twins")
	for _, e := range reps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\n", e.Rank, e.Name, ratingText(e.Ordinal), e.Races, e.Wins)
	}
	_ = tw.Flush()
	return 0
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

// ratingText is a rating with one decimal for the text tables: one
// that rounds to zero is "0.0", never "-0.0".
func ratingText(x float64) string {
	s := strconv.FormatFloat(x, 'f', 1, 64)
	if s == "-0.0" {
		return "0.0"
	}
	return s
}

// raceReport is a rule set's race figures in stats --json: races, wins
// and podiums of rated races, and apart from them the unrated races (on
// a deal their host chose), which change no rating.
type raceReport struct {
	Races   int     `json:"races"`
	Wins    int     `json:"wins"`
	Podiums int     `json:"podiums"`
	Rating  float64 `json:"rating"`
	Unrated int     `json:"unrated"`
}

// addRaceRecords puts the player's race figures beside their game
// records: on the line of the rule set, or on a line of its own for a
// rule set only raced.
func (c *call) addRaceRecords(reps []statsReport, only string) ([]statsReport, error) {
	ctx, cancel := c.timeout()
	defer cancel()
	recs, err := c.a.cfg.Store.RaceRecords(ctx, c.player)
	if err != nil {
		return reps, fmt.Errorf("race records: %w", err)
	}
	for _, rr := range recs {
		if only != "" && rr.RulesID != only || rr.Races == 0 && rr.Unrated == 0 {
			continue
		}
		rep := &raceReport{Races: rr.Races, Wins: rr.Wins, Podiums: rr.Podiums, Rating: round2(rr.Rating.Ordinal),
			Unrated: rr.Unrated}
		found := false
		for i := range reps {
			if reps[i].Rules == rr.RulesID {
				reps[i].Race, found = rep, true
			}
		}
		if !found {
			reps = append(reps, statsReport{Rules: rr.RulesID, Race: rep})
		}
	}
	return reps, nil
}

// printRaceRecords prints the race figures of stats' text output.
func (c *call) printRaceRecords(reps []statsReport) {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	header := false
	for _, r := range reps {
		if r.Race == nil {
			continue
		}
		if !header {
			fmt.Fprintln(c.stdout)
			fmt.Fprintln(tw, "races\trated\twins\tpodiums\trating\tunrated")
			header = true
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\n", r.Rules, r.Race.Races, r.Race.Wins, r.Race.Podiums, ratingText(r.Race.Rating),
			r.Race.Unrated)
	}
	_ = tw.Flush()
}

// raceNeedsTerminal is what a race deep link without a terminal is told.
func raceNeedsTerminal(c *call) int {
	return c.fail("race opens a race room, which needs a terminal: add -t (ssh -t … race), or list the public rooms with rooms")
}
