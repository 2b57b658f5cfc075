package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// csvHeader is the first row of every CSV the herd writes.
func csvHeader() []string {
	return []string{"time_ms", "policy", "requests", "successes", "503s"}
}

// writeFiles writes the scenario's CSV and SVG into dir and records their
// paths in r.
func writeFiles(r *scenarioResult, dir string) error {
	stem := filepath.Join(dir, r.Scenario.FileStem())
	r.CSV, r.SVG = stem+".csv", stem+".svg"
	if err := writeFile(r.CSV, func(w io.Writer) error { return writeCSV(w, *r) }); err != nil {
		return err
	}
	return writeFile(r.SVG, func(w io.Writer) error { return writeSVG(w, *r) })
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// writeCSV writes one row per policy and 100ms bucket, from 0 to r.End,
// empty buckets included, so that every policy has the same rows.
func writeCSV(w io.Writer, r scenarioResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader()); err != nil {
		return err
	}
	for _, pr := range r.Runs {
		if !pr.Available {
			continue
		}
		for i, b := range bucketize(pr.Events, r.End) {
			row := []string{
				strconv.FormatInt((time.Duration(i) * bucketWidth).Milliseconds(), 10),
				pr.Policy.Name,
				strconv.Itoa(b.Requests),
				strconv.Itoa(b.Successes),
				strconv.Itoa(b.Unavailable),
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// seconds formats d as seconds with two decimals, as in "1.25s".
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// dash stands in a table cell for a value that does not apply.
const dash = "—"

// tableHeader returns the summary table's column titles; docs/herd.md
// explains each one.
func tableHeader() []string {
	return []string{
		"policy",
		"attempts/client mean / max",
		"in outage: attempts/client mean / max",
		"peak req/s",
		"peak req/s 0–2s after recovery (× capacity)",
		"peak req/s later (× capacity)",
		"peak req/s in 1s after recovery (× capacity)",
		"recovery p50 / p99",
		"recovered",
		"gave up",
		"elapsed",
	}
}

// tableRow returns a policy's cells in tableHeader's order.
func tableRow(pr policyRun, capacity float64) []string {
	if !pr.Available {
		row := []string{pr.Policy.Label, "not available in this build"}
		for len(row) < len(tableHeader()) {
			row = append(row, dash)
		}
		return row
	}
	s := pr.Summary
	rate := func(v float64) string {
		return fmt.Sprintf("%.0f (%.2f×)", v, v/capacity)
	}
	outage, after, later, after1s, recovery := dash, dash, dash, dash, dash
	if s.HasOutage {
		after, later, after1s = rate(s.PeakAfterRPS), rate(s.PeakLaterRPS), rate(s.Peak1sAfterRPS)
		if s.OutageClients > 0 {
			outage = fmt.Sprintf("%.2f / %d", s.OutageMean, s.OutageMax)
		}
		if s.Recovered > 0 {
			recovery = seconds(s.RecoveryP50) + " / " + seconds(s.RecoveryP99)
		}
	}
	recovered := dash
	if s.HasOutage {
		recovered = fmt.Sprintf("%d of %d", s.Recovered, s.OutageClients)
	}
	gaveUp := fmt.Sprintf("%d of %d", s.GaveUp, s.Clients)
	if s.Killed > 0 {
		gaveUp += fmt.Sprintf(" (%d killed)", s.Killed)
	}
	return []string{
		pr.Policy.Label,
		fmt.Sprintf("%.2f / %d", s.AttemptsMean, s.AttemptsMax),
		outage,
		fmt.Sprintf("%.0f", s.PeakRPS),
		after,
		later,
		after1s,
		recovery,
		recovered,
		gaveUp,
		seconds(s.Elapsed),
	}
}

// writeMarkdown prints the scenario's settings, its summary table and, per
// policy, the exit codes and the request cross-check.
func writeMarkdown(w io.Writer, r scenarioResult, o Options, fetch []string) {
	fmt.Fprintf(w, "### %s\n\n", r.Scenario.FileStem())
	fmt.Fprintf(w, "- timeline: %s\n", r.Scenario.Timeline)
	fmt.Fprintf(w, "- %d clients starting uniformly over %v; capacity %.0f req/s (token bucket, burst %.0f); 503s for capacity %s\n",
		o.Clients, o.Spread, r.Capacity, r.Burst, retryAfterText(o.RetryAfter))
	fmt.Fprintf(w, "- each client: POLICY -- %s URL\n", strings.Join(shortArgv(fetch), " "))
	if r.Repeat > 1 {
		fmt.Fprintf(w, "- each policy ran %d times with other launch times and seeds: the table pools the %d clients, its peaks and maxima are the highest of any run; the CSV and chart show the first run\n",
			r.Repeat, r.Repeat*o.Clients)
	}
	fmt.Fprintf(w, "- machine: %d CPUs; load average %s before, %s after\n\n", runtime.NumCPU(), r.LoadBefore, r.LoadAfter)
	writeTable(w, tableHeader())
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(tableHeader())))
	for _, pr := range r.Runs {
		writeTable(w, tableRow(pr, r.Capacity))
	}
	fmt.Fprintln(w)
	for _, pr := range r.Runs {
		if !pr.Available {
			fmt.Fprintf(w, "- %s: retry --help lists no %s\n", pr.Policy.Name, strings.Join(pr.Policy.Needs, " or "))
			continue
		}
		s := pr.Summary
		fmt.Fprintf(w, "- %s: exit codes %s; server counted %d requests, clients reported %d; median gap between a client's requests %v; launches up to %v late",
			pr.Policy.Name, exitCodes(s.ExitCodes), s.Requests, s.ClientAttempts,
			s.GapP50.Round(time.Millisecond), s.LaunchLate.Round(time.Millisecond))
		fmt.Fprintf(w, "; clients used %.1f CPU-s, %.0f%% of the machine", s.CPU.Seconds(), 100*s.CPUShare)
		if s.CPUShare >= cpuBound {
			fmt.Fprint(w, " (CPU-bound)")
		}
		if s.Killed > 0 {
			fmt.Fprintf(w, "; %d killed at their deadline", s.Killed)
		}
		if s.Lingered > 0 {
			fmt.Fprintf(w, "; %d kept stderr open %v after exiting", s.Lingered, killGrace)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nfiles: %s, %s\n\n", r.CSV, r.SVG)
}

// cpuBound is the share of the machine's CPU time beyond which a run is
// flagged CPU-bound: its clients queued for a core.
const cpuBound = 0.7

// writeTable prints one Markdown table row.
func writeTable(w io.Writer, cells []string) {
	fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
}

// exitCodes formats a count of exit codes as "0×80 22×20", lowest first.
func exitCodes(codes map[int]int) string {
	keys := make([]int, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d×%d", k, codes[k])
	}
	return strings.Join(parts, " ")
}

// retryAfterText describes the Retry-After setting.
func retryAfterText(d time.Duration) string {
	if d <= 0 {
		return "without Retry-After"
	}
	return fmt.Sprintf("with Retry-After: %d", int64((d+time.Second-1)/time.Second))
}

// shortArgv shows a command by program name, not path.
func shortArgv(argv []string) []string {
	out := append([]string(nil), argv...)
	if len(out) > 0 {
		out[0] = filepath.Base(out[0])
	}
	return out
}
