//go:build !linux

package runner

import "os"

// privateTemp opens a new file in dir (os.TempDir when empty), readable
// and writable by its owner only, and unlinks it at once.
func privateTemp(dir string) (*os.File, error) { return unlinkedTemp(dir) }
