package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"pyramid/budget"
	"pyramid/cluster"
	"pyramid/lobby"
	"pyramid/server"
	"pyramid/web"
)

// serveConfig is the server's configuration. Flags win over PYRAMID_*
// environment variables, which win over the config file.
type serveConfig struct {
	listen             string
	data               string
	databaseURL        string
	guests             bool
	allowlist          string
	admins             string
	connect            string
	maxConns           int
	maxConnsPerIP      int
	maxUnauthPerIP     int
	maxStartups        string
	penalties          string
	writeTimeout       time.Duration
	proxyProtocol      string
	hostKey            string
	idleTimeout        time.Duration
	maxSessionTime     time.Duration
	shutdownGrace      time.Duration
	releaseMemory      bool
	solverBudget       int
	maxRooms           int
	maxRoomsPerAddress int
	metrics            string
	web                string // the club's page: address, empty for none
	webMaxConns        int
	webMaxConnsPerIP   int
	config             string
	presenceTTL        time.Duration // several servers on one PostgreSQL: see serve's bus
	seatGrace          time.Duration // several servers: how long a racer of a dead server keeps their seat
	traceBus           bool
	// budgets are the limits of package budget, by kind, as typed
	// (budgetLimits parses them).
	budgets [len(budgetHelp)]string
}

// budgetHelp says what each budget's flag limits, by kind (budget.Kinds).
var budgetHelp = [...]string{
	budget.WrongCode:     "wrong room codes",
	budget.RoomMade:      "race rooms made",
	budget.AccountMade:   "accounts made for new keys (per address only)",
	budget.NameTaken:     "names taken by renames",
	budget.ChatLine:      "chat lines said in rooms",
	budget.SpectatorSeat: "spectator seats held at one room or one player, `N` at once",
	budget.Report:        "reports of players",
	budget.ChallengeMade: "challenges offered to players",
	budget.ArenaMade:     "arenas set up by players who are no admins",
}

// register defines the serve flags, with their defaults.
func (c *serveConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "listen", ":23234", "TCP `address` to listen on (PYRAMID_LISTEN)")
	fs.StringVar(&c.data, "data", "./data", "data `dir`ectory: host key host_ed25519, database pyramid.db (PYRAMID_DATA)")
	fs.StringVar(&c.databaseURL, "database-url", "", "PostgreSQL `URL` (postgres://…); empty: SQLite in the data directory (PYRAMID_DATABASE_URL)")
	fs.BoolVar(&c.guests, "guests", true, "let clients without an SSH key play as guests, keeping nothing (PYRAMID_GUESTS)")
	fs.StringVar(&c.allowlist, "allowlist", "", "authorized_keys `file` of the keys allowed to play (a club server); empty: everyone (PYRAMID_ALLOWLIST)")
	fs.StringVar(&c.admins, "admins", "", "admin keys: `fingerprints` (SHA256:…) or authorized_keys lines, comma separated (PYRAMID_ADMINS)")
	fs.StringVar(&c.connect, "connect", "", "the `command` players connect with, shown in help (PYRAMID_CONNECT); empty: ssh -p PORT HOSTNAME")
	fs.IntVar(&c.maxConns, "max-conns", 500, "most open connections (PYRAMID_MAX_CONNS)")
	fs.IntVar(&c.maxConnsPerIP, "max-conns-per-ip", 8, "most open connections from one address, IPv6 by /64 (PYRAMID_MAX_CONNS_PER_IP)")
	fs.IntVar(&c.maxUnauthPerIP, "max-unauth-per-ip", 4, "most connections from one address still authenticating (PYRAMID_MAX_UNAUTH_PER_IP)")
	fs.StringVar(&c.maxStartups, "max-startups", "", "budget of connections still logging in, `start:rate:full` as OpenSSH's MaxStartups; empty: 10:30:100 scaled to --max-conns (PYRAMID_MAX_STARTUPS)")
	fs.StringVar(&c.penalties, "penalties", "", "waits for addresses whose logins time out or fail, `timeout:noauth:min:max` or off; empty: 10s:1s:15s:10m (PYRAMID_PENALTIES)")
	fs.DurationVar(&c.writeTimeout, "write-timeout", time.Minute, "close a session whose output has been blocked this long (PYRAMID_WRITE_TIMEOUT)")
	fs.StringVar(&c.proxyProtocol, "proxy-protocol", "", "trusted load balancer `addresses` or CIDRs, comma separated, that send a PROXY v1/v2 header; empty: no PROXY header accepted (PYRAMID_PROXY_PROTOCOL)")
	fs.StringVar(&c.hostKey, "host-key", "", "host key `file` (ed25519, made if missing); give every instance behind one name the same; empty: host_ed25519 in the data directory (PYRAMID_HOST_KEY)")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", 15*time.Minute, "end a session after this long without input (PYRAMID_IDLE_TIMEOUT)")
	fs.DurationVar(&c.maxSessionTime, "max-session-time", 12*time.Hour, "end any session after this long (PYRAMID_MAX_SESSION_TIME)")
	fs.DurationVar(&c.presenceTTL, "presence-ttl", cluster.DefaultPresenceTTL, "several servers on one PostgreSQL: how long another server's player stays in who without a heartbeat (a third of it between heartbeats) (PYRAMID_PRESENCE_TTL)")
	fs.DurationVar(&c.seatGrace, "seat-grace", lobby.DefaultSeatGrace, "several servers on one PostgreSQL: how long a racer whose server died keeps their seat in the race to come back on another; a race they do not come back to is void (PYRAMID_SEAT_GRACE)")
	fs.DurationVar(&c.shutdownGrace, "shutdown-grace", 10*time.Second, "on SIGTERM, how long sessions get to tell their players and save before they are closed (PYRAMID_SHUTDOWN_GRACE)")
	fs.BoolVar(&c.releaseMemory, "release-memory", true, "return the memory of ended sessions to the system as soon as the load halves (PYRAMID_RELEASE_MEMORY)")
	fs.IntVar(&c.solverBudget, "solver-budget", 2_000_000, "most positions one solver query may search (PYRAMID_SOLVER_BUDGET)")
	fs.IntVar(&c.maxRooms, "max-rooms", lobby.DefaultMaxRooms, "most race rooms open at once (PYRAMID_MAX_ROOMS)")
	fs.IntVar(&c.maxRoomsPerAddress, "max-rooms-per-address", 0, "most race rooms open at once that were opened from one address, IPv6 by /64; 0: a quarter of --max-rooms (PYRAMID_MAX_ROOMS_PER_ADDRESS)")
	fs.StringVar(&c.metrics, "metrics", "", "`address` serving Prometheus /metrics and /healthz, e.g. :9222; empty: off (PYRAMID_METRICS)")
	fs.StringVar(&c.web, "web", "", "`address` serving the club's read-only web page (boards, live events, /status), e.g. :8080; empty: off (PYRAMID_WEB)")
	fs.IntVar(&c.webMaxConns, "web-max-conns", web.DefaultMaxConns, "most open web requests at once, live pages included (PYRAMID_WEB_MAX_CONNS)")
	fs.IntVar(&c.webMaxConnsPerIP, "web-max-conns-per-ip", web.DefaultMaxConnsPerIP, "most open web requests from one address, live pages included, IPv6 by /64 (PYRAMID_WEB_MAX_CONNS_PER_IP)")
	fs.BoolVar(&c.traceBus, "trace-bus", false, "debugging: time the bus's publishes and reads and the other servers' race progress, and log the figures at exit (PYRAMID_TRACE_BUS)")
	for _, k := range budget.Kinds() {
		usage := "most " + budgetHelp[k] + " per address and per account, as `N/DURATION` (N at once, N per DURATION) (" + envName(k.Flag()) + ")"
		if k == budget.SpectatorSeat {
			usage = "most " + budgetHelp[k] + " per address and per account (" + envName(k.Flag()) + ")"
		}
		fs.StringVar(&c.budgets[k], k.Flag(), k.Default().String(), usage)
	}
	fs.StringVar(&c.config, "config", "", "config `file`: lines of name = value, names as the flags (PYRAMID_CONFIG)")
}

