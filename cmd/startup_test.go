package cmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BenchmarkStartup measures retry's own work before the first attempt:
// building the command tree, reading the layers and planning a run.
func BenchmarkStartup(b *testing.B) {
	deps := Deps{Env: []string{"PATH=/usr/bin:/bin"}}
	for b.Loop() {
		args, sources, err := withLayers([]string{"--", "true"}, deps)
		if err != nil {
			b.Fatal(err)
		}
		code := 0
		root := newRoot(deps, nil, &code, sources, needsTree(args))
		if err := root.ParseFlags(args); err != nil {
			b.Fatal(err)
		}
		o := defaultOptions()
		if _, err := o.plan([]string{"true"}, deps.Env); err != nil {
			b.Fatal(err)
		}
	}
}

// The fast path of layers skips its own parse of the command line when no
// word may name a policy: it must never skip one that does.
func TestMayNamePolicyMissesNoPolicyTheFlagsName(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-p", "patient", "--", "true"},
		{"-ppatient", "true"},
		{"-p=patient", "true"},
		{"-qp", "patient", "true"},
		{"-vqppatient", "true"},
		{"--policy", "patient", "true"},
		{"--policy=patient", "true"},
		{"-n", "3", "--deadline", "1m", "-p", "patient", "true"},
		{"-c", "make", "-p", "patient"},
	} {
		fs := scratchFlags()
		require.NoError(t, fs.Parse(args), args)
		require.True(t, fs.Lookup("policy").Changed, "%q names a policy", args)
		assert.True(t, mayNamePolicy(args), "%q names a policy", args)
	}
	for _, args := range [][]string{
		{"--", "true"},
		{"-n", "3", "--deadline", "1m", "--", "cp", "-p", "a", "b"},
		{"--preset", "curl", "--", "curl"},
		{"-qv", "--", "true"},
	} {
		assert.False(t, mayNamePolicy(args), "%q names no policy", args)
	}
}

// needsTree decides whether a start builds the subcommands; one that
// names a subcommand or asks for help before any -- must get them.
func TestNeedsTreeForSubcommandsAndHelpOnly(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{}, {"plan"}, {"-v", "plan"}, {"presets"}, {"breaker", "list"}, {"version"},
		{"help"}, {"completion", "bash"}, {"__complete", "--pre"}, {"--help"}, {"-h"}, {"-qh"},
	} {
		assert.True(t, needsTree(args), "%q", args)
	}
	for _, args := range [][]string{
		{"--", "true"}, {"-n", "3", "--", "plan"}, {"--version"}, {"curl", "-fsS", "URL"},
	} {
		assert.False(t, needsTree(args), "%q", args)
	}
}

// A start checks its first words against subcommands without building
// the tree: the list must be the tree's, and the subcommands that take a
// run's flags (and so its layers) must be the ones that have them.
func TestSubcommandsAreTheTreesCommands(t *testing.T) {
	t.Parallel()
	root := Command()
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
		s, ok := subcommandNamed(c.Name())
		require.True(t, ok, "%s is in the tree but not in subcommands()", c.Name())
		assert.Equal(t, s.runFlags, c.Flags().Lookup("policy") != nil, "%s takes a run's flags", c.Name())
	}
	assert.ElementsMatch(t, subcommandNames(), names)
}

// Without layers, the flags set on the command line are named as its,
// for a run and for retry plan alike.
func TestFlagsWithoutLayersComeFromTheCommandLine(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "--fast-delay", "300ms", "--fast-max", "100ms", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "both from the command line")

	r = runMain(t, nil, "plan", "-v", "-n", "3")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `--attempts\s+3\s+from command line`, r.stdout)

	r = runMain(t, nil, "plan", "-vp", "interactive")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `--attempts\s+3\s+from policy interactive \(built-in profile\)`, r.stdout)
}

// The idempotency key is 128 random bits in base32, as crypto/rand.Text
// writes them, and no two runs share one.
func TestIdempotencyKeysAreRandomBase32(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		k := idempotencyKey(nil)
		assert.Regexp(t, `^[A-Z2-7]{26}$`, k)
		assert.False(t, seen[k], "key %s came twice", k)
		seen[k] = true
	}
	assert.Equal(t, "from-caller", idempotencyKey([]string{"RETRY_IDEMPOTENCY_KEY=from-caller"}))
	assert.NotEqual(t, randomSeed(), randomSeed())
}

// A deadline that passes before the first attempt (a sub-millisecond one
// on a loaded machine) ends the run with nothing run: that is the
// deadline's 124, not the 0 of success.
func TestDeadlinePassedBeforeTheFirstAttemptExits124(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "-n", "1", "--deadline", "1ns", "--", "true")
	assert.Equal(t, 124, r.code, r.stderr)
	assert.Contains(t, r.stderr, "after 0 attempts")
}

// lookupEnv compares names without building name+"=": it must still find
// the last setting of exactly that name, with any "=" in its value.
func TestLookupEnvFindsTheLastSettingOfExactlyThatName(t *testing.T) {
	t.Parallel()
	env := []string{"RETRY=1", "RETRY_OPTS=-n 3", "NOEQUALS", "RETRY_OPTSX=no", "RETRY_OPTS=--env=A=B", "RETRY_STATE="}
	assert.Equal(t, "--env=A=B", lookupEnv(env, "RETRY_OPTS"))
	assert.Equal(t, "1", lookupEnv(env, "RETRY"))
	assert.Equal(t, "", lookupEnv(env, "RETRY_STATE"))
	assert.Equal(t, "", lookupEnv(env, "NOEQUALS"), "an entry without = sets nothing")
	assert.Equal(t, "", lookupEnv(env, "RETRY_OPT"), "a prefix of a name is another name")
	assert.Equal(t, "", lookupEnv(nil, "RETRY_OPTS"))
}
