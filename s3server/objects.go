package s3server

import (
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// getObject serves GetObject and HeadObject: a version (the current one,
// or ?versionId), its conditions, a range or a part, and the body. The
// body is opened under the bucket lock, so a concurrent replace cannot
// release it first.
func (s *service) getObject(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	if err := s.checksumFirst(c, bk); err != nil {
		return err
	}
	var body io.ReadCloser
	var obj *object
	var rng byteRange
	bk.mu.RLock()
	versioned := bk.versioning != ""
	obj, err = s.readable(c, bk, c.key, c.query("versionId"))
	if err == nil {
		rng, err = s.prepareRead(c, obj)
	}
	if err == nil && c.r.Method == http.MethodGet {
		body, err = obj.body.open(rng.start, rng.length)
	}
	bk.mu.RUnlock()
	if err != nil {
		return err
	}
	setObjectHeaders(c, obj, versioned)
	h := c.w.Header()
	h["Content-Length"] = []string{strconv.FormatInt(rng.length, 10)}
	if rng.partial {
		h["Content-Range"] = []string{"bytes " + strconv.FormatInt(rng.start, 10) + "-" +
			strconv.FormatInt(rng.start+rng.length-1, 10) + "/" + strconv.FormatInt(obj.size, 10)}
	}
	if v, ok := c.r.Header["X-Amz-Checksum-Mode"]; ok && strings.EqualFold(v[0], "ENABLED") {
		switch sum := obj.attrs.sum; {
		case rng.part > 0 && len(obj.parts) > 0: // a part: its own checksum
			if rng.part <= len(obj.attrs.partSums) {
				setChecksumHeaders(h, checksum{Alg: sum.Alg, Value: obj.attrs.partSums[rng.part-1], Type: sum.Type})
			}
		case !rng.partial:
			setChecksumHeaders(h, sum)
		}
	}
	setSSEHeaders(h, obj.attrs)
	status := http.StatusOK
	if rng.partial {
		status = http.StatusPartialContent
	}
	c.w.WriteHeader(status)
	if body == nil {
		return nil
	}
	defer body.Close()
	_, _ = io.Copy(c.w, body) // a client gone mid-body: nothing left to tell it
	return nil
}

// checksumFirst gives the object a read asks the checksum of (checksum
// mode, the whole object) S3's default checksum if it has none yet.
func (s *service) checksumFirst(c *call, bk *bucket) error {
	if v, ok := c.r.Header["X-Amz-Checksum-Mode"]; !ok || !strings.EqualFold(v[0], "ENABLED") || c.query("partNumber") != "" {
		return nil
	}
	if _, ok := c.r.Header["Range"]; ok {
		return nil
	}
	bk.mu.RLock()
	obj, err := s.readable(c, bk, c.key, c.query("versionId"))
	if err == nil {
		err = checkSSEKey(c.r.Header, obj.attrs, false)
	}
	bk.mu.RUnlock()
	if err != nil || obj.attrs.sum.Alg != "" {
		return nil // the read itself answers the error
	}
	_, err = s.defaultChecksum(bk, obj)
	return err
}

// readable finds the version a read asks for: the current one, or id. A
// deleted key is 404 with x-amz-delete-marker; a delete marker asked for by
// id is 405, as S3 answers. The caller holds bk.mu.
func (s *service) readable(c *call, bk *bucket, key, id string) (*object, error) {
	if id == "" {
		obj := bk.current(key)
		if obj == nil {
			return nil, errNoSuchKey()
		}
		if obj.marker {
			e := errNoSuchKey()
			e.header = map[string]string{"X-Amz-Delete-Marker": "true", "X-Amz-Version-Id": wireVersion(obj.version)}
			return nil, e
		}
		return obj, nil
	}
	obj := bk.find(key, id)
	switch {
	case obj == nil && !validVersionID(id):
		return nil, errInvalidArgument("Invalid version id specified")
	case obj == nil:
		return nil, errNoSuchVersion()
	case obj.marker:
		e := errMethodNotAllowed()
		e.header = map[string]string{"X-Amz-Delete-Marker": "true", "Last-Modified": obj.lastMod,
			"X-Amz-Version-Id": wireVersion(obj.version)}
		return nil, e
	}
	return obj, nil
}

// validVersionID: "null" or an id this server could have made.
func validVersionID(id string) bool {
	if id == "null" {
		return true
	}
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// prepareRead checks what a read of obj asks: the key it was encrypted
// with, its conditions, a range or a part.
func (s *service) prepareRead(c *call, obj *object) (byteRange, error) {
	if err := checkSSEKey(c.r.Header, obj.attrs, false); err != nil {
		return byteRange{}, err
	}
	if err := readConditions(c.r.Header, obj); err != nil {
		return byteRange{}, err
	}
	if pn := c.query("partNumber"); pn != "" {
		if _, ok := c.r.Header["Range"]; ok {
			return byteRange{}, errInvalidRequest("Cannot specify both Range header and partNumber query parameter")
		}
		return partRange(obj, pn)
	}
	return parseRange(c.r.Header.Get("Range"), obj.size)
}

// byteRange is the part of an object a read returns.
type byteRange struct {
	start, length int64
	partial       bool // 206 with Content-Range
	part          int  // the part asked for, if any
}

// parseRange reads a Range header as S3 does: one range, "bytes=a-b",
// "bytes=a-" or "bytes=-n"; a header it cannot read is ignored (the whole
// object), one that selects nothing is 416 InvalidRange.
func parseRange(v string, size int64) (byteRange, error) {
	whole := byteRange{length: size}
	spec, ok := strings.CutPrefix(v, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return whole, nil
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return whole, nil
	}
	a, aerr := strconv.ParseInt(first, 10, 64)
	b, berr := strconv.ParseInt(last, 10, 64)
	var start, end int64
	switch {
	case first == "" && berr == nil && b >= 0: // the last b bytes
		if b == 0 {
			return whole, invalidRange(size)
		}
		start, end = max(size-b, 0), size-1
	case aerr == nil && last == "" && a >= 0:
		start, end = a, size-1
	case aerr == nil && berr == nil && a >= 0 && b >= a:
		start, end = a, min(b, size-1)
	default:
		return whole, nil
	}
	if start >= size {
		return whole, invalidRange(size)
	}
	return byteRange{start: start, length: end - start + 1, partial: true}, nil
}

func invalidRange(size int64) error {
	e := errorf(http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable")
	e.header = map[string]string{"Content-Range": "bytes */" + strconv.FormatInt(size, 10)}
	return e
}

// partRange is the range of part pn of obj (?partNumber=): an object not
// uploaded in parts is one part.
func partRange(obj *object, pn string) (byteRange, error) {
	n, err := strconv.Atoi(pn)
	if err != nil || n < 1 || n > 10000 {
		return byteRange{}, errInvalidArgument("Part number must be an integer between 1 and 10000, inclusive")
	}
	parts := obj.parts
	if len(parts) == 0 {
		parts = []int64{obj.size}
	}
	if n > len(parts) { // S3's 416 InvalidPartNumber (RGW answers 400 InvalidPart)
		return byteRange{}, errorf(http.StatusRequestedRangeNotSatisfiable, "InvalidPartNumber", "The requested partnumber is not satisfiable")
	}
	var start int64
	for _, p := range parts[:n-1] {
		start += p
	}
	return byteRange{start: start, length: parts[n-1], partial: len(obj.parts) > 0, part: n}, nil
}

// putObject stores a body (or copies an object: x-amz-copy-source) as its
// key's new version, under the request's conditions.
func (s *service) putObject(c *call) error {
	if _, ok := c.r.Header["X-Amz-Copy-Source"]; ok {
		return s.copyObject(c)
	}
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	if err := checkKey(c.key); err != nil {
		return err
	}
	a, err := attrsFromRequest(c.r.Header)
	if err != nil {
		return err
	}
	cond, err := parseWriteConditions(c.r.Header)
	if err != nil {
		return err
	}
	if !cond.none() { // fail before reading a body that cannot be kept
		bk.mu.RLock()
		err = cond.check(bk.current(c.key))
		bk.mu.RUnlock()
		if err != nil {
			return err
		}
	}
	got, err := s.receive(c, func(r io.Reader, size int64) (blob, error) { return s.be.blobs.write(c.bucket, r, size) })
	if err != nil {
		return err
	}
	if got.alg != "" {
		a.sum = checksum{Alg: got.alg, Value: base64.StdEncoding.EncodeToString(got.sum), Type: fullObject}
	}
	obj := newObject(c.key, got.body, got.md5, nil, a, s.be.now())
	if err := s.be.publish(bk, obj, cond.atPublish()); err != nil {
		return err
	}
	h := c.w.Header()
	h["Etag"] = []string{obj.etag}
	if obj.version != "" {
		h["X-Amz-Version-Id"] = []string{obj.version}
	}
	if got.alg != "" {
		h[checksumHeader(got.alg)] = []string{a.sum.Value}
		h["X-Amz-Checksum-Type"] = []string{fullObject}
	}
	setSSEHeaders(h, a)
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// checkKey applies S3's limit on key length.
func checkKey(key string) error {
	if len(key) > 1024 {
		return errorf(http.StatusBadRequest, "KeyTooLongError", "Your key is too long")
	}
	return nil
}

// deleteObject serves DeleteObject.
func (s *service) deleteObject(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	res, err := s.be.deleteOne(bk, c.key, c.query("versionId"), c.r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	h := c.w.Header()
	if res.marker {
		h["X-Amz-Delete-Marker"] = []string{"true"}
	}
	if res.version != "" {
		h["X-Amz-Version-Id"] = []string{res.version}
	}
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}
