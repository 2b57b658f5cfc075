package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// chart is the geometry of the SVG: the whole picture and the plot area.
type chart struct {
	width, height          float64
	left, right, top, base float64
	end                    time.Duration
	yMax                   float64
}

// x maps a time to a horizontal position in the plot.
func (c chart) x(t time.Duration) float64 {
	return c.left + (c.right-c.left)*t.Seconds()/c.end.Seconds()
}

// y maps requests per second to a vertical position. The scale is
// logarithmic above logFloor, so that a few requests a second stay visible
// next to the naive loop's hundreds; 0 sits on the axis.
func (c chart) y(v float64) float64 {
	if v <= 0 {
		return c.base
	}
	v = max(v, logFloor)
	f := math.Log10(v/logFloor) / math.Log10(c.yMax/logFloor)
	return c.base - (c.base-c.top)*f
}

// logFloor is the bottom of the logarithmic scale: one request in the
// chart's window is 2 req/s, which still clears the axis.
const logFloor = 1.0

// chartWindow is the width of the moving window the chart averages over:
// 100ms buckets of a few requests each flicker between 0 and 10 req/s and
// hide each other; half a second still shows a herd's spike.
const chartWindow = 500 * time.Millisecond

// smooth returns requests per second in a window of width centered on each
// bucket, the window clipped at both ends of the run.
func smooth(buckets []bucket, width time.Duration) []float64 {
	half := int(width/bucketWidth) / 2
	out := make([]float64, len(buckets))
	for i := range buckets {
		lo, hi := max(0, i-half), min(len(buckets), i+half+1)
		n := 0
		for _, b := range buckets[lo:hi] {
			n += b.Requests
		}
		out[i] = float64(n) / (time.Duration(hi-lo) * bucketWidth).Seconds()
	}
	return out
}

// seriesColor returns the line color of the i-th policy.
func seriesColor(i int) string {
	colors := []string{"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#1f77b4", "#2ca02c", "#17becf"}
	return colors[i%len(colors)]
}

