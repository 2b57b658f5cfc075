package main

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syntheticResult is a scenario with one run policy and one unavailable.
func syntheticResult() scenarioResult {
	tl := downTimeline("outage", 200*time.Millisecond, time.Second)
	events := []event{
		{At: 250 * time.Millisecond, Client: 0, Outcome: Down},
		{At: 260 * time.Millisecond, Client: 0, Outcome: Down},
		{At: 1300 * time.Millisecond, Client: 0, Outcome: Served},
	}
	clients := []clientResult{{Launched: 250 * time.Millisecond, Exited: 1310 * time.Millisecond, Attempts: 3}}
	pols := policies()
	return scenarioResult{
		Scenario: Scenario{Name: "outage10s", Quick: true, Timeline: tl},
		Capacity: 20,
		Burst:    2,
		End:      3 * time.Second,
		Runs: []policyRun{
			{Policy: pols[4], Available: true, Events: events, Clients: clients, Summary: summarize(tl, events, clients, 2)},
			{Policy: pols[5]},
		},
	}
}

func TestCSVHasTheHeaderAndABucketPerPolicyAndTenthOfASecond(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, writeCSV(&buf, syntheticResult()))
	rows, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	assert.Equal(t, []string{"time_ms", "policy", "requests", "successes", "503s"}, rows[0])
	require.Len(t, rows, 1+30, "3s of 100ms buckets, for the one policy that ran")
	assert.Equal(t, []string{"200", "retry-defaults", "2", "0", "2"}, rows[1+2])
	assert.Equal(t, []string{"1300", "retry-defaults", "1", "1", "0"}, rows[1+13])
}

func TestSVGIsWellFormedAndNamesEveryPolicy(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, writeSVG(&buf, syntheticResult()))
	requireXML(t, buf.Bytes())
	svg := buf.String()
	assert.Contains(t, svg, "retry defaults")
	assert.Contains(t, svg, "retry --breaker (fails fast while open): not available in this build")
	assert.Contains(t, svg, "capacity 20 req/s")
	assert.Contains(t, svg, "outage (server answers 503)")
}

// requireXML fails the test unless doc is well-formed XML whose root is an
// svg element.
func requireXML(t *testing.T, doc []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	require.Equal(t, "svg", root)
}

func TestMarkdownTableMarksAMissingPolicyNotAvailable(t *testing.T) {
	t.Parallel()
	r := syntheticResult()
	var buf bytes.Buffer
	writeMarkdown(&buf, r, Options{Clients: 1, Spread: time.Second}, []string{"/usr/bin/curl", "-fsS"})
	out := buf.String()
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	require.Len(t, rows, 4, "header, rule, two policies")
	cells := len(tableHeader()) + 1
	for _, row := range rows {
		assert.Equal(t, cells, strings.Count(row, "|"), "every row has every column: %s", row)
	}
	assert.Contains(t, rows[2], "| retry defaults | 3.00 / 3 | 2.00 / 2 |")
	assert.Contains(t, rows[2], "| 0.10s / 0.10s | 1 of 1 | 0 of 1 |")
	assert.Contains(t, rows[3], "| retry --breaker (fails fast while open) | not available in this build |")
	assert.Contains(t, out, "each client: POLICY -- curl -fsS URL")
}

func TestSmoothAveragesACenteredWindowClippedAtTheEnds(t *testing.T) {
	t.Parallel()
	b := []bucket{{Requests: 5}, {}, {}, {Requests: 10}, {}, {}, {}}
	got := smooth(b, 500*time.Millisecond)
	// Bucket 0 sees buckets 0–2 (300ms): 5 requests, 16.7/s; bucket 3
	// sees 1–5: 10 requests in 500ms, 20/s; bucket 5 sees 3–6 (400ms);
	// bucket 6 sees 4–6: none.
	assert.InDeltaSlice(t, []float64{5 / 0.3, 15 / 0.4, 15 / 0.5, 10 / 0.5, 10 / 0.5, 10 / 0.4, 0}, got, 1e-9)
	assert.Equal(t, []float64{50, 0}, smooth([]bucket{{Requests: 5}, {}}, 100*time.Millisecond), "a 100ms window is the buckets themselves")
}

func TestAxisHelpersPickRoundValues(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]float64{0: 1, 7: 10, 10: 10, 11: 20, 240: 500, 600: 1000, 1000: 1000} {
		assert.Equal(t, want, niceCeil(v), "niceCeil(%v)", v)
	}
	assert.Equal(t, []float64{2, 5, 10, 20, 50, 100, 200}, logTicks(200))
	assert.Equal(t, 500*time.Millisecond, timeStep(4*time.Second))
	assert.Equal(t, 2*time.Second, timeStep(25*time.Second))
	assert.Equal(t, 5*time.Second, timeStep(63*time.Second))
}
