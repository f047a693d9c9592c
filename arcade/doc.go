// Package arcade is the Pyramid arcade as the SSH server serves it: it
// turns a session into a player (keys), builds the player's Bubble Tea
// program (tui) and binds it to the server's services in the tui's words:
// the player's games (a games.Writer of the session), the lobby and its
// race rooms (lobby), the race service (race) and the solver (engine). It
// also answers the plain-text commands of sessions without a terminal.
//
// It implements server.App; cmd/pyramid reads the configuration and wires
// the real implementations in.
package arcade
