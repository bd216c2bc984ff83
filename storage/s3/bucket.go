package s3

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"net/http"

	"github.com/objbench/objbench/storage"
)

type createBucketConfiguration struct {
	XMLName            xml.Name `xml:"CreateBucketConfiguration"`
	Xmlns              string   `xml:"xmlns,attr"`
	LocationConstraint string   `xml:"LocationConstraint"`
}

// CreateBucket creates the store's bucket in the store's region. A bucket
// the caller already owns is not an error.
func (s *Store) CreateBucket(ctx context.Context) error {
	req := s.newRequest(ctx, http.MethodPut, "", "")
	if s.region != defaultRegion {
		// us-east-1 is the one region S3 wants no constraint for.
		body, err := xml.Marshal(createBucketConfiguration{Xmlns: s3Namespace, LocationConstraint: s.region})
		if err != nil {
			return opError("create-bucket", s.bucket, err)
		}
		setBody(req, bytes.NewReader(body), int64(len(body)))
	}
	resp, err := s.do(req, nil)
	if err == nil {
		s.release(resp)
		return nil
	}
	var se *storage.StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case "BucketAlreadyOwnedByYou":
			return nil
		case "BucketAlreadyExists":
			// Servers without owners (the embedded one, some gateways) say
			// this for the caller's own bucket too: if we can reach it, it
			// is ours to use.
			if ok, herr := s.BucketExists(ctx); herr == nil && ok {
				return nil
			}
		}
	}
	return opError("create-bucket", s.bucket, err)
}

// DeleteBucket removes the store's bucket, which must be empty.
func (s *Store) DeleteBucket(ctx context.Context) error {
	resp, err := s.do(s.newRequest(ctx, http.MethodDelete, "", ""), nil)
	if err != nil {
		return opError("delete-bucket", s.bucket, err)
	}
	s.release(resp)
	return nil
}

// BucketExists asks with HEAD bucket: 200 is true, 404 false, 403 an
// ErrAccessDenied error (it may exist, but not for these credentials).
func (s *Store) BucketExists(ctx context.Context) (bool, error) {
	resp, err := s.do(s.newRequest(ctx, http.MethodHead, "", ""), nil)
	if err == nil {
		s.release(resp)
		return true, nil
	}
	var se *storage.StatusError
	if errors.As(err, &se) {
		switch se.StatusCode {
		case http.StatusNotFound:
			return false, nil
		case http.StatusForbidden:
			se.Err = storage.ErrAccessDenied
		}
	}
	return false, opError("bucket-exists", s.bucket, err)
}
