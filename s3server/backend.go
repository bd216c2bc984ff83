package s3server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/btree"
)

// backend keeps buckets and objects over a blobStore. Locks guard only
// maps: b.mu the bucket map, bucket.mu one bucket's keys. No lock is held
// while a body is read, hashed or copied.
type backend struct {
	blobs blobStore
	now   func() time.Time

	mu      sync.RWMutex
	buckets map[string]*bucket

	uploads uploadTable
}

// Versioning states of a bucket, as PutBucketVersioning names them; ""
// is a bucket that never had versioning.
const (
	versioningEnabled   = "Enabled"
	versioningSuspended = "Suspended"
)

type bucket struct {
	name    string
	created time.Time

	mu         sync.RWMutex
	versioning string
	keys       map[string]*versions
	order      btree.Set[string] // keys in order, for listing
	deleted    bool              // set when removed, so late writers fail
}

// versions are a key's versions, newest first: v[0] is the current one.
type versions struct{ v []*object }

// object is one version of a key (or a delete marker), immutable once
// published; a change (new tags) publishes a changed copy.
type object struct {
	key     string
	version string // "" is the null version ("null" on the wire)
	marker  bool   // a delete marker: no body, no attributes
	body    blob
	size    int64
	hash    []byte // MD5 of the body, or MD5 of the parts' MD5s
	parts   []int64
	etag    string // quoted, as S3 prints it
	mod     time.Time
	lastMod string // mod as HTTP prints it
	attrs   *attrs
	record  string // a directory store's record of a delete marker
}

// attrs are what an object keeps besides its bytes.
type attrs struct {
	// headers are stored request headers sent back on GET and HEAD:
	// Content-Type and the other content headers, Cache-Control,
	// Expires, x-amz-meta-* (keys in lower case, as S3 returns them) and
	// the encryption headers.
	headers map[string]string
	tags    []tag
	sum     checksum // the flexible checksum, if one was sent or asked for
	// partSums are a multipart object's part checksums (base64), with
	// sum's algorithm.
	partSums []string
	sseKey   string // SSE-C: base64 MD5 of the customer key
}

func newBackend(ctx context.Context, blobs blobStore) (*backend, error) {
	b := &backend{
		blobs:   blobs,
		now:     time.Now,
		buckets: map[string]*bucket{},
		uploads: uploadTable{m: map[string]*upload{}},
	}
	loaded, err := blobs.load(ctx)
	if err != nil {
		return nil, err
	}
	for _, lb := range loaded {
		bk := newBucket(lb.name, lb.created)
		bk.versioning = lb.versioning
		for _, obj := range lb.objects {
			bk.add(obj)
		}
		b.buckets[bk.name] = bk
	}
	return b, nil
}

func newBucket(name string, created time.Time) *bucket {
	return &bucket{name: name, created: created, keys: map[string]*versions{}}
}

// newObject builds an object version. Parts, when given, are the sizes of
// a completed multipart upload's parts.
func newObject(key string, body blob, hash []byte, parts []int64, a *attrs, mod time.Time) *object {
	o := &object{key: key, body: body, size: body.size(), hash: hash, parts: parts, mod: mod, attrs: a}
	o.etag = `"` + hex.EncodeToString(hash) + `"`
	if len(parts) > 0 {
		o.etag = `"` + hex.EncodeToString(hash) + "-" + strconv.Itoa(len(parts)) + `"`
	}
	o.lastMod = mod.UTC().Format(http.TimeFormat)
	return o
}

func newMarker(key string, mod time.Time) *object {
	return &object{key: key, marker: true, mod: mod, lastMod: mod.UTC().Format(http.TimeFormat), attrs: &attrs{}}
}

func (b *backend) bucket(name string) (*bucket, error) {
	b.mu.RLock()
	bk := b.buckets[name]
	b.mu.RUnlock()
	if bk == nil {
		return nil, errNoSuchBucket()
	}
	return bk, nil
}

// bucketNames returns the buckets sorted by name.
func (b *backend) bucketList() []*bucket {
	b.mu.RLock()
	out := make([]*bucket, 0, len(b.buckets))
	for _, bk := range b.buckets {
		out = append(out, bk)
	}
	b.mu.RUnlock()
	slices.SortFunc(out, func(x, y *bucket) int { return strings.Compare(x.name, y.name) })
	return out
}

