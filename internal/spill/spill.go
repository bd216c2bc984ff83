// Package spill sorts records of objects (key, size, ETag) that may be too
// many to hold in memory: an external merge sort whose runs, each of a
// bounded size, go to temporary files, read back merged in key order. A
// transfer of half a million objects keeps what it wrote here, not in a
// slice, so its memory does not grow with the number of objects.
//
// It must not be used for anything but records; its files live in one
// temporary directory, removed by Close.
package spill

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// more runs are first merged into fewer.
const fanIn = 32

// recordOverhead is what a record costs in memory beside its strings.
const recordOverhead = 64

// Sorter collects records, then hands them out in (Key, Tag) order, records
// with the same key and tag in the order they were added. Add is safe for
// concurrent use; Open is called once adding is done. Close it to remove
// its files.
type Sorter struct {
	mu       sync.Mutex
	parent   string // where the temporary directory goes ("": os.TempDir())
	runBytes int
	dir      string // the temporary directory, made at the first spill
	buf      []Record
	bufBytes int
	runs     []string // sorted run files, oldest first
	seq      int      // names the next run file
	n        int64
	done     bool // no more adding: buf is sorted (and spilled if runs exist)
	closed   bool
}

// New returns a sorter whose runs hold runBytes of records (<= 0:
// DefaultRunBytes) and whose files go in a new directory under parent
// ("": the system's temporary directory).
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
	if s.dir == "" {
		d, err := os.MkdirTemp(s.parent, "objbench-spill-")
		if err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		s.dir = d
	}
	name := s.nextRun()
	if err := writeRun(name, slices.Values(s.buf)); err != nil {
		return err
	}
	s.runs = append(s.runs, name)
	clear(s.buf) // let the strings go
	s.buf, s.bufBytes = s.buf[:0], 0
	return nil
}

func (s *Sorter) nextRun() string {
	s.seq++
	return filepath.Join(s.dir, fmt.Sprintf("run-%06d", s.seq))
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
		name := s.nextRun()
		m, err := openRuns(s.runs[:fanIn])
		if err != nil {
			return err
		}
		err = writeRun(name, m.all())
		if cerr := m.Close(); err == nil {
			err = cmp.Or(m.err, cerr)
		}
		if err != nil {
			return err
		}
		for _, r := range s.runs[:fanIn] {
			_ = os.Remove(r)
		}
		// The merged run holds the oldest records: it goes first, so
		// equal records keep their order.
		s.runs = append([]string{name}, s.runs[fanIn:]...)
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

// Close removes the sorter's files; it may be called more than once.
func (s *Sorter) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.buf, s.runs = true, nil, nil
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// Dir is the sorter's temporary directory ("" while nothing was
// spilled), for tests that look for what is left behind.
func (s *Sorter) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

func writeRun(name string, records func(func(Record) bool)) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	var scratch []byte
	for r := range records {
		scratch = encode(scratch[:0], r)
		if _, err := w.Write(scratch); err != nil {
			_ = f.Close()
			return fmt.Errorf("spill: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("spill: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}
