package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func policyNamed(t *testing.T, name string) Policy {
	t.Helper()
	for _, p := range policies() {
		if p.Name == name {
			return p
		}
	}
	require.Failf(t, "no policy", "%q", name)
	return Policy{}
}

func TestPoliciesBuildTheDocumentedCommandLines(t *testing.T) {
	t.Parallel()
	c := clientSetup{
		Retry:    "/bin/retry",
		Fetch:    []string{"/usr/bin/curl", "-fsS", "--max-time", "5", "http://127.0.0.1:1/?c=3"},
		Seed:     4,
		StateDir: "/tmp/s",
	}
	fetch := "/usr/bin/curl -fsS --max-time 5 http://127.0.0.1:1/?c=3"
	for name, want := range map[string][]string{
		"naive":          {"/bin/sh", "-c", naiveLoop, "naive", "/usr/bin/curl", "-fsS", "--max-time", "5", "http://127.0.0.1:1/?c=3"},
		"fixed-1s":       {"/bin/retry", "-n", "5", "--fast", "0", "--slow-delay", "1s", "--slow-max", "1s", "--jitter", "none", "--seed", "4", "--"},
		"exp-nojitter":   {"/bin/retry", "--fast", "0", "--jitter", "none", "--seed", "4", "--"},
		"full-jitter":    {"/bin/retry", "--fast", "0", "--jitter", "full", "--seed", "4", "--"},
		"retry-defaults": {"/bin/retry", "--seed", "4", "--"},
		"retry-breaker":  {"/bin/retry", "--breaker", "herd", "--state", "/tmp/s", "--seed", "4", "--"},
	} {
		if name != "naive" {
			want = append(want, c.Fetch...)
		}
		assert.Equal(t, want, policyNamed(t, name).argv(c), name+" runs "+fetch)
	}
}

func TestBreakerPolicyRunsOnlyWhenRetryListsItsFlags(t *testing.T) {
	t.Parallel()
	breaker := policyNamed(t, "retry-breaker")
	today := "      --seed number            seed for every random choice\n  -q, --quiet[=true|false]\n"
	assert.False(t, breaker.supported(today))
	assert.False(t, breaker.supported(today+"      --breaker string   key\n"), "--state is needed too")
	assert.False(t, breaker.supported(today+"      --breakers string\n      --stateful\n"), "a longer flag is another flag")
	assert.True(t, breaker.supported(today+"      --breaker KEY   share a breaker\n      --state DIR   where\n"))
	assert.True(t, policyNamed(t, "retry-defaults").supported(today), "policies with no needs always run")
}
