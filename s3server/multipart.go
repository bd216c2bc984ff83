package s3server

import (
	"cmp"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// uploadTable holds the multipart uploads in progress. Parts live in the
// blob store (files for a directory backend), never in one big buffer.
type uploadTable struct {
	mu sync.Mutex
	m  map[gofakes3.UploadID]*upload
}

type upload struct {
	id        gofakes3.UploadID
	bucket    string
	key       string
	meta      map[string]string
	initiated time.Time

	mu    sync.Mutex
	done  bool // completed or aborted: late parts are refused
	parts map[int]*part
}

type part struct {
	body blob
	md5  []byte
	etag string
	mod  time.Time
}

func newUploadID() gofakes3.UploadID {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return gofakes3.UploadID(hex.EncodeToString(b[:]))
}

// CreateMultipartUpload starts an upload.
func (b *backend) CreateMultipartUpload(bucketName, key string, meta map[string]string) (gofakes3.UploadID, error) {
	if _, err := b.bucket(bucketName); err != nil {
		return "", err
	}
	u := &upload{id: newUploadID(), bucket: bucketName, key: key, meta: meta, initiated: b.now(), parts: map[int]*part{}}
	b.uploads.mu.Lock()
	b.uploads.m[u.id] = u
	b.uploads.mu.Unlock()
	return u.id, nil
}

func (b *backend) upload(bucketName, key string, id gofakes3.UploadID, remove bool) (*upload, error) {
	b.uploads.mu.Lock()
	defer b.uploads.mu.Unlock()
	u := b.uploads.m[id]
	if u == nil || u.bucket != bucketName || u.key != key {
		return nil, gofakes3.ErrNoSuchUpload
	}
	if remove {
		delete(b.uploads.m, id)
	}
	return u, nil
}

// UploadPart streams one part into the blob store and records it,
// replacing an earlier part with the same number.
func (b *backend) UploadPart(bucketName, key string, id gofakes3.UploadID, n int, size int64, input io.Reader) (string, error) {
	u, err := b.upload(bucketName, key, id, false)
	if err != nil {
		return "", err
	}
	src := newHashSource(input)
	body, err := b.blobs.writePart(id, n, src, size)
	if err != nil {
		return "", err
	}
	sum, err := src.finish()
	if err != nil {
		b.blobs.release(body)
		return "", err
	}
	p := &part{body: body, md5: sum, etag: `"` + hex.EncodeToString(sum) + `"`, mod: b.now()}
	u.mu.Lock()
	old, done := u.parts[n], u.done
	if !done {
		u.parts[n] = p
	}
	u.mu.Unlock()
	switch {
	case done:
		b.blobs.release(body)
		return "", gofakes3.ErrNoSuchUpload
	case old != nil:
		b.blobs.release(old.body)
	}
	return p.etag, nil
}

// CompleteMultipartUpload joins the listed parts into the object. Its ETag
// is S3's: MD5 of the parts' MD5s, then "-<number of parts>".
func (b *backend) CompleteMultipartUpload(bucketName, key string, id gofakes3.UploadID,
	in *gofakes3.CompleteMultipartUploadRequest) (gofakes3.VersionID, string, error) {
	u, err := b.upload(bucketName, key, id, false)
	if err != nil {
		return "", "", err
	}
	u.mu.Lock()
	bodies, sums, err := u.pick(in.Parts)
	if err == nil {
		u.done = true
	}
	u.mu.Unlock()
	if err != nil {
		return "", "", err
	}
	defer b.discard(u)
	if _, err := b.upload(bucketName, key, id, true); err != nil {
		return "", "", err // a concurrent Complete or Abort won
	}
	body, err := b.blobs.concat(bucketName, bodies)
	if err != nil {
		return "", "", err
	}
	sum := md5.Sum(sums)
	obj := newObject(key, body, sum[:], len(bodies), u.meta, b.now())
	if err := b.publish(bucketName, obj, nil); err != nil {
		return "", "", err
	}
	return "", obj.etag, nil
}

// pick checks the client's part list against the upload and returns the
// bodies and concatenated MD5s in order. The caller holds u.mu.
func (u *upload) pick(list []gofakes3.CompletedPart) ([]blob, []byte, error) {
	if u.done {
		return nil, nil, gofakes3.ErrNoSuchUpload
	}
	if len(list) == 0 {
		return nil, nil, gofakes3.ErrorMessage(gofakes3.ErrMalformedXML, "no parts listed")
	}
	bodies := make([]blob, 0, len(list))
	sums := make([]byte, 0, len(list)*md5.Size)
	for i, cp := range list {
		if i > 0 && cp.PartNumber <= list[i-1].PartNumber {
			return nil, nil, gofakes3.ErrInvalidPartOrder
		}
		p := u.parts[cp.PartNumber]
		if p == nil {
			return nil, nil, gofakes3.ErrorMessagef(gofakes3.ErrInvalidPart, "part %d was not uploaded", cp.PartNumber)
		}
		if strings.Trim(cp.ETag, `"`) != strings.Trim(p.etag, `"`) {
			return nil, nil, gofakes3.ErrorMessagef(gofakes3.ErrInvalidPart, "part %d has a different ETag", cp.PartNumber)
		}
		bodies = append(bodies, p.body)
		sums = append(sums, p.md5...)
	}
	return bodies, sums, nil
}

// discard releases every part of a finished upload. A memory backend's
// completed object still references the part bytes; releasing is a no-op
// there.
func (b *backend) discard(u *upload) {
	u.mu.Lock()
	parts := u.parts
	u.parts = map[int]*part{}
	u.mu.Unlock()
	for _, p := range parts {
		b.blobs.release(p.body)
	}
	b.blobs.dropUpload(u.id)
}

// AbortMultipartUpload drops an upload and its parts.
func (b *backend) AbortMultipartUpload(bucketName, key string, id gofakes3.UploadID) error {
	u, err := b.upload(bucketName, key, id, true)
	if err != nil {
		return err
	}
	u.mu.Lock()
	u.done = true
	u.mu.Unlock()
	b.discard(u)
	return nil
}

// ListMultipartUploads lists uploads in progress, by key then start time.
func (b *backend) ListMultipartUploads(bucketName string, marker *gofakes3.UploadListMarker, p gofakes3.Prefix,
	limit int64) (*gofakes3.ListMultipartUploadsResult, error) {
	if _, err := b.bucket(bucketName); err != nil {
		return nil, err
	}
	b.uploads.mu.Lock()
	var ups []*upload
	for _, u := range b.uploads.m {
		if u.bucket == bucketName && strings.HasPrefix(u.key, p.Prefix) {
			ups = append(ups, u)
		}
	}
	b.uploads.mu.Unlock()
	slices.SortFunc(ups, func(x, y *upload) int {
		return cmp.Or(strings.Compare(x.key, y.key), x.initiated.Compare(y.initiated), strings.Compare(string(x.id), string(y.id)))
	})
	res := &gofakes3.ListMultipartUploadsResult{Bucket: bucketName, Prefix: p.Prefix, Delimiter: p.Delimiter, MaxUploads: limit}
	if marker != nil {
		res.KeyMarker, res.UploadIDMarker = marker.Object, marker.UploadID
		ups = afterMarker(ups, marker)
	}
	seen := map[string]bool{}
	for _, u := range ups {
		if int64(len(res.Uploads)+len(res.CommonPrefixes)) >= limit {
			res.IsTruncated = true
			break
		}
		if common := commonPrefix(p, u.key); common != "" {
			if !seen[common] {
				seen[common] = true
				res.CommonPrefixes = append(res.CommonPrefixes, gofakes3.CommonPrefix{Prefix: common})
			}
			continue
		}
		res.Uploads = append(res.Uploads, gofakes3.ListMultipartUploadItem{
			Key: u.key, UploadID: u.id, StorageClass: gofakes3.StorageStandard,
			Initiated: gofakes3.NewContentTime(u.initiated),
		})
		res.NextKeyMarker, res.NextUploadIDMarker = u.key, u.id
	}
	return res, nil
}

// afterMarker drops the uploads up to and including the marker.
func afterMarker(ups []*upload, m *gofakes3.UploadListMarker) []*upload {
	for i, u := range ups {
		switch {
		case u.key < m.Object:
			continue
		case u.key == m.Object && m.UploadID == "":
			continue
		case u.key == m.Object && u.id == m.UploadID:
			return ups[i+1:]
		case u.key == m.Object:
			continue
		}
		return ups[i:]
	}
	return nil
}

// ListParts lists an upload's parts by number.
func (b *backend) ListParts(bucketName, key string, id gofakes3.UploadID, marker int, limit int64) (*gofakes3.ListMultipartUploadPartsResult, error) {
	u, err := b.upload(bucketName, key, id, false)
	if err != nil {
		return nil, err
	}
	res := &gofakes3.ListMultipartUploadPartsResult{
		Bucket: bucketName, Key: key, UploadID: id, MaxParts: limit,
		PartNumberMarker: marker, StorageClass: gofakes3.StorageStandard,
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	nums := make([]int, 0, len(u.parts))
	for n := range u.parts {
		if n > marker {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		if int64(len(res.Parts)) >= limit {
			res.IsTruncated = true
			break
		}
		p := u.parts[n]
		res.Parts = append(res.Parts, gofakes3.ListMultipartUploadPartItem{
			PartNumber: n, ETag: p.etag, Size: p.body.size(), LastModified: gofakes3.NewContentTime(p.mod),
		})
		res.NextPartNumberMarker = n
	}
	return res, nil
}
