package s3server

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/tidwall/btree"
)

var (
	_ gofakes3.Backend          = (*backend)(nil)
	_ gofakes3.MultipartBackend = (*backend)(nil)
)

// etagHeader carries a multipart object's "<md5>-<parts>" ETag through
// gofakes3, which can only print an ETag as hex of Object.Hash; frontDoor
// moves it into the ETag header.
const etagHeader = "X-Objbench-Etag"

// backend implements gofakes3.Backend and MultipartBackend over a blobStore.
// Locks guard only maps: b.mu the bucket map, bucket.mu one bucket's
// objects. No lock is held while a body is read, hashed or copied.
type backend struct {
	blobs blobStore
	now   func() time.Time

	mu      sync.RWMutex
	buckets map[string]*bucket

	uploads uploadTable
}

type bucket struct {
	name    string
	created time.Time

	mu      sync.RWMutex
	objects map[string]*object
	order   btree.Set[string] // keys in order, for listing
	deleted bool              // set when removed, so late writers fail
}

// object is immutable once published; replacing a key publishes a new one.
type object struct {
	key     string
	body    blob
	size    int64
	hash    []byte // MD5 of the body, or MD5 of the parts' MD5s
	parts   int    // > 0 for a completed multipart upload
	etag    string // quoted, as S3 prints it
	mod     time.Time
	meta    map[string]string // content headers and X-Amz-Meta-*
	headers map[string]string // meta plus Last-Modified (and etagHeader), for gofakes3
}

func newBackend(ctx context.Context, blobs blobStore) (*backend, error) {
	b := &backend{
		blobs:   blobs,
		now:     time.Now,
		buckets: map[string]*bucket{},
		uploads: uploadTable{m: map[gofakes3.UploadID]*upload{}},
	}
	loaded, err := blobs.load(ctx)
	if err != nil {
		return nil, err
	}
	for _, lb := range loaded {
		bk := newBucket(lb.info.Name, lb.info.CreationDate.Time)
		for _, obj := range lb.objects {
			bk.objects[obj.key] = obj
			bk.index(obj.key)
		}
		b.buckets[bk.name] = bk
	}
	return b, nil
}

func newBucket(name string, created time.Time) *bucket {
	return &bucket{name: name, created: created, objects: map[string]*object{}}
}

// index adds key to the bucket's key order; unindex removes it. The caller
// holds bk.mu for writing.
func (bk *bucket) index(key string)   { bk.order.Insert(key) }
func (bk *bucket) unindex(key string) { bk.order.Delete(key) }

// newObject builds an object. parts > 0 marks a completed multipart upload.
func newObject(key string, body blob, hash []byte, parts int, meta map[string]string, mod time.Time) *object {
	o := &object{key: key, body: body, size: body.size(), hash: hash, parts: parts, mod: mod, meta: keepMeta(meta)}
	o.etag = `"` + hex.EncodeToString(hash) + `"`
	if parts > 0 {
		o.etag = `"` + hex.EncodeToString(hash) + "-" + strconv.Itoa(parts) + `"`
	}
	o.headers = make(map[string]string, len(o.meta)+2)
	for k, v := range o.meta {
		o.headers[k] = v
	}
	o.headers["Last-Modified"] = mod.UTC().Format(http.TimeFormat)
	if parts > 0 {
		o.headers[etagHeader] = o.etag
	}
	return o
}

// keepMeta keeps the request headers S3 stores with an object. gofakes3
// passes every X-Amz-* header, and echoing x-amz-date or checksum headers of
// the upload on every GET would confuse clients.
func keepMeta(meta map[string]string) map[string]string {
	out := make(map[string]string, 4)
	for k, v := range meta {
		ck := http.CanonicalHeaderKey(k)
		switch {
		case ck == "Content-Type", ck == "Content-Disposition", ck == "Content-Encoding",
			strings.HasPrefix(ck, "X-Amz-Meta-"):
			out[ck] = v
		}
	}
	if out["Content-Type"] == "" {
		out["Content-Type"] = "binary/octet-stream" // what S3 answers for untyped objects
	}
	return out
}

