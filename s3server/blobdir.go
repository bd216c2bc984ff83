package s3server

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// dirBlobs keeps bodies as files:
//
//	DIR/<bucket>/<id>.data      body of a single PUT
//	DIR/<bucket>/<id>-<k>.data  part k of a completed multipart upload
//	DIR/<bucket>/<id>.meta      key, version, attributes and segment list (JSON), written last
//	DIR/<bucket>/versioning.bucket  the bucket's versioning state, once set
//	DIR/.uploads/<upload>/      parts of uploads in progress
//
// Files are named by a unique id, not by key: keys need no escaping, may be
// 1024 bytes long, and "a" and "a/b" can both exist. Completing a multipart
// upload hard-links the part files into the bucket instead of copying
// gigabytes, and a GET reads the segments in turn. A replaced object gets
// new files; the old ones are unlinked once the last reader closes them.
// Nothing is fsynced: the server measures, it does not keep data safe.
type dirBlobs struct {
	root   string
	idBase string        // random per process, so ids never repeat across restarts
	seq    atomic.Uint64 // makes ids unique within the process
	bufs   sync.Pool     // *[]byte of copyBufSize
}

const (
	copyBufSize = 1 << 20
	uploadsDir  = ".uploads" // bucket names cannot start with '.'
)

// fileBlob is a body made of one or more files, read in order.
type fileBlob struct {
	meta string // the .meta file; "" for an upload part, which has none
	segs []fileSeg
	n    int64

	mu   sync.Mutex
	refs int  // open readers
	dead bool // released: the last reader removes the files
}

type fileSeg struct {
	path string
	n    int64
}

// dataMarker marks a directory as this server's: only such a directory
// (or an empty one, which then gets the marker) is used, because loading
// and deleting buckets remove files, and those must never be the user's.
const dataMarker = ".objbench-s3server"

func newDirBlobs(root string) (*dirBlobs, error) {
	if err := claimDir(root); err != nil {
		return nil, err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
	d := &dirBlobs{root: root, idBase: hex.EncodeToString(rnd[:]) + "-"}
	d.bufs.New = func() any { b := make([]byte, copyBufSize); return &b }
	// Uploads do not survive a restart; their parts are garbage now.
	if err := os.RemoveAll(filepath.Join(root, uploadsDir)); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *dirBlobs) newID() string { return d.idBase + strconv.FormatUint(d.seq.Add(1), 36) }

func (d *dirBlobs) bucketDir(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", errorf(400, "InvalidBucketName", "The specified bucket is not valid.")
	}
	return filepath.Join(d.root, name), nil
}

func (d *dirBlobs) createBucket(name string) error {
	dir, err := d.bucketDir(name)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}

// removeBucket removes the bucket's directory with the files this server
// wrote in it; anything else found there keeps the directory (an error).
func (d *dirBlobs) removeBucket(name string) error {
	dir, err := d.bucketDir(name)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && (strings.HasSuffix(n, ".data") || strings.HasSuffix(n, ".meta") || n == versioningFile) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	return os.Remove(dir)
}

// claimDir creates root or accepts it if it is empty or already carries the
// marker; a directory with other content is refused.
func claimDir(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("s3server data directory: %w", err)
	}
	marker := filepath.Join(root, dataMarker)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("s3server data directory: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("s3server data directory %s is not empty and was not created by objbench server: use an empty or new directory", root)
	}
	return os.WriteFile(marker, []byte("objbench server data directory\n"), 0o644)
}

func (d *dirBlobs) write(bucket string, r io.Reader, size int64) (blob, error) {
	dir, err := d.bucketDir(bucket)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, d.newID())
	seg, err := d.writeFile(base+".data", r, size)
	if err != nil {
		return nil, err
	}
	return &fileBlob{meta: base + ".meta", segs: []fileSeg{seg}, n: seg.n}, nil
}

func (d *dirBlobs) writePart(id string, n int, r io.Reader, size int64) (blob, error) {
	dir := filepath.Join(d.root, uploadsDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	seg, err := d.writeFile(filepath.Join(dir, strconv.Itoa(n)+"-"+d.newID()+".part"), r, size)
	if err != nil {
		return nil, err
	}
	return &fileBlob{segs: []fileSeg{seg}, n: seg.n}, nil
}

// writeFile streams r into a new file through a pooled buffer. The writer is
// wrapped so os.File.ReadFrom cannot swap in its own per-call buffer.
func (d *dirBlobs) writeFile(p string, r io.Reader, size int64) (fileSeg, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fileSeg{}, err
	}
	bp := d.bufs.Get().(*[]byte)
	src := r
	if size >= 0 {
		src = io.LimitReader(r, size)
	}
	n, err := io.CopyBuffer(struct{ io.Writer }{f}, src, *bp)
	d.bufs.Put(bp)
	if err == nil && size >= 0 && n != size {
		err = errIncompleteBody()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(p)
		return fileSeg{}, err
	}
	return fileSeg{path: p, n: n}, nil
}

