//go:build !linux

package e2e_test

import "testing"

// smallDisk needs Linux's tmpfs.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	t.Skip("a small disk is a tmpfs mount: Linux only")
	return ""
}
