package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goList runs go list with a template over pkgs and returns its lines.
func goList(t *testing.T, template string, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-f", template}, pkgs...)...).Output()
	require.NoError(t, err)
	return strings.Fields(string(out))
}

func TestDepsOnlyImportsWhatRetryImports(t *testing.T) {
	var ours []string
	for _, p := range goList(t, "{{.ImportPath}}", "-deps", "retry") {
		if p == "retry" || strings.HasPrefix(p, "retry/") {
			ours = append(ours, p)
		}
	}
	require.Contains(t, ours, "retry/cmd")
	var want []string
	for _, p := range goList(t, `{{join .Imports "\n"}}`, ours...) {
		if p != "retry" && !strings.HasPrefix(p, "retry/") && p != "unsafe" {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	got := goList(t, `{{join .Imports "\n"}}`, ".")
	assert.Equal(t, want, got, "regenerate the import list of scripts/bench/depsonly/main.go")
}