// writeSVG draws requests per second at the server over time, one line per
// policy, with the outage shaded, the capacity dashed, axes and a legend.
func writeSVG(w io.Writer, r scenarioResult) error {
	bw := bufio.NewWriter(w)
	c := chart{width: 960, height: 600, left: 80, right: 930, top: 76, base: 416, end: r.End, yMax: 2 * r.Capacity}
	type series struct {
		color, label string
		rps          []float64
	}
	var lines []series
	var missing []string
	for i, pr := range r.Runs {
		if !pr.Available {
			missing = append(missing, pr.Policy.Label)
			continue
		}
		rps := smooth(bucketize(pr.Events, r.End), chartWindow)
		for _, v := range rps {
			c.yMax = max(c.yMax, v)
		}
		lines = append(lines, series{color: seriesColor(policyIndex(pr.Policy.Name, i)), label: pr.Policy.Label, rps: rps})
	}
	c.yMax = niceCeil(c.yMax)
	legendRows := (len(lines)+1)/2 + len(missing)
	c.height = c.base + 70 + float64(legendRows)*22

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="13">`+"\n",
		c.width, c.height, c.width, c.height)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := fmt.Sprintf("%s: requests per second at the server", r.Scenario.FileStem())
	if r.Repeat > 1 {
		title += fmt.Sprintf(" (first of %d runs)", r.Repeat)
	}
	text(bw, c.left, 26, "start", 16, title)
	text(bw, c.left, 46, "start", 12, fmt.Sprintf("%d clients, capacity %.0f req/s; %s", clientCount(r), r.Capacity, r.Scenario.Timeline))
	text(bw, c.left, 62, "start", 12, fmt.Sprintf("each line: requests per second over a sliding %v window (the table's peaks use 100ms windows)", chartWindow))

	if start, end, ok := r.Scenario.Timeline.Outage(); ok {
		x0, x1 := c.x(start), c.x(min(end, c.end))
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#f2c4c4" fill-opacity="0.5"/>`+"\n",
			x0, c.top, max(x1-x0, 1), c.base-c.top)
		name := "outage"
		if len(r.Scenario.Timeline.Phases) > 1 {
			name = r.Scenario.Timeline.Phases[1].Name
		}
		text(bw, x0+4, c.top+14, "start", 12, name+" (server answers 503)")
	}

	// Axes, ticks and grid.
	for _, v := range logTicks(c.yMax) {
		y := c.y(v)
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", c.left, y, c.right, y)
		text(bw, c.left-6, y+4, "end", 12, fmt.Sprintf("%g", v))
	}
	text(bw, c.left-6, c.base+4, "end", 12, "0")
	step := timeStep(c.end)
	for t := time.Duration(0); t <= c.end; t += step {
		x := c.x(t)
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", x, c.base, x, c.base+5)
		text(bw, x, c.base+19, "middle", 12, fmt.Sprintf("%g", t.Seconds()))
	}
	fmt.Fprintf(bw, `<path d="M%.1f %.1fV%.1fH%.1f" fill="none" stroke="#333"/>`+"\n", c.left, c.top, c.base, c.right)
	text(bw, (c.left+c.right)/2, c.base+40, "middle", 13, "seconds since the first client could start")
	fmt.Fprintf(bw, `<text x="20" y="%.1f" text-anchor="middle" font-size="13" transform="rotate(-90 20 %.1f)">%s</text>`+"\n",
		(c.top+c.base)/2, (c.top+c.base)/2, escape("requests per second (log scale)"))

	// Capacity.
	yc := c.y(r.Capacity)
	fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-dasharray="6 4"/>`+"\n", c.left, yc, c.right, yc)
	text(bw, c.right-4, yc-5, "end", 12, fmt.Sprintf("capacity %.0f req/s", r.Capacity))

	// One step line per policy.
	for _, s := range lines {
		var pts strings.Builder
		for i, v := range s.rps {
			t0 := time.Duration(i) * bucketWidth
			t1 := min(t0+bucketWidth, c.end)
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", c.x(t0), c.y(v), c.x(t1), c.y(v))
		}
		fmt.Fprintf(bw, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-opacity="0.85" points="%s"/>`+"\n",
			s.color, strings.TrimSpace(pts.String()))
	}

	// Legend, under the axis title.
	y := c.base + 70
	for i, s := range lines {
		x := c.left + float64(i%2)*430
		ly := y + float64(i/2)*22
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", x, ly-4, x+28, ly-4, s.color)
		text(bw, x+36, ly, "start", 13, s.label)
	}
	y += float64((len(lines)+1)/2) * 22
	for _, label := range missing {
		text(bw, c.left, y, "start", 13, label+": not available in this build")
		y += 22
	}
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// policyIndex returns the position of the named policy in policies(), so
// that a policy keeps its color when others are left out; def otherwise.
func policyIndex(name string, def int) int {
	for i, p := range policies() {
		if p.Name == name {
			return i
		}
	}
	return def
}

// clientCount returns the number of clients of the run the chart shows,
// the first when runs were repeated.
func clientCount(r scenarioResult) int {
	for _, pr := range r.Runs {
		if pr.Available {
			return len(pr.Clients)
		}
	}
	return 0
}

// text writes an SVG text element with s escaped.
func text(w io.Writer, x, y float64, anchor string, size int, s string) {
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d">%s</text>`+"\n", x, y, anchor, size, escape(s))
}

// escape returns s safe for XML character data and attribute values.
func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// logTicks returns the 1-2-5 values above logFloor (which sits on the axis,
// labelled 0) up to top.
func logTicks(top float64) []float64 {
	var out []float64
	for p := 1.0; p <= top; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if m*p > logFloor && m*p <= top {
				out = append(out, m*p)
			}
		}
	}
	return out
}

// timeStep returns a tick spacing that puts at most 15 ticks on [0, end].
func timeStep(end time.Duration) time.Duration {
	for _, s := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second} {
		if end/s <= 15 {
			return s
		}
	}
	return 20 * time.Second
}
