package main

import (
	"fmt"
	"io"
)

// runSolve is filled in by the solver work.
func runSolve(args []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pyramid solve: not built yet")
	return 2
}
