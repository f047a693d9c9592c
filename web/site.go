package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/lobby"
	"pyramid/store"
)

// Store is what the site reads of the store: boards, ratings and a
// player's public record. store.Store implements it.
type Store interface {
	Leaderboard(ctx context.Context, rulesID, date string, limit int) ([]store.DailyEntry, error)
	TopRatings(ctx context.Context, rulesID string, limit int) ([]store.RatingEntry, error)
	PlayerByName(ctx context.Context, name string) (store.Player, error)
	RaceRecords(ctx context.Context, playerID string) ([]store.RaceRecord, error)
	RatingHistory(ctx context.Context, playerID, rulesID string, limit int) ([]store.RatingPoint, error)
	RatedRaces(ctx context.Context, playerID string, limit int) ([]store.Race, error)
}

var _ Store = store.Store(nil)

// Arcade is what the site learns of the arcade as it runs (arcade.App).
type Arcade interface {
	// Online is how many are online, on every server of the cluster.
	Online() int
	// Observe makes sink hear lobby.PresenceChanged and
	// lobby.DailyChanged until stop is called (lobby.Lobby.Observe).
	Observe(sink lobby.Sink) (stop func())
	// Instances names the servers of the cluster that are up, this one
	// first.
	Instances() []string
}

// Pinger checks that the database answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Config is what the site needs from the world.
type Config struct {
	Store  Store
	Arcade Arcade
	// DB is pinged by /status; nil: Store, when it is a Pinger.
	DB Pinger
	// Arenas, when set, shows the arenas (arena.go); nil: none.
	Arenas ArenaSource
	// Connect is the command players connect with; Fingerprint the host
	// key's, to compare; Version the build's.
	Connect, Fingerprint, Version string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives what goes wrong; nil means log.Default().
	Logger *log.Logger
	// MaxConns is the most open requests at once, live streams included
	// (DefaultMaxConns when 0); MaxConnsPerIP the most from one address,
	// IPv6 by /64 (DefaultMaxConnsPerIP when 0).
	MaxConns, MaxConnsPerIP int
	// TrustedProxies are the balancers whose X-Forwarded-For names the
	// client; from any other address the header is ignored.
	TrustedProxies []netip.Prefix
	// CacheFor is how long a front page's data is reused
	// (DefaultCacheFor when 0).
	CacheFor time.Duration
}

// The defaults of Config.
const (
	DefaultMaxConns      = 2000
	DefaultMaxConnsPerIP = 32
	DefaultCacheFor      = 2 * time.Second
)

// Site is the club's web site. Its methods are safe for concurrent use.
type Site struct {
	cfg   Config
	tmpl  *template.Template
	mux   *http.ServeMux
	hub   *hub
	gate  *gate
	front *frontCache

	stopObserve func()
	arenas      *arenaWatches

	ctx    context.Context // ends with Close: the live feeds stop
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New returns the site, its live feeds running until Close.
func New(cfg Config) (*Site, error) {
	if cfg.Store == nil || cfg.Arcade == nil {
		return nil, errors.New("web: a store and the arcade are needed")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = log.Default()
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxConnsPerIP <= 0 {
		cfg.MaxConnsPerIP = DefaultMaxConnsPerIP
	}
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = DefaultCacheFor
	}
	if cfg.DB == nil {
		cfg.DB, _ = cfg.Store.(Pinger)
	}
	tmpl, err := template.New("site").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Site{cfg: cfg, tmpl: tmpl, hub: newHub(), gate: newGate(cfg.MaxConns, cfg.MaxConnsPerIP),
		front: &frontCache{}, ctx: ctx, cancel: cancel}
	s.arenas = newArenaWatches(s)
	s.routes()
	s.startLobbyFeed()
	return s, nil
}

// Close stops the live feeds and ends every live stream.
func (s *Site) Close() {
	s.cancel()
	if s.stopObserve != nil {
		s.stopObserve()
	}
	s.arenas.closeAll()
	s.hub.close()
	s.wg.Wait()
}

// Handler serves the site, within its limits.
func (s *Site) Handler() http.Handler { return s.gate.wrap(s.cfg.TrustedProxies, s.mux) }

// routes registers the pages.
func (s *Site) routes() {
	s.mux = http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(static)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", cacheFor(time.Hour, files)))
	s.mux.HandleFunc("GET /{$}", s.frontPage)
	s.mux.HandleFunc("GET /events/front", s.frontEvents)
	s.mux.HandleFunc("GET /player/{name}", s.playerPage)
	s.mux.HandleFunc("GET /arena/{id}", s.arenaPage)
	s.mux.HandleFunc("GET /arena/{id}/events", s.arenaEvents)
	s.mux.HandleFunc("GET /status", s.statusPage)
	s.mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		s.notFound(w, r, "There is no such page.")
	})
}

// cacheFor lets browsers keep what h serves for d.
func cacheFor(d time.Duration, h http.Handler) http.Handler {
	v := fmt.Sprintf("public, max-age=%d", int(d.Seconds()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", v)
		h.ServeHTTP(w, r)
	})
}

// Server returns an http.Server for the site with the timeouts of a
// public server: slow headers and idle connections are cut; a live
// stream's writes have deadlines of their own (hub.go).
func (s *Site) Server() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
}

// Serve serves the site on l until ctx ends, then shuts it down.
func (s *Site) Serve(ctx context.Context, l net.Listener) error {
	hs := s.Server()
	shut := make(chan struct{})
	go func() {
		defer close(shut)
		<-ctx.Done()
		s.Close() // the streams end, so Shutdown need not wait for them
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	err := hs.Serve(l)
	if !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("web: %w", err)
	}
	<-shut
	return nil
}
