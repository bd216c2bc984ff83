package cputime

import (
	"time"

	"golang.org/x/sys/windows"
)

// Process is this process's user and system CPU time so far (0 and 0 if
// the system will not say).
func Process() (user, sys time.Duration) {
	var creation, exit, kernel, usr windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &usr); err != nil {
		return 0, 0
	}
	return time.Duration(usr.Nanoseconds()), time.Duration(kernel.Nanoseconds())
}
