package report

import (
	"bytes"
	"encoding/json"
	"io"

	"retry/runner"
)

// JSONLog writes one JSON object per line for log shippers (--log-format
// json): "attempt_start", "attempt_end" and "wait" lines as the run goes,
// and a "summary" line when the caller calls Finish. docs/report-schema.md
// lists the fields. Field names are snake_case and stable; times are
// RFC 3339 in UTC with milliseconds; a value that does not apply is null.
//
// The runner calls Observe from one goroutine; a JSONLog is not safe for
// concurrent use.
type JSONLog struct {
	// W receives the lines, usually stderr. Each line is one Write.
	W io.Writer
	// Program is the program name shown on every line; the full argv is
	// added to the attempt_start and summary lines only when Verbose is
	// set, because argv often carries secrets.
	Program string
	Argv    []string
	Verbose bool
}

type jsonAttemptStart struct {
	Type    string   `json:"type"`
	Time    string   `json:"time"`
	Program string   `json:"program"`
	Argv    []string `json:"argv,omitempty"`
	Attempt int      `json:"attempt"`
	Max     int      `json:"max"`
}

type jsonAttemptEnd struct {
	Type        string  `json:"type"`
	Time        string  `json:"time"`
	Program     string  `json:"program"`
	Attempt     int     `json:"attempt"`
	Max         int     `json:"max"`
	ExitCode    int     `json:"exit_code"`
	Signal      *string `json:"signal"`
	TimedOut    bool    `json:"timed_out"`
	DeadlineHit bool    `json:"deadline_hit"`
	Class       string  `json:"class"`
	Rule        *string `json:"rule"`
	Error       *string `json:"error"`
	DurationMS  int64   `json:"duration_ms"`
	StdoutBytes *int64  `json:"stdout_bytes"`
	StderrBytes *int64  `json:"stderr_bytes"`
	LimitMS     *int64  `json:"limit_ms"`
	LimitFrom   *string `json:"limit_from"`
}

type jsonWait struct {
	Type         string `json:"type"`
	Time         string `json:"time"`
	Program      string `json:"program"`
	Attempt      int    `json:"attempt"`
	Max          int    `json:"max"`
	WaitMS       int64  `json:"wait_ms"`
	Phase        string `json:"phase"`
	RetryAfterMS *int64 `json:"retry_after_ms"`
	Reason       string `json:"reason"`
}

type jsonSummary struct {
	Type      string   `json:"type"`
	Time      string   `json:"time"`
	Program   string   `json:"program"`
	Argv      []string `json:"argv,omitempty"`
	Outcome   Outcome  `json:"outcome"`
	Attempts  int      `json:"attempts"`
	ElapsedMS int64    `json:"elapsed_ms"`
	ExitCode  int      `json:"exit_code"`
	LastError *string  `json:"last_error"`
}

// Observe writes the line for one event; it is a runner.Config.Observe
// function. A transient failure that will be retried gives an attempt_end
// line and then a wait line. Finished writes nothing: the summary needs the
// exit code, which only the caller knows (see Finish).
func (l *JSONLog) Observe(e runner.Event) {
	switch e := e.(type) {
	case *runner.AttemptStarted:
		l.write(jsonAttemptStart{
			Type: "attempt_start", Time: timestamp(e.Time), Program: l.Program, Argv: l.argv(),
			Attempt: e.Attempt, Max: e.Max,
		})
	case *runner.AttemptEnded:
		o := e.Attempt
		f := attemptFacts(o)
		end := timestamp(o.Start.Add(o.Duration))
		l.write(jsonAttemptEnd{
			Type: "attempt_end", Time: end, Program: l.Program, Attempt: o.N, Max: e.Max,
			ExitCode: f.ExitCode, Signal: f.Signal, TimedOut: f.TimedOut, DeadlineHit: f.DeadlineHit,
			Class: f.Class, Rule: f.Rule, Error: f.Error, DurationMS: millis(o.Duration),
			StdoutBytes: f.StdoutBytes, StderrBytes: f.StderrBytes,
			LimitMS: f.LimitMS, LimitFrom: f.LimitFrom,
		})
		if !e.Final && f.WaitMS != nil {
			l.write(jsonWait{
				Type: "wait", Time: end, Program: l.Program, Attempt: o.N + 1, Max: e.Max,
				WaitMS: *f.WaitMS, Phase: *f.WaitPhase, RetryAfterMS: f.RetryAfterMS, Reason: Failure(o),
			})
		}
	}
}

// Finish writes the summary line: the outcome, the attempts made, the time
// taken, retry's exit code and the last error. The caller calls it once,
// after the run (or instead of it, when the breaker refused the run).
func (l *JSONLog) Finish(e Ending) {
	l.write(jsonSummary{
		Type: "summary", Time: timestamp(e.end()), Program: l.Program, Argv: l.argv(),
		Outcome: e.Outcome, Attempts: len(e.Result.Attempts), ElapsedMS: millis(e.Result.Elapsed),
		ExitCode: e.ExitCode, LastError: e.lastError(),
	})
}

func (l *JSONLog) argv() []string {
	if l.Verbose {
		return l.Argv
	}
	return nil
}

// write encodes v on one line. Errors are ignored, as for the text log:
// a log that cannot be written must not change how the run goes.
func (l *JSONLog) write(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return // cannot happen: every value is a plain struct of strings and numbers
	}
	_, _ = l.W.Write(b.Bytes())
}
