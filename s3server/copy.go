package s3server

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// copySource reads x-amz-copy-source: "[/]bucket/key[?versionId=id]",
// the key URL-encoded.
func copySource(v string) (bucket, key, version string, err error) {
	path, query, _ := strings.Cut(strings.TrimPrefix(v, "/"), "?")
	if query != "" {
		q, qerr := url.ParseQuery(query)
		if qerr != nil || len(q) != 1 || !q.Has("versionId") {
			return "", "", "", errInvalidArgument("Invalid copy source encoding.")
		}
		version = q.Get("versionId")
	}
	if p, uerr := url.PathUnescape(path); uerr == nil {
		path = p
	}
	bucket, key, ok := strings.Cut(path, "/")
	if !ok || bucket == "" || key == "" {
		return "", "", "", errInvalidArgument("Copy Source must mention the source bucket and key: sourcebucket/sourcekey.")
	}
	return bucket, key, version, nil
}

// source is a copy's source version, with its body opened (off, n) or
// cloned into the destination bucket while the source bucket is locked.
type source struct {
	obj       *object
	versioned bool
}

// lookupSource finds the source, checks its SSE-C key and the
// x-amz-copy-source-if-* conditions, and runs fn on it under the lock.
func (s *service) lookupSource(c *call, fn func(*object) error) (source, error) {
	b, k, v, err := copySource(c.r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return source{}, err
	}
	bk, err := s.be.bucket(b)
	if err != nil {
		return source{}, err
	}
	bk.mu.RLock()
	defer bk.mu.RUnlock()
	obj, err := s.readable(c, bk, k, v)
	if err == nil {
		err = checkSSEKey(c.r.Header, obj.attrs, true)
	}
	if err == nil {
		err = copyConditions(c.r.Header, obj)
	}
	if err == nil {
		err = fn(obj)
	}
	if err != nil {
		return source{}, err
	}
	return source{obj: obj, versioned: bk.versioning != ""}, nil
}

