package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/objbench/objbench/storage"
)

var errEmptyKey = errors.New("s3: empty object key")

// keyErr refuses a key no request may carry: the empty key, and a key that
// path normalisation could turn into another (storage.CheckKeyPath).
func keyErr(key string) error {
	if key == "" {
		return errEmptyKey
	}
	return storage.CheckKeyPath(key)
}

// newRequest builds a request for key ("" = the bucket itself) without
// parsing a URL: it copies the prebuilt base and sets the path.
func (s *Store) newRequest(ctx context.Context, method, key, rawQuery string) *http.Request {
	u := s.base
	if key == "" {
		u.Path = s.bucketPath
	} else {
		u.Path = s.pathPrefix + key
		if !pathSafe(key) {
			// net/http sends RawPath as is (it is a valid encoding of Path)
			// and the signer signs it: S3 style, so servers that re-encode
			// the decoded key to check the signature get the same bytes.
			u.RawPath = escapePath(s.pathPrefix, key)
		}
	}
	u.RawQuery = rawQuery
	r := http.Request{
		Method:     method,
		URL:        &u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header, 6),
		Host:       u.Host,
	}
	return r.WithContext(ctx)
}

// unreserved reports the characters S3 leaves unescaped in a key.
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

func pathSafe(key string) bool {
	for i := 0; i < len(key); i++ {
		if !unreserved(key[i]) && key[i] != '/' {
			return false
		}
	}
	return true
}

// escapePath is prefix (already safe) + key with everything but unreserved
// characters and '/' percent-encoded.
func escapePath(prefix, key string) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(prefix)+len(key)*3)
	b = append(b, prefix...)
	for i := 0; i < len(key); i++ {
		c := key[i]
		if unreserved(c) || c == '/' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return string(b)
}

// setBody makes body the request body without net/http buffering or
// chunking it: a known length, and never closing the caller's reader.
func setBody(req *http.Request, body io.Reader, size int64) {
	req.ContentLength = size
	if size == 0 || body == nil {
		// A non-nil body with length 0 would be sent chunked.
		req.Body = http.NoBody
		return
	}
	// net/http closes the body; the caller owns it. net/http also sees
	// through NopCloser, so files still go out with sendfile.
	req.Body = io.NopCloser(body)
	if sk, ok := body.(io.Seeker); ok {
		// A seekable body can be replayed if a stale connection fails
		// before the server answered.
		start, err := sk.Seek(0, io.SeekCurrent)
		if err == nil {
			req.GetBody = func() (io.ReadCloser, error) {
				_, err := sk.Seek(start, io.SeekStart)
				return io.NopCloser(body), err
			}
		}
	}
}

// send signs and sends req. tr, if set, gets the request's phases up to
// the response's first byte (and its time); received adds the last.
func (s *Store) send(req *http.Request, tr *storage.Trace) (*http.Response, error) {
	if err := s.sign(req); err != nil {
		return nil, err
	}
	return s.roundTrip(req, tr)
}

// sign signs req now with the store's credentials, its payload unsigned
// unless the request says otherwise.
func (s *Store) sign(req *http.Request) error {
	creds, err := s.creds.Retrieve(req.Context())
	if err != nil {
		return err
	}
	if req.Header["X-Amz-Content-Sha256"] == nil {
		req.Header["X-Amz-Content-Sha256"] = s.payloadHash
	}
	s.signer.sign(req, creds, time.Now())
	return nil
}

// roundTrip sends a request as it is (signed, or presigned).
func (s *Store) roundTrip(req *http.Request, tr *storage.Trace) (*http.Response, error) {
	if tr != nil {
		tr.Phases = storage.Phases{}
	}
	s.counts.requests.Add(1)
	// The transport directly, not an http.Client: a client's redirect and
	// header-copying machinery costs ~6 allocations per op, and a redirect
	// from S3 (wrong region or endpoint) must be reported, not followed.
	resp, err := s.transport.roundTrip(req, tr)
	if err != nil {
		// As http.Client would: the method and URL make the error readable,
		// and url.Error keeps Timeout() for error classes.
		return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: err}
	}
	return resp, nil
}

// received ends tr's Receive phase: the response's last byte is in.
func received(tr *storage.Trace) {
	if tr != nil && !tr.FirstByte.IsZero() {
		tr.Phases.Receive = time.Since(tr.FirstByte)
	}
}

// do is send, with a non-2xx response turned into a *storage.StatusError
// (its body read and closed). A 2xx response is the caller's to release.
func (s *Store) do(req *http.Request, tr *storage.Trace) (*http.Response, error) {
	resp, err := s.send(req, tr)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	serr := s.statusError(req.Context(), resp)
	s.release(resp)
	return nil, serr
}

// maxDrain bounds what release reads of an unread body: past it, closing
// the connection is cheaper than reading on.
const maxDrain = 256 << 10

// release drains (bounded) and closes a response body so the connection
// goes back to the idle pool.
func (s *Store) release(resp *http.Response) {
	bp := s.smallBufs.Get().(*[]byte)
	buf := *bp
	for n := 0; n < maxDrain; {
		m, err := resp.Body.Read(buf)
		n += m
		if err != nil {
			break
		}
	}
	s.smallBufs.Put(bp)
	_ = resp.Body.Close() // a close error leaves nothing to do
}

// copyBody copies a response body of size bytes (-1: unknown) to w
// through a pooled buffer, as large as the body needs, unless w can do
// better without one (a file splices from the socket).
func (s *Store) copyBody(w io.Writer, body io.Reader, size int64) (int64, error) {
	pool := &s.bufs
	if size >= 0 && size <= smallBufSize {
		pool = &s.smallBufs
	}
	bp := pool.Get().(*[]byte)
	defer pool.Put(bp)
	if w != io.Discard {
		return io.CopyBuffer(w, body, *bp)
	}
	// io.Discard's own ReadFrom reads 8 KiB at a time; a buffer as large as
	// the connection's lets large bodies bypass its read buffer entirely.
	var n int64
	for {
		m, err := body.Read(*bp)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// rangeHeader formats r as an HTTP Range value.
func rangeHeader(r *storage.Range) (string, error) {
	if r.Offset < 0 || r.Length == 0 {
		return "", errors.New("s3: range must have offset >= 0 and length != 0 (HTTP cannot ask for 0 bytes)")
	}
	var b [48]byte
	v := append(b[:0], "bytes="...)
	v = strconv.AppendInt(v, r.Offset, 10)
	v = append(v, '-')
	if r.Length > 0 {
		v = strconv.AppendInt(v, r.Offset+r.Length-1, 10)
	}
	return string(v), nil
}
