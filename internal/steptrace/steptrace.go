// Package steptrace marks the steps of retry's start, for measuring where
// its time goes. In a normal build Mark does nothing and costs nothing; in
// a build with the steptrace tag
//
//	CGO_ENABLED=0 go build -tags steptrace -trimpath -ldflags "-s -w" -o retry-steps .
//
// each Mark writes one line to stderr, "steptrace NAME UNIX_NANOS", which
// `go run ./scripts/bench -steps retry-steps` turns into a table of when
// each step ends, measured from the harness's exec.
package steptrace
