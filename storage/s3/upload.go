package s3

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/objbench/objbench/storage"
)

// upload is an upload request's body as set up by setUpload, and what to
// check of the answer.
type upload struct {
	k       *checksumKind // nil: no checksum
	sent    string        // the checksum sent in a header
	chunked *awsChunked   // the body, when the checksum is a trailer
}

// setUpload makes body the request's body with o's checksum, if any:
// computed first and sent in a header, or framed aws-chunked with the
// checksum as a trailer.
func (s *Store) setUpload(req *http.Request, body io.Reader, size int64, o storage.PutOptions) (upload, error) {
	if o.Checksum == "" {
		setBody(req, body, size)
		return upload{}, nil
	}
	k, err := s.checksums.kind(o.Checksum)
	if err != nil {
		return upload{}, err
	}
	if !o.ChecksumTrailer {
		v, err := s.hashBody(k, body, size)
		if err != nil {
			return upload{}, err
		}
		req.Header[k.header] = []string{v}
		setBody(req, body, size)
		return upload{k: k, sent: v}, nil
	}
	if k.trailer == "" {
		return upload{}, errMD5Trailer
	}
	c := newAWSChunked(body, size, k, &s.bufs)
	h := req.Header
	h["X-Amz-Content-Sha256"] = []string{streamingTrailer}
	h["Content-Encoding"] = []string{"aws-chunked"}
	h["X-Amz-Decoded-Content-Length"] = []string{strconv.FormatInt(size, 10)}
	h["X-Amz-Trailer"] = []string{k.trailer}
	req.ContentLength = c.encodedLen()
	req.Body = io.NopCloser(c)
	if c.seek >= 0 {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(c), c.rewind() }
	}
	return upload{k: k, chunked: c}, nil
}

// check confirms the target took the checksum (nil without one).
func (u upload) check(h http.Header) error {
	if u.k == nil {
		return nil
	}
	sent := u.sent
	if u.chunked != nil {
		sent = u.chunked.value
	}
	return confirmed(u.k, h, sent)
}

// refused says what a refusal of the upload means. Quirk (Ceph RGW 16):
// a store that does not know aws-chunked uploads with a trailing checksum
// takes STREAMING-UNSIGNED-PAYLOAD-TRAILER for a SHA-256 of the body and
// answers XAmzContentSHA256Mismatch. No body was compared with anything,
// so it is not a checksum error (the store would say BadDigest or
// XAmzContentChecksumMismatch of a trailer it read): the store lacks the
// feature.
func (u upload) refused(err error) error {
	var se *storage.StatusError
	if u.chunked != nil && errors.As(err, &se) && se.Code == "XAmzContentSHA256Mismatch" {
		return fmt.Errorf("%w: the target does not take aws-chunked uploads with a trailing checksum (%s): it answered http %d %s",
			storage.ErrNotImplemented, streamingTrailer, se.StatusCode, se.Code)
	}
	return err
}

// done releases what the upload held, once the target has answered
// success (it read the whole body; after a failure net/http's writer may
// still be sending it, so nothing goes back to a pool then).
func (u upload) done() {
	if u.chunked != nil {
		u.chunked.release()
	}
}
