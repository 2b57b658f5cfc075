package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func compileReportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(filepath.Join("..", "docs", "report-schema.json"))
	require.NoError(t, err)
	return s
}

func TestReportFileMatchesTheDocumentedSchemaForEveryKindOfRun(t *testing.T) {
	t.Parallel()
	schema := compileReportSchema(t)
	for name, end := range endings() {
		for _, verbose := range []bool{false, true} {
			if verbose {
				name += ", verbose"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), "report.json")
				f := &ReportFile{Path: path, Version: "devel", Program: "curl", Argv: scriptedArgv(), Verbose: verbose}
				require.NoError(t, f.Write(t.Context(), end))
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
				require.NoError(t, err)
				assert.NoError(t, schema.Validate(doc))

				var got struct {
					Outcome  Outcome `json:"outcome"`
					ExitCode int     `json:"exit_code"`
					Attempts []any   `json:"attempts"`
				}
				require.NoError(t, json.Unmarshal(data, &got))
				assert.Equal(t, end.Outcome, got.Outcome)
				assert.Equal(t, end.ExitCode, got.ExitCode)
				assert.Len(t, got.Attempts, len(end.Result.Attempts))
			})
		}
	}
}

func TestSchemaRejectsAReportThatBreaksIt(t *testing.T) {
	t.Parallel()
	schema := compileReportSchema(t)
	for _, tc := range []struct {
		name, patch string
		valid       bool
	}{
		{"unchanged report is valid", ``, true},
		{"unknown outcome", `"outcome": "retrying"`, false},
		{"local time", `"start": "2026-01-02T04:04:05.678+01:00"`, false},
		{"undocumented field", `"extra": 1`, false},
		{"missing exit code", `"exit_code": null`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &ReportFile{Program: "curl", Version: "devel"}
			data, err := f.encode(endings()["attempts exhausted"])
			require.NoError(t, err)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			require.NoError(t, err)
			patch, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte("{" + tc.patch + "}")))
			require.NoError(t, err)
			for k, val := range patch.(map[string]any) {
				v.(map[string]any)[k] = val
			}
			if tc.valid {
				assert.NoError(t, schema.Validate(v))
			} else {
				assert.Error(t, schema.Validate(v))
			}
		})
	}
}

func TestOutcomeEnumInTheSchemaListsEveryOutcome(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "docs", "report-schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Outcome struct {
				Enum []Outcome `json:"enum"`
			} `json:"outcome"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(data, &schema))
	assert.Equal(t, Outcomes(), schema.Properties.Outcome.Enum)
}

func TestReportFileShowsArgvOnlyWhenVerboseAndThenIsPrivate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		verbose  bool
		wantMode os.FileMode
	}{
		{"program name only, readable by all", false, 0o644},
		{"full argv, readable by the owner only", true, 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "report.json")
			f := &ReportFile{Path: path, Version: "devel", Program: "curl", Argv: scriptedArgv(), Verbose: tc.verbose}
			require.NoError(t, f.Write(t.Context(), endings()["attempts exhausted"]))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tc.verbose, bytes.Contains(data, []byte("secret")))
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tc.wantMode, info.Mode().Perm())
		})
	}
}

func TestReportFileReplacesTheOldOneAndLeavesNoTemporaryFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	f := &ReportFile{Path: path, Version: "devel", Program: "curl"}
	require.NoError(t, f.Write(t.Context(), endings()["success after a retry"]))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, json.Valid(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the report is left")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "the mode is the report's, not the old file's")
}

func TestReportFileThatCannotBeWrittenLeavesTheDirectoryClean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	require.NoError(t, os.Mkdir(target, 0o755)) // a directory cannot be replaced by a file
	f := &ReportFile{Path: target, Version: "devel", Program: "curl"}
	err := f.Write(t.Context(), endings()["success after a retry"])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "report file: ")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the temporary file was removed")

	missing := &ReportFile{Path: filepath.Join(dir, "no", "such", "dir", "report.json")}
	assert.Error(t, missing.Write(t.Context(), endings()["success after a retry"]))
}
