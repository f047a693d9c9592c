package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/rating"
	"pyramid/store"
)

// Bounds of what a page reads.
const (
	loadTimeout  = 3 * time.Second // the store's reads for one page
	boardLength  = 20              // lines of the daily board
	ratingLength = 10              // lines of each rule set's race ratings
	historyLen   = 100             // rated races in a rating chart
	racesShown   = 10              // a player's recent rated races
	arenasShown  = 10              // arenas of each phase on the front page
	pageWait     = 10 * time.Second
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"player": func(name string) string { return "/player/" + url.PathEscape(name) },
	"dur":    durationText,
	"rating": ratingText,
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"clock":  func(t time.Time) string { return t.UTC().Format("15:04 UTC") },
	"plus1":  func(i int) int { return i + 1 },
}

// durationText is a game's time as the terminal shows it: m:ss.
func durationText(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// ratingText is a rating on the display scale, "?" after a provisional
// one.
func ratingText(r store.Rating) string {
	s := fmt.Sprintf("%.0f", r.Display)
	if r.Provisional {
		s += "?"
	}
	return s
}

// raceRules are the rule sets whose race ratings the front page lists:
// the presets but the daily (a daily deal is not raced).
func raceRules() []engine.Rules {
	var out []engine.Rules
	for _, name := range engine.PresetNames() {
		if r, ok := engine.Preset(name); ok && !r.Daily {
			out = append(out, r)
		}
	}
	return out
}

// cleanName is a name as a page shows it: the store's names are valid
// already; a bad one still shows, its controls cleaned, and is escaped
// by the templates.
func cleanName(s string) string { return keys.Clean(s, keys.MaxNameWidth) }

// render writes the page named name, or a plain error when the template
// fails. Pages are rendered into a buffer first, so that a failure is
// never half a page.
func (s *Site) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		s.cfg.Logger.Error("web: render", "page", name, "err", err)
		http.Error(w, "The page could not be drawn.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(pageWait))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// fragment renders the template named name to a string, for a live
// event.
func (s *Site) fragment(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("web: render %s: %w", name, err)
	}
	return b.String(), nil
}

// errorPage is the data of an error page.
type errorPage struct {
	Title, Text string
}

func (s *Site) notFound(w http.ResponseWriter, _ *http.Request, text string) {
	s.render(w, http.StatusNotFound, "error.html", errorPage{Title: "Not found", Text: text})
}

func (s *Site) unavailable(w http.ResponseWriter, what string, err error) {
	s.cfg.Logger.Error("web: read the store", "what", what, "err", err)
	s.render(w, http.StatusServiceUnavailable, "error.html", errorPage{Title: "Unavailable",
		Text: "The server cannot reach its database just now; try again in a moment."})
}

// dailyBoard is today's daily board.
type dailyBoard struct {
	Title, Date string
	Entries     []store.DailyEntry
}

// raceBoard is one rule set's race ratings.
type raceBoard struct {
	Title, Spec string
	Entries     []store.RatingEntry
}

// frontData is what the front page shows.
type frontData struct {
	Online               int
	Connect, Fingerprint string
	Daily                dailyBoard
	Races                []raceBoard
	Arenas               arenaLists
}

// frontCache keeps the front page's store data for Config.CacheFor: a
// crowd loading the page costs the store one read a second or two.
type frontCache struct {
	mu     sync.Mutex
	at     time.Time
	daily  dailyBoard
	races  []raceBoard
	arenas arenaLists
}

// frontPage serves the front page.
func (s *Site) frontPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.frontData(r.Context())
	if err != nil {
		s.unavailable(w, "front page", err)
		return
	}
	s.render(w, http.StatusOK, "front.html", d)
}

// frontData returns the front page's data, from the cache when it is
// fresh; one reader loads it while the others wait for it.
func (s *Site) frontData(ctx context.Context) (frontData, error) {
	c := s.front
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.cfg.Now()
	if c.at.IsZero() || now.Sub(c.at) >= s.cfg.CacheFor {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		daily, err := s.loadDaily(ctx)
		if err != nil {
			return frontData{}, err
		}
		races := make([]raceBoard, 0, 8)
		for _, rules := range raceRules() {
			board, err := s.loadRatings(ctx, rules)
			if err != nil {
				return frontData{}, err
			}
			races = append(races, board)
		}
		arenas, err := s.loadArenas(ctx)
		if err != nil {
			return frontData{}, err
		}
		c.at, c.daily, c.races, c.arenas = now, daily, races, arenas
	}
	return frontData{Online: s.cfg.Arcade.Online(), Connect: s.cfg.Connect, Fingerprint: s.cfg.Fingerprint,
		Daily: c.daily, Races: c.races, Arenas: c.arenas}, nil
}

