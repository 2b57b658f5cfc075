package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// SchemaVersion is the report file's schema_version. It changes when a
// field is removed, renamed or changes meaning; added fields keep it.
// docs/report-schema.md and docs/report-schema.json describe the schema.
const SchemaVersion = 1

// ReportFile writes the run's report as one JSON document (--report FILE):
// the command, the start and end times, every attempt, the outcome and
// retry's exit code.
//
// A regular file is replaced atomically (see Write), so a reader never
// sees half a report. Its mode is 0644, so CI tooling running as another
// user can read it, except when Verbose puts the full argv in it: argv
// often carries secrets, so the file is then 0600. A device, a FIFO, a
// socket or a file descriptor (/dev/stderr, /dev/fd/N) is written into
// instead, and keeps its own mode.
type ReportFile struct {
	// Path is the file to write.
	Path string
	// W, when set, receives the report instead of Path: --report - writes
	// it to retry's stderr.
	W io.Writer
	// Version is retry's version, recorded as retry_version.
	Version string
	// Program names the command; Argv is recorded only when Verbose is set.
	Program string
	Argv    []string
	Verbose bool
	// Breaker describes the run's circuit breaker; nil when the run had
	// none (no --breaker).
	Breaker *Breaker
}

// Breaker is what the report file says about the run's circuit breaker.
type Breaker struct {
	// Key is the circuit key (--breaker).
	Key string
	// WhenOpen is what the run did about an open circuit: "wait" or
	// "fail" (--when-open auto resolved).
	WhenOpen string
	// Waited is how long the run waited for the circuit in all.
	Waited time.Duration
}

type reportBreaker struct {
	Key      string `json:"key"`
	WhenOpen string `json:"when_open"`
	WaitedMS int64  `json:"waited_ms"`
}

type reportDoc struct {
	SchemaVersion int             `json:"schema_version"`
	RetryVersion  string          `json:"retry_version"`
	Command       reportCommand   `json:"command"`
	Outcome       Outcome         `json:"outcome"`
	ExitCode      int             `json:"exit_code"`
	Start         string          `json:"start"`
	End           string          `json:"end"`
	ElapsedMS     int64           `json:"elapsed_ms"`
	LastError     *string         `json:"last_error"`
	Attempts      []reportAttempt `json:"attempts"`
	Breaker       *reportBreaker  `json:"breaker,omitempty"`
}

type reportCommand struct {
	Program string   `json:"program"`
	Argv    []string `json:"argv,omitempty"`
}

type reportAttempt struct {
	Attempt      int     `json:"attempt"`
	Start        string  `json:"start"`
	DurationMS   int64   `json:"duration_ms"`
	ExitCode     int     `json:"exit_code"`
	Signal       *string `json:"signal"`
	TimedOut     bool    `json:"timed_out"`
	DeadlineHit  bool    `json:"deadline_hit"`
	Class        string  `json:"class"`
	Rule         *string `json:"rule"`
	Error        *string `json:"error"`
	WaitMS       *int64  `json:"wait_ms"`
	WaitPhase    *string `json:"wait_phase"`
	RetryAfterMS *int64  `json:"retry_after_ms"`
	StdoutBytes  *int64  `json:"stdout_bytes"`
	StderrBytes  *int64  `json:"stderr_bytes"`
	LimitMS      *int64  `json:"limit_ms"`
	LimitFrom    *string `json:"limit_from"`
}

// Write writes the report of the run that ended as e. It replaces a
// regular file, or a path that does not exist yet, atomically: a temporary
// file in the same directory, synced, then renamed over Path. Anything
// else that Path leads to is written into (see target); a FIFO waits at
// most ReaderWait for a reader, or until ctx is done.
func (f *ReportFile) Write(ctx context.Context, e Ending) error {
	data, err := f.encode(e)
	if err != nil {
		return fmt.Errorf("report file: %w", err)
	}
	if f.W != nil {
		_, err = f.W.Write(data)
	} else {
		err = writeFile(ctx, f.Path, data, f.mode())
	}
	if err != nil {
		return fmt.Errorf("report file: %w", err)
	}
	return nil
}

func (f *ReportFile) mode() fs.FileMode {
	if f.Verbose && len(f.Argv) > 0 {
		return 0o600
	}
	return 0o644
}

// encode renders the document, indented, with a final newline.
func (f *ReportFile) encode(e Ending) ([]byte, error) {
	r := e.Result
	doc := reportDoc{
		SchemaVersion: SchemaVersion,
		RetryVersion:  f.Version,
		Command:       reportCommand{Program: f.Program},
		Outcome:       e.Outcome,
		ExitCode:      e.ExitCode,
		Start:         timestamp(r.Start),
		End:           timestamp(e.end()),
		ElapsedMS:     millis(r.Elapsed),
		LastError:     e.lastError(),
		Attempts:      make([]reportAttempt, 0, len(r.Attempts)),
	}
	if f.Verbose {
		doc.Command.Argv = f.Argv
	}
	if b := f.Breaker; b != nil {
		doc.Breaker = &reportBreaker{Key: b.Key, WhenOpen: b.WhenOpen, WaitedMS: millis(b.Waited)}
	}
	for _, o := range r.Attempts {
		a := attemptFacts(o)
		doc.Attempts = append(doc.Attempts, reportAttempt{
			Attempt: o.N, Start: timestamp(o.Start), DurationMS: millis(o.Duration),
			ExitCode: a.ExitCode, Signal: a.Signal, TimedOut: a.TimedOut, DeadlineHit: a.DeadlineHit,
			Class: a.Class, Rule: a.Rule, Error: a.Error,
			WaitMS: a.WaitMS, WaitPhase: a.WaitPhase, RetryAfterMS: a.RetryAfterMS,
			StdoutBytes: a.StdoutBytes, StderrBytes: a.StderrBytes,
			LimitMS: a.LimitMS, LimitFrom: a.LimitFrom,
		})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
