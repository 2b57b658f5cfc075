package runner

import (
	"io"
	"os"
	"strings"
	"testing"

	"retry/exitcodes"
)

// BenchmarkScannedCopy measures the copy of one output stream through a
// pipe while 20 patterns, the signatures, or every preset and the
// signatures scan it: the cost a scanned attempt adds.
func BenchmarkScannedCopy(b *testing.B) {
	res, err := exitcodes.CompilePatterns([]string{"connection reset", "timed out", "ECONNREFUSED", "503 Service", "TLS handshake timeout",
		"i/o timeout", "unexpected EOF", "temporarily unavailable", "try again", "rate limit",
		"Too Many Requests", "broken pipe", "no route to host", "deadline exceeded", "server misbehaving",
		"could not resolve", "reset by peer", "Bad Gateway", "Gateway Timeout", "throttl"})
	if err != nil {
		b.Fatal(err)
	}
	c, err := exitcodes.New(exitcodes.Config{RetryIf: res})
	if err != nil {
		b.Fatal(err)
	}
	text := " ordinary log line without any pattern\n"
	block := []byte(strings.Repeat(strings.Repeat("x", 100-len(text))+text, 64<<10/100))
	for _, scanned := range []bool{false, true} {
		name := "plain"
		if scanned {
			name = "20-patterns"
		}
		b.Run(name, func(b *testing.B) { copyThrough(b, block, c, scanned) })
	}
	var names []string
	for _, p := range exitcodes.Presets() {
		names = append(names, p.Name)
	}
	for _, tc := range []struct {
		name string
		cfg  exitcodes.Config
	}{
		{"signatures", exitcodes.Config{Signatures: true}},
		{"every-preset-and-signatures", exitcodes.Config{Presets: names, Signatures: true}},
	} {
		c, err := exitcodes.New(tc.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) { copyThrough(b, block, c, true) })
	}
}

// copyThrough copies 64 blocks through a pipe and a copier, scanned or not.
func copyThrough(b *testing.B, block []byte, c *exitcodes.Classifier, scanned bool) {
	b.SetBytes(int64(len(block)) * 64)
	for b.Loop() {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		growPipe(r)
		var m *matcher
		if scanned {
			m = newMatcher(&lockedScanner{scan: c.NewScan()})
		}
		cp := startCopier(&copier{r: r, dst: io.Discard, match: m})
		for range 64 {
			if _, err := w.Write(block); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
		<-cp.done
		if m != nil {
			m.wait()
		}
	}
}
