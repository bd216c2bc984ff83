package workload

// CheckPrefix reports what makes s unusable as a key prefix below a run's
// namespace: "." or ".." segments, or empty ones (a leading "/" or "//"),
// which a server or proxy that normalises paths could resolve outside the
// namespace. These are the rules workload files are held to; package
// replay maps a trace's keys to pass them.
func CheckPrefix(s string) error { return keyPart(s, false) }
