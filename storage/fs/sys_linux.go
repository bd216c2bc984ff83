package fs

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// oDirect is the open flag for Options.Direct.
const oDirect = syscall.O_DIRECT

func directSupported() error { return nil }

// syncfs flushes the whole file system holding dir (syncfs(2)).
func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
