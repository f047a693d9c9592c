// Package arcade is the Pyramid arcade as the SSH server serves it: it
// turns a session into a player (keys), builds the player's Bubble Tea
// program (tui) with their games (store) and the solver (engine), and
// answers the plain-text commands of sessions without a terminal.
//
// It implements server.App; cmd/pyramid reads the configuration and wires
// the real implementations in.
package arcade
