// Package spill sorts records of objects (key, size, ETag) that may be too
// many to hold in memory: an external merge sort whose runs, each of a
// bounded size, go to temporary files, read back merged in key order. A
// transfer of half a million objects keeps what it wrote here, not in a
// slice, so its memory does not grow with the number of objects.
//
// Its files are removed from their directory as soon as they are made and
// read through the descriptors it keeps open, so a process killed with
// SIGKILL leaves none behind; Close releases them.
package spill

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// Record is one object: its key, size and ETag, and a small number the
// caller picks (which source the record came from), the second sort key.
type Record struct {
	Key  string
	Size int64
	ETag string
	Tag  int
}

// DefaultRunBytes is how much a Sorter holds in memory before it writes a
// sorted run to disk: about 30,000 records of 100-byte keys.
const DefaultRunBytes = 4 << 20

// fanIn is how many runs one merge reads at once (64 KiB of buffer each):
// more runs are first merged into fewer. A sorter holds at most 2*fanIn
// runs (open files) while records are added.
const fanIn = 32

// recordOverhead is what a record costs in memory beside its strings.
const recordOverhead = 64

// Sorter collects records, then hands them out in (Key, Tag) order, records
// with the same key and tag in the order they were added. Add is safe for
// concurrent use; Open is called once adding is done. Close it to remove
// its files.
type Sorter struct {
	mu       sync.Mutex
	parent   string // where run files are made ("": os.TempDir())
	runBytes int
	buf      []Record
	bufBytes int
	runs     []*runFile // sorted runs, oldest first
	n        int64
	done     bool // no more adding: buf is sorted (and spilled if runs exist)
	closed   bool
}

// New returns a sorter whose runs hold runBytes of records (<= 0:
// DefaultRunBytes) and whose files are made in parent ("": the system's
// temporary directory), unlinked at once.
func New(parent string, runBytes int) *Sorter {
	if runBytes <= 0 {
		runBytes = DefaultRunBytes
	}
	return &Sorter{parent: parent, runBytes: runBytes}
}

// Len is how many records were added.
func (s *Sorter) Len() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

var errClosed = errors.New("spill: the sorter is closed")

// Add adds a record; it fails once Open was called.
func (s *Sorter) Add(r Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errClosed
	case s.done:
		return errors.New("spill: record added after the sorter was opened for reading")
	}
	s.buf = append(s.buf, r)
	s.bufBytes += len(r.Key) + len(r.ETag) + recordOverhead
	s.n++
	if s.bufBytes >= s.runBytes {
		return s.spill()
	}
	return nil
}

func compare(a, b Record) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	return cmp.Compare(a.Tag, b.Tag)
}

// spill writes the buffer, sorted, as a new run.
func (s *Sorter) spill() error {
	slices.SortStableFunc(s.buf, compare)
	rf, err := writeRun(s.parent, slices.Values(s.buf))
	if err != nil {
		return err
	}
	s.runs = append(s.runs, rf)
	clear(s.buf) // let the strings go
	s.buf, s.bufBytes = s.buf[:0], 0
	if len(s.runs) >= 2*fanIn {
		return s.mergeOldest()
	}
	return nil
}

// mergeOldest merges the fanIn oldest runs into one, which takes their
// place (it holds the oldest records: equal records keep their order).
func (s *Sorter) mergeOldest() error {
	m, err := openRuns(s.runs[:fanIn])
	if err != nil {
		return err
	}
	rf, err := writeRun(s.parent, m.all())
	if err == nil {
		err = m.err
	}
	if err != nil {
		if rf != nil {
			_ = rf.f.Close()
		}
		return err
	}
	for _, r := range s.runs[:fanIn] {
		_ = r.f.Close()
	}
	s.runs = append([]*runFile{rf}, s.runs[fanIn:]...)
	return nil
}

// Runs is how many runs went to disk so far.
func (s *Sorter) Runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// finish ends adding: the buffer is sorted (held in memory when nothing
// was spilled, else spilled too) and runs merged down to at most fanIn.
func (s *Sorter) finish() error {
	if s.done {
		return nil
	}
	s.done = true
	if len(s.runs) == 0 {
		slices.SortStableFunc(s.buf, compare)
		return nil
	}
	if len(s.buf) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.buf = nil
	for len(s.runs) > fanIn {
		if err := s.mergeOldest(); err != nil {
			return err
		}
	}
	return nil
}

// Open ends adding and returns the records in order; it may be called
// again for another pass. Close the Merger when done.
func (s *Sorter) Open() (*Merger, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	if len(s.runs) == 0 {
		return &Merger{mem: s.buf}, nil
	}
	return openRuns(s.runs)
}

// Each calls fn for every record in order, and stops at fn's first error.
func (s *Sorter) Each(fn func(Record) error) error {
	m, err := s.Open()
	if err != nil {
		return err
	}
	for r := range m.all() {
		if err := fn(r); err != nil {
			_ = m.Close()
			return err
		}
	}
	return errors.Join(m.err, m.Close())
}

// Close releases the sorter's files (the space they took goes back to
// the file system); it may be called more than once.
func (s *Sorter) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, r := range s.runs {
		errs = append(errs, r.f.Close())
	}
	s.closed, s.buf, s.runs = true, nil, nil
	return errors.Join(errs...)
}

// runFile is a sorted run on disk: a file already unlinked, read through
// its descriptor, and its length.
type runFile struct {
	f    *os.File
	size int64
}

// reader reads the run from its start; several may read it at once.
func (r *runFile) reader() io.Reader { return io.NewSectionReader(r.f, 0, r.size) }

// writeRun writes records to a new run file in dir, unlinked as soon as
// it is made.
func writeRun(dir string, records func(func(Record) bool)) (*runFile, error) {
	f, err := os.CreateTemp(dir, "objbench-spill-*")
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("spill: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	var scratch []byte
	var size int64
	for r := range records {
		scratch = encode(scratch[:0], r)
		n, err := w.Write(scratch)
		size += int64(n)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("spill: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("spill: %w", err)
	}
	return &runFile{f: f, size: size}, nil
}
