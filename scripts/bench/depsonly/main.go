// Command depsonly loads every package that retry's own packages import,
// runs their initialisation and exits: what any retry start pays before
// its main function runs, measured beside `retry -- true` by
// scripts/bench. TestDepsOnlyImportsWhatRetryImports keeps the list in
// step with retry's imports.
package main

import (
	_ "bytes"
	_ "cmp"
	_ "context"
	_ "encoding/binary"
	_ "encoding/hex"
	_ "encoding/json"
	_ "errors"
	_ "fmt"
	_ "github.com/creack/pty"
	_ "github.com/mattn/go-shellwords"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/pflag"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "io"
	_ "io/fs"
	_ "maps"
	_ "math"
	_ "math/bits"
	_ "math/rand/v2"
	_ "net/url"
	_ "os"
	_ "os/exec"
	_ "os/signal"
	_ "path"
	_ "path/filepath"
	_ "regexp"
	_ "regexp/syntax"
	_ "runtime/debug"
	_ "slices"
	_ "sort"
	_ "strconv"
	_ "strings"
	_ "sync"
	_ "sync/atomic"
	_ "syscall"
	_ "text/tabwriter"
	_ "time"
	_ "unicode"
	_ "unicode/utf8"
)

func main() {}