// loadDaily reads today's daily board from the store.
func (s *Site) loadDaily(ctx context.Context) (dailyBoard, error) {
	rules := engine.MustRules("daily")
	date := s.cfg.Now().UTC().Format(time.DateOnly)
	list, err := s.cfg.Store.Leaderboard(ctx, rules.ID(), date, boardLength)
	if err != nil {
		return dailyBoard{}, fmt.Errorf("daily board: %w", err)
	}
	for i := range list {
		list[i].PlayerName = cleanName(list[i].PlayerName)
	}
	return dailyBoard{Title: "The daily deal", Date: date, Entries: list}, nil
}

// loadRatings reads the race ratings of rules from the store.
func (s *Site) loadRatings(ctx context.Context, rules engine.Rules) (raceBoard, error) {
	list, err := s.cfg.Store.TopRatings(ctx, rules.ID(), ratingLength)
	if err != nil {
		return raceBoard{}, fmt.Errorf("race ratings of %s: %w", rules.ID(), err)
	}
	for i := range list {
		list[i].PlayerName = cleanName(list[i].PlayerName)
	}
	return raceBoard{Title: rules.Title(), Spec: rules.Spec(), Entries: list}, nil
}

// ratingRow is one rule set's line of a player's ratings.
type ratingRow struct {
	Title, Spec string
	store.RaceRecord
	Chart chart
}

// raceRow is one of a player's rated races as their page lists it.
type raceRow struct {
	ID           int64
	Ended        time.Time
	Title        string
	Place        int
	Racers       int
	Outcome      string
	Counted      string
	Rating       store.Rating
	Before       store.Rating
	Others       []string
	RatingChange string
}

// playerData is what a player's page shows.
type playerData struct {
	Name    string
	Since   time.Time
	Ratings []ratingRow
	Races   []raceRow
	Arenas  []ArenaResult
	// HasArenas: the site shows arenas, so the section is there, even
	// empty.
	HasArenas bool
}

// playerPage serves a player's public page: ratings per rule set with
// their history, recent rated races, arena results. Nothing else: no
// game in progress, no room, no key.
func (s *Site) playerPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, err := keys.NormalizeName(name); err != nil {
		s.notFound(w, r, "There is no player by that name.")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), loadTimeout)
	defer cancel()
	p, err := s.cfg.Store.PlayerByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.BannedAt(s.cfg.Now())) {
		s.notFound(w, r, "There is no player by that name.")
		return
	}
	if err != nil {
		s.unavailable(w, "player", err)
		return
	}
	d, err := s.playerData(ctx, p)
	if err != nil {
		s.unavailable(w, "player", err)
		return
	}
	s.render(w, http.StatusOK, "player.html", d)
}

// playerData reads a player's public record.
func (s *Site) playerData(ctx context.Context, p store.Player) (playerData, error) {
	d := playerData{Name: cleanName(p.Name), Since: p.Created}
	recs, err := s.cfg.Store.RaceRecords(ctx, p.ID)
	if err != nil {
		return d, fmt.Errorf("race records: %w", err)
	}
	for _, rec := range recs {
		if rec.Rating.Races == 0 {
			continue // raced, never rated: nothing to chart
		}
		hist, err := s.cfg.Store.RatingHistory(ctx, p.ID, rec.RulesID, historyLen)
		if err != nil {
			return d, fmt.Errorf("rating history: %w", err)
		}
		row := ratingRow{Title: rec.RulesID, Spec: rec.RulesID, RaceRecord: rec, Chart: newChart(hist)}
		if rules, err := engine.ParseRules(rec.RulesID); err == nil {
			row.Title, row.Spec = rules.Title(), rules.Spec()
		}
		d.Ratings = append(d.Ratings, row)
	}
	races, err := s.cfg.Store.RatedRaces(ctx, p.ID, racesShown)
	if err != nil {
		return d, fmt.Errorf("rated races: %w", err)
	}
	for _, race := range races {
		if row, ok := raceRowOf(race, p.ID); ok {
			d.Races = append(d.Races, row)
		}
	}
	if ar, ok := s.cfg.Arenas.(ArenaResults); ok {
		d.HasArenas = true
		if d.Arenas, err = ar.PlayerArenas(ctx, p.ID, racesShown); err != nil {
			return d, fmt.Errorf("arena results: %w", err)
		}
		for i := range d.Arenas {
			d.Arenas[i].Arena.Name = arenaName(d.Arenas[i].Arena.Name)
		}
	}
	return d, nil
}

