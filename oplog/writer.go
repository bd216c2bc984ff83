package oplog

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/internal/compressed"
)

// Options tune a Writer; the zero value is the default.
type Options struct {
	// Shards is how many buffers workers share (worker id modulo Shards);
	// 0 is 4 per CPU, so that two workers rarely wait on one lock.
	Shards int
	// BufferSize is how full a shard's buffer gets before it is handed to
	// the writing goroutine (0: 64 KiB).
	BufferSize int
	// FlushInterval hands every non-empty buffer over at least this often
	// (0: one second), which bounds how far apart in the file two ops of
	// the same moment can be.
	FlushInterval time.Duration
}

// Writer streams records to an op log. Record is safe for concurrent use
// by many workers; Close must be called once, after the last Record.
type Writer struct {
	shards   []shard
	bufSize  int
	full     chan []byte // buffers to write, in order
	free     chan []byte // written buffers, for reuse
	inflight sync.WaitGroup
	stop     chan struct{}
	g        errgroup.Group
	err      atomic.Pointer[error]
	dropped  atomic.Int64
	enc      io.WriteCloser
	file     *atomicfile.File // Create's file, put in place at Close
	closed   bool
}

type shard struct {
	mu     sync.Mutex
	buf    []byte
	closed bool
	_      [64]byte // keep shards on their own cache lines
}

// Create writes an op log to path, compressed with zstd when the name ends
// in .zst and gzip when in .gz, as atomicfile writes files: the log
// appears at path only when Close succeeds (until then it is a temporary
// file beside it), and a device or a pipe is written through.
func Create(path string, o Options) (*Writer, error) {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, fmt.Errorf("op log: %w", err)
	}
	w, err := NewWriter(f, compressed.ForName(path), o)
	if err != nil {
		f.Abort()
		return nil, err
	}
	w.file = f
	return w, nil
}

// NewWriter streams an op log to dst in format k. Close ends the stream but
// does not close dst.
func NewWriter(dst io.Writer, k compressed.Kind, o Options) (*Writer, error) {
	enc, err := compressed.NewWriter(dst, k)
	if err != nil {
		return nil, fmt.Errorf("op log: %w", err)
	}
	n := o.Shards
	if n <= 0 {
		n = 4 * runtime.GOMAXPROCS(0)
	}
	w := &Writer{
		shards:  make([]shard, n),
		bufSize: o.BufferSize,
		full:    make(chan []byte, n),
		free:    make(chan []byte, 2*n+1),
		stop:    make(chan struct{}),
		enc:     enc,
	}
	if w.bufSize <= 0 {
		w.bufSize = 64 << 10
	}
	for i := range w.shards {
		w.shards[i].buf = make([]byte, 0, w.bufSize+1024)
	}
	every := o.FlushInterval
	if every <= 0 {
		every = time.Second
	}
	w.g.Go(w.drain)
	w.g.Go(func() error { w.tick(every); return nil })
	return w, nil
}

// Record appends rec, issued by worker, to the log. It keeps nothing of
// rec. It blocks only while the log is a full buffer per shard behind.
func (w *Writer) Record(worker int, rec *Record) {
	s := &w.shards[uint(worker)%uint(len(w.shards))]
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	s.buf = appendRecord(s.buf, worker, rec)
	var out []byte
	if len(s.buf) >= w.bufSize {
		out, s.buf = s.buf, w.buffer()
		w.inflight.Add(1)
	}
	s.mu.Unlock()
	if out != nil {
		w.full <- out
		w.inflight.Done()
	}
}

// Err is the first error writing the log met, if any; records handed over
// after it are dropped (the run goes on, the log is known to be short).
func (w *Writer) Err() error {
	if p := w.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (w *Writer) buffer() []byte {
	select {
	case b := <-w.free:
		return b[:0]
	default:
		return make([]byte, 0, w.bufSize+1024)
	}
}

// drain writes buffers in the order they were handed over.
func (w *Writer) drain() error {
	var err error
	for b := range w.full {
		if err == nil {
			if _, err = w.enc.Write(b); err != nil {
				err = fmt.Errorf("op log: %w", err)
				w.err.CompareAndSwap(nil, &err)
			}
		}
		select {
		case w.free <- b:
		default:
		}
	}
	return err
}

// tick hands over every shard's buffer each interval, until Close.
func (w *Writer) tick(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.flushShards(false)
		}
	}
}

// flushShards hands over every non-empty shard buffer; with closing set it
// also refuses records from then on.
func (w *Writer) flushShards(closing bool) {
	for i := range w.shards {
		s := &w.shards[i]
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			continue
		}
		s.closed = closing
		var out []byte
		if len(s.buf) > 0 {
			out, s.buf = s.buf, nil
			if !closing {
				s.buf = w.buffer()
			}
			w.inflight.Add(1)
		}
		s.mu.Unlock()
		if out != nil {
			w.full <- out
			w.inflight.Done()
		}
	}
}

// Close writes what is buffered, ends the compressed stream and, for
// Create, moves the file into place. It reports the first error met
// writing the log, and how many records came after Close.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("op log: closed twice")
	}
	w.closed = true
	close(w.stop)
	w.flushShards(true)
	w.inflight.Wait()
	close(w.full)
	err := w.g.Wait()
	if cerr := w.enc.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("op log: %w", cerr)
	}
	if n := w.dropped.Load(); err == nil && n > 0 {
		err = fmt.Errorf("op log: %d records came after Close and were dropped", n)
	}
	if w.file == nil {
		return err
	}
	if err != nil {
		w.file.Abort()
		return err
	}
	if err := w.file.Commit(); err != nil {
		return fmt.Errorf("op log: %w", err)
	}
	return nil
}
