package s3server

import (
	"strings"

	"github.com/johannesboyne/gofakes3"
)

// ListBucket lists one page of keys and common prefixes in key order,
// seeking in the ordered index rather than scanning the bucket.
func (b *backend) ListBucket(name string, prefix *gofakes3.Prefix, page gofakes3.ListBucketPage) (*gofakes3.ObjectList, error) {
	bk, err := b.bucket(name)
	if err != nil {
		return nil, err
	}
	var p gofakes3.Prefix
	if prefix != nil {
		p = *prefix
	}
	start, after := p.Prefix, ""
	if page.HasMarker && page.Marker > start {
		start, after = page.Marker, page.Marker
		if p.HasDelimiter && strings.HasSuffix(after, p.Delimiter) {
			// The marker is a common prefix: skip every key under it.
			start = prefixEnd(after)
		}
	}
	out := gofakes3.NewObjectList()
	count := int64(0)
	bk.mu.RLock()
	defer bk.mu.RUnlock()
	bk.scan(p, start, func(key string, obj *object, common string) bool {
		if key == after && after != "" {
			return true
		}
		if page.MaxKeys > 0 && count == page.MaxKeys {
			out.IsTruncated = true
			return false
		}
		count++
		if obj == nil {
			out.AddPrefix(common)
			out.NextMarker = common
			return true
		}
		out.Add(&gofakes3.Content{
			Key:          key,
			LastModified: gofakes3.NewContentTime(obj.mod),
			ETag:         obj.etag,
			Size:         obj.size,
			StorageClass: gofakes3.StorageStandard,
		})
		out.NextMarker = key
		return true
	})
	if !out.IsTruncated {
		out.NextMarker = ""
	}
	return out, nil
}

// scan calls fn, in key order from start, for each key matching p (obj set)
// and each common prefix (obj nil), until fn returns false. The caller holds
// bk.mu. Keys under a common prefix are skipped by seeking past them.
func (bk *bucket) scan(p gofakes3.Prefix, start string, fn func(key string, obj *object, common string) bool) {
	it := bk.order.Iter()
	for ok := it.Seek(start); ok; {
		key := it.Key()
		if p.HasPrefix && !strings.HasPrefix(key, p.Prefix) {
			return // keys are ordered and start >= prefix: none further match
		}
		if common := commonPrefix(p, key); common != "" {
			if !fn("", nil, common) {
				return
			}
			next := prefixEnd(common)
			if next == "" {
				return
			}
			ok = it.Seek(next)
			continue
		}
		if !fn(key, bk.objects[key], "") {
			return
		}
		ok = it.Next()
	}
}

// commonPrefix returns the S3 common prefix key rolls up into (prefix up to
// and including the first delimiter after it), or "" if none.
func commonPrefix(p gofakes3.Prefix, key string) string {
	if !p.HasDelimiter {
		return ""
	}
	rest := key[len(p.Prefix):]
	i := strings.Index(rest, p.Delimiter)
	if i < 0 {
		return ""
	}
	return key[:len(p.Prefix)+i+len(p.Delimiter)]
}

// prefixEnd returns the smallest string greater than every string that
// starts with s, or "" if there is none (s is all 0xff bytes).
func prefixEnd(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}
