package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/charmbracelet/log"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/arcade"
	"pyramid/budget"
	"pyramid/bus"
	"pyramid/bus/pgbus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/keys"
	"pyramid/server"
	"pyramid/store/sqlstore"
)

// runServe serves the arcade until SIGINT or SIGTERM.
func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "[flags]  (flags win over PYRAMID_* variables, which win over --config)", stderr)
	var cfg serveConfig
	cfg.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if err := cfg.resolve(fs, os.Getenv); err != nil {
		fmt.Fprintln(stderr, "pyramid serve:", err)
		return 2
	}
	raiseProcs(os.Getenv, cfg.databaseURL != "")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, stdout, stderr, nil); err != nil {
		fmt.Fprintln(stderr, "pyramid serve:", err)
		return 1
	}
	return 0
}

// minServeProcs is the least GOMAXPROCS a server on SQLite runs with.
// With one P per core on a box of one or two cores, a thousand sessions'
// goroutines wait behind a P held by a socket write or by the GC's mark
// work; with more Ps than cores the system interleaves them, and the
// keys' tail is shorter for the same memory (docs/operations.md, "One
// server"). A server on PostgreSQL keeps Go's default: several of them
// may share a box, and more Ps than cores each made the panels across
// instances slower.
const minServeProcs = 4

// raiseProcs raises GOMAXPROCS to minServeProcs for a server on SQLite
// (shared false), unless the environment set GOMAXPROCS, which decides.
func raiseProcs(getenv func(string) string, shared bool) {
	if !shared && getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < minServeProcs {
		runtime.GOMAXPROCS(minServeProcs)
	}
}

