package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"retry/runner"
)

func TestLineStartAddsALineFeedOnlyWhenALineIsOpen(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := &LineStart{W: &b}
	write := func(s string) {
		_, err := l.Write([]byte(s))
		assert.NoError(t, err)
	}
	write("retry: first\n")
	assert.Equal(t, "retry: first\n", b.String(), "a clean line gets nothing")

	l.Observe(&runner.AttemptEnded{Attempt: runner.Attempt{StderrMidLine: true}})
	write("retry: second\n")
	assert.Equal(t, "retry: first\n\nretry: second\n", b.String(), "the attempt left its line open")

	write("held output without a line feed")
	write("retry: third\n")
	assert.Equal(t, "retry: first\n\nretry: second\nheld output without a line feed\nretry: third\n", b.String(),
		"what was written through it counts too")

	b.Reset()
	write("partial")
	write("\nretry: fourth\n")
	assert.Equal(t, "partial\nretry: fourth\n", b.String(), "a write that ends the line itself needs nothing")

	b.Reset()
	l.Observe(&runner.AttemptEnded{})
	write("retry: fifth\n")
	assert.Equal(t, "retry: fifth\n", b.String(), "an attempt that ended its line adds nothing")
}
