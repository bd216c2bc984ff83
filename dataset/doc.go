// Package dataset writes benchmark datasets to a file system: one large
// file or many files of a size, filled from the payload generator (so a
// seed reproduces them byte for byte, and generating them costs less than
// writing them).
//
// A file appears under its name only when it is complete: it is written to
// a temporary name beside it and renamed. The package must not print; callers
// watch a Counter for progress.
package dataset
