package oplog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/objbench/objbench/internal/compressed"
)

// Reader streams the records of an op log (plain, gzip or zstd), one line
// at a time.
type Reader struct {
	src    io.ReadCloser
	file   *os.File
	br     *bufio.Reader
	line   int
	long   []byte // a line longer than br's buffer, assembled
	strs   interned
	scrach []byte
}

// LineError is a line Next could not read; the reader goes on with the
// next line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error() }
func (e *LineError) Unwrap() error { return e.Err }

// NewReader reads an op log from r, compressed or not.
func NewReader(r io.Reader) (*Reader, error) {
	src, _, err := compressed.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("op log: %w", err)
	}
	return &Reader{src: src, br: bufio.NewReaderSize(src, 64<<10)}, nil
}

// Open reads the op log in the file at path.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("op log: %w", err)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.file = f
	return r, nil
}

// Close releases the reader (and the file Open opened).
func (r *Reader) Close() error {
	err := r.src.Close()
	if r.file != nil {
		if cerr := r.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Line is the number of the line Next read last.
func (r *Reader) Line() int { return r.line }

// Next reads the next record into rec, replacing all of it. It returns
// io.EOF after the last one, a *LineError for a line it could not read
// (call Next again for the rest), or the error reading the stream (a
// truncated compressed file, for one).
func (r *Reader) Next(rec *Record) error {
	for {
		line, err := r.readLine()
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := r.parse(line, rec); err != nil {
			return &LineError{Line: r.line, Err: err}
		}
		return nil
	}
}

// errLong is a line longer than MaxLine, skipped whole.
var errLong = errors.New("line longer than " + strconv.Itoa(MaxLine) + " bytes")

func (r *Reader) readLine() ([]byte, error) {
	r.line++
	b, err := r.br.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(b) > 0) {
		return b, nil
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	r.long = append(r.long[:0], b...)
	for {
		b, err = r.br.ReadSlice('\n')
		if len(r.long) <= MaxLine {
			r.long = append(r.long, b...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && err != io.EOF:
			return nil, err
		case len(r.long) > MaxLine:
			return nil, &LineError{Line: r.line, Err: errLong}
		}
		return r.long, nil
	}
}
