//go:build linux

package payload

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// newData returns size bytes for a block to fill: the shared mapping of a
// memfd of that size, so a sender can hand the same pages to the kernel
// with sendfile(2) (FileWriter) and no second copy of the bytes exists.
// Where memfd_create or mmap fails it falls back to the heap (fd -1).
func newData(size int) (data []byte, fd int) {
	fd, err := unix.MemfdCreate("objbench-payload", unix.MFD_CLOEXEC)
	if err != nil {
		return make([]byte, size), -1
	}
	if err := unix.Ftruncate(fd, int64(size)); err == nil {
		data, err = unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err == nil {
			return data, fd
		}
	}
	_ = unix.Close(fd)
	return make([]byte, size), -1
}

// seal makes a filled block's mapping read-only and releases the mapping
// and the memfd once the block is unreachable.
func (b *Block) seal() {
	if b.fd < 0 {
		return
	}
	// A stray write into the block is a fault, not a silent change to
	// every object after it.
	_ = unix.Mprotect(b.data, unix.PROT_READ)
	runtime.AddCleanup(b, func(m mapping) {
		_ = unix.Munmap(m.data)
		_ = unix.Close(m.fd)
	}, mapping{b.data, b.fd})
}

type mapping struct {
	data []byte
	fd   int
}
