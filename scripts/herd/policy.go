package main

import (
	"strconv"
	"strings"
	"time"
)

// Policy is one way of retrying that the herd compares. Every client of a
// run uses the same policy.
type Policy struct {
	// Name identifies the policy in the CSV and in -policies.
	Name string
	// Label describes the policy in the table and the chart's legend.
	Label string
	// Needs lists the retry flags the policy uses beyond today's; it runs
	// only when `retry --help` lists every one of them.
	Needs []string
	// argv builds the command line of one client.
	argv func(c clientSetup) []string
}

// clientSetup is what a policy needs to build one client's command line.
type clientSetup struct {
	// Retry is the path of the retry binary.
	Retry string
	// Fetch is the command that makes one request, URL last:
	// curl -fsS … URL, or the fallback client.
	Fetch []string
	// Seed is the client's own --seed, so runs repeat their waits.
	Seed uint64
	// StateDir is a directory private to this run of the policy, for
	// retry's breaker state.
	StateDir string
	// Deadline is the --deadline of a patient client: long enough to
	// outlast the scenario's outage (see patientDeadline).
	Deadline time.Duration
}

// retryArgv returns retry, its flags, the client's seed, then -- and the
// fetch command.
func (c clientSetup) retryArgv(flags ...string) []string {
	argv := append([]string{c.Retry}, flags...)
	argv = append(argv, "--seed", strconv.FormatUint(c.Seed, 10), "--")
	return append(argv, c.Fetch...)
}

// naiveLoop is the shell loop of the naive policy; the fetch command comes
// in as its arguments, so no URL is ever quoted into shell text.
const naiveLoop = `for i in 1 2 3 4 5; do "$@" && exit 0; done; exit 1`

// policies returns every policy, in the order the herd runs and reports
// them: from the least to the most careful.
func policies() []Policy {
	return []Policy{
		{
			Name:  "naive",
			Label: "naive loop (5 immediate tries)",
			argv: func(c clientSetup) []string {
				return append([]string{"/bin/sh", "-c", naiveLoop, "naive"}, c.Fetch...)
			},
		},
		{
			Name:  "fixed-1s",
			Label: "fixed delay (1s, 5 tries)",
			argv: func(c clientSetup) []string {
				return c.retryArgv("-n", "5", "--fast", "0", "--slow-delay", "1s", "--slow-max", "1s", "--jitter", "none")
			},
		},
		{
			Name:  "exp-nojitter",
			Label: "exponential, no jitter (--fast 0 --jitter none)",
			argv: func(c clientSetup) []string {
				return c.retryArgv("--fast", "0", "--jitter", "none")
			},
		},
		{
			Name:  "full-jitter",
			Label: "full jitter only (--fast 0 --jitter full)",
			argv: func(c clientSetup) []string {
				return c.retryArgv("--fast", "0", "--jitter", "full")
			},
		},
		{
			Name:  "retry-defaults",
			Label: "retry defaults",
			argv: func(c clientSetup) []string {
				return c.retryArgv()
			},
		},
		{
			Name:  "retry-breaker",
			Label: "retry --breaker (fails fast while open)",
			Needs: []string{"--breaker", "--state"},
			argv: func(c clientSetup) []string {
				return c.retryArgv("--breaker", "herd", "--state", c.StateDir)
			},
		},
		{
			Name:  "retry-breaker-wait",
			Label: "retry --deadline D --breaker (waits out the circuit)",
			Needs: []string{"--breaker", "--state", "--when-open"},
			argv: func(c clientSetup) []string {
				return c.retryArgv("--deadline", c.Deadline.String(), "--breaker", "herd", "--state", c.StateDir)
			},
		},
	}
}

// patientDeadline is the --deadline of the waiting breaker policy in a
// scenario whose trouble lasts outage: 40s, or for an outage of 30s or
// more, twice the outage (120s for outage60s), as a caller that expects
// such outages would give.
func patientDeadline(outage time.Duration) time.Duration {
	return max(40*time.Second, 2*outage)
}

// supported reports whether help, the output of `retry --help`, lists every
// flag the policy needs.
func (p Policy) supported(help string) bool {
	for _, flag := range p.Needs {
		if !listsFlag(help, flag) {
			return false
		}
	}
	return true
}

// listsFlag reports whether help documents flag: the flag followed by a
// space, a comma, '=' or the end of a line, so --state does not match
// --stateful.
func listsFlag(help, flag string) bool {
	for rest := help; ; {
		i := strings.Index(rest, flag)
		if i < 0 {
			return false
		}
		rest = rest[i+len(flag):]
		if rest == "" || strings.ContainsRune(" ,=\n\t", rune(rest[0])) {
			return true
		}
	}
}
