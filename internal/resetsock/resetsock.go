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
// end sent data and was then closed with a reset: reads return data, then
// fail with ECONNRESET. It is closed when the test ends.
func Stdin(t testing.TB, data string) *os.File {
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
	if _, err := server.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	// No linger: closing sends a reset, not the end of the stream. The
	// data, sent first, is read before the reset on Linux.
	if err := server.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}
