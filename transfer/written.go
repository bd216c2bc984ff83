package transfer

import (
	"github.com/objbench/objbench/internal/spill"
)

// Written is what an upload wrote: each finished object's key, size and
// the ETag the store gave it, kept in key order in temporary files (a run
// of half a million objects holds a few MiB of them in memory, not all).
// Verify checks the store against it, WriteManifest records it. Close
// removes its files.
type Written struct {
	s        *spill.Sorter
	parent   string // where its files (and Verify's, WriteManifest's) go
	runBytes int
}

func newWritten(o Options) *Written {
	return &Written{s: spill.New(o.TempDir, o.spillRun), parent: o.TempDir, runBytes: o.spillRun}
}

func (w *Written) add(key string, size int64, etag string) error {
	return w.s.Add(spill.Record{Key: key, Size: size, ETag: etag})
}

// Len is how many objects were written.
func (w *Written) Len() int64 {
	if w == nil {
		return 0
	}
	return w.s.Len()
}

// open hands out the records in key order.
func (w *Written) open() (*spill.Merger, error) { return w.s.Open() }

// each calls fn with every record in key order.
func (w *Written) each(fn func(spill.Record) error) error { return w.s.Each(fn) }

// Close removes the files; it may be called more than once.
func (w *Written) Close() error {
	if w == nil {
		return nil
	}
	return w.s.Close()
}
