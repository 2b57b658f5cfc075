// Command retry runs a command and retries it when it fails for a reason
// that may pass. See README.md and docs/.
package main

import (
	"context"
	"os"

	"retry/cmd"
)

func main() {
	os.Exit(cmd.Main(context.Background(), os.Args[1:], cmd.SystemDeps()))
}
