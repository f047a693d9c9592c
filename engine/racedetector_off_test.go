//go:build !race

package engine

// raceDetector is whether the tests run under the race detector, whose
// sync.Pool drops a share of what is put in it.
const raceDetector = false