// raceRowOf is the player's line of a race; ok is false when they are
// not placed in it.
func raceRowOf(race store.Race, playerID string) (raceRow, bool) {
	i := slices.IndexFunc(race.Placings, func(pl store.RacePlacing) bool { return pl.PlayerID == playerID })
	if i < 0 {
		return raceRow{}, false
	}
	me := race.Placings[i]
	row := raceRow{ID: race.ID, Ended: race.Ended, Title: race.RulesID, Place: me.Place, Racers: race.Racers,
		Outcome: string(me.Outcome), Rating: me.Rating, Before: me.Before}
	if rules, err := engine.ParseRules(race.RulesID); err == nil {
		row.Title = rules.Title()
	}
	switch {
	case me.Standing == rating.Rated:
		row.Counted = "rated"
		if me.Before.Display != 0 { // kept since races stored it
			row.RatingChange = fmt.Sprintf("%+.0f", me.Rating.Display-me.Before.Display)
		}
	case me.Reason != rating.ReasonNone:
		row.Counted = "unrated: " + string(me.Reason)
	default:
		row.Counted = me.Standing.String()
	}
	for _, pl := range race.Placings {
		if pl.PlayerID != playerID {
			row.Others = append(row.Others, cleanName(pl.PlayerName))
		}
	}
	return row, true
}

// chart is a rating history drawn as an inline SVG line.
type chart struct {
	// Points is the polyline's points in the view box; empty for no
	// history.
	Points         string
	Width, Height  int
	Min, Max       string
	First, Last    string
	From, To       time.Time
	LastX, LastY   float64
	Races          int
	GridY1, GridY2 float64
}

// newChart draws the display ratings of hist, oldest first, in a 320 ×
// 100 box with a margin for the dots.
func newChart(hist []store.RatingPoint) chart {
	c := chart{Width: 320, Height: 100, Races: len(hist)}
	if len(hist) == 0 {
		return c
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range hist {
		lo, hi = min(lo, p.Rating.Display), max(hi, p.Rating.Display)
	}
	if hi-lo < 20 { // a flat line in the middle, not noise blown up
		mid := (hi + lo) / 2
		lo, hi = mid-10, mid+10
	}
	const mx, my = 6.0, 8.0
	w, h := float64(c.Width)-2*mx, float64(c.Height)-2*my
	var b strings.Builder
	for i, p := range hist {
		x := mx + w/2
		if len(hist) > 1 {
			x = mx + w*float64(i)/float64(len(hist)-1)
		}
		y := my + h*(hi-p.Rating.Display)/(hi-lo)
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y)
		c.LastX, c.LastY = x, y
	}
	c.Points = b.String()
	c.Min, c.Max = fmt.Sprintf("%.0f", lo), fmt.Sprintf("%.0f", hi)
	c.First, c.Last = fmt.Sprintf("%.0f", hist[0].Rating.Display), fmt.Sprintf("%.0f", hist[len(hist)-1].Rating.Display)
	c.From, c.To = hist[0].At, hist[len(hist)-1].At
	c.GridY1, c.GridY2 = my, my+h
	return c
}

// statusData is /status, as a page and as JSON.
type statusData struct {
	Up                bool      `json:"up"`
	Version           string    `json:"version"`
	Instances         []string  `json:"instances"`
	DatabaseReachable bool      `json:"database_reachable"`
	Online            int       `json:"online"`
	Time              time.Time `json:"time"`
}

// statusPage serves /status: a page, or JSON when the client asks for
// application/json. The database's own error words go to the log only.
func (s *Site) statusPage(w http.ResponseWriter, r *http.Request) {
	d := statusData{Up: true, Version: s.cfg.Version, Instances: s.cfg.Arcade.Instances(),
		Online: s.cfg.Arcade.Online(), Time: s.cfg.Now().UTC()}
	if s.cfg.DB != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		err := s.cfg.DB.Ping(ctx)
		cancel()
		d.DatabaseReachable = err == nil
		if err != nil {
			s.cfg.Logger.Warn("web: status: database", "err", err)
		}
	}
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(d)
		return
	}
	s.render(w, http.StatusOK, "status.html", d)
}

// wantsJSON reports whether the request's Accept names JSON.
func wantsJSON(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(mt), "application/json") {
				return true
			}
		}
	}
	return false
}

// rulesTitle is a rule set's title by its ID, or the ID when it does not
// parse.
func rulesTitle(id string) string {
	if r, err := engine.ParseRules(id); err == nil {
		return r.Title()
	}
	return id
}
