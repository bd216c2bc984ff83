package payload_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/payload"
)

// fileCollector is a FileWriter that reads the pieces it is handed from
// the file (as sendfile would take them) and keeps them; limit, when set,
// makes it fail once it holds that many bytes.
type fileCollector struct {
	got           bytes.Buffer
	pieces, plain int
	limit         int
}

var errFull = errors.New("full")

func (c *fileCollector) Write(p []byte) (int, error) {
	c.plain++
	return c.got.Write(p)
}

func (c *fileCollector) WriteFile(fd int, off int64, n int) (int, error) {
	c.pieces++
	var err error
	if c.limit > 0 && c.got.Len()+n > c.limit {
		n, err = c.limit-c.got.Len(), errFull
	}
	buf := make([]byte, n)
	if m, perr := unix.Pread(fd, buf, off); perr != nil || m != n {
		return 0, errors.Join(perr, io.ErrUnexpectedEOF)
	}
	c.got.Write(buf)
	return n, err
}

// A FileWriter is handed every byte as a place in the block's memfd, and
// those places hold the bytes Read gives: across the wrap of a random
// block and within a letters block's runs, from any offset.
func TestWriteToFileWriterSendsTheBlocksBytes(t *testing.T) {
	random, err := payload.NewBlock(1<<16, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	letters, err := payload.NewLettersBlock(1<<18, 5)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*payload.Block{"random": random, "letters": letters} {
		r := payload.NewReader(b)
		for _, size := range []int64{1, 4095, 1 << 16, 3<<16 + 7} {
			for _, off := range []int64{0, 1000, 1<<16 - 1} {
				r.ResetAt(uint64(size), off, size)
				want, _ := io.ReadAll(io.LimitReader(r, size)) // LimitReader hides WriteTo
				r.ResetAt(uint64(size), off, size)
				var c fileCollector
				n, err := r.WriteTo(&c)
				if err != nil || n != size || !bytes.Equal(c.got.Bytes(), want) {
					t.Fatalf("%s size %d at %d: WriteTo = %d, %v; bytes equal to Read's: %v", name, size, off, n, err, bytes.Equal(c.got.Bytes(), want))
				}
				if c.plain != 0 || c.pieces == 0 {
					t.Fatalf("%s size %d: %d plain writes, %d pieces; want pieces only", name, size, c.plain, c.pieces)
				}
			}
		}
	}
}

// A FileWriter that fails part-way leaves the Reader just past what it
// took, as a failed Write does.
func TestWriteToFileWriterFailure(t *testing.T) {
	b, err := payload.NewBlock(1<<16, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := payload.NewReader(b)
	r.Reset(1, 3<<16)
	c := fileCollector{limit: 1<<16 + 100}
	n, err := r.WriteTo(&c)
	if !errors.Is(err, errFull) || n != int64(c.limit) || r.Len() != 3<<16-int64(c.limit) {
		t.Fatalf("WriteTo = %d, %v with %d left; want %d, errFull, %d left", n, err, r.Len(), c.limit, 3<<16-c.limit)
	}
	if pos, _ := r.Seek(0, io.SeekCurrent); pos != int64(c.limit) {
		t.Errorf("position %d after the failure, want %d", pos, c.limit)
	}
}
