package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/objbench/objbench/storage"
)

// Put uploads size bytes of body as key in one PUT request.
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if key == "" {
		return storage.ObjectInfo{}, opError("put", key, errEmptyKey)
	}
	req := s.newRequest(ctx, http.MethodPut, key, "")
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		setConditions(req.Header, o.IfNoneMatch, o.IfMatch)
	}
	up, err := s.setUpload(req, body, size, o)
	if err != nil {
		return storage.ObjectInfo{}, opError("put", key, err)
	}
	resp, err := s.do(req, o.Trace)
	if err != nil {
		return storage.ObjectInfo{}, opError("put", key, err)
	}
	info := storage.ObjectInfo{Key: key, Size: size, ETag: etag(resp.Header), ModTime: lastModified(resp.Header)}
	err = up.check(resp.Header)
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
	if key == "" {
		return 0, opError("get", key, errEmptyKey)
	}
	req := s.newRequest(ctx, http.MethodGet, key, "")
	if o.Range != nil {
		v, err := rangeHeader(o.Range)
		if err != nil {
			return 0, opError("get", key, err)
		}
		req.Header["Range"] = []string{v}
	}
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		setConditions(req.Header, o.IfNoneMatch, o.IfMatch)
	}
	if o.VerifyChecksum {
		if o.Range != nil {
			return 0, opError("get", key, errRangeChecksum)
		}
		req.Header["X-Amz-Checksum-Mode"] = checksumModeEnabled
	}
	resp, err := s.do(req, o.Trace)
	if err != nil {
		return 0, opError("get", key, err)
	}
	if o.Range != nil && resp.StatusCode != http.StatusPartialContent {
		// A server or gateway that ignores Range sends the whole object;
		// counting that as a ranged read would misreport what was measured.
		s.release(resp)
		return 0, opError("get", key, &storage.StatusError{StatusCode: resp.StatusCode, Code: "RangeIgnored",
			Message: "asked for a range, got the whole object"})
	}
	if err := ignoredCondition(resp.Header, o.IfNoneMatch, o.IfMatch); err != nil {
		s.release(resp)
		return 0, opError("get", key, err)
	}
	var n int64
	if o.VerifyChecksum {
		n, err = s.copyVerified(w, resp)
	} else {
		n, err = s.copyBody(w, resp.Body, resp.ContentLength)
	}
	s.release(resp)
	received(o.Trace)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return n, opError("get", key, err)
	}
	return n, nil
}

// Stat is a HEAD request.
func (s *Store) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	if key == "" {
		return storage.ObjectInfo{}, opError("stat", key, errEmptyKey)
	}
	resp, err := s.do(s.newRequest(ctx, http.MethodHead, key, ""), nil)
	if err != nil {
		return storage.ObjectInfo{}, opError("stat", key, err)
	}
	info := storage.ObjectInfo{Key: key, Size: resp.ContentLength, ETag: etag(resp.Header), ModTime: lastModified(resp.Header)}
	s.release(resp)
	return info, nil
}

// Delete removes key; a missing key is not an error, a missing bucket is.
func (s *Store) Delete(ctx context.Context, key string) error {
	if key == "" {
		return opError("delete", key, errEmptyKey)
	}
	resp, err := s.do(s.newRequest(ctx, http.MethodDelete, key, ""), nil)
	if err != nil {
		var se *storage.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusNotFound && se.Code != "NoSuchBucket" {
			return nil
		}
		return opError("delete", key, err)
	}
	s.release(resp)
	return nil
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
