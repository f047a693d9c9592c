package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// raceKind is what a race request asks for.
type raceKind uint8

const (
	raceQuick raceKind = iota // race: quick match
	raceNew                   // race new …: a new room
	raceJoin                  // race CODE: join a room
	raceWatch                 // race watch CODE: watch a room
)

// raceReq is a race deep link, or the menu's choice.
type raceReq struct {
	kind raceKind
	code string
	opt  RoomOptions
	// late: the player asked to join room code, whose race had started;
	// they watch it instead.
	late bool
}

// isRaceLink reports whether a deep link is a race's.
func isRaceLink(args []string) bool {
	return len(args) > 0 && strings.EqualFold(strings.TrimSpace(args[0]), "race")
}

// codeWords is the room code of a deep link's words: one word as it is
// (the room checks it, and says what a code is), or several that make a
// code together, as a player types one in groups ("race kdx wyc").
func codeWords(words []string) (string, bool) {
	switch len(words) {
	case 0:
		return "", false
	case 1:
		return words[0], true
	}
	code, err := lobby.ParseCode(strings.Join(words, " "))
	return code, err == nil
}

// parseRaceLink reads the words after "race": nothing (quick match), a
// room code, watch CODE, or new [RULES] [DEAL] [--public] [--time 10m]
// [--max N].
func parseRaceLink(args []string) (raceReq, error) {
	if len(args) == 0 {
		return raceReq{kind: raceQuick}, nil
	}
	if strings.EqualFold(args[0], "watch") {
		code, ok := codeWords(args[1:])
		if !ok {
			return raceReq{}, errors.New("race watch takes a room code: race watch " + lobby.CodeAlphabet[:lobby.CodeLen])
		}
		return raceReq{kind: raceWatch, code: code}, nil
	}
	if !strings.EqualFold(args[0], "new") {
		code, ok := codeWords(args)
		if !ok {
			return raceReq{}, errors.New("race takes a room code (race " + lobby.CodeAlphabet[:lobby.CodeLen] +
				"), new (race new [RULES] [DEAL]) or nothing (quick match)")
		}
		return raceReq{kind: raceJoin, code: code}, nil
	}
	req := raceReq{kind: raceNew, opt: RoomOptions{Rules: engine.Classic()}}
	var words []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
			continue
		}
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(rest) {
				return "", fmt.Errorf("--%s needs a value", name)
			}
			i++
			return rest[i], nil
		}
		switch name {
		case "public":
			req.opt.Public = true
		case "private":
			req.opt.Public = false
		case "time":
			v, err := value()
			if err != nil {
				return raceReq{}, err
			}
			d, err := time.ParseDuration(v)
			if err != nil {
				if n, nerr := strconv.Atoi(v); nerr == nil {
					d, err = time.Duration(n)*time.Minute, nil
				}
			}
			if err != nil || d < lobby.MinTimeLimit || d > lobby.MaxTimeLimit {
				return raceReq{}, fmt.Errorf("--time %q: want %v to %v, e.g. 10m", clean(v, 20), lobby.MinTimeLimit, lobby.MaxTimeLimit)
			}
			req.opt.TimeLimit = d
		case "max":
			v, err := value()
			if err != nil {
				return raceReq{}, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < lobby.MinRacers || n > lobby.MaxRacers {
				return raceReq{}, fmt.Errorf("--max %q: want %d to %d players", clean(v, 20), lobby.MinRacers, lobby.MaxRacers)
			}
			req.opt.Max = n
		default:
			return raceReq{}, fmt.Errorf("unknown option --%s (race new takes --public, --time and --max)", clean(name, 20))
		}
	}
	if len(words) > 2 {
		return raceReq{}, errors.New("race new takes a rule set and a deal number at most, e.g. race new classic 42")
	}
	if len(words) > 0 {
		if n, err := parseDealNumber(words[0]); err == nil && len(words) == 1 {
			req.opt.Deal, req.opt.HasDeal = n, true
			return req, nil
		}
		r, err := engine.ParseRules(words[0])
		if err != nil {
			return raceReq{}, err
		}
		if r.Daily {
			return raceReq{}, errors.New("a race has its own deal: race new classic, not daily")
		}
		req.opt.Rules = r
	}
	if len(words) == 2 {
		n, err := parseDealNumber(words[1])
		if err != nil {
			return raceReq{}, err
		}
		req.opt.Deal, req.opt.HasDeal = n, true
	}
	return req, nil
}