// concat links the parts' files into the bucket as the segments of one new
// body: no byte is copied, and the parts stay valid until released.
func (d *dirBlobs) concat(bucket string, parts []blob) (blob, error) {
	dir, err := d.bucketDir(bucket)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, d.newID())
	out := &fileBlob{meta: base + ".meta"}
	for _, p := range parts {
		for _, seg := range p.(*fileBlob).segs {
			dst := fileSeg{path: base + "-" + strconv.Itoa(len(out.segs)+1) + ".data", n: seg.n}
			if err := linkOrCopy(seg.path, dst.path); err != nil {
				out.removeFiles()
				return nil, err
			}
			out.segs = append(out.segs, dst)
			out.n += seg.n
		}
	}
	return out, nil
}

// linkOrCopy hard-links src to dst, or copies it where links are refused
// (file-to-file io.Copy uses copy_file_range). Bodies are never modified in
// place, so sharing an inode is safe.
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst)
	}
	return err
}

// clone gives the copy its own links to the same files.
func (d *dirBlobs) clone(bucket string, b blob) (blob, error) { return d.concat(bucket, []blob{b}) }

// removeFiles removes the .meta file first: a crash halfway leaves bodies
// without one, which the next start cleans up.
func (b *fileBlob) removeFiles() {
	if b.meta != "" {
		_ = os.Remove(b.meta)
	}
	for _, seg := range b.segs {
		_ = os.Remove(seg.path)
	}
}

func (d *dirBlobs) dropUpload(id string) {
	_ = os.RemoveAll(filepath.Join(d.root, uploadsDir, id))
}

func (b *fileBlob) size() int64 { return b.n }

func (b *fileBlob) open(off, n int64) (io.ReadCloser, error) {
	b.mu.Lock()
	b.refs++
	b.mu.Unlock()
	return &fileReader{b: b, off: off, left: n}, nil
}

func (b *fileBlob) unref() {
	b.mu.Lock()
	b.refs--
	remove := b.refs == 0 && b.dead
	b.mu.Unlock()
	if remove {
		b.removeFiles()
	}
}

// fileReader reads a range across a blob's segments, opening each in turn.
// WriteTo passes an *io.LimitedReader over an *os.File to the writer, the
// shape net/http's ReadFrom turns into sendfile(2).
type fileReader struct {
	b      *fileBlob
	seg    int   // index of the current segment
	off    int64 // offset in segs[seg] (may exceed its size: skip ahead)
	left   int64
	f      *os.File
	r      io.LimitedReader
	closed bool
}

// current returns a reader positioned in the segment holding the next
// byte, or nil at the end of the range.
func (r *fileReader) current() (*io.LimitedReader, error) {
	for r.f == nil || r.r.N == 0 {
		if r.f != nil {
			r.f.Close()
			r.f = nil
			r.seg, r.off = r.seg+1, 0
		}
		for r.seg < len(r.b.segs) && r.off >= r.b.segs[r.seg].n {
			r.off -= r.b.segs[r.seg].n
			r.seg++
		}
		if r.left == 0 || r.seg >= len(r.b.segs) {
			return nil, nil
		}
		f, err := os.Open(r.b.segs[r.seg].path)
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(r.off, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		n := min(r.b.segs[r.seg].n-r.off, r.left)
		r.f, r.r = f, io.LimitedReader{R: f, N: n}
		r.left -= n
	}
	return &r.r, nil
}

func (r *fileReader) Read(p []byte) (int, error) {
	lr, err := r.current()
	if err != nil || lr == nil {
		return 0, cmp.Or(err, io.EOF)
	}
	return lr.Read(p)
}

func (r *fileReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		lr, err := r.current()
		if err != nil || lr == nil {
			return total, err
		}
		n, err := io.Copy(w, lr)
		total += n
		if err != nil {
			return total, err
		}
		if lr.N > 0 {
			return total, io.ErrUnexpectedEOF // the file is shorter than recorded
		}
	}
}

func (r *fileReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.f != nil {
		r.f.Close()
	}
	r.b.unref()
	return nil
}
