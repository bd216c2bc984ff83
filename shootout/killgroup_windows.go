package shootout

import "os/exec"

// killGroup leaves c as it is: cancelling it kills the tool itself, not
// processes it started.
func killGroup(c *exec.Cmd) {}
