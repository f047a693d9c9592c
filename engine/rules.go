package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Cover says when a pyramid card may be paired.
type Cover uint8

const (
	// CoverStrict: a card is available only when both cards covering it
	// are gone (every seed plays this).
	CoverStrict Cover = iota
	// CoverOverlap: in addition, a card may pair with the single card
	// still covering it, when that card is itself available.
	CoverOverlap
)

// Goal says when a game is won.
type Goal uint8

const (
	// GoalPyramid: the game is won when the pyramid is cleared; cards left
	// in the stock or waste do not matter.
	GoalPyramid Goal = iota
	// GoalAll: every card, stock and waste included, must be removed.
	GoalAll
)

// Rules is one rule set: every knob of the rule model. The zero value is
// not valid; start from a preset (Preset, ParseRules).
type Rules struct {
	// Decks is 1 (7 rows, 28 + 24 stock) or 2 (9 rows, 45 + 59 stock).
	Decks int
	// Passes is the number of trips through the stock: 1, 2, 3, or 0 for
	// unlimited. 3 passes = the first and two redeals.
	Passes int
	// StockOpen makes the stock's top card face up and available.
	StockOpen bool
	// PyramidPairs requires at least one card of every pair to come from
	// the pyramid: two pile cards never pair.
	PyramidPairs bool
	// Cover is the cover rule.
	Cover Cover
	// Draw is the number of waste piles: 1, or 3 (a draw deals the next
	// three stock cards one onto each pile; each pile's top is available).
	Draw int
	// Goal is what wins the game.
	Goal Goal
	// Daily marks the daily-deal rule set: the same knobs as Classic, its
	// own records, one deal per UTC day for everybody.
	Daily bool
}

// preset is a named rule set.
type preset struct {
	name, title string
	rules       Rules
}

// presets are the named rule sets, in menu order.
var presets = [...]preset{
	{"classic", "Classic", Rules{Decks: 1, Passes: 3, Draw: 1}},
	{"relaxed", "Relaxed", Rules{Decks: 1, Passes: 0, Draw: 1}},
	{"open-stock", "Open stock", Rules{Decks: 1, Passes: 3, StockOpen: true, Draw: 1}},
	{"one-pass", "One pass", Rules{Decks: 1, Passes: 1, Draw: 1}},
	{"easy", "Easy", Rules{Decks: 1, Passes: 2, Draw: 1}},
	{"draw-three", "Draw three", Rules{Decks: 1, Passes: 1, Draw: 3}},
	{"double", "Double", Rules{Decks: 2, Passes: 3, PyramidPairs: true, Draw: 1}},
	{"daily", "Daily", Rules{Decks: 1, Passes: 3, Draw: 1, Daily: true}},
}

// PresetNames lists the named rule sets in menu order.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return names
}

// Preset returns a named rule set.
func Preset(name string) (Rules, bool) {
	for _, p := range presets {
		if p.name == name {
			return p.rules, true
		}
	}
	return Rules{}, false
}

// Classic is the classic rule set: one deck, three passes, closed stock.
func Classic() Rules { r, _ := Preset("classic"); return r }

// knob describes one rule knob of a spec: its name, its values and how to
// read and write it.
type knob struct {
	name   string
	values []string
	get    func(Rules) string
	set    func(*Rules, string)
}

