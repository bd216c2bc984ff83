package compressed

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Kind is a compression format.
type Kind int

// The formats.
const (
	None Kind = iota
	Gzip
	Zstd
)

func (k Kind) String() string {
	switch k {
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	}
	return "none"
}

// MaxWindow bounds the zstd window a reader accepts (the zstd command
// line's own default limit for --long is 128 MiB): a stream asking for
// more is refused rather than allowed to allocate it.
const MaxWindow = 128 << 20

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// ForName is the format a file of that name is written in: .gz is gzip,
// .zst zstd, anything else plain.
func ForName(name string) Kind {
	switch {
	case strings.HasSuffix(name, ".gz"):
		return Gzip
	case strings.HasSuffix(name, ".zst"):
		return Zstd
	}
	return None
}

// Detect reports the format br's stream starts with, without consuming it.
func Detect(br *bufio.Reader) Kind {
	head, _ := br.Peek(len(zstdMagic))
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return Zstd
	case bytes.HasPrefix(head, gzipMagic):
		return Gzip
	}
	return None
}

// NewReader returns the decompressed stream of r (r itself when it is not
// compressed) and its format. Close releases the decoder, not r.
func NewReader(r io.Reader) (io.ReadCloser, Kind, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	switch k := Detect(br); k {
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, k, fmt.Errorf("gzip: %w", err)
		}
		return zr, k, nil
	case Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(MaxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, k, fmt.Errorf("zstd: %w", err)
		}
		return zstdReader{zr}, k, nil
	}
	return io.NopCloser(br), None, nil
}

type zstdReader struct{ *zstd.Decoder }

func (z zstdReader) Close() error { z.Decoder.Close(); return nil }

// NewWriter compresses what is written to it into w in format k; Close
// ends the stream (it does not close w). Compression is tuned for speed:
// the op log is written while a benchmark runs and must not compete with
// it for CPU.
func NewWriter(w io.Writer, k Kind) (io.WriteCloser, error) {
	switch k {
	case None:
		return nopWriteCloser{w}, nil
	case Gzip:
		return gzip.NewWriterLevel(w, gzip.BestSpeed)
	case Zstd:
		return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	}
	return nil, errors.New("unknown compression")
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
