package main

// Output that already went downstream when an attempt failed, on a
// terminal: a person watching sees both attempts, so no warning line is
// said. The pipe, file and byte-count stories are scripts in
// testdata/script.

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNoRepeatLineOnATerminal(t *testing.T) {
	t.Parallel()
	_, _, output, done := ptyRetry(t, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "echo partial; exit 1")
	<-done
	got := output()
	assert.Contains(t, got, "giving up on sh")
	assert.Equal(t, 2, strings.Count(got, "partial"), "a person watching sees both attempts")
	assert.NotContains(t, got, "retry: warning: attempt")
}
