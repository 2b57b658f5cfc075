package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"retry/runner"
)

// GitHub writes GitHub Actions workflow commands: a warning annotation for
// each failure that will be retried, an error annotation when retry gives up
// (or is stopped), and a collapsible group around each attempt after the
// first, so a log shows the first attempt's output and folds the retries.
// The caller turns it on when GITHUB_ACTIONS is "true".
//
// The messages are the text log's lines (see Text) without the "retry: "
// prefix, escaped as workflow commands require.
type GitHub struct {
	// W receives the commands. It should be retry's stderr, which the child
	// also writes to: GitHub reads workflow commands from both output
	// streams of a step, and stdout is left to the command's data, which is
	// often piped or redirected where a group marker would corrupt it.
	W io.Writer
	// Program, Deadline and Cause are as in Text.
	Program  string
	Deadline time.Duration
	Cause    func() string

	grouped bool // a group is open
}

// Observe writes the commands for one event; it is a runner.Config.Observe
// function.
func (g *GitHub) Observe(e runner.Event) {
	switch e := e.(type) {
	case *runner.AttemptStarted:
		g.endGroup()
		if e.Attempt > 1 {
			title := "retry: attempt " + attemptCount(e.Attempt, e.Max)
			g.command("group", "", title)
			g.grouped = true
		}
	case *runner.AttemptEnded:
		g.endGroup()
		if !e.Final {
			g.command("warning", "retry", g.line(e))
		}
	case *runner.Finished:
		g.endGroup()
		if e.Result.Stop != runner.Succeeded {
			g.command("error", "retry", g.line(e))
		}
	}
}

// Error writes an ::error annotation with message, for endings the runner
// does not see, such as a circuit that is open before any attempt.
func (g *GitHub) Error(message string) {
	g.endGroup()
	g.command("error", "retry", message)
}

func (g *GitHub) endGroup() {
	if g.grouped {
		g.command("endgroup", "", "")
		g.grouped = false
	}
}

// line is the text log's line for e, without its prefix and newline.
func (g *GitHub) line(e runner.Event) string {
	var b strings.Builder
	t := Text{W: &b, Program: g.Program, Deadline: g.Deadline, Cause: g.Cause}
	t.Observe(e)
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), "retry: "), "\n")
}

// command writes "::name title=TITLE::message" (no properties when title
// is empty).
func (g *GitHub) command(name, title, message string) {
	var b strings.Builder
	b.WriteString("::" + name)
	if title != "" {
		b.WriteString(" title=" + escapeProperty(title))
	}
	b.WriteString("::" + escapeData(message) + "\n")
	_, _ = io.WriteString(g.W, b.String())
}

// escapeData escapes a workflow command's message: the line breaks that
// would end the command, and the % that starts an escape. The replacer
// works in one pass, so an inserted % is never escaped again.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: as data, and
// also the ":" and "," that separate properties.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// attemptCount is "4/5", or "4" when there is no attempt limit.
func attemptCount(n, max int) string {
	if max <= 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d/%d", n, max)
}
