package plan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/objbench/objbench/loadgen"
)

// prepareList is the objects to prepare, kept in a temporary file rather
// than in memory: a log with millions of keys read first would otherwise
// hold them all.
type prepareList struct {
	f     *os.File
	w     *bufio.Writer
	n     int64
	bytes int64
}

// newPrepareList makes the list's file and unlinks it at once: it is
// read through its descriptor, so a process killed mid-run leaves
// nothing in the temporary directory.
func newPrepareList() (*prepareList, error) {
	f, err := os.CreateTemp("", "objbench-replay-prepare-*")
	if err != nil {
		return nil, fmt.Errorf("replay: a temporary file for the objects to prepare: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("replay: a temporary file for the objects to prepare: %w", err)
	}
	return &prepareList{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// add notes one object: "SIZE KEY\n" (mapped keys hold no newline).
func (l *prepareList) add(key string, size int64) {
	b := l.w.AvailableBuffer()
	b = strconv.AppendInt(b, size, 10)
	b = append(b, ' ')
	b = append(b, key...)
	b = append(b, '\n')
	_, _ = l.w.Write(b) // an error sticks: finish reports it
	l.n++
	l.bytes += size
}

func (l *prepareList) finish() error {
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("replay: writing the objects to prepare: %w", err)
	}
	return nil
}

func (l *prepareList) remove() { l.f.Close() }

// Objects reads the list from its start, for the prepare stage
// (loadgen.ReplayObjects); safe for concurrent use.
type Objects struct {
	mu  sync.Mutex
	r   *bufio.Reader
	err error
}

// Prepare opens the list of objects to prepare, read from its start
// (pread: the writer's offset is left alone); close it after the run.
func (p *Plan) Prepare() (*Objects, error) {
	end, err := p.prep.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	return &Objects{r: bufio.NewReaderSize(io.NewSectionReader(p.prep.f, 0, end), 1<<16)}, nil
}

// Next is the next object to prepare.
func (o *Objects) Next() (loadgen.ReplayObject, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return loadgen.ReplayObject{}, false
	}
	line, err := o.r.ReadString('\n')
	if err != nil {
		if !errors.Is(err, io.EOF) || line != "" {
			o.err = fmt.Errorf("replay: reading the objects to prepare: %w", err)
		}
		return loadgen.ReplayObject{}, false
	}
	size, key, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	n, perr := strconv.ParseInt(size, 10, 64)
	if !ok || perr != nil {
		o.err = fmt.Errorf("replay: the list of objects to prepare is damaged: %q", line)
		return loadgen.ReplayObject{}, false
	}
	return loadgen.ReplayObject{Key: key, Size: n}, true
}

// Err is what stopped the list early, if anything.
func (o *Objects) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// Close is the end of reading (the file is the Plan's, closed by its
// Close).
func (o *Objects) Close() error { return nil }
