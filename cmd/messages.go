package cmd

// The rules for every message retry prints about itself, kept in this one
// file so they stay the same everywhere:
//
//   - one line on stderr, starting with "retry: ";
//   - lowercase, no trailing period;
//   - a usage error names the flag (or RETRY_OPTS, or the argument) and the
//     value that was wrong, then says what would be right;
//   - the command is named by its program only; its full argv (which often
//     carries secrets) only with -v.
//
// Attempt and give-up lines are rendered by package report under the same
// rules.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"retry/report"
)

// UsageError is bad input: the command is not run and retry exits 125.
type UsageError struct {
	// Flag is the flag as the user would type it ("--deadline"), or what
	// else was wrong ("command").
	Flag string
	// Value is the value given, quoted in the message; empty when there
	// was none.
	Value string
	// Want says what would be right.
	Want string
	// Err is the underlying parse error, if any.
	Err error
}

// Error reads "FLAG: "VALUE": ERR; WANT", leaving out the parts not set.
func (e *UsageError) Error() string {
	var b strings.Builder
	b.WriteString(e.Flag)
	if e.Value != "" || e.Err != nil {
		fmt.Fprintf(&b, ": %q", e.Value)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Want != "" {
		if e.Err != nil {
			b.WriteString(";")
		} else {
			b.WriteString(":")
		}
		b.WriteString(" " + e.Want)
	}
	return b.String()
}

func (e *UsageError) Unwrap() error { return e.Err }

// flagError turns pflag's errors into UsageErrors that name the flag the way
// the user typed it; fs, when given, is searched for the flag an unknown
// one was probably meant to be.
func flagError(err error, fs *pflag.FlagSet) error {
	var notExist *pflag.NotExistError
	var needsValue *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &notExist):
		name := "--" + notExist.GetSpecifiedName()
		if group := notExist.GetSpecifiedShortnames(); group != "" {
			name = "-" + notExist.GetSpecifiedName()
			if len(group) > 1 {
				name += " (in -" + group + ")"
			}
		}
		want := "unknown flag; see retry --help (put -- before the command if the flag is the command's)"
		if notExist.GetSpecifiedShortnames() == "" {
			if hint := unknownFlag(notExist.GetSpecifiedName(), fs); hint != "" {
				want = "unknown flag; " + hint
			}
		}
		return &UsageError{Flag: name, Want: want}
	case errors.As(err, &needsValue):
		return &UsageError{Flag: flagName(needsValue.GetFlag()), Want: "needs a value"}
	case errors.As(err, &invalid):
		var ue *UsageError
		if errors.As(invalid.Unwrap(), &ue) {
			return ue
		}
		return &UsageError{Flag: flagName(invalid.GetFlag()), Value: invalid.GetValue(), Err: invalid.Unwrap()}
	}
	return &UsageError{Flag: "flags", Err: err, Want: "see retry --help"}
}

func flagName(f *pflag.Flag) string {
	if f == nil {
		return "flag"
	}
	return "--" + f.Name
}

// printError writes err as a retry message.
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "retry: %s\n", report.OneLine(err.Error()))
}

// printWarning writes a warning that does not stop the run.
func printWarning(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "retry: warning: %s\n", report.OneLine(fmt.Sprintf(format, args...)))
}

// leftoversStopped says, for -v, how many processes a failed attempt left
// running in its process group and retry stopped: "stopped 2 processes the
// failed attempt 1 left in its group". n is -1 when they could not be
// counted.
func leftoversStopped(n, attempt int, interrupted bool) string {
	what := "the processes"
	switch {
	case n == 1:
		what = "1 process"
	case n > 1:
		what = fmt.Sprintf("%d processes", n)
	}
	how := "failed"
	if interrupted {
		how = "interrupted"
	}
	return fmt.Sprintf("retry: stopped %s the %s attempt %d left in its group", what, how, attempt)
}
