// Package server is the SSH front door of the arcade: a hardened Wish
// (charmbracelet/ssh + golang.org/x/crypto/ssh) server that authenticates
// players by key, enforces the protections listed below, and runs one Bubble Tea program per interactive session. It knows nothing
// about the game: it serves an [App].
//
// # API
//
//	srv, err := server.New(server.Config{HostKeyPath: dir + "/host_ed25519", Guests: true}, app)
//	log.Print("host key ", srv.Fingerprint())
//	go srv.ListenAndServe()                  // or srv.Serve(listener)
//	...
//	err = srv.Shutdown(ctx)                  // on SIGTERM
//
// An App builds a tea.Model for each PTY session (App.Model) and runs the
// commands of sessions without a PTY (App.Exec). Both get a [*Session]: the
// player's identity (the SHA256 fingerprint of the key the client proved it
// holds, or none for a guest), the untrusted user name, the command words
// (`ssh -t host classic 42` → ["classic", "42"]), terminal and locale
// variables, the clamped initial window size, and a per-session lipgloss
// renderer. Programs receive [ShutdownMsg] when the server starts shutting
// down.
//
// # Session pipeline
//
// In this order, all inside one Wish middleware (the stages share
// per-session state that Wish's connection-wide context cannot hold):
// recover ▸ logging ▸ limits ▸ identity ▸ PTY/resize ▸ exec ▸ Bubble Tea.
//
// # Protections
//
//   - Algorithms: explicit key exchange, cipher and MAC lists without SHA-1,
//     CBC or encrypt-and-MAC; strict key exchange (Terrapin); public key
//     algorithms without ssh-rsa/ssh-dss. No passwords. Keyboard-interactive
//     only lets keyless guests in (Config.Guests) or tells them to make a key.
//   - Identity only from the session's proven key, never from an auth
//     callback or the user name; the auth callbacks only say yes or no.
//   - Before the handshake (ConnCallback): caps on connections overall, per
//     client address (IPv6 by /64) and unauthenticated per address; a
//     budget of unauthenticated connections overall with random early drop
//     (Config.Startups, OpenSSH's MaxStartups) in which a newcomer takes the
//     place of a stale or penalised login; growing penalties for addresses
//     whose logins time out or fail (Config.Penalties, OpenSSH's
//     PerSourcePenalties). A refused client gets an SSH disconnect message
//     naming the limit; refusals are logged once per address and interval
//     and counted (Server.Stats).
//   - Behind a load balancer: PROXY protocol v1/v2 from Config.TrustedProxies
//     only, so limits and logs see the client's address.
//   - Per connection: a handshake deadline (also applied while a connection
//     runs no session), a read budget (a flood closes it), at most
//     SessionsPerConn session channels, a life of at most MaxSessionTime.
//   - Per session: a request filter in front of the library's session code
//     (clamped, debounced window sizes in a box that never blocks; small,
//     allowlisted env variables only; no subsystems, X11, agent or port
//     forwarding); an idle timeout driven by input only; an output timeout
//     (Config.WriteTimeout) for a client that stops reading; a watchdog that
//     closes the connection of a session that cannot even be told to end.
//   - Our own Bubble Tea driver instead of wish's middleware (whose resize
//     goroutine leaks and spins): no signal handler, panics caught, suspend
//     filtered out, a renderer that never queries the terminal.
//   - Every callback and goroutine of the package recovers from panics; a
//     panicking App ends its session, not the process.
//   - Nothing shared ever waits on a session: a client that stops reading
//     only stalls its own program.
//
// Attacker-controlled text (user name, client version, TERM, commands) is
// logged with %q.
//
// # Drawing
//
// A session's program runs without Bubble Tea's renderer: the server's
// own draws a frame after every Update (no ticker), writes only the
// lines that changed, and paces frames that come in a burst. The model
// and its messages may say more through optional interfaces, declared
// here and asked for with a type assertion: a model may give its view in
// parts kept from frame to frame ([PartsViewer]), and a message may ask
// for a least time since the last frame ([FrameGapper]) or let its frame
// wait for another ([FrameSlacker]).
//
// The subpackage sshtest has helpers to drive a server from tests with a real
// SSH client and a terminal emulator.
package server
