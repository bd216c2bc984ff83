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

// dropCache asks the kernel to drop path's clean pages from the page
// cache (posix_fadvise POSIX_FADV_DONTNEED), after flushing the dirty
// ones, which it would keep.
func dropCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
