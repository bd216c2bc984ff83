// Package atomicfile is the one place that decides whether objbench may
// write a file it was given the path of (a result, a report, a CSV, an op
// log, a data set's files) and writes it:
//
//   - absent, or a regular file the user may write: the content goes to a
//     temporary file beside it, renamed into place only when complete, so
//     readers never see half a file and a failed write leaves what was
//     there;
//   - a character device or a named pipe (/dev/null, /dev/stdout, a
//     fifo): opened and written through, never replaced;
//   - anything else (a directory, a block device, a socket): refused with
//     a *PathError naming it;
//   - a symbolic link is followed, deliberately: the file it names is
//     judged and written as above, and the link itself stays. A link
//     through /proc/*/fd (/dev/stdout) is written through, appending when
//     it leads to a regular file.
//
// Check says the same without writing, so a command can refuse a bad path
// before any work. It must not leave a temporary file behind or a target
// half-replaced on any error, and it does not fsync: a write is atomic
// against readers, not durable against a crash.
package atomicfile