// serve runs the server until ctx ends, then shuts it down gracefully:
// stop accepting, tell every player, give sessions time to save, close the
// store. ready, when set, receives the listening address.
func serve(ctx context.Context, cfg serveConfig, stdout, stderr io.Writer, ready func(net.Addr)) error {
	logger := log.NewWithOptions(stderr, log.Options{ReportTimestamp: true, Prefix: "pyramid"})
	if err := os.MkdirAll(cfg.data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	st, err := sqlstore.Open(ctx, cfg.data, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer st.Close()

	var allowKey func(key gossh.PublicKey) bool
	refusal := ""
	if cfg.allowlist != "" {
		al, err := keys.LoadAllowlist(cfg.allowlist, keys.AllowlistOptions{Logf: func(f string, a ...any) { logger.Warn(fmt.Sprintf(f, a...)) }})
		if err != nil {
			return err
		}
		logger.Info("club mode: only keys on the allowlist may play", "file", cfg.allowlist, "keys", al.Len())
		allowKey = al.Allowed
		cfg.guests = false // the allowlist decides who plays
		refusal = "This is a club server: only keys on its allowlist may play, and yours is not on it.\n" +
			"Ask the club's admin to add your public key (the line in ~/.ssh/id_ed25519.pub)."
	}
	admins, err := keys.ParseAdmins(cfg.admins)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer l.Close()
	guessed := cfg.connect == ""
	if guessed {
		cfg.connect = connectCommand(l.Addr())
	}
	solver := arcade.NewSolver(cfg.solverBudget, runtime.GOMAXPROCS(0))
	secret, err := st.DailySecret(ctx)
	if err != nil {
		return err
	}
	// The daily deals derive from the database's secret: nobody without
	// the database can compute one.
	solver.UseDailySecret(secret)
	go func() { // work out today's daily deal before the first player asks
		_, _ = solver.DailyDeal(ctx, engine.MustRules("daily"), time.Now())
	}()
	// Several servers on one PostgreSQL meet on its bus (takeovers,
	// presence, race rooms); on SQLite a server is alone, and its rooms
	// run over a bus of their own in memory.
	var eventBus bus.Bus
	var lease cluster.Lease
	var dbNow func(context.Context) (time.Time, error)
	var trace *bus.Trace
	if cfg.traceBus {
		trace = bus.NewTrace()
		defer func() { fmt.Fprint(stderr, trace) }()
	}
	if cfg.databaseURL != "" {
		pb, err := pgbus.Open(ctx, cfg.databaseURL, pgbus.Options{
			Logf:        func(f string, a ...any) { logger.Warn(fmt.Sprintf(f, a...)) },
			RetainTopic: map[string]int{cluster.RoomsTopic: cluster.RoomsRetain},
			Trace:       trace,
		})
		if err != nil {
			return err
		}
		defer pb.Close()
		if trace != nil {
			defer func() { fmt.Fprintf(stderr, "trace bus counts %+v\n", pb.Stats()) }()
		}
		eventBus, lease, dbNow = pb, pb, pb.Now // race rooms shared with the cluster
	}
	limits, err := cfg.budgetLimits()
	if err != nil {
		return err
	}
	budgets, err := budget.New(budget.Config{Limits: limits, Logger: logger})
	if err != nil {
		return err
	}
	app := arcade.New(arcade.Config{
		Budgets: budgets,
		Store:   st,
		Admins:  admins,
		Solver:  solver,
		Logger:  logger,
		Connect: cfg.connect,
		// Race rooms.
		MaxRooms: cfg.maxRooms,
		// The open rooms of one address.
		MaxRoomsPerAddress: cfg.maxRoomsPerAddress,
		Bus:                eventBus,
		Cluster:            cluster.PresenceConfig{TTL: cfg.presenceTTL, Heartbeat: cfg.presenceTTL / 3},
		Lease:              lease,
		DBNow:              dbNow,
		LeaseTTL:           cfg.presenceTTL,
		SeatGrace:          cfg.seatGrace,
		Trace:              trace,
	})
	defer app.Close() // before the bus closes: tells the other servers this one's players left
	srvLimits, err := cfg.serverLimits()
	if err != nil {
		return err
	}
	hostKey := cfg.hostKey
	if hostKey == "" {
		hostKey = filepath.Join(cfg.data, server.DefaultHostKeyFile)
	}
	srv, err := server.New(server.Config{
		Listen:         cfg.listen,
		HostKeyPath:    hostKey,
		Startups:       srvLimits.Startups,
		Penalties:      srvLimits.Penalties,
		TrustedProxies: srvLimits.TrustedProxies,
		WriteTimeout:   cfg.writeTimeout,
		Guests:         cfg.guests,
		AllowKey:       allowKey,
		Refusal:        refusal,
		MaxConns:       cfg.maxConns,
		MaxConnsPerIP:  cfg.maxConnsPerIP,
		MaxUnauthPerIP: cfg.maxUnauthPerIP,
		IdleTimeout:    cfg.idleTimeout,
		MaxSessionTime: cfg.maxSessionTime,
		ShutdownGrace:  cfg.shutdownGrace,
		KeepMemory:     !cfg.releaseMemory,
		Logger:         logger,
	}, app)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Pyramid arcade on %s\nhost key %s\nplay: %s\n", l.Addr(), srv.Fingerprint(), cfg.connect)
	if guessed && !isLoopback(l.Addr()) {
		fmt.Fprintln(stdout, "(other machines may know this one by another name: --connect sets the command players are shown)")
	}
	if cfg.metrics != "" {
		if err := serveMetrics(ctx, cfg.metrics, metricsHandler(srv, st, app), logger); err != nil {
			return err
		}
	}
	if cfg.web != "" {
		stopWeb, err := serveWeb(ctx, cfg, srvLimits.TrustedProxies, srv.Fingerprint(), st, app, stdout, logger)
		if err != nil {
			return err
		}
		defer stopWeb() // before the arcade closes: the page stops observing it
	}
	if ready != nil {
		ready(l.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: telling players, saving games")
	// Shutdown keeps to Config.ShutdownGrace; this context only bounds it
	// should the grace be misconfigured, and leaves the sessions all of it.
	grace := cfg.shutdownGrace
	if grace <= 0 {
		grace = server.DefaultShutdownGrace
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace+time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, server.ErrForcedShutdown) {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-served
	return nil
}

// connectCommand is the command players are shown when --connect is not
// given: localhost for a server only this machine reaches, the address
// it listens on when that is one, else the machine's host name.
func connectCommand(addr net.Addr) string {
	host, port, _ := net.SplitHostPort(addr.String())
	ip := net.ParseIP(host)
	switch {
	case ip != nil && ip.IsLoopback():
		host = "localhost"
	case ip == nil || ip.IsUnspecified():
		if name, err := os.Hostname(); err == nil && name != "" {
			host = name
		} else {
			host = "localhost"
		}
	}
	return fmt.Sprintf("ssh -p %s %s", port, host)
}

// isLoopback reports whether addr is a loopback address: only this
// machine can connect.
func isLoopback(addr net.Addr) bool {
	host, _, _ := net.SplitHostPort(addr.String())
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
