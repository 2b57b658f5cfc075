package exitcodes

import (
	"fmt"
	"testing"
	"time"
)

// benchLines is output such as a build or a test run prints: mostly lines
// that match nothing, some that come close.
func benchLines() [][]byte {
	templates := []string{
		"2025-03-01T12:00:%02d.123Z INFO  worker-%d processed batch %d in 12ms (ok)",
		"    --- PASS: TestHandler/case_%d (0.00s) shard=%d seq=%d",
		"npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported (%d %d %d)",
		"Step %d/%d : RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates %d",
		"level=warn msg=\"slow request\" duration=%dms path=/api/v1/items/%d status=%d",
		"Downloading https://files.example.com/pkg-%d.%d.%d.tar.gz (1.2 MB)",
		"error: request %d to shard %d returned code %d, retrying",
		"[%d/%d] Compiling src/module_%d.rs",
	}
	var lines [][]byte
	for i := range 64 {
		t := templates[i%len(templates)]
		lines = append(lines, fmt.Appendf(nil, t, i%60, i*7%13, i*31))
	}
	return lines
}

// benchPatterns returns n user patterns of the kinds people write: plain
// words, case-insensitive phrases, and codes with a regexp around them.
func benchPatterns(n int) []string {
	var ps []string
	for i := range n {
		switch i % 4 {
		case 0:
			ps = append(ps, fmt.Sprintf("connection reset %d", i))
		case 1:
			ps = append(ps, fmt.Sprintf(`(?i)service unavailable \(%d\)`, i))
		case 2:
			ps = append(ps, fmt.Sprintf(`returned code 5\d%d\b`, i%10))
		default:
			ps = append(ps, fmt.Sprintf(`shard \d+ is (?:down|busy) #%d`, i))
		}
	}
	return ps
}

// BenchmarkScanLines measures Scan.Line: one op is one output line,
// SetBytes counts its bytes, and lines/s is reported beside ns/op.
func BenchmarkScanLines(b *testing.B) {
	lines := benchLines()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	for _, n := range []int{0, 20, 100} {
		b.Run(fmt.Sprintf("patterns=%d", n), func(b *testing.B) {
			c := newClassifier(b, rules{retryIf: benchPatterns(n)})
			s := c.NewScan()
			b.SetBytes(int64(size / len(lines)))
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				s.Line(lines[i%len(lines)])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
	b.Run("signatures", func(b *testing.B) {
		c, err := New(Config{Signatures: true})
		if err != nil {
			b.Fatal(err)
		}
		s := c.NewScan()
		b.SetBytes(int64(size / len(lines)))
		b.ReportAllocs()
		b.ResetTimer()
		i := 0
		for b.Loop() {
			s.Line(lines[i%len(lines)])
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	})
	b.Run("preset=all", func(b *testing.B) {
		c, err := New(Config{Presets: allPresetNames(), Signatures: true})
		if err != nil {
			b.Fatal(err)
		}
		s := c.NewScan()
		b.SetBytes(int64(size / len(lines)))
		b.ReportAllocs()
		b.ResetTimer()
		i := 0
		for b.Loop() {
			s.Line(lines[i%len(lines)])
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	})
}

// allPresetNames names every preset.
func allPresetNames() []string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return names
}

// BenchmarkNewClassifier measures what a run pays before its command
// prints anything: building the classifier and judging an attempt that
// printed nothing. A silent success must cost about the same with every
// preset and the signatures as with none; a silent failure lays out the
// rules (exit codes decide some) but compiles no pattern.
func BenchmarkNewClassifier(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"none", Config{}},
		{"signatures", Config{Signatures: true}},
		{"every-preset-and-signatures", Config{Presets: allPresetNames(), Signatures: true}},
	} {
		for _, code := range []int{0, 1} {
			b.Run(fmt.Sprintf("%s/exit=%d", tc.name, code), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c, err := New(tc.cfg)
					if err != nil {
						b.Fatal(err)
					}
					_ = c.Classify(Exit{Code: code}, c.NewScan(), time.Time{})
				}
			})
		}
	}
}

// BenchmarkFirstLine measures the one-time cost the first output line
// pays: compiling the classifier's patterns.
func BenchmarkFirstLine(b *testing.B) {
	line := []byte("npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported")
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"signatures", Config{Signatures: true}},
		{"one-preset-and-signatures", Config{Presets: []string{"git"}, Signatures: true}},
		{"every-preset-and-signatures", Config{Presets: allPresetNames(), Signatures: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := New(tc.cfg)
				if err != nil {
					b.Fatal(err)
				}
				c.NewScan().Line(line)
			}
		})
	}
}
