package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The arena's page across the cluster: an admin sets an arena up on
// instance one, two live streams of its page open through the balancer's
// HTTP front end (one on each instance: the script's instances take one
// open request per address each, and both come from one address), erin
// joins it on instance one and frank on instance two, and each stream
// shows both of them racing, then the top game's first move, whichever
// of the two instances its racer plays on: each stream follows a player
// of the other instance.

// arenaSetUpRE reads arena new's answer.
var arenaSetUpRE = regexp.MustCompile(`arena (\d+) set up`)

// arenaPage runs the arena's part of the rehearsal; web is the
// balancer's HTTP front end, webFrom the address the streams come from.
func (r *rehearsal) arenaPage(web, webFrom string, admin, erin, frank *player) error {
	out, err := command(r.one, r.from(), admin, "arena new classic --start now --duration 30m --game 5m --name cluster-page")
	if err != nil {
		return err
	}
	m := arenaSetUpRE.FindStringSubmatch(out)
	if m == nil {
		return fmt.Errorf("arena new: %q, want the new arena's number", out)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	ok("an admin set arena %d up on instance one", id)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := fmt.Sprintf("%s/arena/%d/events", strings.TrimSuffix(web, "/"), id)
	// A stream the balancer sent where this address has one already is
	// refused (429): the balancer's count of a server's connections may
	// still hold a request just closed, so the second stream tries again
	// until it lands on the other instance.
	var streams []*pageStream
	for i := range 2 {
		s, err := openStream(ctx, url, webFrom)
		for try := 0; try < 20 && errors.Is(err, errRefused); try++ {
			time.Sleep(250 * time.Millisecond)
			s, err = openStream(ctx, url, webFrom)
		}
		if err != nil {
			return fmt.Errorf("live stream %d of %s from %s: %w", i+1, url, webFrom, err)
		}
		streams = append(streams, s)
	}
	ok("two live streams of arena %d's page through the balancer from %s: one on each instance", id, webFrom)

	for _, p := range []struct {
		p          *player
		inst, addr string
	}{{erin, "one", r.one}, {frank, "two", r.two}} {
		if err := p.p.open(p.inst, p.addr, fmt.Sprintf("arena %d", id)); err != nil {
			return err
		}
	}
	for _, p := range []*player{erin, frank} {
		// The board and its stock show once the countdown is over.
		if _, err := p.waitScreen("the arena race's board", func(s string) bool {
			return strings.Contains(s, "0/28 removed · 0 moves") && strings.Contains(s, "stock")
		}); err != nil {
			return err
		}
	}
	ok("erin on instance one and frank on instance two race each other in the arena")
	for i, s := range streams {
		if _, err := s.waitFor(r.wait, "standings", func(d string) bool {
			return strings.Contains(d, ">erin<") && strings.Contains(d, ">frank<") && strings.Contains(d, "2 racing")
		}); err != nil {
			return fmt.Errorf("stream %d: %w", i+1, err)
		}
	}
	ok("both streams show erin and frank racing: each follows a player of the other instance")

	// Both draw: the top game is one of theirs, on one instance, and
	// both streams show its move.
	for _, p := range []*player{erin, frank} {
		if err := p.typeKeys("d"); err != nil {
			return err
		}
	}
	for i, s := range streams {
		d, err := s.waitFor(r.wait, "board", func(d string) bool { return strings.Contains(d, "· 1 move<") })
		if err != nil {
			return fmt.Errorf("stream %d: %w", i+1, err)
		}
		if strings.Contains(d, `class="card back">▒▒</span> 1`) {
			ok("stream %d shows the top game's draw (the waste as a count)", i+1)
		} else {
			return fmt.Errorf("stream %d: the top game's board after a draw has no waste of one card back:\n%s", i+1, d)
		}
	}
	for _, p := range []*player{erin, frank} {
		p.close()
	}
	return nil
}

// errRefused: the instance refused the stream for its address's limit.
var errRefused = errors.New("429 Too Many Requests")

// pageStream is a live stream of a page of the club's site: its events
// as they come.
type pageStream struct {
	ch chan pageEvent
}

// pageEvent is one Server-Sent Event.
type pageEvent struct{ name, data string }

// openStream opens url's live stream from the local address from, and
// reads its events until ctx ends.
func openStream(ctx context.Context, url, from string) (*pageStream, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableCompression: true}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			return nil, fmt.Errorf("get: %w", errRefused)
		}
		return nil, fmt.Errorf("get: %s", resp.Status)
	}
	s := &pageStream{ch: make(chan pageEvent, 64)}
	go func() {
		defer resp.Body.Close()
		defer close(s.ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		name := ""
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			case line == "" && name != "":
				select {
				case s.ch <- pageEvent{name: name, data: strings.Join(data, "\n")}:
				case <-ctx.Done():
					return
				}
				name, data = "", nil
			}
		}
	}()
	return s, nil
}

// waitFor waits until the stream brings an event called name whose data
// cond holds of, and returns its data.
func (s *pageStream) waitFor(wait time.Duration, name string, cond func(data string) bool) (string, error) {
	deadline := time.After(wait)
	var last string
	for {
		select {
		case ev, open := <-s.ch:
			if !open {
				return "", fmt.Errorf("the stream ended before a %q event that holds; its last: %s", name, last)
			}
			if ev.name != name {
				continue
			}
			if cond(ev.data) {
				return ev.data, nil
			}
			last = ev.data
		case <-deadline:
			return "", fmt.Errorf("no %q event that holds within %s; the last: %s", name, wait, last)
		}
	}
}
