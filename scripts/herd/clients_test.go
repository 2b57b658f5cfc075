package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsFetchFailureKnowsCurlsErrorLine(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"curl: (22) The requested URL returned error: 503":                 true,
		"curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms":       true,
		"herd-client: (22) the requested URL returned error: 503":          true,
		"retry: attempt 1/5 failed: exit 22 (transient); retrying in 31ms": false,
		"retry: giving up on curl after 5 attempts in 5.86s":               false,
		"curl: (x) not a code":          false,
		"curl: () empty":                false,
		"a b: (22) a space in the name": false,
		"":                              false,
	} {
		assert.Equal(t, want, isFetchFailure(line), "%q", line)
	}
}

func TestFetchLogCountsFailureLinesSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	out := "curl: (22) The requested URL returned error: 503\n" +
		"retry: attempt 1/5 failed: exit 22 (transient); retrying in 31ms (fast phase)\n" +
		"curl: (22) The requested URL returned error: 503\n" +
		"curl: (7) Failed to connect" // no final newline
	for _, size := range []int{1, 3, 17, len(out)} {
		f := &fetchLog{}
		for rest := out; rest != ""; {
			n := min(size, len(rest))
			_, _ = f.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		failures, tail := f.result()
		assert.Equal(t, 3, failures, "writes of %d bytes", size)
		assert.True(t, strings.HasSuffix(tail, "curl: (7) Failed to connect"))
	}
}

func TestFetchLogKeepsABoundedTail(t *testing.T) {
	t.Parallel()
	f := &fetchLog{}
	line := []byte("curl: (22) The requested URL returned error: 503\n")
	for range 10000 {
		_, _ = f.Write(line)
	}
	failures, tail := f.result()
	assert.Equal(t, 10000, failures)
	assert.LessOrEqual(t, len(tail), maxTail)
	assert.LessOrEqual(t, cap(f.line), maxLine)
}
