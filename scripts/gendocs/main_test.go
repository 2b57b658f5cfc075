package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGeneratedDocsAreUpToDate(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, generate(dir))
	for _, sub := range []string{"man", "cli"} {
		want, err := os.ReadDir(filepath.Join(dir, sub))
		require.NoError(t, err)
		got, err := os.ReadDir(filepath.Join("..", "..", "docs", sub))
		require.NoError(t, err, "docs/%s is missing: run go run ./scripts/gendocs", sub)
		var wantNames, gotNames []string
		for _, e := range want {
			wantNames = append(wantNames, e.Name())
		}
		for _, e := range got {
			gotNames = append(gotNames, e.Name())
		}
		require.Equal(t, wantNames, gotNames, "docs/%s lists other pages: run go run ./scripts/gendocs", sub)
		for _, name := range wantNames {
			fresh, err := os.ReadFile(filepath.Join(dir, sub, name))
			require.NoError(t, err)
			checked, err := os.ReadFile(filepath.Join("..", "..", "docs", sub, name))
			require.NoError(t, err)
			assert.Equal(t, string(fresh), string(checked), "docs/%s/%s is out of date: run go run ./scripts/gendocs", sub, name)
		}
	}
}
