//go:build race

package tui

// raceDetector is whether the tests run under the race detector, which
// allocates where a normal build does not.
const raceDetector = true
