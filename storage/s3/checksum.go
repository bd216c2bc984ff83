package s3

import (
	"crypto/md5" //nolint:gosec // S3's Content-MD5, not security
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/objbench/objbench/storage"
)

// checksumKind is one checksum algorithm as S3 sends it, with a pool of
// its hashes (hashing allocates nothing per op once warm).
type checksumKind struct {
	algo   storage.Checksum
	header string // canonical header name: "X-Amz-Checksum-Crc32", or "Content-Md5"
	// trailer is the header's name as x-amz-trailer and the trailer
	// line give it ("x-amz-checksum-crc32"); "" for MD5, which S3 takes
	// in a header only.
	trailer string
	hashes  sync.Pool
}

func (k *checksumKind) get() hash.Hash {
	h := k.hashes.Get().(hash.Hash)
	h.Reset()
	return h
}

func (k *checksumKind) put(h hash.Hash) { k.hashes.Put(h) }

var errRangeChecksum = errors.New("s3: a checksum covers the whole object: a ranged GET cannot be verified against it")

// checksumModeEnabled asks a GET for the object's checksum; shared by
// every request, never appended to.
var checksumModeEnabled = []string{"ENABLED"}

var errMD5Trailer = errors.New("s3: an MD5 checksum travels as Content-MD5, in a header only, not as a trailer")

// checksums holds a Store's kinds, one per algorithm.
type checksums struct {
	kinds []*checksumKind
}

func newChecksums() *checksums {
	crc64t := newCRC64Tables()
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	mk := func(a storage.Checksum, newHash func() hash.Hash) *checksumKind {
		k := &checksumKind{algo: a, header: http.CanonicalHeaderKey("x-amz-checksum-" + string(a)), trailer: "x-amz-checksum-" + string(a)}
		if a == storage.ChecksumMD5 {
			k.header, k.trailer = "Content-Md5", ""
		}
		k.hashes.New = func() any { return newHash() }
		return k
	}
	return &checksums{kinds: []*checksumKind{
		mk(storage.ChecksumCRC32, func() hash.Hash { return crc32.NewIEEE() }),
		mk(storage.ChecksumCRC32C, func() hash.Hash { return crc32.New(castagnoli) }),
		mk(storage.ChecksumCRC64NVME, func() hash.Hash { return &crc64Digest{t: crc64t} }),
		mk(storage.ChecksumSHA1, sha1.New),
		mk(storage.ChecksumSHA256, sha256.New),
		mk(storage.ChecksumMD5, md5.New),
	}}
}

func (c *checksums) kind(a storage.Checksum) (*checksumKind, error) {
	for _, k := range c.kinds {
		if k.algo == a {
			return k, nil
		}
	}
	return nil, fmt.Errorf("s3: unknown checksum %q", a)
}

// sum is h's value as S3 writes it: base64.
func sum(h hash.Hash) string {
	var b [sha256.Size]byte
	return base64.StdEncoding.EncodeToString(h.Sum(b[:0]))
}

// hashBody computes k over body's next size bytes and seeks it back: a
// checksum sent in a header is known before the body goes. The bytes go
// through the body's WriterTo when it has one (the payload generator's
// writes its own block: no copy), else through a pooled buffer.
func (s *Store) hashBody(k *checksumKind, body io.Reader, size int64) (string, error) {
	sk, ok := body.(io.Seeker)
	if !ok {
		return "", errors.New("s3: a checksum sent in a header is computed before the body is sent, which needs a seekable body; send it as a trailer")
	}
	start, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	h := k.get()
	defer k.put(h)
	var n int64
	if wt, ok := body.(io.WriterTo); ok && !isFile(body) {
		n, err = wt.WriteTo(h)
	} else {
		bp := s.bufs.Get().(*[]byte)
		n, err = io.CopyBuffer(h, io.LimitReader(body, size), *bp)
		s.bufs.Put(bp)
	}
	if err == nil && n != size {
		err = fmt.Errorf("s3: body holds %d bytes, not the %d to upload", n, size)
	}
	if err != nil {
		return "", err
	}
	if _, err := sk.Seek(start, io.SeekStart); err != nil {
		return "", err
	}
	return sum(h), nil
}

// isFile: an *os.File's WriteTo into anything but a socket copies through
// a 32 KiB buffer it allocates.
func isFile(r io.Reader) bool {
	_, ok := r.(*os.File)
	return ok
}

// confirmed checks that the target took the checksum it was sent: S3
// answers an upload with the checksum it computed. MD5 is not echoed
// (the target answers BadDigest when Content-MD5 does not match).
func confirmed(k *checksumKind, h http.Header, sent string) error {
	if k.trailer == "" {
		return nil
	}
	got := h.Get(k.header)
	switch {
	case got == "":
		return fmt.Errorf("%w: the target answered without the %s it was sent (it does not verify %s checksums)",
			storage.ErrNotImplemented, k.trailer, k.algo)
	case sent != "" && got != sent:
		return fmt.Errorf("%w: sent %s %s, the target computed %s", storage.ErrChecksum, k.trailer, sent, got)
	}
	return nil
}

// storedChecksum finds the full-object checksum a GET answered with
// (x-amz-checksum-mode: ENABLED): its kind and value; composite reports
// a checksum of parts, which the body cannot be checked against.
func (c *checksums) storedChecksum(h http.Header) (k *checksumKind, value string, composite bool) {
	for _, k := range c.kinds {
		if k.trailer == "" {
			continue
		}
		if v := h.Get(k.header); v != "" {
			composite = strings.EqualFold(h.Get("X-Amz-Checksum-Type"), "COMPOSITE") || strings.Contains(v, "-")
			return k, v, composite
		}
	}
	return nil, "", false
}

// copyVerified copies a GET's body to w, checking it against the
// checksum the target answered with.
func (s *Store) copyVerified(w io.Writer, resp *http.Response) (int64, error) {
	k, want, composite := s.checksums.storedChecksum(resp.Header)
	if k == nil || composite {
		n, err := s.copyBody(w, resp.Body, resp.ContentLength)
		if err == nil && k == nil {
			err = fmt.Errorf("%w: the target answered without a checksum to verify (it keeps none, or the object was stored without one)",
				storage.ErrNotImplemented)
		}
		return n, err
	}
	h := k.get()
	defer k.put(h)
	n, err := s.copyBody(hashWriter{w: w, h: h}, resp.Body, resp.ContentLength)
	if err != nil {
		return n, err
	}
	if got := sum(h); got != want {
		return n, fmt.Errorf("%w: the body's %s is %s, the target's %s", storage.ErrChecksum, k.algo, got, want)
	}
	return n, nil
}

// hashWriter writes to w and hashes what it wrote.
type hashWriter struct {
	w io.Writer
	h hash.Hash
}

func (hw hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	return n, err
}
