// Command retry runs a command and retries it when it fails for a reason
// that may pass. See README.md and docs/.
package main

import (
	"context"
	"os"

	"retry/cmd"
)

func main() {
	_ = growStack(len(os.Args))
	os.Exit(cmd.Main(context.Background(), os.Args[1:], cmd.SystemDeps()))
}

// growStack grows the main goroutine's stack to 64 KiB while it holds one
// frame. A run goes some forty frames deep (cobra, the runner, os), and a
// goroutine's stack starts small and doubles when a call does not fit:
// each doubling copies the frames on it, and finding their pointers reads
// the function tables, whose pages a start must then fault in. Grown once
// here, it copies only main's frame: 0.04-0.08 ms of `retry -- true`
// (docs/benchmarks.md).
//
//go:noinline
func growStack(i int) byte {
	var frame [32 << 10]byte
	frame[i%len(frame)] = 1 // an index it cannot know keeps the frame whole
	return frame[(i+1)%len(frame)]
}
