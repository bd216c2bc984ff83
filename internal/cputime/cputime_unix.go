//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is this process's user and system CPU time so far (0 and 0 if
// the system will not say).
func Process() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
