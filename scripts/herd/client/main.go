// Command client stands in for `curl -fsS URL` when curl is not installed:
// it sends one GET to a loopback URL, discards the body and exits 0 on a
// 2xx answer. On failure it prints one line shaped like curl's,
// "herd-client: (22) …", and exits with curl's code: 22 for an HTTP error
// status, 7 when it cannot connect, 28 on timeout, 3 for a bad URL.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

func main() {
	os.Exit(main1(os.Args[1:], os.Stderr))
}

// main1 fetches the URL in args and returns the exit code.
func main1(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("herd-client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxTime := fs.Duration("max-time", 5*time.Second, "time limit of the whole request")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "herd-client: (2) usage: herd-client [-max-time D] URL")
		return 2
	}
	code, err := fetch(fs.Arg(0), *maxTime)
	if err != nil {
		fmt.Fprintf(stderr, "herd-client: (%d) %v\n", code, err)
	}
	return code
}

// fetch GETs rawURL, which must name a loopback host, and returns curl's
// exit code for the outcome with the error that explains it.
func fetch(rawURL string, maxTime time.Duration) (int, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" {
		return 3, fmt.Errorf("bad URL %q", rawURL)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return 3, fmt.Errorf("refusing non-loopback host %q", u.Hostname())
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxTime)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 3, err
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 28, fmt.Errorf("operation timed out after %v", maxTime)
		}
		return 7, fmt.Errorf("failed to connect: %w", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 56, fmt.Errorf("failure receiving data: %w", err)
	}
	if resp.StatusCode >= 400 {
		return 22, fmt.Errorf("the requested URL returned error: %d", resp.StatusCode)
	}
	return 0, nil
}
