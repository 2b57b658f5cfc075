package main

// Every start of retry runs the initialisation of every package linked in,
// and pays for their size (page faults, the runtime's tables): a heavy
// package imported for one rare feature slows every `retry -- true`. The
// Redis client (with crypto/tls and the network) is linked only into
// retry-redis, to which retry hands the runs that keep their state in
// Redis; docs/benchmarks.md says what that saves.

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heavyPackages maps each heavy package to the import path prefixes
// through which it may be reached; none means not at all.
var heavyPackages = map[string][]string{
	"net/http":                   nil,
	"html/template":              nil,
	"encoding/xml":               nil,
	"google.golang.org/protobuf": nil,
	"github.com/prometheus":      nil,
	// cobra imports it for custom help templates, which retry does not
	// set (TestBinaryLetsTheLinkerDropUnusedMethods keeps it that way).
	"text/template": {"github.com/spf13/cobra"},
	// Only retry-redis speaks to the network (cmd/retry-redis). Any
	// package of the standard library's crypto is the FIPS 140 module's,
	// whose algorithms and self-tests every start would then initialise:
	// crypto/sha256 alone cost 0.06-0.08 of the start-up baseline
	// (internal/sha256 names the state files instead).
	"crypto":                    nil,
	"github.com/redis/go-redis": nil,
	"retry/breaker/redisclient": nil,
}

func TestHeavyPackagesStayOffTheStartPath(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, ".").Output()
	require.NoError(t, err)
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ":")
		imports[pkg] = strings.Fields(deps)
	}
	require.Contains(t, imports, "retry/cmd")
	for heavy, through := range heavyPackages {
		if path := importPath(imports, "retry", heavy, through); path != nil {
			assert.Failf(t, "heavy package on the start path", "%s is linked into retry through %s; keep it behind a feature that needs it, and measure the start (docs/benchmarks.md)",
				heavy, strings.Join(path, " -> "))
		}
	}
}

// importPath returns a chain of imports from root to a package named by
// heavy (itself or one under it) that passes through no package starting
// with one of the prefixes in through, or nil if there is none.
func importPath(imports map[string][]string, root, heavy string, through []string) []string {
	via := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if pkg == heavy || strings.HasPrefix(pkg, heavy+"/") {
			var path []string
			for p := pkg; p != ""; p = via[p] {
				path = append(path, p)
			}
			slices.Reverse(path)
			return path
		}
		for _, next := range imports[pkg] {
			if _, seen := via[next]; seen || slices.ContainsFunc(through, func(p string) bool { return strings.HasPrefix(next, p) }) {
				continue
			}
			via[next] = pkg
			queue = append(queue, next)
		}
	}
	return nil
}

func TestRetryRedisLinksTheRedisClient(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "./cmd/retry-redis").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	assert.Contains(t, deps, "retry/breaker/redisclient")
	assert.Contains(t, deps, "github.com/redis/go-redis/v9")
	assert.Contains(t, deps, "retry/cmd", "it is retry, with the client")
}
