package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDurationAcceptsGoSyntaxAndPlainSeconds(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"250ms":   250 * time.Millisecond,
		"1m30s":   90 * time.Second,
		"2":       2 * time.Second,
		"0.5":     500 * time.Millisecond,
		".25":     250 * time.Millisecond,
		"0":       0,
		"0s":      0,
		"1.5h":    90 * time.Minute,
		"0.0001":  100 * time.Microsecond,
		"2562047": 2562047 * time.Second,
		"1d":      24 * time.Hour,
		"1d12h":   36 * time.Hour,
		"1.5d":    36 * time.Hour,
		"2d30m":   48*time.Hour + 30*time.Minute,
		"0d":      0,
	} {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func TestParseDurationRejectsWhatIsNotADuration(t *testing.T) {
	t.Parallel()
	for in, why := range map[string]string{
		"":           "empty duration",
		"-1":         "negative duration",
		"-1s":        "negative duration",
		"soon":       "not a duration",
		"1e3":        "not a duration",
		"inf":        "not a duration",
		"NaN":        "not a duration",
		"0x10":       "not a duration",
		"1_000":      "not a duration",
		".":          "not a duration",
		"1..2":       "not a duration",
		"5 s":        "not a duration",
		"1e400":      "not a duration",
		"9999999999": "duration too long",
		"d":          "not a duration",
		"1dd":        "not a duration",
		"1d-1h":      "not a duration",
		"1d12":       "not a duration",
		"-1d":        "negative duration",
		"1h1d":       "not a duration",
		"200000d":    "duration too long",
		// Go's syntax refused for its size alone says so, as the day
		// form and plain seconds do (a new user's session found
		// 2562048h "not a duration" and 106752d "too long").
		"2562048h":              "duration too long",
		"99999999999999999999s": "duration too long",
		"1.2.3s":                "not a duration",
		"5x":                    "not a duration",
		"1h.m":                  "not a duration",
	} {
		_, err := ParseDuration(in)
		require.Error(t, err, "%q", in)
		assert.Equal(t, why, err.Error(), "%q", in)
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"250ms", "1m30s", "2", "0.5", "-1", "", "1e3", "inf", "9999999999", "1.5h", strings.Repeat("9", 400), "2562048h", "+1.5h3m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			assert.Zero(t, d)
			return
		}
		assert.GreaterOrEqual(t, d, time.Duration(0), "never negative: %q", s)
	})
}

func TestParseSizeAcceptsBytesAndUnits(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"0":       0,
		"1048576": 1 << 20,
		"512K":    512 << 10,
		"512KiB":  512 << 10,
		"512mib":  512 << 20,
		"1GiB":    1 << 30,
		"1.5GiB":  3 << 29,
		"2g":      2 << 30,
		"100MB":   100e6,
		"1kB":     1000,
		"3TiB":    3 << 40,
		"10b":     10,
	} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func TestParseSizeRejectsWhatIsNotASize(t *testing.T) {
	t.Parallel()
	for in, why := range map[string]string{
		"":           "no number",
		"GiB":        "no number",
		"-1":         "negative size",
		"-1MiB":      "negative size",
		"1PiB":       `unknown unit "PiB"`,
		"1 MiB":      "not a number",
		"1e3":        "not a number",
		"0x10":       "not a number",
		"1e3K":       "not a number",
		"1.2.3":      "not a number",
		"9999999TiB": "size too large",
	} {
		_, err := ParseSize(in)
		if assert.Error(t, err, in) {
			assert.Equal(t, why, err.Error(), in)
		}
	}
}

func TestFormatSizeReadsBackAsTheSameSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 1 << 30: "1GiB", 512 << 20: "512MiB", 1536: "1536", 1000: "1000", 3 << 40: "3TiB"} {
		assert.Equal(t, want, FormatSize(n))
		back, err := ParseSize(FormatSize(n))
		require.NoError(t, err)
		assert.Equal(t, n, back)
	}
}

// stringsValue stands in for pflag's StringArray: the same values in the
// same order, shown the same way (retry plan -v shows them).
func TestStringsValueKeepsAndShowsValuesAsStringArrayDoes(t *testing.T) {
	t.Parallel()
	for _, values := range [][]string{
		{"a"}, {"a", "b"}, {"a,b", "c"}, {`say "hi"`}, {" leading space"}, {"two\nlines"}, {`\.`}, {""}, {"", "x"},
	} {
		var ours, theirs []string
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.Var(stringsValue{&ours}, "ours", "")
		fs.StringArrayVar(&theirs, "theirs", nil, "")
		for _, v := range values {
			require.NoError(t, fs.Set("ours", v))
			require.NoError(t, fs.Set("theirs", v))
		}
		assert.Equal(t, theirs, ours, "%q", values)
		assert.Equal(t, fs.Lookup("theirs").Value.String(), fs.Lookup("ours").Value.String(), "%q", values)
		assert.Equal(t, "stringArray", fs.Lookup("ours").Value.Type())
	}
	var none []string
	assert.Empty(t, stringsValue{&none}.String(), "no default shown in usage")
}

// FuzzParseSize checks --stdin-max's parser: it never panics, never
// returns a negative size, and reads back what FormatSize writes.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1GiB", "512MiB", "1.5GiB", "100MB", "0", "1048576", "-1", "1e400K", "9223372036854775807", "1Ki", "KiB", " 1", "1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(FormatSize(%d)) = %d, %v", n, back, err)
		}
	})
}