var knobs = [...]knob{
	{"decks", []string{"1", "2"},
		func(r Rules) string { return strconv.Itoa(r.Decks) },
		func(r *Rules, v string) { r.Decks, _ = strconv.Atoi(v) }},
	{"passes", []string{"1", "2", "3", "unlimited"},
		func(r Rules) string {
			if r.Passes == 0 {
				return "unlimited"
			}
			return strconv.Itoa(r.Passes)
		},
		func(r *Rules, v string) { r.Passes, _ = strconv.Atoi(v) }}, // "unlimited" → 0
	{"stock", []string{"closed", "open"},
		func(r Rules) string { return pick(r.StockOpen, "open", "closed") },
		func(r *Rules, v string) { r.StockOpen = v == "open" }},
	{"pairs", []string{"any", "pyramid"},
		func(r Rules) string { return pick(r.PyramidPairs, "pyramid", "any") },
		func(r *Rules, v string) { r.PyramidPairs = v == "pyramid" }},
	{"cover", []string{"strict", "overlap"},
		func(r Rules) string { return pick(r.Cover == CoverOverlap, "overlap", "strict") },
		func(r *Rules, v string) { r.Cover = Cover(pickInt(v == "overlap")) }},
	{"draw", []string{"1", "3"},
		func(r Rules) string { return strconv.Itoa(r.Draw) },
		func(r *Rules, v string) { r.Draw, _ = strconv.Atoi(v) }},
	{"goal", []string{"pyramid", "all"},
		func(r Rules) string { return pick(r.Goal == GoalAll, "all", "pyramid") },
		func(r *Rules, v string) { r.Goal = Goal(pickInt(v == "all")) }},
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func pickInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// KnobNames lists the knobs a rule spec may set, in canonical order.
func KnobNames() []string {
	names := make([]string, len(knobs))
	for i, k := range knobs {
		names[i] = k.name
	}
	return names
}

// KnobValues lists the values a knob accepts, or nil for an unknown knob.
func KnobValues(name string) []string {
	for _, k := range knobs {
		if k.name == name {
			return append([]string(nil), k.values...)
		}
	}
	return nil
}

// Knob returns the value of a knob in r, as a spec writes it.
func (r Rules) Knob(name string) string {
	for _, k := range knobs {
		if k.name == name {
			return k.get(r)
		}
	}
	return ""
}

// SetKnob sets one knob by name and value, as in a spec's "name=value".
func (r *Rules) SetKnob(name, value string) error {
	for _, k := range knobs {
		if k.name != name {
			continue
		}
		for _, v := range k.values {
			if v == value {
				k.set(r, value)
				return nil
			}
		}
		return fmt.Errorf("rules: bad value %q for %s: want one of %s", value, name, strings.Join(k.values, ", "))
	}
	return fmt.Errorf("rules: unknown knob %q: want one of %s", name, strings.Join(KnobNames(), ", "))
}

// MaxSpecLen bounds a rule spec; anything longer is refused unread.
const MaxSpecLen = 256

// ParseRules reads a rule spec: a preset name optionally followed by
// ",knob=value" pairs, e.g. "classic,cover=overlap,passes=2". A spec may
// also start with a knob, in which case it starts from classic. Names and
// values are case-insensitive; spaces around the parts are ignored. A knob
// given twice is refused rather than the last value silently winning.
// Every error names the bad part and lists the valid values.
func ParseRules(spec string) (Rules, error) {
	if len(spec) > MaxSpecLen {
		return Rules{}, fmt.Errorf("rules: spec is %d bytes long, at most %d", len(spec), MaxSpecLen)
	}
	parts := strings.Split(strings.ToLower(spec), ",")
	r := Classic()
	seen := make(map[string]string, len(knobs))
	for i, part := range parts {
		part = strings.TrimSpace(part)
		name, value, isKnob := strings.Cut(part, "=")
		if !isKnob {
			if i != 0 {
				return Rules{}, fmt.Errorf("rules: %q is not a knob=value pair (knobs: %s)", part, strings.Join(KnobNames(), ", "))
			}
			p, ok := Preset(part)
			if !ok {
				return Rules{}, fmt.Errorf("rules: unknown rule set %q: want one of %s, optionally followed by ,knob=value", part, strings.Join(PresetNames(), ", "))
			}
			r = p
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if err := r.SetKnob(name, value); err != nil {
			return Rules{}, err
		}
		if prev, twice := seen[name]; twice {
			return Rules{}, fmt.Errorf("rules: %s is given twice (%s=%s and %s=%s): give it once", name, name, prev, name, value)
		}
		seen[name] = value
	}
	return r, nil
}

// MustRules is ParseRules for specs known to be valid, such as constants
// in tests and examples; it panics on a bad spec.
func MustRules(spec string) Rules {
	r, err := ParseRules(spec)
	if err != nil {
		panic(err)
	}
	return r
}

// Validate reports whether every knob holds a valid value.
func (r Rules) Validate() error {
	switch {
	case r.Decks != 1 && r.Decks != 2:
		return fmt.Errorf("rules: decks is %d: want 1 or 2", r.Decks)
	case r.Passes < 0 || r.Passes > 3:
		return fmt.Errorf("rules: passes is %d: want 1, 2, 3 or unlimited", r.Passes)
	case r.Draw != 1 && r.Draw != 3:
		return fmt.Errorf("rules: draw is %d: want 1 or 3", r.Draw)
	case r.Cover > CoverOverlap:
		return fmt.Errorf("rules: bad cover rule %d", r.Cover)
	case r.Goal > GoalAll:
		return fmt.Errorf("rules: bad goal %d", r.Goal)
	}
	return nil
}

// ID is the rule set's canonical ID, under which records are kept: the
// preset name when the knobs are exactly a preset's, otherwise every knob
// in canonical order ("decks=1,passes=2,…"), after "daily," for a changed
// daily set. An ID parses back to the same rules.
func (r Rules) ID() string {
	for _, p := range presets {
		if p.rules == r {
			return p.name
		}
	}
	var b strings.Builder
	if r.Daily {
		b.WriteString("daily,")
	}
	for i, k := range knobs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k.name)
		b.WriteByte('=')
		b.WriteString(k.get(r))
	}
	return b.String()
}

