package s3server

import (
	"context"
	"errors"
	"io"
	"time"
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
	// write stores size bytes from r (everything if size < 0); a body
	// shorter or longer than size is an error.
	write(bucket string, r io.Reader, size int64) (blob, error)
	writePart(uploadID string, part int, r io.Reader, size int64) (blob, error)
	// concat returns one blob holding parts in order; parts stay valid.
	concat(bucket string, parts []blob) (blob, error)
	// clone returns a blob with b's bytes that is released independently.
	clone(bucket string, b blob) (blob, error)
	// commit records obj (key, version and attributes) with its body, for
	// stores that survive a restart; committing a changed copy of an
	// object (same body) replaces its record.
	commit(bucket string, obj *object) error
	// release drops a version: its body and its record.
	release(obj *object)
	// releaseBlob drops a body that was never committed (a part, a
	// write that failed).
	releaseBlob(b blob)
	dropUpload(id string)
	// saveBucket records a bucket's versioning state.
	saveBucket(name, versioning string) error
	// load returns what an earlier server left behind.
	load(ctx context.Context) ([]loadedBucket, error)
}

type loadedBucket struct {
	name       string
	created    time.Time
	versioning string
	objects    []*object // oldest first: each is added as its key's newest
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
func (memBlobs) release(*object)                              {}
func (memBlobs) releaseBlob(blob)                             {}
func (memBlobs) dropUpload(string)                            {}
func (memBlobs) saveBucket(string, string) error              { return nil }
func (memBlobs) clone(_ string, b blob) (blob, error)         { return b, nil }
func (memBlobs) load(context.Context) ([]loadedBucket, error) { return nil, nil }

// A body grows by segments as it arrives, each at most twice the bytes
// received so far (from memSegMin up to memSegMax): a Content-Length
// alone reserves little, a client that announces 5 GiB and sends one byte
// costs one small segment, and no multi-GiB slice has to be found in one
// piece.
const (
	memSegMin = 64 << 10
	memSegMax = 64 << 20
)

func (memBlobs) write(_ string, r io.Reader, size int64) (blob, error) {
	b := &memBlob{}
	for size < 0 || b.n < size {
		want := min(max(b.n, memSegMin), memSegMax)
		if size >= 0 {
			want = min(want, size-b.n)
		}
		seg := make([]byte, want)
		n, err := io.ReadFull(r, seg)
		if n > 0 {
			b.segs = append(b.segs, seg[:n])
			b.n += int64(n)
		}
		if size < 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (m memBlobs) writePart(_ string, _ int, r io.Reader, size int64) (blob, error) {
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
