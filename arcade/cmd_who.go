package arcade

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/lobby"
)

// whoEntry is one line of who --json: a player online and what they do.
type whoEntry struct {
	Name  string `json:"name"`
	Guest bool   `json:"guest,omitempty"`
	// Doing is menu, playing, racing or watching.
	Doing string `json:"doing"`
	// Phase (racing in a room only) is where the room stands: waiting,
	// racing or results.
	Phase string `json:"phase,omitempty"`
	Rules string `json:"rules,omitempty"`
	// Deal is a string: deal numbers go beyond what a JSON number holds
	// exactly (2^53); "custom" for a deal given as text.
	Deal string `json:"deal,omitempty"`
	Room string `json:"room,omitempty"`
	// Private (racing only): the room is private; its code and deal are
	// not told (absent).
	Private bool `json:"private,omitempty"`
	Removed *int `json:"removed,omitempty"` // playing and racing only
	// Finished (playing only): the game is over, won or lost, and the
	// player is still at its table.
	Finished bool   `json:"finished,omitempty"`
	Watching string `json:"watching,omitempty"`
}

// whoEntries is the lobby's snapshot as who prints it, names cleaned.
func whoEntries(who []lobby.Presence) []whoEntry {
	out := make([]whoEntry, 0, len(who))
	for _, p := range who {
		e := whoEntry{Name: keys.Clean(p.Name, keys.MaxNameWidth), Guest: p.Guest, Doing: string(p.What)}
		switch p.What {
		case lobby.Playing, lobby.Racing:
			e.Rules = keys.Clean(p.Rules, 60)
			switch {
			case p.Private:
				e.Private = true
			case p.Custom:
				e.Deal = "custom"
			default:
				e.Deal = strconv.FormatUint(p.Deal, 10)
			}
			removed := p.Removed
			e.Removed = &removed
			e.Finished = p.What == lobby.Playing && p.Finished
			if p.What == lobby.Racing {
				e.Room = keys.Clean(p.Room, 8)
				if e.Phase = string(p.Phase); e.Phase == "" && (e.Room != "" || e.Private) {
					e.Phase = string(lobby.RaceRunning)
				}
			}
		case lobby.Watching:
			e.Watching = keys.Clean(p.Watched, keys.MaxNameWidth)
		}
		out = append(out, e)
	}
	return out
}

// describe is what a who line says a player is doing.
func (e whoEntry) describe() string {
	game := func() string {
		title := e.Rules
		total := ""
		if r, err := engine.ParseRules(e.Rules); err == nil {
			title, total = r.Title(), "/"+strconv.Itoa(r.PyramidSize())
		}
		deal := " · deal " + e.Deal
		if e.Deal == "" {
			deal = "" // a private room's
		}
		if e.Phase == string(lobby.RaceWaiting) {
			return title + deal // no card is removed before the start
		}
		return fmt.Sprintf("%s%s · %d%s removed", title, deal, *e.Removed, total)
	}
	switch e.Doing {
	case string(lobby.Playing):
		if e.Finished {
			return "finished " + game()
		}
		return "playing " + game()
	case string(lobby.Racing):
		room := "room " + e.Room
		switch {
		case e.Private:
			room = "a private room"
		case e.Room == "":
			return "racing a ghost · " + game()
		}
		switch lobby.RacePhase(e.Phase) {
		case lobby.RaceWaiting:
			return "waiting in " + room + " · " + game()
		case lobby.RaceResults:
			return "at the results of " + room + " · " + game()
		}
		return "racing in " + room + " · " + game()
	case string(lobby.Watching):
		return "watching " + e.Watching
	}
	return "in the menu"
}

// who prints who is online on this server and what each is doing
// (the "who" command). Guests may ask; it needs no store.
func (c *call) who() int {
	// who takes one flag: parsed here rather than with a flag set, so the
	// command stands on its own beside the dispatcher.
	asJSON := false
	for _, arg := range c.args {
		if arg != "--json" && arg != "-json" {
			fmt.Fprintf(c.stderr, "pyramid: who: unexpected argument \"%s\"\nusage: who [--json]\n", keys.Clean(arg, 40))
			return 2
		}
		asJSON = true
	}
	entries := whoEntries(c.a.lobby.Who())
	if asJSON {
		return c.writeJSON(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(c.stdout, "nobody is playing right now")
		return 0
	}
	fmt.Fprintf(c.stdout, "%d online\n", len(entries))
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		name := e.Name
		if e.Guest {
			name += " (guest)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, e.describe())
	}
	_ = tw.Flush()
	return 0
}
