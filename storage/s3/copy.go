package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/objbench/objbench/storage"
)

var (
	_ storage.Copier     = (*Store)(nil)
	_ storage.PartCopier = (*Store)(nil)
)

const (
	hCopySource      = "X-Amz-Copy-Source"
	hCopySourceRange = "X-Amz-Copy-Source-Range"
)

// copyResult is CopyObjectResult or CopyPartResult, or an <Error> sent
// in a 200 (S3 answers before the copy is done).
type copyResult struct {
	XMLName      xml.Name
	ETag         string    `xml:"ETag"`
	LastModified time.Time `xml:"LastModified"`
	xmlError
}

// CopyObject copies src to dst on the target (PUT with x-amz-copy-source).
func (s *Store) CopyObject(ctx context.Context, src, dst string, o storage.CopyOptions) (storage.ObjectInfo, error) {
	if err := errors.Join(keyErr(src), keyErr(dst)); err != nil {
		return storage.ObjectInfo{}, opError("copy", dst, err)
	}
	if o.Range != nil {
		return storage.ObjectInfo{}, opError("copy", dst, errors.New("s3: a byte range is copied into a part (UploadPartCopy), not an object"))
	}
	req := s.newRequest(ctx, http.MethodPut, dst, "")
	if err := s.setCopySource(req.Header, src, &o); err != nil {
		return storage.ObjectInfo{}, opError("copy", dst, err)
	}
	d := o.Dest
	if err := setObjectHeaders(req.Header, &d); err != nil {
		return storage.ObjectInfo{}, opError("copy", dst, err)
	}
	if d.Metadata != nil {
		req.Header["X-Amz-Metadata-Directive"] = []string{"REPLACE"}
	}
	if d.Tagging != "" {
		req.Header["X-Amz-Tagging-Directive"] = []string{"REPLACE"}
	}
	// The answer is not checked for the copy's encryption: MinIO does not
	// repeat an SSE-C copy's headers (S3 does).
	res, h, err := s.copyRequest(req, o.Trace, "CopyObjectResult")
	if err != nil {
		return storage.ObjectInfo{}, opError("copy", dst, err)
	}
	return storage.ObjectInfo{Key: dst, ETag: unquote(res.ETag), ModTime: res.LastModified,
		VersionID: headerValue(h, "X-Amz-Version-Id")}, nil
}

// UploadPartCopy makes part n of an upload from src, or o.Range of it.
func (s *Store) UploadPartCopy(ctx context.Context, key, uploadID string, n int, src string, o storage.CopyOptions) (storage.Part, error) {
	if err := errors.Join(keyErr(key), keyErr(src)); err != nil {
		return storage.Part{}, opError("upload-part-copy", key, err)
	}
	q := "partNumber=" + strconv.Itoa(n) + "&uploadId=" + url.QueryEscape(uploadID)
	req := s.newRequest(ctx, http.MethodPut, key, q)
	if err := s.setCopySource(req.Header, src, &o); err != nil {
		return storage.Part{}, opError("upload-part-copy", key, err)
	}
	if err := setEncryption(req.Header, o.Dest.Encryption, false); err != nil {
		return storage.Part{}, opError("upload-part-copy", key, err)
	}
	var size int64
	if o.Range != nil {
		if o.Range.Offset < 0 || o.Range.Length <= 0 {
			return storage.Part{}, opError("upload-part-copy", key, errors.New("s3: a part copy's range needs an offset >= 0 and a length > 0"))
		}
		v, _ := rangeHeader(o.Range)
		req.Header[hCopySourceRange] = []string{v}
		size = o.Range.Length
	}
	res, _, err := s.copyRequest(req, o.Trace, "CopyPartResult")
	if err != nil {
		return storage.Part{}, opError("upload-part-copy", key, err)
	}
	return storage.Part{Number: n, ETag: unquote(res.ETag), Size: size}, nil
}

// setCopySource names the source: /bucket/key[?versionId=], its key
// encoded as in a path, and its SSE-C key.
func (s *Store) setCopySource(h http.Header, src string, o *storage.CopyOptions) error {
	bucket := o.SourceBucket
	if bucket == "" {
		bucket = s.bucket
	}
	v := escapePath("/"+bucket+"/", src)
	if o.SourceVersionID != "" {
		v += "?" + versionQuery(o.SourceVersionID)
	}
	h[hCopySource] = []string{v}
	if e := o.SourceEncryption; e != nil && e.Mode == storage.SSEC {
		tmp := http.Header{}
		if err := setEncryption(tmp, e, false); err != nil {
			return err
		}
		for k, vs := range tmp { // the same three headers, for the source
			h["X-Amz-Copy-Source-"+k[len("X-Amz-"):]] = vs
		}
	}
	return nil
}

// copyRequest sends a copy and reads its result, whose root element must
// be want: a target that does not implement the copy may answer 200
// without one (or store an empty object or part).
func (s *Store) copyRequest(req *http.Request, tr *storage.Trace, want string) (copyResult, http.Header, error) {
	resp, err := s.do(req, tr)
	if err != nil {
		return copyResult{}, nil, err
	}
	status, h := resp.StatusCode, resp.Header
	var out copyResult
	err = s.decodeXML(resp, &out)
	received(tr)
	switch {
	case err == nil && out.XMLName.Local == "Error":
		se := &storage.StatusError{StatusCode: status, Code: out.Code, Message: s.redact(req.Context(), out.Message)}
		se.Err = sentinel(status, se.Code)
		return copyResult{}, h, se
	case err != nil || out.XMLName.Local != want:
		return copyResult{}, h, fmt.Errorf("%w: the target answered a copy without a %s", storage.ErrNotImplemented, want)
	}
	return out, h, nil
}
