package s3server

import (
	"cmp"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// uploadTable holds the multipart uploads in progress. Parts live in the
// blob store (files for a directory backend), never in one big buffer.
type uploadTable struct {
	mu sync.Mutex
	m  map[string]*upload
	// done remembers completed uploads a while: S3 answers a repeated
	// CompleteMultipartUpload of one with the same result.
	done map[string]completedUpload
}

type completedUpload struct {
	bucket, key string
	obj         *object
	at          time.Time
}

// keepCompleted is how long, and how many, completed uploads are
// remembered.
const (
	keepCompleted = 15 * time.Minute
	maxCompleted  = 10000
)

// rememberCompleted records a completed upload (dropping old records).
func (b *backend) rememberCompleted(u *upload, obj *object) {
	now := b.now()
	b.uploads.mu.Lock()
	defer b.uploads.mu.Unlock()
	if b.uploads.done == nil {
		b.uploads.done = map[string]completedUpload{}
	}
	if len(b.uploads.done) >= maxCompleted {
		for id, c := range b.uploads.done {
			if now.Sub(c.at) > keepCompleted || len(b.uploads.done) >= maxCompleted {
				delete(b.uploads.done, id)
			}
		}
	}
	b.uploads.done[u.id] = completedUpload{u.bucket, u.key, obj, now}
}

// completedAs returns the object a completed upload made, if it is
// remembered.
func (b *backend) completedAs(bucketName, key, id string) *object {
	b.uploads.mu.Lock()
	defer b.uploads.mu.Unlock()
	c, ok := b.uploads.done[id]
	if !ok || c.bucket != bucketName || c.key != key || b.now().Sub(c.at) > keepCompleted {
		return nil
	}
	return c.obj
}

type upload struct {
	id        string
	bucket    string
	key       string
	attrs     *attrs // of the object to be; attrs.sum has the checksum's algorithm and type
	initiated time.Time

	mu    sync.Mutex
	done  bool // completed or aborted: late parts are refused
	parts map[int]*part
}

type part struct {
	body blob
	md5  []byte
	sum  []byte // the part's checksum (raw), with the upload's algorithm
	etag string
	mod  time.Time
}

// minPartSize is S3's smallest part, the last excepted.
const minPartSize = 5 << 20

func (b *backend) newUpload(bucketName, key string, a *attrs) *upload {
	u := &upload{id: newID(), bucket: bucketName, key: key, attrs: a, initiated: b.now(), parts: map[int]*part{}}
	b.uploads.mu.Lock()
	b.uploads.m[u.id] = u
	b.uploads.mu.Unlock()
	return u
}

func (b *backend) upload(bucketName, key, id string, remove bool) (*upload, error) {
	b.uploads.mu.Lock()
	defer b.uploads.mu.Unlock()
	u := b.uploads.m[id]
	if u == nil || u.bucket != bucketName || u.key != key {
		return nil, errNoSuchUpload()
	}
	if remove {
		delete(b.uploads.m, id)
	}
	return u, nil
}

// addPart records part n, replacing an earlier one with the same number.
func (b *backend) addPart(u *upload, n int, p *part) error {
	u.mu.Lock()
	old, done := u.parts[n], u.done
	if !done {
		u.parts[n] = p
	}
	u.mu.Unlock()
	switch {
	case done:
		b.blobs.releaseBlob(p.body)
		return errNoSuchUpload()
	case old != nil:
		b.blobs.releaseBlob(old.body)
	}
	return nil
}

// completedPart is a part as CompleteMultipartUpload lists it.
type completedPart struct {
	PartNumber        int
	ETag              string
	ChecksumCRC32     string
	ChecksumCRC32C    string
	ChecksumCRC64NVME string
	ChecksumSHA1      string
	ChecksumSHA256    string
}

func (p completedPart) checksum(alg string) string {
	switch alg {
	case "CRC32":
		return p.ChecksumCRC32
	case "CRC32C":
		return p.ChecksumCRC32C
	case "CRC64NVME":
		return p.ChecksumCRC64NVME
	case "SHA1":
		return p.ChecksumSHA1
	case "SHA256":
		return p.ChecksumSHA256
	}
	return ""
}

// picked is what a completion's part list selects.
type picked struct {
	bodies []blob
	md5s   []byte
	sums   [][]byte
	sizes  []int64
}

// pick checks the client's part list against the upload and returns the
// parts in order. The caller holds u.mu.
func (u *upload) pick(list []completedPart) (picked, error) {
	var out picked
	if u.done {
		return out, errNoSuchUpload()
	}
	if len(list) == 0 {
		return out, errMalformedXML("no parts listed")
	}
	for i, cp := range list {
		if i > 0 && cp.PartNumber <= list[i-1].PartNumber {
			return out, errorf(http.StatusBadRequest, "InvalidPartOrder", "The list of parts was not in ascending order. The parts list must be specified in order by part number.")
		}
		p := u.parts[cp.PartNumber]
		invalid := errorf(http.StatusBadRequest, "InvalidPart", "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.")
		if p == nil || strings.Trim(cp.ETag, `"`) != strings.Trim(p.etag, `"`) {
			return out, invalid
		}
		if c := cp.checksum(u.attrs.sum.Alg); c != "" && c != base64.StdEncoding.EncodeToString(p.sum) {
			return out, invalid
		}
		if i < len(list)-1 && p.body.size() < minPartSize {
			return out, errorf(http.StatusBadRequest, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.")
		}
		out.bodies = append(out.bodies, p.body)
		out.md5s = append(out.md5s, p.md5...)
		out.sums = append(out.sums, p.sum)
		out.sizes = append(out.sizes, p.body.size())
	}
	return out, nil
}

// complete joins the listed parts into the object version and publishes
// it under the request's conditions. Its ETag is S3's: MD5 of the parts'
// MD5s, then "-<number of parts>"; its checksum the parts' combined.
func (b *backend) complete(bk *bucket, u *upload, list []completedPart, wantSum string, cond writeConditions) (*object, error) {
	u.mu.Lock()
	pk, err := u.pick(list)
	if err == nil {
		u.done = true
	}
	u.mu.Unlock()
	if err != nil {
		return nil, err
	}
	a := *u.attrs
	if a.sum.Alg != "" {
		a.sum.Value = combineParts(a.sum, pk.sums, pk.sizes)
		a.partSums = partSums(pk.sums)
		if wantSum != "" && wantSum != a.sum.Value {
			u.mu.Lock()
			u.done = false // S3 keeps the upload: the client may complete it right
			u.mu.Unlock()
			return nil, errBadDigest("The " + a.sum.Alg + " you specified for the full object did not match the calculated checksum.")
		}
	}
	defer b.discard(u)
	if _, err := b.upload(u.bucket, u.key, u.id, true); err != nil {
		return nil, err // a concurrent Complete or Abort won
	}
	body, err := b.blobs.concat(bk.name, pk.bodies)
	if err != nil {
		return nil, err
	}
	sum := md5.Sum(pk.md5s)
	obj := newObject(u.key, body, sum[:], pk.sizes, &a, b.now())
	if err := b.publish(bk, obj, cond.atPublish()); err != nil {
		return nil, err
	}
	b.rememberCompleted(u, obj)
	return obj, nil
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
		b.blobs.releaseBlob(p.body)
	}
	b.blobs.dropUpload(u.id)
}

// abort drops an upload and its parts.
func (b *backend) abort(bucketName, key, id string) error {
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

// uploadsOf returns a bucket's uploads under prefix, by key then start.
func (b *backend) uploadsOf(bucketName, prefix string) []*upload {
	b.uploads.mu.Lock()
	var ups []*upload
	for _, u := range b.uploads.m {
		if u.bucket == bucketName && strings.HasPrefix(u.key, prefix) {
			ups = append(ups, u)
		}
	}
	b.uploads.mu.Unlock()
	slices.SortFunc(ups, func(x, y *upload) int {
		return cmp.Or(strings.Compare(x.key, y.key), x.initiated.Compare(y.initiated), strings.Compare(x.id, y.id))
	})
	return ups
}

// afterMarker drops the uploads up to and including the marker.
func afterMarker(ups []*upload, key, id string) []*upload {
	for i, u := range ups {
		switch {
		case u.key < key:
			continue
		case u.key == key && id == "":
			continue
		case u.key == key && u.id == id:
			return ups[i+1:]
		case u.key == key:
			continue
		}
		return ups[i:]
	}
	return nil
}

// partNumber reads ?partNumber (1 to 10,000).
func partNumber(c *call) (int, error) {
	n, err := strconv.Atoi(c.query("partNumber"))
	if err != nil || n < 1 || n > 10000 {
		return 0, errInvalidArgument("Part number must be an integer between 1 and 10000, inclusive")
	}
	return n, nil
}
