package main

import (
	"net"
	"os"
	"testing"
)

// TestConnectCommand: without --connect, players are shown localhost for
// a server on loopback, the address a server listens on, and the host
// name for one on every interface.
func TestConnectCommand(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	for _, tc := range []struct {
		addr string
		want string
	}{
		{"127.0.0.1:23234", "ssh -p 23234 localhost"},
		{"[::1]:2222", "ssh -p 2222 localhost"},
		{"192.0.2.7:23234", "ssh -p 23234 192.0.2.7"},
		{"[::]:23234", "ssh -p 23234 " + host},
		{"0.0.0.0:23234", "ssh -p 23234 " + host},
	} {
		addr, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := connectCommand(addr); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.addr, got, tc.want)
		}
	}
}