// envName is the environment variable of a flag: PYRAMID_ and the name in
// upper case with dashes as underscores.
func envName(flagName string) string {
	return "PYRAMID_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// resolve fills the flags not given on the command line from the
// environment, then from the config file, and reports any bad value with
// where it came from.
func (c *serveConfig) resolve(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["config"] {
		if v := getenv(envName("config")); v != "" {
			c.config = v
		}
	}
	file := map[string]string{}
	if c.config != "" {
		var err error
		if file, err = readConfigFile(c.config, fs); err != nil {
			return err
		}
	}
	var errs []string
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || f.Name == "config" {
			return
		}
		source, v := envName(f.Name), getenv(envName(f.Name))
		if v == "" {
			var ok bool
			if v, ok = file[f.Name]; !ok {
				return
			}
			source = c.config + ": " + f.Name
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Sprintf("%s: bad value %q: %v", source, v, err))
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// readConfigFile reads "name = value" lines; "#" starts a comment.
func readConfigFile(path string, fs *flag.FlagSet) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	values := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name, value = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(value), `"`)
		if !ok || fs.Lookup(name) == nil || name == "config" {
			return nil, fmt.Errorf("config %s line %d: want name = value with a name of the serve flags, got %q", path, n, line)
		}
		values[name] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return values, nil
}

// serverLimits parses the flags that are lists or tuples into the
// server's settings, naming the flag of any bad value.
func (c *serveConfig) serverLimits() (server.Config, error) {
	var out server.Config
	var err error
	if out.Startups, err = server.ParseStartups(c.maxStartups); err != nil {
		return out, fmt.Errorf("--max-startups: %w", err)
	}
	if out.Penalties, err = server.ParsePenalties(c.penalties); err != nil {
		return out, fmt.Errorf("--penalties: %w", err)
	}
	if out.TrustedProxies, err = server.ParsePrefixes(c.proxyProtocol); err != nil {
		return out, fmt.Errorf("--proxy-protocol: %w", err)
	}
	return out, nil
}

// budgetLimits parses the budgets' flags, naming the flag of any bad
// value.
func (c *serveConfig) budgetLimits() (map[budget.Kind]budget.Limit, error) {
	out := map[budget.Kind]budget.Limit{}
	for _, k := range budget.Kinds() {
		l, err := budget.ParseLimit(c.budgets[k])
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", k.Flag(), err)
		}
		out[k] = l
	}
	return out, nil
}
