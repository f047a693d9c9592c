package main

import (
	"fmt"
	"io"
)

// runServe will start the SSH server; until it lands it prints usage.
func runServe(args []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprint(stderr, usage)
	return 2
}
