//go:build unix

package cli

import (
	"golang.org/x/sys/unix"
)

// fdReserve is what a run needs of the open-file limit besides its
// workers' connections: the result file, /proc for the sampler, the live
// view, the embedded server's listener.
const fdReserve = 128

// checkOpenFiles refuses, before any I/O, a run with more workers than the
// process can hold connections (or open files) for: each worker holds one.
func checkOpenFiles(workers int) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return nil // unknown: the run will say so at its first failed dial
	}
	if need := uint64(workers) + fdReserve; need > lim.Cur {
		return inputf("%d workers need about %d open files (a connection or file each), but this process may open %d: "+
			"raise the limit (ulimit -n %d) or split the run over processes (--worker)", workers, need, lim.Cur, need)
	}
	return nil
}
