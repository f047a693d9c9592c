package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/log"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/activeterm"
	bm "github.com/charmbracelet/wish/bubbletea"

	"pyramid/server"
)

// lineModel redraws one line per key: the same work for both servers.
type lineModel struct {
	style   lipgloss.Style
	key     string
	presses int
	w, h    int
}

func (m lineModel) Init() tea.Cmd { return nil }

func (m lineModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		m.key, m.presses = msg.String(), m.presses+1
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	}
	return m, nil
}

func (m lineModel) View() string {
	return fmt.Sprintf("load test %dx%d\n", m.w, m.h) + m.style.Render(fmt.Sprintf("pressed %q %d times", m.key, m.presses))
}

// demoApp serves lineModel through package server.
type demoApp struct{}

func (demoApp) Model(s *server.Session) tea.Model {
	return lineModel{style: s.Renderer.NewStyle().Bold(true).Foreground(lipgloss.Color("205")), w: s.Width, h: s.Height}
}

func (demoApp) Exec(_ context.Context, _ *server.Session, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, "loadgen demo server")
	return 0
}

// runServer serves the demo App with package server, its limits raised so
// that one load client on 127.0.0.1 may open thousands of sessions.
func runServer(ctx context.Context, addr string) error {
	dir, err := os.MkdirTemp("", "loadgen-server-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(dir) //nolint:errcheck // best effort
	srv, err := server.New(server.Config{
		Listen:         addr,
		HostKeyPath:    filepath.Join(dir, "host_ed25519"),
		Guests:         true,
		MaxConns:       5000,
		MaxConnsPerIP:  5000,
		MaxUnauthPerIP: 5000,
		Logger:         log.NewWithOptions(os.Stderr, log.Options{Level: log.WarnLevel}),
	}, demoApp{})
	if err != nil {
		return fmt.Errorf("new server: %w", err)
	}
	fmt.Printf("package server listening on %s, pid %d\n", addr, os.Getpid())
	return serveUntil(ctx, srv.ListenAndServe, func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}, server.ErrServerClosed)
}

// runBaseline serves lineModel with wish's stock middleware, as the Wish
// examples do: bubbletea.Middleware + activeterm, default emulated PTY.
func runBaseline(ctx context.Context, addr string) error {
	dir, err := os.MkdirTemp("", "loadgen-baseline-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(dir) //nolint:errcheck // best effort
	srv, err := wish.NewServer(
		wish.WithAddress(addr),
		wish.WithHostKeyPath(filepath.Join(dir, "host_ed25519")),
		wish.WithPublicKeyAuth(func(ssh.Context, ssh.PublicKey) bool { return true }),
		wish.WithMiddleware(
			bm.Middleware(func(s ssh.Session) (tea.Model, []tea.ProgramOption) {
				r := bm.MakeRenderer(s)
				pty, _, _ := s.Pty()
				return lineModel{style: r.NewStyle().Bold(true).Foreground(lipgloss.Color("205")), w: pty.Window.Width, h: pty.Window.Height},
					[]tea.ProgramOption{tea.WithAltScreen()}
			}),
			activeterm.Middleware(),
		),
	)
	if err != nil {
		return fmt.Errorf("new baseline server: %w", err)
	}
	fmt.Printf("baseline wish server listening on %s, pid %d\n", addr, os.Getpid())
	return serveUntil(ctx, srv.ListenAndServe, func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}, ssh.ErrServerClosed)
}

// serveUntil runs serve until ctx ends, then calls shutdown.
func serveUntil(ctx context.Context, serve, shutdown func() error, closed error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	err := shutdown()
	if serr := <-errc; serr != nil && !errors.Is(serr, closed) && !errors.Is(serr, net.ErrClosed) {
		return fmt.Errorf("serve: %w", serr)
	}
	if err != nil && !errors.Is(err, server.ErrForcedShutdown) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
