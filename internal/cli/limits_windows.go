package cli

// checkOpenFiles has nothing to check here: Windows sets no limit on a
// process's open sockets like Unix's RLIMIT_NOFILE.
func checkOpenFiles(workers int) error { return nil }
