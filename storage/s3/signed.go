package s3

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
)

// SignedRequest returns a request for method on key (the bucket when key
// is ""), signed now as the store signs its own. It stays valid for the
// store's allowed clock skew (15 minutes on S3): tools that replay one raw
// request many times, such as bench/floor's hand-written loop, use it.
func (s *Store) SignedRequest(ctx context.Context, method, key string) (*http.Request, error) {
	req := s.newRequest(ctx, method, key, "")
	if err := s.sign(req); err != nil {
		return nil, err
	}
	return req, nil
}

// Reply is a store's whole answer to one Exchange: status, headers and
// the body (at most maxReplyBody bytes).
type Reply struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

const maxReplyBody = 1 << 20

// Exchange sends one signed request of method on key (the bucket when key
// is "") with the raw query, extra headers and body, and returns the
// answer whatever its status: for tools that ask a store what it
// supports (objbench probe), where a refusal is the finding, not an
// error. Only a failure to get an answer is an error.
func (s *Store) Exchange(ctx context.Context, method, key, rawQuery string, header http.Header, body []byte) (Reply, error) {
	req := s.newRequest(ctx, method, key, rawQuery)
	for k, v := range header {
		req.Header[http.CanonicalHeaderKey(k)] = v
	}
	setBody(req, bytes.NewReader(body), int64(len(body)))
	resp, err := s.send(req, nil)
	if err != nil {
		return Reply{}, opError(strings.ToLower(method), key, err)
	}
	defer s.release(resp)
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBody))
	if err != nil {
		return Reply{}, opError(strings.ToLower(method), key, err)
	}
	return Reply{StatusCode: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
