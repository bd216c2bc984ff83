package s3server

import (
	"io"
	"net/http"

	"github.com/johannesboyne/gofakes3"
)

// lookup finds key and, while still holding the bucket lock, runs fn on it:
// fn opens the body, which must happen before a concurrent replace can
// release it.
func (b *backend) lookup(bucketName, key string, fn func(*object) error) error {
	bk, err := b.bucket(bucketName)
	if err != nil {
		return err
	}
	bk.mu.RLock()
	defer bk.mu.RUnlock()
	obj := bk.objects[key]
	if obj == nil {
		return gofakes3.KeyNotFound(key)
	}
	return fn(obj)
}

// GetObject returns the object with a reader over the requested range.
func (b *backend) GetObject(bucketName, key string, rr *gofakes3.ObjectRangeRequest) (*gofakes3.Object, error) {
	var out *gofakes3.Object
	err := b.lookup(bucketName, key, func(obj *object) error {
		rng, err := rr.Range(obj.size)
		if err != nil {
			return err
		}
		off, n := int64(0), obj.size
		if rng != nil {
			off, n = rng.Start, rng.Length
		}
		rc, err := obj.body.open(off, n)
		if err != nil {
			return err
		}
		out = obj.toObject(rc, rng)
		return nil
	})
	return out, err
}

// HeadObject returns the object's metadata with an empty body.
func (b *backend) HeadObject(bucketName, key string) (*gofakes3.Object, error) {
	var out *gofakes3.Object
	err := b.lookup(bucketName, key, func(obj *object) error {
		out = obj.toObject(http.NoBody, nil)
		return nil
	})
	return out, err
}

// PutObject streams the body into the blob store, then publishes it.
func (b *backend) PutObject(bucketName, key string, meta map[string]string, input io.Reader, size int64,
	cond *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	// Fail before reading a body nobody can store.
	if _, err := b.bucket(bucketName); err != nil {
		return gofakes3.PutObjectResult{}, err
	}
	src := newHashSource(input)
	body, err := b.blobs.write(bucketName, src, size)
	if err != nil {
		return gofakes3.PutObjectResult{}, err
	}
	hash, err := src.finish()
	if err != nil {
		b.blobs.release(body)
		return gofakes3.PutObjectResult{}, err
	}
	obj := newObject(key, body, hash, 0, meta, b.now())
	return gofakes3.PutObjectResult{}, b.publish(bucketName, obj, cond)
}

// DeleteObject removes key; a missing key is not an error.
func (b *backend) DeleteObject(bucketName, key string) (gofakes3.ObjectDeleteResult, error) {
	bk, err := b.bucket(bucketName)
	if err != nil {
		return gofakes3.ObjectDeleteResult{}, err
	}
	bk.mu.Lock()
	old := bk.objects[key]
	if old != nil {
		delete(bk.objects, key)
		bk.unindex(key)
	}
	bk.mu.Unlock()
	if old != nil {
		b.blobs.release(old.body)
	}
	return gofakes3.ObjectDeleteResult{}, nil
}

// DeleteMulti removes several keys.
func (b *backend) DeleteMulti(bucketName string, keys ...string) (gofakes3.MultiDeleteResult, error) {
	var res gofakes3.MultiDeleteResult
	for _, key := range keys {
		if _, err := b.DeleteObject(bucketName, key); err != nil {
			res.Error = append(res.Error, gofakes3.ErrorResultFromError(err))
			continue
		}
		res.Deleted = append(res.Deleted, gofakes3.ObjectID{Key: key})
	}
	return res, nil
}

// CopyObject makes dst share src's bytes where the blob store can (memory:
// the same slices; directory: a hard link) instead of copying them.
func (b *backend) CopyObject(srcBucket, srcKey, dstBucket, dstKey string, meta map[string]string) (gofakes3.CopyObjectResult, error) {
	if _, err := b.bucket(dstBucket); err != nil {
		return gofakes3.CopyObjectResult{}, err
	}
	var src *object
	var body blob
	err := b.lookup(srcBucket, srcKey, func(obj *object) error {
		var err error
		src = obj
		body, err = b.blobs.clone(dstBucket, obj.body)
		return err
	})
	if err != nil {
		return gofakes3.CopyObjectResult{}, err
	}
	obj := newObject(dstKey, body, src.hash, src.parts, meta, b.now())
	if err := b.publish(dstBucket, obj, nil); err != nil {
		return gofakes3.CopyObjectResult{}, err
	}
	return gofakes3.CopyObjectResult{ETag: obj.etag, LastModified: gofakes3.NewContentTime(obj.mod)}, nil
}
