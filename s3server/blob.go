package s3server

import (
	"context"
	"crypto/md5"
	"errors"
	"io"

	"github.com/johannesboyne/gofakes3"
)

// blob is an immutable object body or uploaded part. A new body for a key is
// always a new blob, so readers of the old one are never disturbed.
type blob interface {
	size() int64
	// open returns a reader of n bytes from off. The backend calls it under
	// the bucket lock, so the blob cannot be released while it is opened.
	open(off, n int64) (io.ReadCloser, error)
}

// blobStore is where bodies live: memory or a directory. Its methods are
// called without backend locks held (except open, see above), so they may
// take as long as copying the data takes.
type blobStore interface {
	createBucket(name string) error
	removeBucket(name string) error
	// write stores size bytes from r (everything if size < 0).
	write(bucket string, r io.Reader, size int64) (blob, error)
	writePart(uploadID gofakes3.UploadID, part int, r io.Reader, size int64) (blob, error)
	// concat returns one blob holding parts in order; parts stay valid.
	concat(bucket string, parts []blob) (blob, error)
	// clone returns a blob with b's bytes that is released independently.
	clone(bucket string, b blob) (blob, error)
	// commit records obj (key and metadata) with its body, for stores that
	// survive a restart.
	commit(bucket string, obj *object) error
	release(b blob)
	dropUpload(id gofakes3.UploadID)
	// load returns what an earlier server left behind.
	load(ctx context.Context) ([]loadedBucket, error)
}

type loadedBucket struct {
	info    gofakes3.BucketInfo
	objects []*object
}

// memBlobs keeps bodies as byte slices; the garbage collector releases them.
type memBlobs struct{}

// memBlob is a list of segments: a completed multipart upload reuses its
// parts' slices instead of copying gigabytes into one.
type memBlob struct {
	segs [][]byte
	n    int64
}

func (memBlobs) createBucket(string) error                    { return nil }
func (memBlobs) removeBucket(string) error                    { return nil }
func (memBlobs) commit(string, *object) error                 { return nil }
func (memBlobs) release(blob)                                 {}
func (memBlobs) dropUpload(gofakes3.UploadID)                 {}
func (memBlobs) clone(_ string, b blob) (blob, error)         { return b, nil }
func (memBlobs) load(context.Context) ([]loadedBucket, error) { return nil, nil }

// memSegSize bounds one allocation: a body grows by segments as it arrives,
// so a huge Content-Length alone reserves nothing, and no multi-GiB slice
// has to be found in one piece.
const memSegSize = 64 << 20

func (memBlobs) write(_ string, r io.Reader, size int64) (blob, error) {
	if size < 0 { // gofakes3 insists on a length; this is only for safety
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, s3Error(err)
		}
		return &memBlob{segs: [][]byte{data}, n: int64(len(data))}, nil
	}
	b := &memBlob{}
	for b.n < size {
		seg := make([]byte, min(memSegSize, size-b.n))
		if _, err := io.ReadFull(r, seg); err != nil {
			return nil, s3Error(err)
		}
		b.segs = append(b.segs, seg)
		b.n += int64(len(seg))
	}
	return b, nil
}

func (m memBlobs) writePart(_ gofakes3.UploadID, _ int, r io.Reader, size int64) (blob, error) {
	return m.write("", r, size)
}

func (memBlobs) concat(_ string, parts []blob) (blob, error) {
	out := &memBlob{}
	for _, p := range parts {
		mb := p.(*memBlob)
		out.segs = append(out.segs, mb.segs...)
		out.n += mb.n
	}
	return out, nil
}

func (b *memBlob) size() int64 { return b.n }

func (b *memBlob) open(off, n int64) (io.ReadCloser, error) {
	return &segReader{segs: b.segs, off: off, left: n}, nil
}

// segReader reads left bytes from off across segments. WriteTo hands whole
// segment slices to the writer, so a GET costs one copy into the socket.
type segReader struct {
	segs [][]byte
	off  int64 // into segs[0]
	left int64
}

// next returns the next run of bytes to deliver, at most max long.
func (r *segReader) next(max int64) []byte {
	for len(r.segs) > 0 && r.off >= int64(len(r.segs[0])) {
		r.off -= int64(len(r.segs[0]))
		r.segs = r.segs[1:]
	}
	if len(r.segs) == 0 || r.left == 0 {
		return nil
	}
	p := r.segs[0][r.off:]
	p = p[:min(int64(len(p)), r.left, max)]
	r.off += int64(len(p))
	r.left -= int64(len(p))
	return p
}

func (r *segReader) Read(p []byte) (int, error) {
	chunk := r.next(int64(len(p)))
	if chunk == nil {
		return 0, io.EOF
	}
	return copy(p, chunk), nil
}

func (r *segReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for chunk := r.next(r.left); chunk != nil; chunk = r.next(r.left) {
		n, err := w.Write(chunk)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (r *segReader) Close() error { return nil }

// hashSource computes the MD5 of a request body as it is read. gofakes3
// already hashes PUT bodies (its hashingReader, which has a Sum method) to
// produce the ETag; reusing that sum saves a second MD5 pass over every byte.
type hashSource struct {
	r   io.Reader
	sum interface{ Sum([]byte) []byte }
}

func newHashSource(r io.Reader) *hashSource {
	if s, ok := r.(interface{ Sum([]byte) []byte }); ok {
		return &hashSource{r: r, sum: s}
	}
	h := md5.New()
	return &hashSource{r: io.TeeReader(r, h), sum: h}
}

func (s *hashSource) Read(p []byte) (int, error) { return s.r.Read(p) }

// finish reads to EOF and returns the MD5. Reading to EOF matters: gofakes3
// checks Content-MD5 only when its reader sees EOF.
func (s *hashSource) finish() ([]byte, error) {
	var one [1]byte
	for {
		n, err := s.r.Read(one[:])
		if n > 0 {
			return nil, gofakes3.ErrorMessage(gofakes3.ErrIncompleteBody, "body is longer than its declared length")
		}
		if errors.Is(err, io.EOF) {
			return s.sum.Sum(nil), nil
		}
		if err != nil {
			return nil, s3Error(err)
		}
	}
}

// s3Error returns err in a form gofakes3 turns into the right S3 error
// response: it matches error types exactly, without unwrapping.
func s3Error(err error) error {
	var s3e gofakes3.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &s3e):
		return s3e
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return gofakes3.ErrIncompleteBody
	}
	return err
}
