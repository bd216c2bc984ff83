package s3

import (
	"context"
	"net/http"
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
