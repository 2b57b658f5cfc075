// Package resetsock gives tests a stdin whose reading fails: the reading
// end of a TCP connection that its peer reset, as a client that went away
// leaves a service reading its socket (inetd, systemd's Accept=yes).
package resetsock

import (
	"net"
	"os"
	"testing"
)

// Stdin returns the reading end of a loopback TCP connection whose other
// end was closed with a reset: its first read fails with ECONNRESET. It is
// closed when the test ends.
func Stdin(t testing.TB) *os.File {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	f, err := client.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	// No linger: closing sends a reset, not the end of the stream.
	if err := server.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}
