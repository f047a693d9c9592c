package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"

	"github.com/charmbracelet/log"

	"pyramid/arcade"
	"pyramid/store"
	"pyramid/web"
)

// serveWeb serves the club's page on cfg.web until ctx ends or stop is
// called, and prints its address. The balancers trusted for PROXY
// headers (--proxy-protocol) are the ones trusted for X-Forwarded-For.
func serveWeb(ctx context.Context, cfg serveConfig, trusted []netip.Prefix, fingerprint string, st store.Store, app *arcade.App, stdout io.Writer, logger *log.Logger) (stop func(), err error) {
	site, err := web.New(web.Config{
		Store:          st,
		Arcade:         app,
		Arenas:         webArenas{app: app},
		Connect:        cfg.connect,
		Fingerprint:    fingerprint,
		Version:        arcade.Version(),
		Logger:         logger,
		MaxConns:       cfg.webMaxConns,
		MaxConnsPerIP:  cfg.webMaxConnsPerIP,
		TrustedProxies: trusted,
	})
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", cfg.web)
	if err != nil {
		site.Close()
		return nil, fmt.Errorf("web: %w", err)
	}
	fmt.Fprintf(stdout, "web page: http://%s/\n", l.Addr())
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := site.Serve(ctx, l); err != nil {
			logger.Error("web server stopped", "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}, nil
}
