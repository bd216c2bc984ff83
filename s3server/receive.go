package s3server

import (
	"crypto/md5"
	"encoding/base64"
	"hash"
	"io"
	"net/http"
	"slices"
)

// received is a request body as stored: its blob, MD5 (the ETag) and
// flexible checksum.
type received struct {
	body blob
	md5  []byte
	alg  string // the checksum's algorithm, "" for none
	sum  []byte // its raw value
}

// receive stores a request's body through store, hashing it on the way:
// MD5 for the ETag, and the flexible checksum the request names. Nothing
// is kept unless the body is exactly as long as announced and matches
// Content-MD5 and the checksum (a header, or an aws-chunked trailer read
// after the body); a body that fails is released and BadDigest,
// IncompleteBody or InvalidRequest returned.
func (s *service) receive(c *call, store func(r io.Reader, size int64) (blob, error)) (received, error) {
	return s.receiveWith(c, "", store)
}

// receiveWith is receive computing the checksum alg (if the request names
// none: an upload's parts have the upload's algorithm).
func (s *service) receiveWith(c *call, alg string, store func(r io.Reader, size int64) (blob, error)) (received, error) {
	h := c.r.Header
	size := c.r.ContentLength // -1 for a body in HTTP chunks: read to its end
	if size < 0 && !slices.Contains(c.r.TransferEncoding, "chunked") {
		return received{}, errorf(http.StatusLengthRequired, "MissingContentLength", "You must provide the Content-Length HTTP header.")
	}
	var wantMD5 []byte
	if v, ok := h["Content-Md5"]; ok {
		b, err := base64.StdEncoding.DecodeString(v[0])
		if err != nil || len(b) != md5.Size {
			return received{}, errorf(http.StatusBadRequest, "InvalidDigest", "The Content-MD5 you specified is not valid.")
		}
		wantMD5 = b
	}
	named, sent, err := requestChecksum(h)
	if err != nil {
		return received{}, err
	}
	if named != "" {
		alg = named
	}
	hr := &hashReader{r: c.r.Body, md5: md5.New()}
	if alg != "" {
		hr.sum = newChecksumHash(alg)
	}
	body, err := store(hr, size)
	if err != nil {
		return received{}, err
	}
	out := received{body: body, alg: alg}
	if err := hr.end(); err != nil {
		return received{}, s.release(body, err)
	}
	out.md5 = hr.md5.Sum(nil)
	if wantMD5 != nil && string(wantMD5) != string(out.md5) {
		return received{}, s.release(body, errBadDigest("The Content-MD5 you specified did not match what we received."))
	}
	if hr.sum != nil {
		out.sum = hr.sum.Sum(nil)
		if _, trailed := h["X-Amz-Trailer"]; trailed && c.chunked != nil {
			sent = c.chunked.trailers.Get(checksumHeader(alg))
		}
		if sent != "" || h.Get("X-Amz-Trailer") != "" {
			if err := checkSum(alg, sent, out.sum); err != nil {
				return received{}, s.release(body, err)
			}
		}
	}
	return out, nil
}

// release drops a body that was not kept and returns why.
func (s *service) release(b blob, err error) error {
	s.be.blobs.releaseBlob(b)
	return err
}

// hashReader hashes what is read through it.
type hashReader struct {
	r   io.Reader
	md5 hash.Hash
	sum hash.Hash // nil: no checksum
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.md5.Write(p[:n])
		if h.sum != nil {
			h.sum.Write(p[:n])
		}
	}
	return n, err
}

// end reads to the body's end, which must come now: for an aws-chunked
// body this reads the final chunk and the trailers; a body longer than it
// said is refused. It is also where a signed payload's hash is checked.
func (h *hashReader) end() error {
	var one [1]byte
	for {
		n, err := h.r.Read(one[:])
		if n > 0 {
			return errInvalidRequest("the body is longer than its declared length")
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return asS3Err(err)
		}
	}
}
