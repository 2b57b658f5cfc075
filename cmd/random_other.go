//go:build !linux

package cmd

import crand "crypto/rand"

// randomBytes fills b from the system's random source.
func randomBytes(b []byte) {
	_, _ = crand.Read(b) // never fails on supported systems
}
