// Command retry-redis is retry with the client for redis:// and rediss://
// state (--state, RETRY_STATE). retry hands a run that names Redis state
// to the retry-redis in its own directory, so that the default build
// neither links nor starts go-redis, net and crypto/tls on every run
// (docs/benchmarks.md). It takes the same arguments and does the same
// things; install both side by side (docs/install.md).
package main

import (
	"context"
	"os"

	"retry/cmd"
	"retry/internal/redisbuild"
)

func main() {
	os.Exit(cmd.Main(context.Background(), os.Args[1:], redisbuild.Deps()))
}