// Title is the rule set's name for players: a preset's title ("Classic",
// "Double"), or for custom rules the nearest preset's and the knobs that
// differ from it ("Classic, cover=overlap", "Daily: One pass, draw=3"):
// the one name every screen and command shows.
func (r Rules) Title() string {
	p, diff := r.nearest()
	if p.rules == r {
		return p.title
	}
	t := strings.Join(append([]string{p.title}, diff...), ", ")
	if r.Daily {
		t = "Daily: " + t
	}
	return t
}

// Spec is the shortest spec that plays the rule set: a preset's name, or
// the nearest preset's and the knobs that differ ("classic,cover=overlap",
// "daily,passes=1"). It parses back to the same rules.
func (r Rules) Spec() string {
	p, diff := r.nearest()
	if p.rules != r && r.Daily {
		// A spec names one preset, and the daily's changes are from it.
		p, diff = r.nearestOf(func(p preset) bool { return p.rules.Daily })
	}
	return strings.Join(append([]string{p.name}, diff...), ",")
}

// nearest is the preset r is, or for custom rules the preset of no daily
// deal that differs from r (without its daily flag) in the fewest knobs,
// the first in menu order among equals, and those knobs as name=value.
func (r Rules) nearest() (preset, []string) {
	for _, p := range presets {
		if p.rules == r {
			return p, nil
		}
	}
	return r.nearestOf(func(p preset) bool { return !p.rules.Daily })
}

// nearestOf is the preset among those of which that differs from r in the
// fewest knobs (the first in menu order among equals), and those knobs.
func (r Rules) nearestOf(of func(preset) bool) (preset, []string) {
	var best preset
	var bestDiff []string
	found := false
	for _, p := range presets {
		if !of(p) {
			continue
		}
		if diff := r.knobsApart(p.rules); !found || len(diff) < len(bestDiff) {
			best, bestDiff, found = p, diff, true
		}
	}
	return best, bestDiff
}

// knobsApart lists the knobs whose values in r differ from o's, as
// name=value in canonical order.
func (r Rules) knobsApart(o Rules) []string {
	var diff []string
	for _, k := range knobs {
		if v := k.get(r); v != k.get(o) {
			diff = append(diff, k.name+"="+v)
		}
	}
	return diff
}

// Describe is a one-line summary of the knobs for players, e.g.
// "1 deck · 3 passes · stock closed · any pairs · strict cover · 1 waste · clear the pyramid".
func (r Rules) Describe() string {
	passes := "unlimited passes"
	if r.Passes == 1 {
		passes = "1 pass"
	} else if r.Passes > 1 {
		passes = strconv.Itoa(r.Passes) + " passes"
	}
	decks := pick(r.Decks == 2, "2 decks", "1 deck")
	goal := pick(r.Goal == GoalAll, "remove every card", "clear the pyramid")
	piles := pick(r.Draw == 3, "3 waste piles", "1 waste pile")
	pairs := pick(r.PyramidPairs, "a pyramid card in every pair", "any pairs")
	return strings.Join([]string{decks, passes, "stock " + r.Knob("stock"),
		pairs, r.Knob("cover") + " cover", piles, goal}, " · ")
}

// Rows is the number of pyramid rows: 7 for one deck, 9 for two.
func (r Rules) Rows() int { return pick2(r.Decks == 2, 9, 7) }

// PyramidSize is the number of pyramid cards: 28 or 45.
func (r Rules) PyramidSize() int { n := r.Rows(); return n * (n + 1) / 2 }

// DeckSize is the number of cards dealt: 52 or 104.
func (r Rules) DeckSize() int { return 52 * r.Decks }

// StockSize is the number of cards in the stock at the start: 24 or 59.
func (r Rules) StockSize() int { return r.DeckSize() - r.PyramidSize() }

func pick2(b bool, yes, no int) int {
	if b {
		return yes
	}
	return no
}