func (o *object) toObject(contents io.ReadCloser, rng *gofakes3.ObjectRange) *gofakes3.Object {
	return &gofakes3.Object{
		Name:     o.key,
		Metadata: o.headers, // gofakes3 only reads it
		Size:     o.size,
		Contents: contents,
		Hash:     o.hash,
		Range:    rng,
	}
}

func (b *backend) bucket(name string) (*bucket, error) {
	b.mu.RLock()
	bk := b.buckets[name]
	b.mu.RUnlock()
	if bk == nil {
		return nil, gofakes3.BucketNotFound(name)
	}
	return bk, nil
}

// ListBuckets returns the buckets sorted by name.
func (b *backend) ListBuckets() ([]gofakes3.BucketInfo, error) {
	b.mu.RLock()
	out := make([]gofakes3.BucketInfo, 0, len(b.buckets))
	for _, bk := range b.buckets {
		out = append(out, gofakes3.BucketInfo{Name: bk.name, CreationDate: gofakes3.NewContentTime(bk.created)})
	}
	b.mu.RUnlock()
	slices.SortFunc(out, func(x, y gofakes3.BucketInfo) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// CreateBucket creates an empty bucket.
func (b *backend) CreateBucket(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buckets[name] != nil {
		return gofakes3.ResourceError(gofakes3.ErrBucketAlreadyExists, name)
	}
	if err := b.blobs.createBucket(name); err != nil {
		return err
	}
	b.buckets[name] = newBucket(name, b.now())
	return nil
}

// BucketExists reports whether the bucket exists.
func (b *backend) BucketExists(name string) (bool, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.buckets[name] != nil, nil
}

// DeleteBucket removes an empty bucket.
func (b *backend) DeleteBucket(name string) error { return b.deleteBucket(name, false) }

// ForceDeleteBucket removes a bucket and everything in it.
func (b *backend) ForceDeleteBucket(name string) error { return b.deleteBucket(name, true) }

func (b *backend) deleteBucket(name string, force bool) error {
	b.mu.Lock()
	bk := b.buckets[name]
	if bk == nil {
		b.mu.Unlock()
		return gofakes3.BucketNotFound(name)
	}
	bk.mu.Lock()
	if len(bk.objects) > 0 && !force {
		bk.mu.Unlock()
		b.mu.Unlock()
		return gofakes3.ResourceError(gofakes3.ErrBucketNotEmpty, name)
	}
	bk.deleted = true
	objects := bk.objects
	bk.objects = map[string]*object{}
	bk.order.Clear()
	bk.mu.Unlock()
	delete(b.buckets, name)
	b.mu.Unlock()
	for _, obj := range objects {
		b.blobs.release(obj.body)
	}
	return b.blobs.removeBucket(name)
}

// publish makes obj the current version of its key, or releases its body if
// the put conditions fail or the bucket is gone.
func (b *backend) publish(bucketName string, obj *object, cond *gofakes3.PutConditions) error {
	bk, err := b.bucket(bucketName)
	if err == nil {
		err = b.blobs.commit(bucketName, obj)
	}
	if err != nil {
		b.blobs.release(obj.body)
		return err
	}
	bk.mu.Lock()
	old := bk.objects[obj.key]
	switch {
	case bk.deleted:
		err = gofakes3.BucketNotFound(bucketName)
	case cond != nil:
		info := &gofakes3.ConditionalObjectInfo{Exists: old != nil}
		if old != nil {
			info.Hash = old.hash
		}
		err = gofakes3.CheckPutConditions(cond, info)
	}
	if err == nil {
		bk.objects[obj.key] = obj
		if old == nil {
			bk.index(obj.key)
		}
	}
	bk.mu.Unlock()
	switch {
	case err != nil:
		b.blobs.release(obj.body)
	case old != nil:
		b.blobs.release(old.body)
	}
	return err
}
