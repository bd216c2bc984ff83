package replay

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// maxLine bounds one line of a line-based trace; longer lines are skipped.
const maxLine = 256 << 10

var errLongLine = errors.New("line longer than " + strconv.Itoa(maxLine) + " bytes")

// lineReader reads lines without copying them when they fit the buffer.
type lineReader struct {
	br   *bufio.Reader
	line int
	long []byte
}

// next returns the next line (valid until the next call) without its end
// of line; errLongLine for a line too long to keep (then go on); io.EOF at
// the end.
func (l *lineReader) next() ([]byte, error) {
	l.line++
	b, err := l.br.ReadSlice('\n')
	switch {
	case err == nil || (err == io.EOF && len(b) > 0):
		return trimEOL(b), nil
	case err != bufio.ErrBufferFull:
		return nil, err
	}
	l.long = append(l.long[:0], b...)
	for {
		b, err = l.br.ReadSlice('\n')
		if len(l.long) <= maxLine {
			l.long = append(l.long, b...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && err != io.EOF:
			return nil, err
		case len(l.long) > maxLine:
			return nil, errLongLine
		}
		return trimEOL(l.long), nil
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
