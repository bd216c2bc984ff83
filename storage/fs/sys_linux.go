package fs

import "syscall"

// oDirect is the open flag for Options.Direct.
const oDirect = syscall.O_DIRECT

func directSupported() error { return nil }
