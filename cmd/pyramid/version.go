package main

import (
	"encoding/json"
	"fmt"
	"io"

	"pyramid/arcade"
)

// runVersion prints the build's version, its commit and the commit's date.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "[--json]", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pyramid version: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if !*asJSON {
		fmt.Fprintln(stdout, arcade.Version())
		return 0
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(arcade.ReadBuildInfo()); err != nil {
		fmt.Fprintln(stderr, "pyramid version:", err)
		return 1
	}
	return 0
}