// createBucket creates an empty bucket; ok is false if it existed.
func (b *backend) createBucket(name string) (ok bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buckets[name] != nil {
		return false, nil
	}
	if err := b.blobs.createBucket(name); err != nil {
		return false, err
	}
	b.buckets[name] = newBucket(name, b.now())
	return true, nil
}

// deleteBucket removes an empty bucket (one with no version or marker
// left, as S3 counts).
func (b *backend) deleteBucket(name string) error {
	b.mu.Lock()
	bk := b.buckets[name]
	if bk == nil {
		b.mu.Unlock()
		return errNoSuchBucket()
	}
	bk.mu.Lock()
	if len(bk.keys) > 0 {
		bk.mu.Unlock()
		b.mu.Unlock()
		return errorf(http.StatusConflict, "BucketNotEmpty", "The bucket you tried to delete is not empty")
	}
	bk.deleted = true
	bk.mu.Unlock()
	delete(b.buckets, name)
	b.mu.Unlock()
	return b.blobs.removeBucket(name)
}

// current returns key's current version (a delete marker included), or nil.
func (bk *bucket) current(key string) *object {
	if vs := bk.keys[key]; vs != nil {
		return vs.v[0]
	}
	return nil
}

// find returns key's version id ("null" is the null version), or nil.
func (bk *bucket) find(key, id string) *object {
	if id == "null" {
		id = ""
	}
	if vs := bk.keys[key]; vs != nil {
		for _, o := range vs.v {
			if o.version == id {
				return o
			}
		}
	}
	return nil
}

// add puts obj in as key's newest version; it replaces the version with
// the same id (the null version, without versioning), which it returns
// for its body to be released. The caller holds bk.mu.
func (bk *bucket) add(obj *object) (replaced *object) {
	vs := bk.keys[obj.key]
	if vs == nil {
		bk.keys[obj.key] = &versions{v: []*object{obj}}
		bk.order.Insert(obj.key)
		return nil
	}
	if i := slices.IndexFunc(vs.v, func(o *object) bool { return o.version == obj.version }); i >= 0 {
		replaced = vs.v[i]
		vs.v = slices.Delete(vs.v, i, i+1)
	}
	vs.v = slices.Insert(vs.v, 0, obj)
	return replaced
}

// remove drops version obj of its key. The caller holds bk.mu.
func (bk *bucket) remove(obj *object) {
	vs := bk.keys[obj.key]
	if vs == nil {
		return
	}
	vs.v = slices.DeleteFunc(vs.v, func(o *object) bool { return o == obj })
	if len(vs.v) == 0 {
		delete(bk.keys, obj.key)
		bk.order.Delete(obj.key)
	}
}

// replaceIn swaps version old for changed (same key and version) if old is
// still there. The caller holds bk.mu.
func (bk *bucket) replaceIn(old, changed *object) bool {
	if vs := bk.keys[old.key]; vs != nil {
		if i := slices.Index(vs.v, old); i >= 0 {
			vs.v[i] = changed
			return true
		}
	}
	return false
}

// versionID is the id a version written now gets: a new unique id while
// versioning is enabled, the null version otherwise.
func (bk *bucket) versionID() string {
	bk.mu.RLock()
	v := bk.versioning
	bk.mu.RUnlock()
	if v == versioningEnabled {
		return newID()
	}
	return ""
}

// newID is a random 32-hex-digit id (versions, uploads).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// precondition checks the state of a key at the moment a write is
// published; cur is its current version, nil or a delete marker when the
// key does not exist.
type precondition func(cur *object) error

// publish makes obj its key's newest version, or releases its body if the
// condition fails or the bucket is gone. Its version id follows the
// bucket's versioning when the write is published; its record (a file,
// for a directory) is written before the lock is taken.
func (b *backend) publish(bk *bucket, obj *object, cond precondition) error {
	obj.version = bk.versionID()
	if err := b.blobs.commit(bk.name, obj); err != nil {
		b.release(obj)
		return err
	}
	bk.mu.Lock()
	var err error
	switch {
	case bk.deleted:
		err = errNoSuchBucket()
	case cond != nil:
		err = cond(bk.current(obj.key))
	}
	var replaced *object
	if err == nil {
		replaced = bk.add(obj)
	}
	bk.mu.Unlock()
	switch {
	case err != nil:
		b.release(obj)
	case replaced != nil:
		b.release(replaced)
	}
	return err
}

// release frees a version's body and record (a delete marker has only a
// record).
func (b *backend) release(o *object) {
	if o != nil {
		b.blobs.release(o)
	}
}
