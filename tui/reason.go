package tui

import (
	"context"
	"errors"
	"io"
	"net"
)

// PlainError is an error that carries its own words for players. The
// text of an error from a store or a bus is written for the server's log:
// it names the operation, the database, its address and the driver's
// words. A dependency that wants a player to read something else puts a
// PlainError in its error's chain (the store's and the bus's sentinels
// are ones): wherever a player would read the error, they read Plain.
type PlainError interface {
	error
	// Plain is what a player reads of the error: plain words, no detail
	// of the server's insides.
	Plain() string
}

// Unreachable is what a player reads when the server could not reach
// its database: their change is not stored, and trying again once it is
// back works.
const Unreachable = "the database is unreachable, so your last change is not saved yet; try again in a moment"

// internal is what a player reads of an error that is not theirs to act
// on and carries no words for them (Reason).
const internal = "the server could not do that just now; try again in a moment"

// Reason is why something failed, as a player reads it: the plain words
// of the first PlainError in err's chain, a timeout in the same words
// whatever timed out, nothing of a driver or a network (the words of an
// error with a net.Error or a database's SQLSTATE in its chain are the
// log's alone), and else err's text. The server logs the full error
// where it wants it; Reason never shows it.
func Reason(err error) string {
	var p PlainError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &p):
		return p.Plain()
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		// A call that timed out or was stopped may still have been
		// written (a database that had the statement keeps it): it says
		// the server did not answer, not what the context said.
		return "the store did not answer in time"
	case driverError(err):
		return internal
	}
	return err.Error()
}

// driverError reports whether err's chain holds an error of a network or
// of a database driver, whose text is for the log: a net.Error, a
// connection that ended mid-answer (io.ErrUnexpectedEOF), an error with a
// SQLSTATE (PostgreSQL's) or one that says whether it is safe to retry
// (pgconn's).
func driverError(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var se interface{ SQLState() string }
	if errors.As(err, &se) {
		return true
	}
	var re interface{ SafeToRetry() bool }
	return errors.As(err, &re)
}
