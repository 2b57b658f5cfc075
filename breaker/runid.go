package breaker

// RunID returns the id that every retry invocation of one CI job or script
// run shares, for TakeRunRetry, looking the variables up with env. The first
// that is set wins:
//
//  1. RETRY_RUN_ID, as it is (a script sets it once and exports it);
//  2. GitHub Actions: "github:" GITHUB_REPOSITORY ":" GITHUB_RUN_ID ":"
//     GITHUB_JOB ":" GITHUB_RUN_ATTEMPT, so that a re-run gets a fresh
//     budget (matrix legs share GITHUB_JOB, and so share a budget);
//  3. GitLab CI: "gitlab:" CI_JOB_ID;
//  4. Buildkite: "buildkite:" BUILDKITE_JOB_ID;
//  5. CircleCI: "circleci:" CIRCLE_WORKFLOW_JOB_ID.
//
// It returns "" when none is set: there is no run budget then.
func RunID(env func(string) string) string {
	if env == nil {
		return ""
	}
	if id := env("RETRY_RUN_ID"); id != "" {
		return id
	}
	if id := env("GITHUB_RUN_ID"); id != "" {
		return "github:" + env("GITHUB_REPOSITORY") + ":" + id + ":" + env("GITHUB_JOB") + ":" + env("GITHUB_RUN_ATTEMPT")
	}
	for _, ci := range []struct{ prefix, name string }{
		{"gitlab:", "CI_JOB_ID"},
		{"buildkite:", "BUILDKITE_JOB_ID"},
		{"circleci:", "CIRCLE_WORKFLOW_JOB_ID"},
	} {
		if id := env(ci.name); id != "" {
			return ci.prefix + id
		}
	}
	return ""
}
