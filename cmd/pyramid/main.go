// Command pyramid is the Pyramid arcade: an SSH server (the default) and
// command-line tools to deal, play and solve Pyramid Solitaire deals.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "usage: pyramid [deal|play|solve] ...")
	os.Exit(2)
}
