package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/objbench/objbench/storage"
)

// Put uploads size bytes of body as key in one PUT request.
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if err := keyErr(key); err != nil {
		return storage.ObjectInfo{}, opError("put", key, err)
	}
	req := s.newRequest(ctx, http.MethodPut, key, "")
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		setConditions(req.Header, o.IfNoneMatch, o.IfMatch)
	}
	if hasObjectHeaders(&o) {
		if err := setObjectHeaders(req.Header, &o); err != nil {
			return storage.ObjectInfo{}, opError("put", key, err)
		}
	}
	up, err := s.setUpload(req, body, size, o)
	if err != nil {
		return storage.ObjectInfo{}, opError("put", key, err)
	}
	resp, err := s.do(req, o.Trace)
	if err != nil {
		return storage.ObjectInfo{}, opError("put", key, up.refused(err))
	}
	info := objectInfo(key, size, resp.Header)
	err = up.check(resp.Header)
	if err == nil {
		err = confirmEncryption(resp.Header, o.Encryption)
	}
	s.release(resp)
	up.done()
	received(o.Trace)
	if err != nil {
		return info, opError("put", key, err)
	}
	return info, nil
}

// Get writes the object, or o.Range of it, to w.
func (s *Store) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	req, err := s.getRequest(ctx, key, o)
	if err != nil {
		return 0, err
	}
	resp, err := s.do(req, o.Trace)
	if err != nil {
		return 0, opError("get", key, err)
	}
	return s.readBody(resp, key, "get", o, w)
}

// getRequest is the unsigned GET of key that o asks for.
func (s *Store) getRequest(ctx context.Context, key string, o storage.GetOptions) (*http.Request, error) {
	if err := keyErr(key); err != nil {
		return nil, opError("get", key, err)
	}
	req := s.newRequest(ctx, http.MethodGet, key, versionQuery(o.VersionID))
	if o.Range != nil {
		v, err := rangeHeader(o.Range)
		if err != nil {
			return nil, opError("get", key, err)
		}
		req.Header["Range"] = []string{v}
	}
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		setConditions(req.Header, o.IfNoneMatch, o.IfMatch)
	}
	if err := setEncryption(req.Header, o.Encryption, false); err != nil {
		return nil, opError("get", key, err)
	}
	if o.VerifyChecksum {
		if o.Range != nil {
			return nil, opError("get", key, errRangeChecksum)
		}
		req.Header["X-Amz-Checksum-Mode"] = checksumModeEnabled
	}
	return req, nil
}

// readBody copies a GET's 2xx answer to w, checked against what o asked,
// and releases it.
func (s *Store) readBody(resp *http.Response, key, op string, o storage.GetOptions, w io.Writer) (int64, error) {
	if o.Range != nil && resp.StatusCode != http.StatusPartialContent {
		// A server or gateway that ignores Range sends the whole object;
		// counting that as a ranged read would misreport what was measured.
		s.release(resp)
		return 0, opError(op, key, &storage.StatusError{StatusCode: resp.StatusCode, Code: "RangeIgnored",
			Message: "asked for a range, got the whole object"})
	}
	if err := ignoredCondition(resp.Header, o.IfNoneMatch, o.IfMatch); err != nil {
		s.release(resp)
		return 0, opError(op, key, err)
	}
	var n int64
	var err error
	if o.VerifyChecksum {
		n, err = s.copyVerified(w, resp)
	} else if d, ok := resp.Body.(*directBody); ok && w == io.Discard && discardable(resp) {
		n, err = d.discard(resp.ContentLength)
	} else {
		n, err = s.copyBody(w, resp.Body, resp.ContentLength)
	}
	s.release(resp)
	received(o.Trace)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return n, opError(op, key, err)
	}
	return n, nil
}

// Stat is a HEAD request.
func (s *Store) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	return s.StatWith(ctx, key, storage.StatOptions{})
}

// StatWith is a HEAD request for a version, under conditions.
func (s *Store) StatWith(ctx context.Context, key string, o storage.StatOptions) (storage.ObjectInfo, error) {
	if err := keyErr(key); err != nil {
		return storage.ObjectInfo{}, opError("stat", key, err)
	}
	req := s.newRequest(ctx, http.MethodHead, key, versionQuery(o.VersionID))
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		setConditions(req.Header, o.IfNoneMatch, o.IfMatch)
	}
	if err := setEncryption(req.Header, o.Encryption, false); err != nil {
		return storage.ObjectInfo{}, opError("stat", key, err)
	}
	resp, err := s.do(req, o.Trace)
	if err != nil {
		return storage.ObjectInfo{}, opError("stat", key, err)
	}
	info := objectInfo(key, resp.ContentLength, resp.Header)
	if o.Details != nil {
		*o.Details = details(resp.Header)
	}
	err = ignoredCondition(resp.Header, o.IfNoneMatch, o.IfMatch)
	s.release(resp)
	received(o.Trace)
	if err != nil {
		return storage.ObjectInfo{}, opError("stat", key, err)
	}
	return info, nil
}

// Delete removes key; a missing key is not an error, a missing bucket is.
func (s *Store) Delete(ctx context.Context, key string) error {
	_, err := s.DeleteWith(ctx, key, storage.DeleteOptions{})
	return err
}

// DeleteWith removes key, or one version of it; in a versioned bucket a
// delete without a version makes a delete marker, whose version it returns.
func (s *Store) DeleteWith(ctx context.Context, key string, o storage.DeleteOptions) (storage.ObjectInfo, error) {
	if err := keyErr(key); err != nil {
		return storage.ObjectInfo{}, opError("delete", key, err)
	}
	resp, err := s.do(s.newRequest(ctx, http.MethodDelete, key, versionQuery(o.VersionID)), o.Trace)
	if err != nil {
		var se *storage.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusNotFound && se.Code != "NoSuchBucket" {
			return storage.ObjectInfo{Key: key}, nil
		}
		return storage.ObjectInfo{}, opError("delete", key, err)
	}
	info := storage.ObjectInfo{Key: key, VersionID: headerValue(resp.Header, "X-Amz-Version-Id"),
		DeleteMarker: headerValue(resp.Header, "X-Amz-Delete-Marker") == "true"}
	s.release(resp)
	received(o.Trace)
	return info, nil
}

// versionQuery is the query naming a version ("" for none).
func versionQuery(v string) string {
	if v == "" {
		return ""
	}
	return "versionId=" + url.QueryEscape(v)
}

// objectInfo is what a response's headers say of key.
func objectInfo(key string, size int64, h http.Header) storage.ObjectInfo {
	return storage.ObjectInfo{Key: key, Size: size, ETag: etag(h), ModTime: lastModified(h),
		VersionID: headerValue(h, "X-Amz-Version-Id"), DeleteMarker: headerValue(h, "X-Amz-Delete-Marker") == "true"}
}

// headerValue is h's first value for an already canonical name, without
// Get's canonicalisation.
func headerValue(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// etag is the ETag header without its quotes, the form every store reports.
func etag(h http.Header) string {
	return unquote(h.Get("Etag"))
}

func unquote(etag string) string {
	if len(etag) >= 2 && etag[0] == '"' && etag[len(etag)-1] == '"' {
		return etag[1 : len(etag)-1]
	}
	return etag
}

// lastModified is the Last-Modified header, zero if absent (S3 sends none
// on PUT).
func lastModified(h http.Header) time.Time {
	v := h.Get("Last-Modified")
	if v == "" {
		return time.Time{}
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}
	}
	return t
}
