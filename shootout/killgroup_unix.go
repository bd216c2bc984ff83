//go:build unix

package shootout

import (
	"os/exec"
	"syscall"
)

// killGroup starts c in a process group of its own, which cancelling it
// kills whole: a tool's helper processes do not outlive it.
func killGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}
