//go:build !linux

package fs

import (
	"errors"
	"os"
	"runtime"
)

const oDirect = 0

func directSupported() error {
	return errors.New("O_DIRECT is not supported on " + runtime.GOOS + " yet")
}

// syncfs flushes what was written under dir; without syncfs(2), a sync of
// the directory is the best portable approximation.
func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// dropCache has no portable form: the page cache is left as it is.
func dropCache(string) error { return nil }
