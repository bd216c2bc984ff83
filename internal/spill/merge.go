package spill

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// encode appends r to b: the key's length and bytes, the size, the ETag's
// length and bytes, the tag, as varints.
func encode(b []byte, r Record) []byte {
	b = binary.AppendUvarint(b, uint64(len(r.Key)))
	b = append(b, r.Key...)
	b = binary.AppendVarint(b, r.Size)
	b = binary.AppendUvarint(b, uint64(len(r.ETag)))
	b = append(b, r.ETag...)
	return binary.AppendVarint(b, int64(r.Tag))
}

// maxString bounds a decoded key or ETag: a longer length is a damaged file.
const maxString = 1 << 20

// decode reads one record; io.EOF at a record's start is the run's end.
func decode(r *bufio.Reader, scratch []byte) (Record, []byte, error) {
	var rec Record
	str := func() (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > maxString {
			return "", errors.Join(errors.New("damaged record"), err)
		}
		if uint64(cap(scratch)) < n {
			scratch = make([]byte, n)
		}
		scratch = scratch[:n]
		if _, err := io.ReadFull(r, scratch); err != nil {
			return "", err
		}
		return string(scratch), nil
	}
	if _, err := r.Peek(1); err != nil {
		return rec, scratch, err // io.EOF: no more records
	}
	var err error
	if rec.Key, err = str(); err != nil {
		return rec, scratch, unexpected(err)
	}
	if rec.Size, err = binary.ReadVarint(r); err != nil {
		return rec, scratch, unexpected(err)
	}
	if rec.ETag, err = str(); err != nil {
		return rec, scratch, unexpected(err)
	}
	tag, err := binary.ReadVarint(r)
	rec.Tag = int(tag)
	return rec, scratch, unexpected(err)
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// run is one sorted run being read: its file and its next record.
type run struct {
	f       *os.File // not owned: the sorter closes it
	r       *bufio.Reader
	order   int // its place among the runs: ties go to the older run
	head    Record
	scratch []byte
}

func (ru *run) advance() (bool, error) {
	rec, scratch, err := decode(ru.r, ru.scratch)
	ru.scratch = scratch
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("spill: %s: %w", ru.f.Name(), err)
	}
	ru.head = rec
	return true, nil
}

type runHeap []*run

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := compare(h[i].head, h[j].head); c != 0 {
		return c < 0
	}
	return h[i].order < h[j].order
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Merger hands out a sorter's records in order, one at a time.
type Merger struct {
	mem  []Record // nothing was spilled: the sorted records themselves
	h    runHeap
	disk bool // reads runs
	err  error
}

func openRuns(runs []*runFile) (*Merger, error) {
	m := &Merger{disk: true}
	for i, rf := range runs {
		ru := &run{f: rf.f, r: bufio.NewReaderSize(rf.reader(), 64<<10), order: i}
		ok, err := ru.advance()
		if err != nil {
			_ = m.Close()
			return nil, err
		}
		if ok {
			m.h = append(m.h, ru)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

// Next returns the next record; ok is false at the end or on an error
// (Err says which).
func (m *Merger) Next() (rec Record, ok bool) {
	if m.err != nil {
		return rec, false
	}
	if !m.disk {
		if len(m.mem) == 0 {
			return rec, false
		}
		rec, m.mem = m.mem[0], m.mem[1:]
		return rec, true
	}
	if len(m.h) == 0 {
		return rec, false
	}
	top := m.h[0]
	rec = top.head
	more, err := top.advance()
	switch {
	case err != nil:
		m.err = err
		return Record{}, false
	case more:
		heap.Fix(&m.h, 0)
	default:
		heap.Pop(&m.h)
	}
	return rec, true
}

// Err is the error that ended Next early, if any.
func (m *Merger) Err() error { return m.err }

// all ranges over the remaining records; m.err holds what stopped it.
func (m *Merger) all() func(func(Record) bool) {
	return func(yield func(Record) bool) {
		for {
			rec, ok := m.Next()
			if !ok || !yield(rec) {
				return
			}
		}
	}
}

// Close ends the reading (the sorter keeps its runs for another pass).
func (m *Merger) Close() error {
	m.h, m.mem = nil, nil
	return nil
}