// copyObject serves CopyObject: the destination shares the source's bytes
// where the blob store can (memory: the same slices; directory: hard
// links) and gets the source's attributes or, with REPLACE directives,
// the request's.
func (s *service) copyObject(c *call) error {
	dst, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	if err := checkKey(c.key); err != nil {
		return err
	}
	cond, err := parseWriteConditions(c.r.Header)
	if err != nil {
		return err
	}
	var body blob
	src, err := s.lookupSource(c, func(obj *object) error {
		var err error
		body, err = s.be.blobs.clone(c.bucket, obj.body)
		return err
	})
	if err != nil {
		return err
	}
	a, err := copyAttrs(c.r.Header, src.obj.attrs)
	if err == nil && onItself(c, src.obj) {
		err = errInvalidRequest("This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
	}
	if err == nil {
		err = s.recomputeChecksum(c, a, body)
	}
	if err != nil {
		s.be.blobs.releaseBlob(body)
		return err
	}
	obj := newObject(c.key, body, src.obj.hash, src.obj.parts, a, s.be.now())
	if err := s.be.publish(dst, obj, cond.atPublish()); err != nil {
		return err
	}
	h := c.w.Header()
	if obj.version != "" {
		h.Set("X-Amz-Version-Id", obj.version)
	}
	if src.versioned {
		h.Set("X-Amz-Copy-Source-Version-Id", wireVersion(src.obj.version))
	}
	setSSEHeaders(h, a)
	res := struct {
		XMLName      xml.Name `xml:"CopyObjectResult"`
		Xmlns        string   `xml:"xmlns,attr"`
		LastModified string
		ETag         string
		checksumsXML
	}{Xmlns: s3ns, LastModified: xmlTime(obj.mod), ETag: obj.etag}
	if a.sum.Alg != "" {
		res.set(a.sum.Alg, a.sum.Value)
	}
	writeXML(c.w, res)
	return nil
}

// onItself: a copy of the current version onto itself that changes
// nothing, which S3 refuses.
func onItself(c *call, src *object) bool {
	b, k, v, _ := copySource(c.r.Header.Get("X-Amz-Copy-Source"))
	h := c.r.Header
	return b == c.bucket && k == c.key && (v == "" || v == wireVersion(src.version)) &&
		!strings.EqualFold(h.Get("X-Amz-Metadata-Directive"), "REPLACE") &&
		!strings.EqualFold(h.Get("X-Amz-Tagging-Directive"), "REPLACE") &&
		h.Get("X-Amz-Server-Side-Encryption") == "" && h.Get("X-Amz-Server-Side-Encryption-Customer-Algorithm") == "" &&
		h.Get("X-Amz-Checksum-Algorithm") == ""
}

// recomputeChecksum gives a copy the checksum algorithm it asks for
// (x-amz-checksum-algorithm), reading the bytes once; without one it keeps
// the source's.
func (s *service) recomputeChecksum(c *call, a *attrs, body blob) error {
	alg := strings.ToUpper(c.r.Header.Get("X-Amz-Checksum-Algorithm"))
	if alg == "" || (alg == a.sum.Alg && a.sum.Type == fullObject) {
		return nil
	}
	h := newChecksumHash(alg)
	if h == nil {
		return errInvalidRequest("Checksum algorithm provided is unsupported.")
	}
	rc, err := body.open(0, body.size())
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(h, rc); err != nil {
		return err
	}
	a.sum = checksum{Alg: alg, Value: base64.StdEncoding.EncodeToString(h.Sum(nil)), Type: fullObject}
	return nil
}

// uploadPartCopy serves UploadPartCopy: part n is a range of the source
// (x-amz-copy-source-range: bytes=a-b, within the source) or all of it.
func (s *service) uploadPartCopy(c *call, u *upload, n int) error {
	var rc io.ReadCloser
	var start, length int64
	src, err := s.lookupSource(c, func(obj *object) error {
		var err error
		start, length, err = copyRange(c.r.Header.Get("X-Amz-Copy-Source-Range"), obj.size)
		if err == nil {
			rc, err = obj.body.open(start, length)
		}
		return err
	})
	if err != nil {
		return err
	}
	defer rc.Close()
	hr := &hashReader{r: rc, md5: md5.New()}
	if u.attrs.sum.Alg != "" {
		hr.sum = newChecksumHash(u.attrs.sum.Alg)
	}
	body, err := s.be.blobs.writePart(u.id, n, hr, length)
	if err != nil {
		return err
	}
	p := &part{body: body, md5: hr.md5.Sum(nil), mod: s.be.now()}
	p.etag = `"` + hex.EncodeToString(p.md5) + `"`
	if hr.sum != nil {
		p.sum = hr.sum.Sum(nil)
	}
	if err := s.be.addPart(u, n, p); err != nil {
		return err
	}
	if src.versioned {
		c.w.Header().Set("X-Amz-Copy-Source-Version-Id", wireVersion(src.obj.version))
	}
	setSSEHeaders(c.w.Header(), u.attrs)
	res := struct {
		XMLName      xml.Name `xml:"CopyPartResult"`
		Xmlns        string   `xml:"xmlns,attr"`
		LastModified string
		ETag         string
		checksumsXML
	}{Xmlns: s3ns, LastModified: xmlTime(p.mod), ETag: p.etag}
	if p.sum != nil {
		res.set(u.attrs.sum.Alg, base64.StdEncoding.EncodeToString(p.sum))
	}
	writeXML(c.w, res)
	return nil
}

// copyRange reads x-amz-copy-source-range ("bytes=a-b", inside the
// source); "" is the whole source. One that does not parse is 400
// InvalidArgument, one past the source 416 InvalidRange.
func copyRange(v string, size int64) (start, length int64, err error) {
	if v == "" {
		return 0, size, nil
	}
	spec, ok := strings.CutPrefix(v, "bytes=")
	first, last, ok2 := strings.Cut(spec, "-")
	a, aerr := strconv.ParseInt(first, 10, 64)
	b, berr := strconv.ParseInt(last, 10, 64)
	if !ok || !ok2 || aerr != nil || berr != nil || a < 0 || b < a {
		return 0, 0, errInvalidArgument("The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy")
	}
	if b >= size {
		return 0, 0, errorf(http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable")
	}
	return a, b - a + 1, nil
}
