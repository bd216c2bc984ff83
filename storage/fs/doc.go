// Package fs is a directory as a storage.Store: key "a/b/c" is the file
// ROOT/a/b/c. It measures a file system through the same interface as an
// object store, so the two can be compared op for op.
//
// Put writes the final path directly (create/truncate, no temporary file and
// rename), so a concurrent Get may see a partly written object, and a failed
// Put removes what it wrote. Copies go through pooled buffers in user space,
// never copy_file_range or reflinks, so a Put always costs what writing the
// bytes costs. With Options.Direct files are opened with O_DIRECT (Linux).
//
// Keys must be valid slash-separated relative paths (io/fs.ValidPath): keys
// that would escape the root, or that have empty, "." or ".." elements, are
// rejected. One key cannot be both an object and the "directory" of another
// ("a" and "a/b"). Symbolic links and other non-regular files are not listed;
// objects have no ETag.
//
// This package must not print, read the environment, or follow keys outside
// its root.
package fs
