package cmd

import (
	"testing"
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
		root := newRoot(deps, nil, &code, sources)
		if err := root.ParseFlags(args); err != nil {
			b.Fatal(err)
		}
		o := defaultOptions()
		if _, err := o.plan([]string{"true"}, deps.Env); err != nil {
			b.Fatal(err)
		}
	}
}
