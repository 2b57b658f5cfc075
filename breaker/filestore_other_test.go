//go:build !linux

package breaker

// osHelpers has no helpers off Linux: the read-only and full-disk tests
// that need mount namespaces are Linux-only.
func osHelpers() map[string]helperFunc { return map[string]helperFunc{} }
